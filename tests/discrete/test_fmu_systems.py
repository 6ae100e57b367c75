"""FMUs of the 1-D systems (issue 24, item 6): ``export_fmu(FrictionMass(...))`` and
``export_fmu(ContactMass(...))`` export the ``method="moreau_jean"`` step with the applied
force as the input ``fe``; run by fmpy, the FMU equals ``ss.simulate(..., method=
"moreau_jean")`` with that force held over each step to 1e-12 (relative, floor 1); fmpy's
compliance checks pass; unsupported systems and laws are refused naming the class.

fmpy (the `test` extra) runs the FMUs; gcc builds them. Each test that needs one is skipped,
with the reason, where it is missing."""

import shutil
import subprocess
import zipfile

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.errors import ParameterError

GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="no gcc on PATH: export_fmu builds the "
                               "FMU's binary with it (binaries=False writes sources only)")
N = 2000
BELT = {"M": 2.0, "law": ss.laws.CoulombODE(F=1.5, F_s=2.0, viscous=0.5, K=1e4, beta=1e-3),
        "stiffness": 20.0, "anchor": 0.01, "damping": 1.0, "surface_velocity": 0.05,
        "p0": 0.02, "v0": -0.1}
BALL = {"M": 1.0, "law": ss.laws.NewtonImpact(e=0.8), "g": 9.81, "p0": 0.5, "v0": 1.0}
CASES = {   # name: (system kwargs, class, T, theta)
    "friction_mass": (BELT, ss.systems.FrictionMass, 1e-3, 0.5),
    "friction_mass_euler": (BELT, ss.systems.FrictionMass, 5e-4, 1.0),
    "contact_mass": (BALL, ss.systems.ContactMass, 1e-3, 0.5),
}


@pytest.fixture
def fmpy():
    return pytest.importorskip("fmpy", reason="fmpy (the `test` extra) runs the FMUs")


def _held(values, T):
    """A force of t [N] that is values[k] over [kT, (k+1)T): the FMU's input held over each
    step (the quadrature of the load's impulse has no node on a step's ends)."""
    table = jnp.asarray(values)
    return lambda t: table[jnp.clip(jnp.floor(t / T).astype(int), 0, len(values) - 1)]


def _deviation(got, expected):
    return float(np.max(np.abs(got - expected) / np.maximum(1.0, np.abs(expected))))


@needs_gcc
@pytest.mark.parametrize("case", sorted(CASES))
def test_system_fmu_run_by_fmpy_matches_simulate_moreau_jean(case, fmpy, tmp_path):
    kwargs, cls, T, theta = CASES[case]
    rng = np.random.default_rng(5)
    fe = np.repeat(rng.normal(0.0, 3.0, N // 50), 50) + 0.3 * rng.normal(size=N)
    path = ss.export_fmu(cls(**kwargs), tmp_path / f"{case}.fmu",
                         params={"T": T, "theta": theta})
    signal = np.array(list(zip(np.arange(N) * T, fe)), dtype=[("time", float), ("fe", float)])
    got = fmpy.simulate_fmu(str(path), stop_time=N * T, output_interval=T, input=signal,
                            output=["f", "p", "v", "faults"])
    res = ss.simulate(cls(**kwargs, force=_held(fe, T)), N * T, method="moreau_jean", dt=T,
                      dt_out=T, theta=theta)
    assert len(got) == N + 1 and np.allclose(got["time"], np.asarray(res.t))
    for channel in ("p", "v"):                # the start value is the system's p0, v0
        assert _deviation(got[channel], np.asarray(res[channel])) <= 1e-12, channel
    assert got["f"][0] == 0.0                 # the FMU's f at t_{k+1} is step k's mean force
    assert _deviation(got["f"][1:], np.asarray(res["f"])[1:]) <= 1e-12
    assert not got["faults"].any()
    if cls is ss.systems.FrictionMass:        # both stick (slip exactly 0) and slip visited
        stuck = np.asarray(res["slip"]) == 0.0
        assert stuck.any() and not stuck.all()
    else:                                     # impacts: a positive contact force
        assert (np.asarray(res["f"]) > 0.0).any()


@needs_gcc
@pytest.mark.parametrize("cls, kwargs", [(ss.systems.FrictionMass, BELT),
                                         (ss.systems.ContactMass, BALL)])
def test_system_fmu_passes_fmpy_validation(cls, kwargs, fmpy, tmp_path):
    from fmpy.validation import validate_fmu

    path = ss.export_fmu(cls(**kwargs), tmp_path / "system.fmu")
    assert validate_fmu(str(path)) == []
    md = fmpy.read_model_description(str(path), validate=True, validate_variable_names=True,
                                     validate_model_structure=True)
    by_name = {v.name: v for v in md.modelVariables}
    assert by_name["fe"].causality == "input" and by_name["fe"].unit == "N"
    assert [by_name[n].causality for n in ("f", "p", "v")] == ["output"] * 3
    assert float(by_name["M"].start) == kwargs["M"] and float(by_name["T"].start) == 1e-3
    assert float(by_name["p0"].start) == kwargs["p0"]
    assert all(u.dependencies == [] for u in md.outputs)      # no direct feedthrough


@needs_gcc
@pytest.mark.parametrize("cls, kwargs", [(ss.systems.FrictionMass, BELT),
                                         (ss.systems.ContactMass, BALL)])
def test_system_source_only_fmu_compiles_strictly(cls, kwargs, tmp_path):
    path = ss.export_fmu(cls(**kwargs), tmp_path / "system.fmu", binaries=False)
    with zipfile.ZipFile(path) as archive:
        archive.extractall(tmp_path / "x")
    sources = sorted(str(p) for p in (tmp_path / "x" / "sources").glob("*.c"))
    strict = ["-std=c99", "-fPIC", "-shared", "-Wall", "-Wextra", "-Werror", "-pedantic",
              "-Wmissing-prototypes", "-Wstrict-prototypes", "-Wshadow"]
    subprocess.run([GCC, *strict, *sources, "-o", str(tmp_path / "own.so")], check=True)


def test_system_force_callable_is_not_exported_and_warns(tmp_path):
    block = ss.systems.FrictionMass(**BELT, force=lambda t: 0.4 + 0.0 * t)
    with pytest.warns(UserWarning, match=r"FrictionMass.force. is not exported.*`fe`"):
        ss.export_fmu(block, tmp_path / "block.fmu", binaries=False)


@pytest.mark.parametrize("system, match", [
    (lambda: ss.systems.FrictionMass(M=1.0, law=ss.laws.LuGre.example()),
     r"FrictionMass with a LuGre law.*CoulombODE"),
    (lambda: ss.systems.FrictionMass(M=1.0, law=ss.laws.CoulombODE(
        F=1.0, F_s=1.2, v_stribeck=0.01, K=1e4, beta=1e-3)), r"Stribeck.*v_stribeck"),
    (lambda: ss.systems.FrictionMass(M=1.0, law=ss.laws.CoulombODE(F=1.0, K=1e4, beta=1e-3),
                                     surface_velocity=lambda t: 0.1 * t),
     r"surface_velocity must be a number"),
    (lambda: ss.systems.ContactMass(M=1.0, law=ss.laws.UnilateralODE.example()),
     r"ContactMass with a UnilateralODE law.*NewtonImpact"),
    (lambda: ss.laws.UnilateralODE.example(),  # a contact law: export it inside a system
     r"cannot export a UnilateralODE law.*CoulombODE.*LuGre.*TanhCoulomb"),
])
def test_unsupported_system_or_law_is_refused_naming_the_class(system, match, tmp_path):
    with pytest.raises(ParameterError, match=match):
        ss.export_fmu(system(), tmp_path / "x.fmu", binaries=False)
