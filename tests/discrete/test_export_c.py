"""Generated C equals the Python implementation to 1e-12 over a long random input sequence.

Skipped (with the reason) when no C compiler is installed."""

import shutil
import subprocess

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler (cc/gcc/clang) on PATH: "
                                "install one to check the generated C against Python")
N = 20_000

# name: (params in struct order, number of inputs per step, python reference)
PSMC = dict(F=20.0, H=0.2, K=1600.0, B=80.0, L=16000.0, T=1e-3)


def _python_psmc(inputs):
    params = ss.control.PSMCParams(**PSMC)

    def body(state, x):
        f, state = ss.control.psmc_step(state, x[0], x[1], params)
        return state, f
    _, fs = jax.lax.scan(body, params.init_state(inputs[0, 0], inputs[0, 1]), inputs)
    return np.asarray(fs)[:, None]


def _python_coulomb(inputs, M=2.0, F=1.5, T=1e-3):
    def body(carry, h):
        p, v = carry
        v, f = ss.discrete.coulomb_mass_step(v, h, M, F, T)
        p = p + T * v
        return (p, v), jnp.stack([f, v, p])
    _, out = jax.lax.scan(body, (jnp.asarray(0.0), jnp.asarray(0.0)), inputs[:, 0])
    return np.asarray(out)


def _python_da(inputs, F=2.0, K=1e4, B=50.0, T=1e-3):
    def body(e, v):
        f, e = ss.discrete.da_relaxation_step(e, v, F, K, B, T)
        return e, jnp.stack([f, e])
    _, out = jax.lax.scan(body, jnp.asarray(0.0), inputs[:, 0])
    return np.asarray(out)


def _python_sign(inputs, T=1e-3):
    def body(x, u):
        x = ss.discrete.sign_inclusion_step(x, u, T)
        return x, x[None]
    _, out = jax.lax.scan(body, jnp.asarray(0.0), inputs[:, 0])
    return np.asarray(out)


CASES = {
    "psmc": ("{20.0, 0.2, 1600.0, 80.0, 16000.0, 1e-3}", 2,
             'printf("%.17g\\n", stickslip_psmc_step(&s, &prm, x[0], x[1]));', _python_psmc),
    "coulomb_mass": ("{2.0, 1.5, 1e-3}", 1,
                     'f = stickslip_coulomb_mass_step(&s, &prm, x[0]);\n'
                     '        printf("%.17g %.17g %.17g\\n", f, s.v, s.p);', _python_coulomb),
    "da_relaxation": ("{2.0, 1e4, 50.0, 1e-3}", 1,
                      'f = stickslip_da_relaxation_step(&s, &prm, x[0]);\n'
                      '        printf("%.17g %.17g\\n", f, s.e);', _python_da),
    "sign_inclusion": ("{1e-3}", 1,
                       'printf("%.17g\\n", stickslip_sign_inclusion_step(&s, &prm, x[0]));',
                       _python_sign),
}


def _inputs(name, rng):
    if name == "psmc":          # slow reference steps and a noisy, lagging measurement
        ref = np.repeat(rng.uniform(-0.5, 0.5, N // 500), 500)
        meas = np.convolve(ref, np.ones(200) / 200, mode="same") + 1e-4 * rng.normal(size=N)
        return np.stack([ref, meas], axis=1)
    if name == "coulomb_mass":  # forces around the friction level: stick and slip
        return rng.normal(0.0, 2.0, size=(N, 1))
    if name == "da_relaxation":
        return np.sin(np.arange(N) * 2e-3)[:, None] + 0.05 * rng.normal(size=(N, 1))
    return rng.uniform(-2.0, 2.0, size=(N, 1))


@needs_cc
@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_c_matches_python(name, tmp_path):
    params, n_in, emit, reference = CASES[name]
    header, source = ss.discrete.export_c(name, tmp_path)
    assert header.exists() and source.exists()
    driver = tmp_path / "driver.c"
    reads = " ".join(["%lf"] * n_in)
    args = ", ".join(f"&x[{i}]" for i in range(n_in))
    driver.write_text(f"""#include <stdio.h>
#include "stickslip_{name}.h"
int main(void) {{
    stickslip_{name}_params prm = {params};
    stickslip_{name}_state s;
    double x[2], f;
    (void)f;
    if (stickslip_{name}_check(&prm) != 0) return 3;
    stickslip_{name}_init(&s);
    while (scanf("{reads}", {args}) == {n_in}) {{
        {emit}
    }}
    return 0;
}}
""")
    exe = tmp_path / "driver"
    subprocess.run([CC, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic",
                    str(source), str(driver), "-o", str(exe)], check=True)
    inputs = _inputs(name, np.random.default_rng(5))
    text = "\n".join(" ".join(repr(float(v)) for v in row) for row in inputs)
    run = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True)
    got = np.loadtxt(run.stdout.splitlines(), ndmin=2)
    expected = reference(jnp.asarray(inputs))
    assert got.shape == expected.shape
    scale = np.maximum(1.0, np.abs(expected))
    assert np.max(np.abs(got - expected) / scale) <= 1e-12


def test_export_c_of_a_configured_object_writes_its_parameters(tmp_path):
    ctrl = ss.control.PSMC(**PSMC)
    header, _ = ss.discrete.export_c(ctrl, tmp_path / "psmc.c")
    text = header.read_text()
    assert "STICKSLIP_PSMC_DEFAULT_PARAMS {20.0, 0.2, 1600.0, 80.0, 16000.0, 0.001}" in text
    assert "typedef struct" in text and "double H;  /* sliding-surface time constant" in text


@needs_cc
def test_generated_c_rejects_nonfinite_input_and_bad_parameters(tmp_path):
    ss.discrete.export_c("psmc", tmp_path)
    driver = tmp_path / "driver.c"
    driver.write_text("""#include <stdio.h>
#include <math.h>
#include "stickslip_psmc.h"
int main(void) {
    stickslip_psmc_params prm = {20.0, 0.2, 1600.0, 80.0, 16000.0, 1e-3};
    stickslip_psmc_params bad = {20.0, 0.2, -1.0, 80.0, 16000.0, 1e-3};
    stickslip_psmc_state s;
    double f;
    stickslip_psmc_init(&s);
    f = stickslip_psmc_step(&s, &prm, 0.0, NAN);
    printf("%g %lu %d %d\\n", f, s.faults, stickslip_psmc_check(&prm), stickslip_psmc_check(&bad));
    return 0;
}
""")
    exe = tmp_path / "driver"
    subprocess.run([CC, "-std=c99", str(tmp_path / "stickslip_psmc.c"), str(driver), "-o",
                    str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["0", "1", "0", "5"]


def test_export_c_rejects_unknown_algorithms(tmp_path):
    with pytest.raises(ss.ParameterError, match="unknown algorithm 'lugre'"):
        ss.discrete.export_c("lugre", tmp_path)
    with pytest.raises(ss.ParameterError, match="cannot export"):
        ss.discrete.export_c(3.0, tmp_path)


def test_export_c_accepts_step_functions_and_configured_wrappers(tmp_path):
    h, _ = ss.discrete.export_c(ss.discrete.coulomb_mass_step, tmp_path / "a")
    assert h.name == "stickslip_coulomb_mass.h"
    h, _ = ss.discrete.export_c(ss.control.psmc_step, tmp_path / "b")
    assert h.name == "stickslip_psmc.h"
    h, _ = ss.discrete.export_c(ss.discrete.DARelaxation(F=2.0, K=1e4, B=50.0, T=1e-3),
                                tmp_path / "c")
    assert "STICKSLIP_DA_RELAXATION_DEFAULT_PARAMS {2.0, 10000.0, 50.0, 0.001}" in h.read_text()
