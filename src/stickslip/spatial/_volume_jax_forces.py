"""`SpatialModel.simulate`'s ``forces=`` callables on the JAX volume route (SPEC §7 step 6):
each becomes a pure function ``applied(t, X) -> (F, T)`` (world force and torque about the
centres of mass, (n_bodies, 3) each) that the jitted run calls at every Runge–Kutta stage,
as the numba host loop does.

Two ways, chosen per callable (documented choice):

* **traced** — the callable is traced with the state as JAX values at the run's two ends,
  t0 and t_end (plain floats: a Python ``if`` on t still works, and a callable that records
  its t records those two times; `jax.checking_leaks` catches one that keeps a traced
  state). The same program at both ends means it does not depend on t: a constant wrench
  becomes data (the 578 constant loads of the Fig. 8 sweep, ``bottom_load``, and every
  ``forces=None`` run share one compiled run), a function of the state is traced. Otherwise
  it is traced in t too. A traced run is keyed by the jaxpr's text, its constants passed as
  data; a callable written with ``jnp`` costs nothing per stage. Side effects of a traced
  callable happen at trace time only.
* **host callback** — a callable that cannot be traced (a Python ``if`` on `t`,
  ``np.array([f(t), ...])``, numba, stored arguments) runs on the host through
  ``jax.experimental.io_callback(ordered=True)``: called with NumPy values at every stage,
  in order, exactly as in the host loop (side effects included). One compiled run serves
  every such callable (it is looked up at run time, :data:`_CALLBACK`). Why not a
  `ParameterError` for these: every existing user callable keeps working unchanged; the
  price is ~0.35 ms of CPU per stage (measured: a 1 s box run, 1.8 s against 0.37 s).

The wrench's checks are the host loop's (`_volume_host.applied_loads`): an unknown body is a
`ModelError`, a malformed return a `ParameterError`; an exception raised inside a callback is
kept and raised after the run (:func:`raise_callback_error`), the run stopping at once.
"""

from __future__ import annotations

from collections.abc import Mapping

import jax
import jax.core  # jax.core.Tracer below (a submodule: named for static checkers)
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback
from jax.typing import ArrayLike

from ..errors import ModelError, ParameterError
from ._volume_host import applied_loads

__all__ = ["AppliedForces", "applied_forces", "raise_callback_error"]

# the run in flight on the callback route: (model, forces, error) — runs are synchronous, so
# one slot serves every compiled run that calls back
_CALLBACK: dict = {}


class AppliedForces:
    """How a run evaluates its applied loads: `mode` "constant" (consts = (F, T)), "traced"
    or "callback"; `key`
    (hashable: the compiled run's share of its cache key); `consts` (the traced constants,
    a tuple of arrays passed to the run as data); :meth:`function` builds the traced
    ``applied(t, X, consts) -> (F, T)``."""

    def __init__(self, mode, key, consts=(), jaxpr=None, n_bodies=0, time_free=False):
        self.mode, self.key, self.consts = mode, key, tuple(consts)
        self._jaxpr, self._n, self._time_free = jaxpr, n_bodies, time_free

    def function(self):
        """The pure ``applied(t, X, consts) -> (F (n, 3), T (n, 3))`` of this mode."""
        n, jaxpr, time_free = self._n, self._jaxpr, self._time_free
        if self.mode == "constant":
            return lambda t, X, consts: (consts[0], consts[1])
        if self.mode == "traced":
            assert jaxpr is not None, "the traced mode is built with its jaxpr (applied_forces)"

            def traced(t, X, consts):
                F, T = jax.core.eval_jaxpr(jaxpr, consts, *((X,) if time_free else (t, X)))
                return F, T
            return traced
        shape = (jax.ShapeDtypeStruct((n, 3), jnp.float64),) * 2
        return lambda t, X, consts: io_callback(_host_wrench, shape, t, X, ordered=True)


def _wrench_of(model, forces, t, X):
    """The callable's wrench with the host loop's checks, in JAX arrays (traceable)."""
    names = [b.name for b in model.bodies]
    states = model.body_states(X)
    out = forces(t, states) if callable(forces) else \
        {name: fn(t, states) for name, fn in forces.items()}
    if not isinstance(out, Mapping):
        raise ParameterError("`simulate.forces` (one callable) must return {body: (force, "
                             f"torque)}}; it returned {type(out).__name__}.")
    F, T = jnp.zeros((len(names), 3)), jnp.zeros((len(names), 3))
    for name, wrench in out.items():
        if name not in names:
            raise ModelError(f"`forces` names body {name!r}, which is not in the model; "
                             f"bodies are {names}.")
        try:
            fvec, tvec = wrench
            fvec, tvec = jnp.asarray(fvec, float), jnp.asarray(tvec, float)
            if fvec.shape != (3,) or tvec.shape != (3,):
                raise ValueError
        except (TypeError, ValueError):
            raise ParameterError(f"`simulate.forces` for body {name!r} must return (force "
                                 f"(3,) [N], torque (3,) [N m]); got {wrench!r}.") from None
        i = names.index(name)
        F, T = F.at[i].add(fvec), T.at[i].add(tvec)
    return F, T


def applied_forces(model, forces, t0: float, t_end: float, X0: ArrayLike) -> AppliedForces:
    """The `AppliedForces` of `forces` (None, a callable or a mapping of callables, checked
    by `_volume_host.check_run_options`) for `model` on a run from `t0` to `t_end` [s]
    (module docstring).

    The callable is first traced in the state alone at the two ends of the run, t0 and
    t_end (plain floats: a Python ``if`` on t works, and a callable that records its t
    records those times): equal programs mean it does not depend on t — a constant wrench
    (data) or a traced function of the state. Otherwise it is traced in t as well; what
    cannot be traced runs as the host callback."""
    n = len(model.bodies)
    if forces is None:
        return AppliedForces("constant", ("constant",), (jnp.zeros((n, 3)),) * 2, n_bodies=n)
    X0 = jnp.asarray(X0, dtype=float)
    probes = []
    for t in (float(t0), float(t_end)):
        closed = _trace(lambda X, t=t: _wrench_of(model, forces, t, X), X0)
        if closed is None:
            return AppliedForces("callback", ("callback",), n_bodies=n)
        probes.append(closed)
    (a, b) = probes
    if str(a.jaxpr) == str(b.jaxpr) and len(a.consts) == len(b.consts) and all(
            np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(a.consts, b.consts)):
        if not _depends_on_inputs(a.jaxpr):       # a constant wrench: data, one program
            F, T = applied_loads(model, forces, float(t0), np.asarray(X0))   # NumPy: fast
            return AppliedForces("constant", ("constant",), (jnp.asarray(F), jnp.asarray(T)),
                                 n_bodies=n)
        return _traced(a, n, time_free=True)
    closed = _trace(lambda t, X: _wrench_of(model, forces, t, X), jnp.float64(t0), X0)
    if closed is None:
        return AppliedForces("callback", ("callback",), n_bodies=n)
    return _traced(closed, n, time_free=False)


def _trace(fn, *args):
    """``jax.make_jaxpr(fn)(*args)``, or None when `fn` cannot be traced (or keeps a
    tracer); the host loop's own errors (`ModelError`, `ParameterError`) propagate."""
    try:
        with jax.checking_leaks():
            return jax.make_jaxpr(fn)(*args)
    except (ModelError, ParameterError):
        raise
    except Exception:         # noqa: BLE001 — anything untraceable runs on the host
        return None


def _traced(closed, n, *, time_free):
    consts = tuple(jnp.asarray(c) for c in closed.consts)
    key = ("traced", time_free, str(closed.jaxpr),
           tuple((c.shape, str(c.dtype)) for c in consts))
    return AppliedForces("traced", key, consts, closed.jaxpr, n, time_free=time_free)


def _depends_on_inputs(jaxpr) -> bool:
    """Whether any output of `jaxpr` depends on its inputs (t, X)."""
    dependent = set(jaxpr.invars)
    for eqn in jaxpr.eqns:
        if any(not hasattr(v, "val") and v in dependent for v in eqn.invars):
            dependent.update(eqn.outvars)
    return any(not hasattr(v, "val") and v in dependent for v in jaxpr.outvars)


def start_callback(model, forces) -> None:
    """Make (`model`, `forces`) the run the host callback serves."""
    _CALLBACK.clear()
    _CALLBACK.update(model=model, forces=forces, error=None)


def _host_wrench(t, X):
    """The host callback: the host loop's `applied_loads` at (t, X); after an exception, NaN
    (the run's divergence check stops it) and the exception kept for after the run."""
    n = len(_CALLBACK["model"].bodies)
    if _CALLBACK.get("error") is not None:
        return np.full((n, 3), np.nan), np.full((n, 3), np.nan)
    try:
        F, T = applied_loads(_CALLBACK["model"], _CALLBACK["forces"], float(t),
                             np.asarray(X, dtype=float))
    except Exception as exc:    # noqa: BLE001 — re-raised by raise_callback_error
        _CALLBACK["error"] = exc
        return np.full((n, 3), np.nan), np.full((n, 3), np.nan)
    return np.asarray(F, dtype=np.float64), np.asarray(T, dtype=np.float64)


def raise_callback_error() -> None:
    """Raise the exception a host callback met during the run, if any (and clear the slot)."""
    error = _CALLBACK.get("error")
    _CALLBACK.clear()
    if error is not None:
        raise error
