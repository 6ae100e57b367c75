"""FMI 2.0 co-simulation export (issue 24, item 6): the FMU of each exportable algorithm,
run by fmpy, equals the Python step loop to 1e-12 (relative, floor 1); fmpy's compliance
checks find no problem; doStep runs whole multiples of T and refuses any other step with a
logged message; parameters are checked at initialization.

fmpy (the `test` extra) runs the FMUs; gcc builds them. Each test that needs one is skipped,
with the reason, where it is missing."""

import shutil
import subprocess
import zipfile

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="no gcc on PATH: export_fmu builds the "
                               "FMU's binary with it (binaries=False writes sources only)")
T = 1e-3
N = 2000
PSMC = {"F": 20.0, "H": 0.2, "K": 1600.0, "B": 80.0, "L": 16000.0, "T": T}
COULOMB = {"M": 2.0, "F": 1.5, "T": T}
DA = {"F": 2.0, "K": 1e4, "B": 50.0, "T": T}
ALGORITHMS = {                       # name: what export_fmu gets, with its parameters
    "psmc": lambda: ss.control.PSMC(**PSMC),
    "coulomb_mass": lambda: ss.discrete.CoulombMass(**COULOMB),
    "da_relaxation": lambda: ss.discrete.DARelaxation(**DA),
    "sign_inclusion": lambda: "sign_inclusion",
}
INPUTS = {"psmc": ("p_d", "p"), "coulomb_mass": ("h",), "da_relaxation": ("v",),
          "sign_inclusion": ("u",)}


def _inputs(name, rng, n=N):
    """Input sequences that visit stick and slip (as in test_export_c)."""
    if name == "psmc":          # reference steps and a lagging, noisy measurement
        ref = np.repeat(rng.uniform(-0.5, 0.5, n // 250), 250)
        meas = np.convolve(ref, np.ones(100) / 100, mode="same") + 1e-4 * rng.normal(size=n)
        return np.stack([ref, meas], axis=1)
    if name == "coulomb_mass":  # forces around the friction level
        return rng.normal(0.0, 2.0, size=(n, 1))
    if name == "da_relaxation":
        return np.sin(np.arange(n) * 5e-3)[:, None] + 0.05 * rng.normal(size=(n, 1))
    return rng.uniform(-2.0, 2.0, size=(n, 1))


def _python(name, inputs):
    """{output: samples 1..n} of the Python step loop (the reference)."""
    inputs = jnp.asarray(inputs)
    if name == "psmc":
        params = ss.control.PSMCParams(**PSMC)

        def body(state, x):
            f, state = ss.control.psmc_step(state, x[0], x[1], params)
            return state, f
        _, f = jax.lax.scan(body, params.init_state(inputs[0, 0], inputs[0, 1]), inputs)
        return {"f": np.asarray(f), "p_prev": np.asarray(inputs[:, 1]),
                "pd_prev": np.asarray(inputs[:, 0])}
    if name == "coulomb_mass":
        def body(carry, h):
            p, v = carry
            v, f = ss.discrete.coulomb_mass_step(v, h, COULOMB["M"], COULOMB["F"], T)
            p = p + T * v
            return (p, v), jnp.stack([f, v, p])
        _, out = jax.lax.scan(body, (jnp.asarray(0.0), jnp.asarray(0.0)), inputs[:, 0])
        return dict(zip(("f", "v", "p"), np.asarray(out).T))
    if name == "da_relaxation":
        def body(e, v):
            f, e = ss.discrete.da_relaxation_step(e, v, DA["F"], DA["K"], DA["B"], T)
            return e, jnp.stack([f, e])
        _, out = jax.lax.scan(body, jnp.asarray(0.0), inputs[:, 0])
        return dict(zip(("f", "e"), np.asarray(out).T))

    def body(x, u):
        x = ss.discrete.sign_inclusion_step(x, u, T)
        return x, x
    _, x = jax.lax.scan(body, jnp.asarray(0.0), inputs[:, 0])
    return {"x": np.asarray(x)}


def _signal(name, inputs, t):
    dtype = [("time", np.float64)] + [(n, np.float64) for n in INPUTS[name]]
    return np.array([(ti, *row) for ti, row in zip(t, inputs)], dtype=dtype)


def _deviation(got, expected):
    return float(np.max(np.abs(got - expected) / np.maximum(1.0, np.abs(expected))))


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    """One FMU per exportable algorithm, built once for the module."""
    if GCC is None:
        pytest.skip("no gcc on PATH")
    out = tmp_path_factory.mktemp("fmus")
    return {name: ss.export_fmu(make(), out / f"{name}.fmu",
                                params={"T": T} if name == "sign_inclusion" else None)
            for name, make in ALGORITHMS.items()}


@pytest.fixture
def fmpy():
    return pytest.importorskip("fmpy", reason="fmpy (the `test` extra) runs the FMUs")


def _messages():
    """A logger for fmpy that keeps (status, message) pairs."""
    kept = []

    def logger(component, instance, status, category, message):
        kept.append((status, message.decode()))
    return kept, logger


def _slave(fmpy, path, tmp_path, logger):
    from fmpy.simulation import instantiate_fmu

    md = fmpy.read_model_description(str(path))
    unzipped = fmpy.extract(str(path), unzipdir=str(tmp_path / "unzipped"))
    fmu = instantiate_fmu(unzipped, md, "CoSimulation", logger=logger)
    vr = {v.name: v.valueReference for v in md.modelVariables}
    return fmu, vr


# --- the FMU equals the Python step loop --------------------------------------------------

@needs_gcc
@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_fmu_run_by_fmpy_matches_python_step_loop(name, fmus, fmpy):
    inputs = _inputs(name, np.random.default_rng(7))
    expected = _python(name, inputs)
    result = fmpy.simulate_fmu(str(fmus[name]), stop_time=N * T, output_interval=T,
                               input=_signal(name, inputs, np.arange(N) * T),
                               output=[*expected, "faults"])
    assert len(result) == N + 1 and np.allclose(result["time"], np.arange(N + 1) * T)
    for channel, reference in expected.items():   # the output at t_{k+1} is sample k's
        assert result[channel][0] == 0.0
        assert _deviation(result[channel][1:], reference) <= 1e-12, channel
    assert not result["faults"].any()
    if "f" in expected:                            # both stick and slip were visited
        level = {"psmc": PSMC["F"], "coulomb_mass": COULOMB["F"], "da_relaxation": DA["F"]}
        saturated = np.isclose(np.abs(expected["f"]), level[name])
        assert saturated.any() and not saturated.all()


@needs_gcc
def test_fmu_step_of_several_periods_runs_that_many_samples_with_inputs_held(fmus, fmpy):
    inputs = _inputs("coulomb_mass", np.random.default_rng(3))
    # No output_interval: fmpy doubles the FMU's step T until <= 1000 steps: 2T here.
    result = fmpy.simulate_fmu(str(fmus["coulomb_mass"]), stop_time=N * T,
                               input=_signal("coulomb_mass", inputs, np.arange(N) * T),
                               output=["f", "v", "p"])
    assert len(result) == N // 2 + 1
    held = np.repeat(inputs[::2], 2, axis=0)      # each input held over two samples
    expected = _python("coulomb_mass", held)
    for channel in ("f", "v", "p"):
        assert _deviation(result[channel][1:], expected[channel][1::2]) <= 1e-12


# --- compliance and contents --------------------------------------------------------------

@needs_gcc
@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_fmu_passes_fmpy_validation(name, fmus, fmpy):
    from fmpy.validation import validate_fmu

    assert validate_fmu(str(fmus[name])) == []
    md = fmpy.read_model_description(str(fmus[name]), validate=True,
                                     validate_variable_names=True,
                                     validate_model_structure=True)
    assert md.fmiVersion == "2.0" and md.coSimulation is not None
    assert md.coSimulation.modelIdentifier == f"stickslip_{name}"
    assert float(md.defaultExperiment.stepSize) == T
    names = zipfile.ZipFile(fmus[name]).namelist()
    assert [n for n in names if n.startswith("binaries/") and f"/stickslip_{name}." in n]
    assert {"modelDescription.xml", "documentation/index.html", "sources/stickslip_fmi2.h",
            f"sources/stickslip_{name}.c", f"sources/stickslip_{name}_fmu.c"} <= set(names)


@needs_gcc
def test_fmu_variables_are_parameters_inputs_and_outputs_with_exported_values(fmus, fmpy):
    md = fmpy.read_model_description(str(fmus["psmc"]))
    by_name = {v.name: v for v in md.modelVariables}
    for name, value in PSMC.items():
        assert by_name[name].causality == "parameter" and float(by_name[name].start) == value
    assert by_name["K"].unit == "N/m" and by_name["T"].unit == "s"
    assert by_name["da1"].unit == "m s" and by_name["L"].unit == "N/(m s)"
    assert [by_name[n].causality for n in ("p_d", "p")] == ["input", "input"]
    assert by_name["f"].causality == "output" and by_name["f"].unit == "N"
    assert by_name["faults"].type == "Integer" and by_name["faults"].causality == "output"
    assert all(u.dependencies == [] for u in md.outputs)     # no direct feedthrough


# --- the FMI calls: refusals, logging, warnings --------------------------------------------

@needs_gcc
def test_do_step_refuses_a_step_that_is_not_a_multiple_of_T_and_logs_why(fmus, fmpy,
                                                                          tmp_path):
    from fmpy.fmi1 import FMICallException

    kept, logger = _messages()
    fmu, vr = _slave(fmpy, fmus["da_relaxation"], tmp_path, logger)
    try:
        assert (fmu.getVersion(), fmu.getTypesPlatform()) == ("2.0", "default")
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        fmu.setReal([vr["v"]], [1.0])
        with pytest.raises(FMICallException, match="status 3"):
            fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=1.5 * T)
        assert "not a whole multiple of the sample period T" in kept[-1][1]
        fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=3 * T)
        assert fmu.getReal([vr["f"]]) == [DA["F"]]
        with pytest.raises(FMICallException):           # a jump ahead (no rollback either)
            fmu.doStep(currentCommunicationPoint=10 * T, communicationStepSize=T)
        assert "no rollback" in kept[-1][1]
        with pytest.raises(FMICallException):           # parameters are fixed after init
            fmu.setReal([vr["K"]], [1.0])
        assert "parameter K is fixed" in kept[-1][1]
        with pytest.raises(FMICallException):
            fmu.getFMUstate()
        assert "not supported" in kept[-1][1]
        fmu.terminate()
    finally:
        fmu.freeInstance()


@needs_gcc
def test_invalid_parameter_is_refused_at_initialization_naming_it(fmus, fmpy, tmp_path):
    from fmpy.fmi1 import FMICallException

    kept, logger = _messages()
    fmu, vr = _slave(fmpy, fmus["psmc"], tmp_path, logger)
    try:
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        fmu.setReal([vr["K"]], [-1.0])
        with pytest.raises(FMICallException):
            fmu.exitInitializationMode()
        assert kept[-1][0] == 3 and "parameter K = -1 is invalid" in kept[-1][1]
        fmu.reset()                                     # back to the exported values
        assert fmu.getReal([vr["K"]]) == [PSMC["K"]]
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
    finally:
        fmu.freeInstance()


@needs_gcc
def test_non_finite_input_keeps_the_state_counts_a_fault_and_warns(fmus, fmpy, tmp_path):
    kept, logger = _messages()
    fmu, vr = _slave(fmpy, fmus["coulomb_mass"], tmp_path, logger)
    try:
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        fmu.setReal([vr["h"]], [5.0])
        fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=T)
        before = fmu.getReal([vr["v"], vr["p"]])
        fmu.setReal([vr["h"]], [float("nan")])
        fmu.doStep(currentCommunicationPoint=T, communicationStepSize=T)   # fmi2Warning
        assert kept[-1][0] == 1 and "non-finite input" in kept[-1][1]
        assert fmu.getReal([vr["v"], vr["p"]]) == before
        assert fmu.getReal([vr["f"]]) == [0.0] and fmu.getInteger([vr["faults"]]) == [1]
    finally:
        fmu.freeInstance()


# --- source-only FMUs, reproducibility, the names -----------------------------------------

@needs_gcc
def test_source_only_fmu_compiles_strictly_and_against_the_standard_headers(tmp_path):
    path = ss.export_fmu(ss.control.PSMC(**PSMC), tmp_path / "psmc.fmu", binaries=False)
    with zipfile.ZipFile(path) as archive:
        assert not [n for n in archive.namelist() if n.startswith("binaries/")]
        archive.extractall(tmp_path / "x")
    src = tmp_path / "x" / "sources"
    files = [str(src / "stickslip_psmc.c"), str(src / "stickslip_psmc_fmu.c")]
    strict = ["-std=c99", "-fPIC", "-shared", "-Wall", "-Wextra", "-Werror", "-pedantic",
              "-Wmissing-prototypes", "-Wstrict-prototypes", "-Wshadow"]
    subprocess.run([GCC, *strict, *files, "-o", str(tmp_path / "own.so")], check=True)
    fmpy = pytest.importorskip("fmpy", reason="the standard FMI 2.0 headers come with fmpy")
    from pathlib import Path

    standard = Path(fmpy.__file__).parent / "c-code"     # a test-time convenience only
    if not (standard / "fmi2Functions.h").exists():
        pytest.skip("this fmpy does not ship the FMI 2.0 headers")
    # The definitions must match the standard's prototypes exactly (else: conflicting types).
    subprocess.run([GCC, *strict, "-DSTICKSLIP_FMI2_STANDARD_HEADERS", "-I", str(standard),
                    "-I", str(src), *files, "-o", str(tmp_path / "std.so")], check=True)


def test_export_is_reproducible_and_params_override_the_object(tmp_path):
    da = ss.discrete.DARelaxation(**DA)
    a = ss.export_fmu(da, tmp_path / "a.fmu", binaries=False)
    b = ss.export_fmu("da_relaxation", tmp_path / "b.fmu", params=DA, binaries=False)
    assert a.read_bytes() == b.read_bytes()               # the GUID follows the content
    c = ss.export_fmu(da, tmp_path / "c.fmu", params={"K": 2e4}, binaries=False)
    text = zipfile.ZipFile(c).read("modelDescription.xml").decode()
    assert 'name="K"' in text and 'start="20000.0"' in text
    assert "STICKSLIP_DA_RELAXATION_DEFAULT_PARAMS {2.0, 20000.0, 50.0, 0.001}" in \
        zipfile.ZipFile(c).read("sources/stickslip_da_relaxation.h").decode()


def test_export_fmu_is_public_at_top_level():
    assert ss.export_fmu is ss.discrete.export_fmu
    assert "export_fmu" in ss.__all__
