"""The program store (issue 13 item 5): a compiled run is found again by what its trace
reads — in a new process too — and never when anything the trace reads has changed."""

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.integrate import _program_store
from stickslip.integrate._fingerprint import (
    Unfingerprintable,
    changed_constants,
    fingerprint,
)
from stickslip.integrate._fixed_step import integrate_padded

SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.fixture
def store(tmp_path, monkeypatch):
    """An empty store in tmp_path and no compiled run held in memory (a 'new process')."""
    monkeypatch.setattr(_program_store, "store_directory", lambda: tmp_path)
    _program_store.clear_memory()
    yield tmp_path
    _program_store.clear_memory()


def new_process():
    _program_store.clear_memory()


def block(force=lambda t: 0.3 * jnp.sin(2.0 * t), **kw):
    return ss.systems.FrictionMass(M=1.0, law=ss.laws.CoulombODE(F=1.0, K=1e3, beta=0.02),
                                   force=force, **kw)


def run(system):
    return ss.simulate(system, 0.3, dt=1e-3, dt_out=1e-2)


def test_a_new_process_reuses_the_stored_program_without_tracing(store):
    first = run(block())
    assert len(list(store.glob("integrate_padded-*.jaxexec"))) == 1
    traced = ss.integrate.traces(integrate_padded)
    new_process()
    again = run(block())
    assert ss.integrate.traces(integrate_padded) == traced          # loaded, not traced
    np.testing.assert_array_equal(again["p"], first["p"])
    np.testing.assert_array_equal(again.final_state, first.final_state)


def test_a_fresh_closure_of_equal_code_and_values_is_found_in_memory(store, monkeypatch):
    # a model rebuilt in the same process (an example's drivers are new closures each call)
    # is a new in-memory key — callables compare by identity — but the same stored program:
    # it is taken from memory, not read from its file again
    first = run(block(force=lambda t: 0.3 * jnp.sin(2.0 * t)))
    reads = []
    load = _program_store.STORE.load
    monkeypatch.setattr(_program_store.STORE, "load",
                        lambda *args: reads.append(args[0]) or load(*args))
    traced = ss.integrate.traces(integrate_padded)
    again = run(block(force=lambda t: 0.3 * jnp.sin(2.0 * t)))
    assert reads == [] and ss.integrate.traces(integrate_padded) == traced
    np.testing.assert_array_equal(again["p"], first["p"])
    other = run(block(force=lambda t: 0.3 * jnp.sin(3.0 * t)))      # other code: its own
    assert any(path.name.startswith("integrate_padded-") for path in reads)  # looked for
    assert ss.integrate.traces(integrate_padded) == traced + 1
    assert not np.allclose(other["p"], first["p"])


def test_with_the_store_off_a_fresh_closure_still_reuses_the_compiled_run(monkeypatch):
    # STICKSLIP_JAX_CACHE=0: nothing on disk, but a model rebuilt with new closures of the
    # same code is the same program in this process (it compiled again each time before:
    # the arm example's second call 13 s instead of 0.3 s, 2026-11-27)
    monkeypatch.setattr(_program_store, "store_directory", lambda: None)
    _program_store.clear_memory()
    first = run(block(force=lambda t: 0.3 * jnp.sin(2.0 * t)))
    traced = ss.integrate.traces(integrate_padded)
    again = run(block(force=lambda t: 0.3 * jnp.sin(2.0 * t)))
    assert ss.integrate.traces(integrate_padded) == traced
    np.testing.assert_array_equal(again["p"], first["p"])
    other = run(block(force=lambda t: 0.3 * jnp.sin(3.0 * t)))      # other code: its own
    assert ss.integrate.traces(integrate_padded) == traced + 1
    assert not np.allclose(other["p"], first["p"])
    _program_store.clear_memory()


def test_a_changed_callable_body_is_a_new_program(store):
    slow = run(block(force=lambda t: 0.3 * jnp.sin(2.0 * t)))
    new_process()
    traced = ss.integrate.traces(integrate_padded)
    fast = run(block(force=lambda t: 0.3 * jnp.sin(5.0 * t)))       # same shape, new code
    assert ss.integrate.traces(integrate_padded) == traced + 1
    assert len(list(store.glob("integrate_padded-*.jaxexec"))) == 2
    assert not np.allclose(fast["p"], slow["p"])


def test_a_changed_closure_value_or_global_is_a_new_program(store):
    def forcing(omega):
        return lambda t: 0.3 * jnp.sin(omega * t)

    a = run(block(force=forcing(2.0)))
    new_process()
    b = run(block(force=forcing(7.0)))                            # same code, new cell value
    assert not np.allclose(a["p"], b["p"])
    np.testing.assert_allclose(b["p"], run(block(force=lambda t: 0.3 * jnp.sin(7.0 * t)))["p"],
                               rtol=0, atol=1e-15)
    scope = {"jnp": jnp, "AMPLITUDE": 0.3}
    exec("def push(t):\n    return AMPLITUDE * jnp.sin(2.0 * t)", scope)
    c = run(block(force=scope["push"]))
    scope["AMPLITUDE"] = 0.9                                       # a global the code reads
    new_process()
    d = run(block(force=scope["push"]))
    assert np.max(np.abs(d["fe"])) == pytest.approx(3 * np.max(np.abs(c["fe"])))


def _plus_one(x):
    return x + 1.0


def test_a_module_constant_changed_at_run_time_is_a_new_program(store, monkeypatch):
    # a threshold a trace reads (here the block-factor switch of the 3-D joints) is baked
    # into the program: a process that sets it gets programs of its own, and one that
    # leaves it as written finds the programs stored without it
    from stickslip.spatial import _link_dynamics

    leaves, treedef = jax.tree_util.tree_flatten((jnp.zeros(3),))

    def key():
        return _program_store.STORE.key(_plus_one, (), treedef, leaves)

    as_written = key()
    first = run(block())
    monkeypatch.setattr(_link_dynamics, "BLOCK_ROWS", 8)
    assert changed_constants() == (("stickslip.spatial._link_dynamics", "BLOCK_ROWS", "8"),)
    assert key() != as_written
    new_process()
    np.testing.assert_array_equal(run(block())["p"], first["p"])
    assert len(list(store.glob("integrate_padded-*.jaxexec"))) == 2   # a program of its own
    monkeypatch.undo()
    assert changed_constants() == () and key() == as_written


def test_a_module_constant_set_to_an_object_is_not_guessed(monkeypatch):
    from stickslip.spatial import _link_dynamics

    monkeypatch.setattr(_link_dynamics, "BLOCK_ROWS", np.int64(8))  # not a plain literal
    with pytest.raises(Unfingerprintable, match="BLOCK_ROWS"):
        changed_constants()


def test_no_module_constant_differs_from_its_source_after_import_and_a_run():
    # otherwise the store's keys would depend on which modules a process imported
    code = textwrap.dedent("""
        import importlib, pkgutil
        import stickslip
        for info in pkgutil.walk_packages(stickslip.__path__, "stickslip."):
            if not info.name.endswith("__main__"):
                importlib.import_module(info.name)
        from stickslip.integrate._fingerprint import changed_constants
        before = changed_constants()
        law = stickslip.laws.CoulombODE(F=1.0, K=1e3, beta=0.02)
        stickslip.simulate(stickslip.systems.FrictionMass(M=1.0, law=law, force=lambda t: 0.5),
                           0.01, dt=1e-3)
        print(repr((before, changed_constants())))
    """)
    env = dict(os.environ, PYTHONPATH=SRC, STICKSLIP_JAX_CACHE="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.strip().splitlines()[-1]
    assert out == "((), ())"


def test_a_planar_mechanism_is_stored_and_found_by_structure(store):
    from stickslip.planar import examples

    first = examples.slider_crank().simulate(0.2, dt=1e-3, dt_out=1e-2)
    traced = ss.integrate.traces(integrate_padded)
    new_process()
    second = examples.slider_crank().simulate(0.2, dt=1e-3, dt_out=1e-2)
    assert ss.integrate.traces(integrate_padded) == traced
    np.testing.assert_array_equal(second["slider.x"], first["slider.x"])
    new_process()
    other = examples.slider_crank(crank=0.12).simulate(0.2, dt=1e-3, dt_out=1e-2)
    assert ss.integrate.traces(integrate_padded) == traced       # new lengths: data only
    assert not np.allclose(other["slider.x"], first["slider.x"])


def test_a_driver_closure_with_a_new_speed_is_a_new_program(store):
    P = ss.planar
    for omega in (5.0, 8.0):                  # constant_speed(omega, …): omega in a closure
        new_process()
        m = P.Model(name="crank")
        crank = m.add_body("crank", mass=1.0, inertia=1e-2, x=0.05)
        m.add(P.RevoluteJoint(m.ground, crank, (0.0, 0.0), (-0.05, 0.0), name="A"))
        m.add(P.RotationalDriver(m.ground, crank, angle=P.constant_speed(omega), name="motor"))
        res = m.simulate(0.1, dt=1e-3, dt_out=1e-2)
        np.testing.assert_allclose(res["crank.phi"], omega * res.t, atol=1e-6)


def test_what_cannot_be_fingerprinted_is_traced_and_right(store):
    class Opaque:                              # a user object the store cannot see into
        def __init__(self, gain):
            self.gain = gain

    with pytest.raises(Unfingerprintable):
        fingerprint(Opaque(1.0))
    for gain in (1.0, 2.0):
        holder = Opaque(gain)
        new_process()
        traced = ss.integrate.traces(integrate_padded)
        res = run(block(force=lambda t, holder=holder: holder.gain * 0.3 * jnp.sin(2.0 * t)))
        assert ss.integrate.traces(integrate_padded) == traced + 1
        np.testing.assert_allclose(res["fe"], gain * 0.3 * np.sin(2.0 * res.t), atol=1e-12)
    assert not list(store.glob("*.jaxexec"))


def test_a_corrupt_stored_program_is_rebuilt(store):
    first = run(block())
    (path,) = store.glob("integrate_padded-*.jaxexec")
    path.write_bytes(b"not a program")
    new_process()
    again = run(block())
    np.testing.assert_array_equal(again["p"], first["p"])
    assert path.stat().st_size > 100


def test_fingerprint_separates_what_equality_separates():
    from stickslip.planar import Body

    assert fingerprint(Body("a", 1.0, 0.1)) == fingerprint(Body("a", 2.0, 0.3))  # __eq__
    assert fingerprint(Body("a", 1.0, 0.1)) != fingerprint(Body("b", 1.0, 0.1))
    assert fingerprint((1.0, "x", None)) != fingerprint((1, "x", None))
    assert fingerprint(np.arange(3.0)) != fingerprint(np.arange(3.0) + 1)
    assert fingerprint(np.arange(3.0), arrays="abstract") == \
        fingerprint(np.arange(3.0) + 1, arrays="abstract")
    assert fingerprint(lambda t: t + 1) != fingerprint(lambda t: t + 2)
    assert fingerprint(math.sin) != fingerprint(math.cos)
    assert fingerprint(jnp.sin) != fingerprint(jnp.cos)


def test_store_off_with_the_compile_cache(tmp_path):
    code = textwrap.dedent("""
        import stickslip as ss
        from stickslip.integrate._program_store import store_directory
        print(store_directory())
    """)
    env = {**os.environ, "PYTHONPATH": SRC, "STICKSLIP_JAX_CACHE": "0"}
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "None"


def _fresh(code: str, cache: Path) -> str:
    """Run `code` in a new Python process on the store under `cache`; its last stdout line."""
    env = {**os.environ, "PYTHONPATH": SRC, "STICKSLIP_JAX_CACHE": str(cache)}
    for name in ("JAX_COMPILATION_CACHE_DIR", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS",
                 "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"):
        env.pop(name, None)
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip().splitlines()[-1]


def test_a_stored_program_that_calls_lapack_runs_in_a_new_process(tmp_path):
    """jaxlib binds its LAPACK kernels on first use; a loaded executable that calls them (an
    LU solve here) must find them bound, or the process would crash instead of answering.
    The store binds them from SciPy's two LAPACK/BLAS extension modules alone, without
    ``scipy.linalg``'s package (0.24 s), and a later ``import scipy.linalg`` still works."""
    code = """
        import sys
        import jax.numpy as jnp, numpy as np
        import stickslip as ss
        from stickslip.integrate import _program_store

        def lu_solve(a, b):
            return jnp.linalg.solve(a, b)

        a = jnp.asarray([[4.0, 1.0, 0.0], [2.0, 5.0, 1.0], [0.0, 1.0, 3.0]])
        x = _program_store.call(lu_solve, (), (a, jnp.ones(3)))
        package = "scipy.linalg" in sys.modules
        import scipy.linalg
        y = scipy.linalg.solve(np.asarray(a), np.ones(3))
        same = scipy.linalg.cython_lapack is sys.modules["scipy.linalg.cython_lapack"]
        print(ss.integrate.traces("lu_solve"), float(np.max(np.abs(a @ x - 1.0))), package,
              float(np.max(np.abs(y - x))), same)
    """
    first = _fresh(code, tmp_path).split()
    second = _fresh(code, tmp_path).split()
    assert first[0] == "1" and float(first[1]) < 1e-14
    assert second[0] == "0" and float(second[1]) < 1e-14      # loaded, run, right
    assert second[2] == "False"                               # scipy.linalg not run
    assert float(second[3]) < 1e-14 and second[4] == "True"   # and still importable
    assert len(list((tmp_path / "stickslip-programs").glob("lu_solve-*.jaxexec"))) == 1


def test_a_warm_planar_process_neither_traces_nor_imports_scipy(tmp_path):
    """The planar run holds no LAPACK call (spd_solve), so a process that loads it from the
    store skips the 0.2 s SciPy import that jaxlib's LAPACK binding costs."""
    code = """
        import sys
        import stickslip as ss
        from stickslip.integrate._fixed_step import integrate_padded
        from stickslip.planar import examples

        res = examples.slider_crank().simulate(0.5, dt=1e-3, dt_out=0.1)
        print(ss.integrate.traces(integrate_padded), "scipy.linalg" in sys.modules,
              repr(float(res["slider.x"][-1])))
    """
    cold = _fresh(code, tmp_path).split()
    warm = _fresh(code, tmp_path).split()
    assert cold[0] == "1" and warm[0] == "0"
    assert warm[1] == "False"
    assert warm[2] == cold[2]


def test_files_of_the_first_store_version_are_removed(store):
    old = store / "integrate_padded-0123456789abcdef.jaxexport"
    old.write_bytes(b"StableHLO of the first store version")
    run(block(force=lambda t: 0.25 * jnp.cos(3.0 * t)))       # a new program: one save
    assert not old.exists()
    assert list(store.glob("integrate_padded-*.jaxexec"))


def test_a_program_marked_run_once_is_compiled_for_compile_speed_only(store, monkeypatch):
    # the build's kinematics and a run's initial state run once per program: they take
    # XLA's optimisation level 0 (half the compile); the step programs keep the defaults
    from stickslip._compile import store as store_module
    from stickslip._compile.options import compiler_options, is_run_once
    from stickslip.integrate._simulate import _initial_state_kernel

    assert is_run_once(_initial_state_kernel) and not is_run_once(integrate_padded)
    seen = []
    jit = store_module._jit
    monkeypatch.setattr(store_module, "_jit",
                        lambda flat, once=False: seen.append(
                            (flat.__name__.rsplit("_", 1)[0], once)) or jit(flat, once))
    system = block()
    x0 = np.asarray(ss.integrate.initial_state_of(system))
    result = run(system)
    assert ("_initial_state_kernel", True) in seen and ("integrate_padded", False) in seen
    np.testing.assert_array_equal(x0, np.asarray(system.initial_state()))
    np.testing.assert_allclose(result["p"][0], x0[0])
    if jax.default_backend() == "cpu":
        assert compiler_options(True).get("xla_backend_optimization_level") == 0
        assert "xla_backend_optimization_level" not in compiler_options(False)
