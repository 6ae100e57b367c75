"""Adaptive-step integration through diffrax (Tsit5, Dopri5, Kvaerno5).

diffrax is imported when an adaptive run is traced, not with stickslip: it costs ~0.7 s of
start-up that fixed-step runs do not need."""

from __future__ import annotations

import functools

import equinox as eqx
import jax

__all__ = ["ADAPTIVE_METHODS", "integrate_adaptive", "integrate_adaptive_batch",
           "is_diffrax_solver", "solve_adaptive", "solve_adaptive_batch", "solver_label"]

# method name → diffrax solver class name (kvaerno5 is implicit: for stiff K)
ADAPTIVE_METHODS = {"tsit5": "Tsit5", "dopri5": "Dopri5", "kvaerno5": "Kvaerno5"}

_STATIC = ("static", "method", "max_steps")


def is_diffrax_solver(obj) -> bool:
    """Whether `obj` is a diffrax adaptive solver object (``diffrax.Dopri8()``, …), which
    ``simulate(..., method=obj)`` accepts in place of a method name. diffrax is looked at
    only when the object comes from it (stickslip does not import it at start-up)."""
    if not type(obj).__module__.startswith("diffrax"):
        return False
    import diffrax

    return isinstance(obj, diffrax.AbstractAdaptiveSolver)


def solver_label(method) -> str:
    """A method's name for Results.meta and messages (a solver object: ``diffrax.Dopri8``)."""
    return method if isinstance(method, str) else f"diffrax.{type(method).__name__}"


def _solver(method):
    import diffrax

    if not isinstance(method, str):
        return method
    return getattr(diffrax, ADAPTIVE_METHODS[method])()


def _integrate(dynamic, static, ts, x0, dt0, rtol, atol, method, max_steps):
    import diffrax

    system = eqx.combine(dynamic, static)
    term = diffrax.ODETerm(lambda t, x, args: system.vector_field(t, x))
    solver = _solver(method)
    solution = diffrax.diffeqsolve(
        term, solver, t0=ts[0], t1=ts[-1], dt0=dt0, y0=x0,
        saveat=diffrax.SaveAt(ts=ts),
        stepsize_controller=diffrax.PIDController(rtol=rtol, atol=atol),
        max_steps=max_steps, throw=False)
    xs = solution.ys
    outputs, energy = jax.lax.map(         # a loop: see _fixed_step._samples
        lambda tx: (system.outputs(*tx), system.passive_energy(*tx)), (ts, xs))
    ok = solution.result == diffrax.RESULTS.successful
    return xs, outputs, energy, ok, solution.stats["num_steps"]


def integrate_adaptive(static, method: str, max_steps: int, dynamic, ts, x0, dt0, rtol, atol):
    """The kernel of :func:`solve_adaptive` with the static arguments first (what
    ``simulate`` hands to :func:`._program_store.call`)."""
    return _integrate(dynamic, static, ts, x0, dt0, rtol, atol, method, max_steps)


def integrate_adaptive_batch(static, method: str, max_steps: int, dynamic, ts, x0, dt0, rtol,
                             atol):
    """The kernel of :func:`solve_adaptive_batch` (static arguments first)."""
    run = functools.partial(_integrate, static=static, ts=ts, dt0=dt0, rtol=rtol, atol=atol,
                            method=method, max_steps=max_steps)
    return jax.vmap(lambda d, x: run(d, x0=x))(dynamic, x0)


@functools.partial(jax.jit, static_argnames=_STATIC)
def solve_adaptive(dynamic, static, ts, x0, dt0, rtol, atol, *, method: str, max_steps: int):
    """Integrate with diffrax from ``ts[0]`` to ``ts[-1]``, saving at `ts`. Returns
    (xs, outputs, energy or None, succeeded, n_steps); after a failure the unreached
    samples are not finite."""
    return _integrate(dynamic, static, ts, x0, dt0, rtol, atol, method, max_steps)


@functools.partial(jax.jit, static_argnames=_STATIC)
def solve_adaptive_batch(dynamic, static, ts, x0, dt0, rtol, atol, *, method: str,
                         max_steps: int):
    """`solve_adaptive` over a stacked batch (leading member axis on `dynamic` and `x0`)."""
    run = functools.partial(_integrate, static=static, ts=ts, dt0=dt0, rtol=rtol, atol=atol,
                            method=method, max_steps=max_steps)
    return jax.vmap(lambda d, x: run(d, x0=x))(dynamic, x0)
