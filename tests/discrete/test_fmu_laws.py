"""FMUs of the friction laws (issue 24, item 6): ``export_fmu(law)`` exports a law driven by
the sliding velocity ``v`` (and the normal force ``N`` for a level ``mu·N``) held over each
sample, its state equation integrated inside the FMU by RK4 with
``n = max(substeps, ceil(T·λ/(κ·h₄)))`` steps per sample. Run by fmpy, the FMU equals the
law's ``force_and_rate`` stepped by ``ss.integrate.rk_step`` in a jitted loop (the Python
reference below) to 1e-12 through stick → slip → stick; fmpy's compliance checks pass;
other laws are refused naming the class and what is supported.

fmpy (the `test` extra) runs the FMUs; gcc builds them. Each test that needs one is skipped,
with the reason, where it is missing."""

import math
import shutil
import zipfile

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.discrete._law_templates import RK4_LIMIT, STEP_FRACTION
from stickslip.errors import ParameterError

GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="no gcc on PATH: export_fmu builds the "
                               "FMU's binary with it (binaries=False writes sources only)")
T = 1e-3
SAMPLES = 1500
LAWS = {   # name: (law, uses N, decay rate λ [1/s] or None: -∂(rate)/∂state at the input)
    "law_coulomb_ode": (ss.laws.CoulombODE(F=0.5, K=1e4, beta=2e-4), False, 1 / 2e-4),
    "law_coulomb_ode_mu": (ss.laws.CoulombODE(mu=0.3, K=2e4, beta=1e-3), True, 1 / 1e-3),
    "law_coulomb_ode_curve": (ss.laws.CoulombODE(F=0.4, F_s=0.5, viscous=2.0, K=1e4,
                                             beta=5e-4), False, 1 / 5e-4),
    "law_coulomb_ode_curve_mu": (ss.laws.CoulombODE(mu=0.2, mu_s=0.22, K=1e4, beta=1e-3),
                                 True, 1 / 1e-3),
    "law_lugre": (ss.laws.LuGre(), True, None),
    "law_tanh_coulomb": (ss.laws.TanhCoulomb(F=2.0, v_eps=1e-3), False, None),
    "law_tanh_coulomb_mu": (ss.laws.TanhCoulomb(mu=0.3, v_eps=1e-2), True, None),
}


@pytest.fixture
def fmpy():
    return pytest.importorskip("fmpy", reason="fmpy (the `test` extra) runs the FMUs")


def _inputs():
    """v: a sine that reverses twice (stick at each reversal, slip between), then a stop
    (stick for good); N: a normal force that varies slowly."""
    t = np.arange(SAMPLES) * T
    v = np.where(t < 1.0, 0.03 * np.sin(2 * np.pi * 1.5 * t) + 0.004, 0.0)
    return t, v, 9.81 + 2.0 * np.sin(2 * np.pi * 0.7 * t)


def reference(law, v, N, substeps, decay):
    """The law with v[k], N[k] held over [kT, (k+1)T): n_k = max(substeps, ceil(T·λ/(κ·h₄)))
    steps of ``ss.integrate.rk_step(..., "rk4", ...)`` of T/n_k, then the force.
    Returns (force at each sample's end, state, n_k)."""
    limit = STEP_FRACTION * RK4_LIMIT

    def sample(x, inputs):
        vk, nk_force = inputs
        field = lambda t, y: law.force_and_rate(y, vk, nk_force)[1]
        if decay is None:                     # LuGre: linear in z, λ = −∂ż/∂z
            lam = -jax.jacfwd(lambda z: field(0.0, z[None])[0])(jnp.zeros(()))
        else:
            lam = jnp.asarray(decay)
        n = jnp.maximum(float(substeps), jnp.ceil(T * lam / limit))
        dt = T / n
        x = jax.lax.fori_loop(0, n.astype(int),
                              lambda i, y: ss.integrate.rk_step(field, "rk4", 0.0, y, dt), x)
        return x, (law.force_and_rate(x, vk, nk_force)[0], x, n)

    run = jax.jit(lambda vs, ns: jax.lax.scan(sample, law.initial_state(), (vs, ns))[1])
    force, state, n = run(jnp.asarray(v), jnp.asarray(N))
    return np.asarray(force), np.asarray(state)[:, :1].ravel(), np.asarray(n)


def _run(fmpy, path, v, N, outputs, uses_n, start_values=None):
    t = np.arange(len(v)) * T
    fields = [("time", float), ("v", float)] + ([("N", float)] if uses_n else [])
    rows = list(zip(t, v, N)) if uses_n else list(zip(t, v))
    return fmpy.simulate_fmu(str(path), stop_time=len(v) * T, output_interval=T,
                             input=np.array(rows, dtype=fields), output=outputs,
                             start_values=start_values or {})


def _substeps(path):
    text = zipfile.ZipFile(path).read("modelDescription.xml").decode()
    block = text[text.index('name="substeps"'):]
    return float(block[block.index('start="') + 7:].split('"')[0])


@needs_gcc
@pytest.mark.parametrize("name", sorted(LAWS))
def test_law_fmu_run_by_fmpy_matches_rk4_reference(name, fmpy, tmp_path):
    law, uses_n, decay = LAWS[name]
    _, v, N = _inputs()
    path = ss.export_fmu(law, tmp_path / f"{name}.fmu", T=T)
    states = [n for n in law.state_names]
    outputs = ["f", *states, "faults"] + (["steps"] if states else [])
    got = _run(fmpy, path, v, N, outputs, uses_n)
    substeps = _substeps(path) if states else 1
    force, state, n = reference(law, v, N if uses_n else np.zeros_like(v), substeps, decay)
    assert len(got) == SAMPLES + 1 and got["f"][0] == 0.0
    assert np.max(np.abs(got["f"][1:] - force)) <= 1e-12
    assert not got["faults"].any()
    if states:
        assert np.max(np.abs(got[states[0]][1:] - state)) <= 1e-12
        assert np.array_equal(got["steps"][1:], n.astype(int))
    if decay is not None:          # CoulombODE: the default substeps is the rule's count at T
        assert substeps == math.ceil(T * decay / (STEP_FRACTION * RK4_LIMIT))
        K, beta = float(law.K), float(law.beta)
        level = np.asarray([float(law.level(nk)) for nk in (N if uses_n else [0.0])])
        slipping = np.abs(state + beta * v) * K > level * (1 + 1e-9)    # K|a + βv| > F_s
        assert not slipping[:5].any() and not slipping[-400:].any()       # stick at the ends
        assert np.count_nonzero(np.diff(slipping.astype(int))) >= 4       # slips in between
        assert np.ptp(got[states[0]][-400:]) == 0.0                      # held at the stop


@needs_gcc
def test_law_fmu_substeps_parameter_and_override(fmpy, tmp_path):
    law, _, decay = LAWS["law_coulomb_ode"]
    _, v, N = _inputs()
    path = ss.export_fmu(law, tmp_path / "fine.fmu", T=T, substeps=9)
    assert _substeps(path) == 9.0
    got = _run(fmpy, path, v, N, ["f", "a", "steps"], False)
    force, _, _ = reference(law, v, N, 9, decay)
    assert np.max(np.abs(got["f"][1:] - force)) <= 1e-12
    assert (got["steps"][1:] == 9).all()
    # a parameter set by the importing tool: more substeps, same rule
    coarse = ss.export_fmu(law, tmp_path / "coarse.fmu", T=T)
    got = _run(fmpy, coarse, v, N, ["f", "steps"], False, start_values={"substeps": 12.0})
    force, _, _ = reference(law, v, N, 12, decay)
    assert np.max(np.abs(got["f"][1:] - force)) <= 1e-12 and (got["steps"][1:] == 12).all()


@needs_gcc
@pytest.mark.parametrize("name", ["law_coulomb_ode_mu", "law_lugre"])
def test_law_fmu_passes_fmpy_validation(name, fmpy, tmp_path):
    from fmpy.validation import validate_fmu

    path = ss.export_fmu(LAWS[name][0], tmp_path / f"{name}.fmu")
    assert validate_fmu(str(path)) == []
    names = zipfile.ZipFile(path).namelist()
    assert f"sources/stickslip_{name}.c" in names


def test_substeps_rule_is_the_stable_rk4_step():
    # h₄: RK4's stability edge on the negative real axis, R(−h₄) = −1 (bisected)
    R = lambda z: 1 + z + z * z / 2 + z ** 3 / 6 + z ** 4 / 24
    assert abs(R(-RK4_LIMIT)) == pytest.approx(1.0, abs=1e-9) and 2.78 < RK4_LIMIT < 2.79
    assert abs(R(-STEP_FRACTION * RK4_LIMIT)) < 0.3


@pytest.mark.parametrize("law", [ss.laws.UnilateralODE.example(),
                                 ss.laws.KelvinVoigt.example(),
                                 ss.laws.HuntCrossley.example(),
                                 ss.laws.NewtonImpact(e=0.5)], ids=lambda law: type(law).__name__)
def test_export_fmu_refuses_other_laws_by_name(law, tmp_path):
    with pytest.raises(ParameterError) as info:
        ss.export_fmu(law, tmp_path / "law.fmu", binaries=False)
    message = str(info.value)
    assert type(law).__name__ in message and "`export_fmu`" in message
    assert all(name in message for name in ("CoulombODE", "LuGre", "TanhCoulomb"))


def test_export_fmu_refuses_a_stribeck_drop_and_bad_substeps(tmp_path):
    stribeck = ss.laws.CoulombODE(F=0.4, F_s=0.5, v_stribeck=1e-2, K=1e4, beta=1e-2)
    with pytest.raises(ParameterError, match="Stribeck.*LuGre"):
        ss.export_fmu(stribeck, tmp_path / "s.fmu", binaries=False)
    law = LAWS["law_coulomb_ode"][0]
    for bad in (0, 2.5, -1):
        with pytest.raises(ParameterError, match="substeps"):
            ss.export_fmu(law, tmp_path / "b.fmu", substeps=bad, binaries=False)
    with pytest.raises(ParameterError, match="substeps"):      # not a law: one step a sample
        ss.export_fmu(ss.discrete.DARelaxation(F=2.0, K=1e4, B=50.0, T=1e-3),
                      tmp_path / "d.fmu", substeps=2, binaries=False)
    with pytest.raises(ParameterError, match="beta"):           # the law's own rules
        ss.export_fmu(law, tmp_path / "p.fmu", params={"beta": -1.0}, binaries=False)
    with pytest.raises(ParameterError, match="one number"):      # a batch of laws
        ss.export_fmu(ss.laws.LuGre(k0=[1e5, 2e5]), tmp_path / "v.fmu", binaries=False)
