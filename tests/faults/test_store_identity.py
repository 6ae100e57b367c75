"""Stores never serve stale results (issue 25 item 1).

The sweep store keys a study on what computes it — the code of `build` and of every analysis
(byte code, closure values, the globals it reads), stickslip's version and source hash and
the versions of jax, jaxlib, equinox, diffrax and numpy — and refuses a rerun whose code
changed, naming the differing part; each part records its study, so a part copied from
another store is never read. The program store records the key of each compiled program
and runs a file only under the key it was stored with.

Every sweep here is 2 points of 0.05 s at dt = 1 ms: what is checked is which values come
back, not the physics.
"""

import shutil
import warnings

import equinox
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.integrate import _fingerprint, _program_store
from stickslip.integrate._fixed_step import integrate_padded
from stickslip.studies import friction_mass

RUN = {"t_end": 0.05, "dt": 1e-3, "dt_out": 1e-2}
POINTS = {"F": [0.3, 0.5]}


def pmax(res):
    return np.max(np.abs(res["p"]), axis=-1)


def _module_build(source: str, **globals_):
    """A build function defined in a namespace of its own (a module's globals)."""
    scope = {"friction_mass": friction_mass, "np": np, **globals_}
    exec(source, scope)              # noqa: S102 — a module of its own, as a user writes
    return scope


def _sweep(build, store, analysis=None, **kw):
    return ss.sweep(build, POINTS, analysis or {"pmax": pmax}, **RUN, store=store, **kw)


def test_a_changed_global_of_the_build_is_refused_not_served(tmp_path):
    scope = _module_build("def build(F):\n    return friction_mass(F=F, K=K)", K=1e4)
    stale = _sweep(scope["build"], tmp_path / "s")
    again = _sweep(scope["build"], tmp_path / "s")           # the same code: reused
    assert again.attrs["computed"] == 0
    np.testing.assert_array_equal(again["pmax"], stale["pmax"])
    scope["K"] = 1e6                                     # the build reads the new stiffness
    with pytest.raises(ss.ParameterError, match=r"`code\.build` was fingerprint") as info:
        _sweep(scope["build"], tmp_path / "s")
    assert "changed since the store was written" in str(info.value)
    fresh = _sweep(scope["build"], tmp_path / "new")
    assert not np.allclose(fresh["pmax"], stale["pmax"])     # the old values were stale


def test_a_changed_closure_value_or_default_is_refused(tmp_path):
    def stiffness(K):
        return lambda F: friction_mass(F=F, K=K)

    _sweep(stiffness(1e4), tmp_path / "s")
    with pytest.raises(ss.ParameterError, match=r"`code\.build`"):
        _sweep(stiffness(1e6), tmp_path / "s")

    def with_default(F, K=1e4):
        return friction_mass(F=F, K=K)

    _sweep(with_default, tmp_path / "d")
    with_default.__defaults__ = (1e6,)
    with pytest.raises(ss.ParameterError, match=r"`code\.build`"):
        _sweep(with_default, tmp_path / "d")


def test_two_different_lambdas_are_two_studies(tmp_path):
    _sweep(lambda F: friction_mass(F=F, K=1e4), tmp_path / "s")
    with pytest.raises(ss.ParameterError, match=r"`code\.build`"):
        _sweep(lambda F: friction_mass(F=F, K=1e6), tmp_path / "s")
    _sweep(friction_mass, tmp_path / "a", {"out": lambda res: res["p"][..., -1]})
    with pytest.raises(ss.ParameterError, match=r"`code\.analyses\.out`"):
        _sweep(friction_mass, tmp_path / "a", {"out": lambda res: res["v"][..., -1]})


def test_an_analysis_body_changed_under_the_same_name_is_refused(tmp_path):
    first = _module_build("def peak(res):\n    return np.max(np.abs(res['p']), axis=-1)")
    _sweep(friction_mass, tmp_path / "s", [first["peak"]])
    second = _module_build("def peak(res):\n    return np.max(res['v'], axis=-1)")
    with pytest.raises(ss.ParameterError, match=r"`code\.analyses\.peak`"):
        _sweep(friction_mass, tmp_path / "s", [second["peak"]])
    # a helper the analysis calls is part of it too
    helper = _module_build("def scale(x):\n    return 2 * x\n"
                           "def peak(res):\n    return scale(np.max(res['p'], axis=-1))")
    _sweep(friction_mass, tmp_path / "h", [helper["peak"]])
    exec("def scale(x):\n    return 3 * x", helper)          # noqa: S102 — the helper edited
    with pytest.raises(ss.ParameterError, match=r"`code\.analyses\.peak`"):
        _sweep(friction_mass, tmp_path / "h", [helper["peak"]])


@pytest.mark.parametrize("package", [equinox, jax])
def test_a_new_dependency_version_is_refused(tmp_path, monkeypatch, package):
    _sweep(friction_mass, tmp_path / "s")
    monkeypatch.setattr(package, "__version__", "0.0.0+changed")
    with pytest.raises(ss.ParameterError,
                       match=rf"`versions\.{package.__name__}` was '[^']+', now "
                             r"'0\.0\.0\+changed'"):
        _sweep(friction_mass, tmp_path / "s")


def test_changed_stickslip_source_is_refused(tmp_path, monkeypatch):
    _sweep(friction_mass, tmp_path / "s")
    monkeypatch.setattr(_fingerprint, "source_hash", lambda: "0" * 64)
    with pytest.raises(ss.ParameterError, match=r"`versions\.stickslip source`"):
        _sweep(friction_mass, tmp_path / "s")


class _Scaled:
    """A callable object of a user class: the store cannot see into it."""

    def __init__(self, factor):
        self.factor = factor

    def __call__(self, res):
        return self.factor * np.max(np.abs(res["p"]), axis=-1)


def test_an_unfingerprintable_analysis_bypasses_the_store_and_says_so(tmp_path):
    with pytest.warns(UserWarning, match=r"is not used .*'scaled' \(_Scaled\) cannot be "
                                         r"fingerprinted.*__stickslip_key__"):
        one = _sweep(friction_mass, tmp_path / "s", {"scaled": _Scaled(1.0)})
    with pytest.warns(UserWarning, match="is not used"):
        two = _sweep(friction_mass, tmp_path / "s", {"scaled": _Scaled(2.0)})
    assert two.attrs["computed"] == 2 and two.attrs["reused"] == 0
    np.testing.assert_allclose(two["scaled"], 2 * one["scaled"], rtol=1e-14)
    assert not (tmp_path / "s").exists()                    # neither read nor written


def test_a_part_copied_from_another_store_is_not_read(tmp_path):
    def soft(F):
        return friction_mass(F=F, K=1e4)

    def stiff(F):
        return friction_mass(F=F, K=1e6)

    _sweep(soft, tmp_path / "soft")
    ss.sweep(stiff, {"F": [0.3]}, {"pmax": pmax}, **RUN, store=tmp_path / "stiff")
    for part in (tmp_path / "soft").glob("part-*.parquet"):      # newer: it would win
        shutil.copy(part, tmp_path / "stiff" / part.name)
    with pytest.warns(UserWarning, match=r"part-.*\.parquet' is not used: it was written for "
                                         "another study"):
        table = _sweep(stiff, tmp_path / "stiff")
    assert table.attrs["computed"] == 1                      # F = 0.5, not the copied row
    fresh = _sweep(stiff, None)
    np.testing.assert_array_equal(table["pmax"], fresh["pmax"])
    assert list((tmp_path / "stiff").glob("part-*.parquet.foreign"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")                       # set aside: said once
        _sweep(stiff, tmp_path / "stiff")


# --- the program store --------------------------------------------------------------------

@pytest.fixture
def programs(tmp_path, monkeypatch):
    """An empty program store in tmp_path, nothing compiled held in memory."""
    monkeypatch.setattr(_program_store, "store_directory", lambda: tmp_path)
    _program_store.clear_memory()
    yield tmp_path
    _program_store.clear_memory()


def _block(omega):
    law = ss.laws.CoulombODE(F=1.0, K=1e3, beta=0.02)
    return ss.systems.FrictionMass(M=1.0, law=law, force=lambda t: 0.3 * jnp.sin(omega * t))


def _run(system):
    return ss.simulate(system, 0.1, dt=1e-3, dt_out=1e-2)


def test_a_program_copied_under_another_key_is_not_run(programs):
    slow = _run(_block(2.0))
    (slow_file,) = programs.glob("integrate_padded-*.jaxexec")
    fast = _run(_block(9.0))
    (fast_file,) = set(programs.glob("integrate_padded-*.jaxexec")) - {slow_file}
    shutil.copy(slow_file, fast_file)              # the slow program under the fast one's key
    _program_store.clear_memory()                  # a new process
    traced = ss.integrate.traces(integrate_padded)
    again = _run(_block(9.0))
    assert ss.integrate.traces(integrate_padded) == traced + 1      # rebuilt, not loaded
    np.testing.assert_array_equal(again["p"], fast["p"])
    assert not np.allclose(again["p"], slow["p"])
    assert fast_file.read_bytes() != slow_file.read_bytes()         # and replaced


def test_a_program_of_another_equinox_version_is_not_reused(programs, monkeypatch):
    first = _run(_block(2.0))
    _program_store.clear_memory()
    monkeypatch.setattr(equinox, "__version__", "0.0.0+changed")
    traced = ss.integrate.traces(integrate_padded)
    again = _run(_block(2.0))
    assert ss.integrate.traces(integrate_padded) == traced + 1
    np.testing.assert_array_equal(again["p"], first["p"])
    assert len(list(programs.glob("integrate_padded-*.jaxexec"))) == 2
