"""The static friction level F_s reaches the C and FMU exports (SPEC §6, static vs kinetic).

`CoulombMass(F_s=...)` and `DARelaxation(F_s=...)` stick while the force that stops (holds)
them is ≤ F_s and slide at the kinetic F after breakaway. Their exports used to carry F only
and so broke away at F: a silent wrong answer. Here the exported C (compiled with the system
compiler) and the FMU (run by fmpy) equal the Python loop to 1e-12 (relative, floor 1)
through stick → slip → stick sequences in which the two levels matter, for F_s > F, F_s = F
and F_s unset, and for a CoulombMass that does not start at rest (p0, v0, also dropped
before). Each test is skipped, with the reason, where the compiler or fmpy is missing.
"""

import shutil
import subprocess

import numpy as np
import pytest

import stickslip as ss

CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
GCC = shutil.which("gcc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler (cc/gcc/clang) on PATH: "
                              "install one to check the generated C against Python")
needs_gcc = pytest.mark.skipif(GCC is None, reason="no gcc on PATH: export_fmu builds the "
                               "FMU's binary with it")
T = 1e-3
TOL = 1e-12
MASS = {"M": 1.0, "F": 0.5, "T": T}              # kinetic 0.5 N
DEVICE = {"F": 2.0, "K": 1e4, "B": 50.0, "T": T}  # kinetic 2 N

# name: (make the Python object, template it exports as)
CASES = {
    "mass F_s > F": (lambda: ss.discrete.CoulombMass(**MASS, F_s=0.8), "coulomb_mass_static"),
    "mass F_s = F": (lambda: ss.discrete.CoulombMass(**MASS, F_s=0.5), "coulomb_mass_static"),
    "mass F_s unset": (lambda: ss.discrete.CoulombMass(**MASS), "coulomb_mass"),
    "mass F_s > F, sliding start": (
        lambda: ss.discrete.CoulombMass(**MASS, F_s=0.8, p0=0.25, v0=0.3),
        "coulomb_mass_static"),
    "mass F_s unset, sliding start": (
        lambda: ss.discrete.CoulombMass(**MASS, p0=-0.1, v0=-0.2), "coulomb_mass_static"),
    "device F_s > F": (lambda: ss.discrete.DARelaxation(**DEVICE, F_s=3.0),
                       "da_relaxation_static"),
    "device F_s = F": (lambda: ss.discrete.DARelaxation(**DEVICE, F_s=2.0),
                       "da_relaxation_static"),
    "device F_s unset": (lambda: ss.discrete.DARelaxation(**DEVICE), "da_relaxation"),
}


def _is_mass(name):
    return name.startswith("mass")


def _inputs(name):
    """Held inputs over 1 s: stick under a load between F and F_s, breakaway above F_s, slide
    at F, stop, stick again, and the same the other way (plus a little noise)."""
    noise = 1e-3 * np.random.default_rng(11).normal(size=1000)
    if _is_mass(name):                  # the force h [N] on the mass
        h = np.concatenate([np.linspace(0.0, 0.75, 150),    # 0.5 < h < 0.8: holds by F_s
                            np.full(50, 0.9),               # > F_s: breaks away
                            np.full(200, 0.0),              # slides at F, stops, sticks
                            np.full(100, -0.7),             # held again, the other way
                            np.full(50, -0.95),             # breaks away
                            np.full(450, 0.0)])
        return h + noise
    v = np.concatenate([np.full(100, 0.005), np.full(100, 0.05),   # v [m/s] of the device
                        np.full(200, 0.0), np.full(200, -0.01), np.full(400, 0.0)])
    return v + 0.1 * noise


def _python(name):
    """{output: samples 1..n} of the object's own step loop (the reference)."""
    obj = CASES[name][0]()
    out = {"f": [], "v": [], "p": []} if _is_mass(name) else {"f": [], "e": []}
    for x in _inputs(name):
        out["f"].append(obj.step(x))
        for key in out.keys() - {"f"}:
            out[key].append(getattr(obj, key))
    return {k: np.asarray(v) for k, v in out.items()}


def _deviation(got, expected):
    return float(np.max(np.abs(got - expected) / np.maximum(1.0, np.abs(expected))))


@pytest.mark.parametrize("name", ["mass F_s > F", "device F_s > F"])
def test_reference_sequence_sticks_between_the_levels_and_breaks_away_at_F_s(name):
    obj = CASES[name][0]()
    F, F_s = obj.F, obj.F_s
    f = _python(name)["f"]
    held = (np.abs(f) > F + 1e-6) & (np.abs(f) <= F_s + 1e-12)
    sliding = np.isclose(np.abs(f), F, rtol=0.0, atol=1e-12)
    assert held.sum() > 20 and sliding.sum() > 20          # both levels are visited
    # the two sticks above F: a kinetic-only export would have slid there instead
    plain = MASS if _is_mass(name) else DEVICE
    kinetic_only = type(obj)(**plain)
    f_plain = np.array([kinetic_only.step(x) for x in _inputs(name)])
    assert np.max(np.abs(f - f_plain)) > 0.2
    # and the force falls back to the kinetic level right after breakaway
    first_slide = np.flatnonzero(sliding)[0]
    assert abs(f[first_slide - 1]) > F + 0.1


def test_objects_export_as_the_template_that_carries_their_parameters(tmp_path):
    for name, (make, template) in CASES.items():
        header, _ = ss.discrete.export_c(make(), tmp_path / name.replace(" ", "_"))
        assert header.name == f"stickslip_{template}.h", name
    text = ss.discrete.export_c(CASES["mass F_s > F"][0](), tmp_path / "a")[0].read_text()
    assert "STICKSLIP_COULOMB_MASS_STATIC_DEFAULT_PARAMS {1.0, 0.5, 0.8, 0.001, 0.0, 0.0}" \
        in text and "double F_s;  /* static friction level [N] >= F;" in text
    text = ss.discrete.export_c(CASES["device F_s > F"][0](), tmp_path / "b")[0].read_text()
    assert "STICKSLIP_DA_RELAXATION_STATIC_DEFAULT_PARAMS {2.0, 3.0, 10000.0, 50.0, 0.001}" \
        in text
    # no static level, starting at rest: the plain struct, as before (existing C code)
    text = ss.discrete.export_c(CASES["mass F_s unset"][0](), tmp_path / "c")[0].read_text()
    assert "STICKSLIP_COULOMB_MASS_DEFAULT_PARAMS {1.0, 0.5, 0.001}" in text


@needs_cc
@pytest.mark.parametrize("name", sorted(CASES))
def test_exported_c_equals_python_through_stick_slip_stick(name, tmp_path):
    header, source = ss.discrete.export_c(CASES[name][0](), tmp_path)
    template = header.stem.removeprefix("stickslip_")      # the one it exports as
    start = (f"stickslip_{template}_start(&s, &prm);"
             if f"stickslip_{template}_start" in header.read_text() else "")
    emit = ('printf("%.17g %.17g %.17g\\n", f, s.v, s.p);' if _is_mass(name)
            else 'printf("%.17g %.17g\\n", f, s.e);')
    driver = tmp_path / "driver.c"
    driver.write_text(f"""#include <stdio.h>
#include "stickslip_{template}.h"
int main(void) {{
    stickslip_{template}_params prm = STICKSLIP_{template.upper()}_DEFAULT_PARAMS;
    stickslip_{template}_state s;
    double x, f;
    if (stickslip_{template}_check(&prm) != 0) return 3;
    stickslip_{template}_init(&s);
    {start}
    while (scanf("%lf", &x) == 1) {{
        f = stickslip_{template}_step(&s, &prm, x);
        {emit}
    }}
    return 0;
}}
""")
    exe = tmp_path / "driver"
    subprocess.run([CC, "-std=c99", "-O2", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror",
                    "-pedantic", str(source), str(driver), "-o", str(exe)], check=True)
    text = "\n".join(repr(float(x)) for x in _inputs(name))
    run = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True)
    got = np.loadtxt(run.stdout.splitlines(), ndmin=2)
    expected = _python(name)
    assert got.shape == (len(_inputs(name)), len(expected))
    for column, (channel, reference) in enumerate(expected.items()):
        assert _deviation(got[:, column], reference) <= TOL, channel


@needs_gcc
@pytest.mark.parametrize("name", sorted(CASES))
def test_fmu_run_by_fmpy_equals_python_through_stick_slip_stick(name, tmp_path):
    fmpy = pytest.importorskip("fmpy", reason="fmpy (the `test` extra) runs the FMUs")
    obj = CASES[name][0]()
    fmu = ss.export_fmu(obj, tmp_path / "static.fmu")
    md = fmpy.read_model_description(str(fmu))
    params = {v.name: float(v.start) for v in md.modelVariables if v.causality == "parameter"}
    if obj.F_s is not None:
        assert params["F_s"] == obj.F_s
    inputs = _inputs(name)
    channel = "h" if _is_mass(name) else "v"
    signal = np.array(list(zip(np.arange(len(inputs)) * T, inputs)),
                      dtype=[("time", np.float64), (channel, np.float64)])
    expected = _python(name)
    result = fmpy.simulate_fmu(str(fmu), stop_time=len(inputs) * T, output_interval=T,
                               input=signal, output=[*expected, "faults"])
    assert len(result) == len(inputs) + 1 and not result["faults"].any()
    for out, reference in expected.items():      # the output at t_{k+1} is sample k's
        assert _deviation(result[out][1:], reference) <= TOL, out
    if _is_mass(name):                           # and the FMU starts where Python does
        assert (result["p"][0], result["v"][0]) == (obj.p, obj.v)


def test_a_static_level_the_template_cannot_carry_is_refused_not_dropped(tmp_path):
    plain = ss.discrete.CoulombMass(**MASS)
    with pytest.raises(ss.ParameterError, match="no parameter 'F_s'.*'coulomb_mass_static'"):
        ss.export_fmu(plain, tmp_path / "x.fmu", params={"F_s": 0.8}, binaries=False)
    with pytest.raises(ss.ParameterError, match="F_s"):        # the Python rule: F_s >= F
        ss.export_fmu("da_relaxation_static", tmp_path / "x.fmu", binaries=False,
                      params={**DEVICE, "F_s": 1.0})
    fmu = ss.export_fmu("coulomb_mass_static", tmp_path / "y.fmu", binaries=False,
                        params={**MASS, "F_s": 0.8, "p0": 0.0, "v0": 0.0})
    assert fmu.exists()


@needs_cc
def test_generated_c_check_rejects_a_static_level_below_the_kinetic(tmp_path):
    ss.discrete.export_c("da_relaxation_static", tmp_path)
    driver = tmp_path / "driver.c"
    driver.write_text("""#include <stdio.h>
#include "stickslip_da_relaxation_static.h"
int main(void) {
    stickslip_da_relaxation_static_params ok = {2.0, 3.0, 1e4, 50.0, 1e-3};
    stickslip_da_relaxation_static_params bad = {2.0, 1.0, 1e4, 50.0, 1e-3};
    printf("%d %d\\n", stickslip_da_relaxation_static_check(&ok),
           stickslip_da_relaxation_static_check(&bad));
    return 0;
}
""")
    exe = tmp_path / "driver"
    subprocess.run([CC, "-std=c99", str(tmp_path / "stickslip_da_relaxation_static.c"),
                    str(driver), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["0", "2"]                  # 2: the field F_s
