"""One explicit Runge–Kutta step: the single stepping kernel of every fixed-step driver.

:func:`rk_step` is what `simulate`'s loop, the closed loop, the event route and the
spatial stepper call for a step (SPEC §7 for Runge–Kutta–Gill). Its options:

* ``stages_in_loop`` (the integrator option ``trace_stages_once``): the stages run in a
  ``fori_loop``, so a large vector field is traced and compiled once instead of once per
  stage (3–4× less compile time for big models; slightly slower per step for tiny ones);
* ``project``: a function ``project(t, x)`` applied to the result (e.g. putting a
  constrained mechanism back on its constraint manifold), or None.

>>> import jax.numpy as jnp
>>> round(float(rk_step(lambda t, x: -x, "rk4", 0.0, jnp.array([1.0]), 0.1)[0]), 9)
0.9048375
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import ParameterError
from ._tableaus import FIXED_STEP_METHODS, ButcherTableau

__all__ = ["rk_step", "rk_step_sampled", "tableau_of"]


def tableau_of(method: str | ButcherTableau) -> ButcherTableau:
    """The Butcher tableau of a fixed-step method name (or the tableau itself)."""
    if isinstance(method, ButcherTableau):
        return method
    try:
        return FIXED_STEP_METHODS[method]
    except (KeyError, TypeError):
        raise ParameterError(f"unknown fixed-step `method` {method!r}; choose one of "
                             f"{list(FIXED_STEP_METHODS)}.") from None


def rk_step(vector_field: Callable, tableau: str | ButcherTableau, t, x, dt, *,
            stages_in_loop: bool = False, project: Callable | None = None):
    """One explicit Runge–Kutta step of `tableau` (a method name such as ``"rk4"`` or a
    :class:`ButcherTableau`) from state `x` at time `t` with step `dt`.

    ``k_i = f(t + c_i·dt, x + dt·Σ_j a_ij·k_j)``, ``x⁺ = x + dt·Σ_i b_i·k_i``; then
    ``project(t + dt, x⁺)`` when `project` is given. `t`, `x`, `dt` may be traced; `tableau`,
    `stages_in_loop` and `project` fix the traced program.
    """
    tableau = tableau_of(tableau)
    if stages_in_loop:
        x_next = _rk_step_looped(vector_field, tableau, t, x, dt)
    else:
        ks = []
        for ci, row in zip(tableau.c, tableau.a):
            xi = x
            for aij, kj in zip(row, ks):
                if aij != 0.0:
                    xi = xi + (dt * aij) * kj
            ks.append(vector_field(t + ci * dt, xi))
        increment = sum(bi * ki for bi, ki in zip(tableau.b, ks) if bi != 0.0)
        x_next = x + dt * increment
    return x_next if project is None else project(t + dt, x_next)


def _rk_step_looped(vector_field, tableau, t, x, dt):
    n = len(tableau.b)
    a = np.zeros((n, n))
    for i, row in enumerate(tableau.a):
        a[i, : len(row)] = row
    a, b, c = jnp.asarray(a), jnp.asarray(tableau.b), jnp.asarray(tableau.c)

    def stage(i, ks):
        return ks.at[i].set(vector_field(t + c[i] * dt, x + dt * (a[i] @ ks)))

    ks = jax.lax.fori_loop(0, n, stage, jnp.zeros((n, *x.shape), x.dtype))
    return x + dt * (b @ ks)


def rk_step_sampled(evaluate: Callable, tableau: str | ButcherTableau, t, x, dt, *,
                    template, keep: bool | jax.Array = True, project: Callable | None = None):
    """:func:`rk_step` with the stages in a loop, where ``evaluate(t, x, want) -> (ẋ,
    sample)`` gives the derivative and, where the traced bool `want` holds, what a run
    records at (t, x) (zeros of `template`'s shapes elsewhere, skipped by a ``lax.cond``):
    returns ``(x⁺, sample at (t, x))``, the sample from the first stage (c₁ = 0: exactly the
    step's start) when `keep`. One call site of `evaluate` in the traced program: what ẋ
    and the sample share is computed once (``AbstractSystem.samples_in_stages``)."""
    tableau = tableau_of(tableau)
    n = len(tableau.b)
    if tableau.c[0] != 0.0 or any(tableau.a[0]):
        raise ParameterError(f"rk_step_sampled needs a first stage at the step's start "
                             f"(c₁ = 0); {tableau!r} has c₁ = {tableau.c[0]}.")
    a = np.zeros((n, n))
    for i, row in enumerate(tableau.a):
        a[i, : len(row)] = row
    a, b, c = jnp.asarray(a), jnp.asarray(tableau.b), jnp.asarray(tableau.c)
    first = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), template)

    def stage(i, carry):
        ks, kept = carry
        k, sample = evaluate(t + c[i] * dt, x + dt * (a[i] @ ks), keep & (i == 0))
        kept = jax.tree.map(lambda new, old: jnp.where(i == 0, new, old), sample, kept)
        return ks.at[i].set(k), kept

    ks, sample = jax.lax.fori_loop(0, n, stage, (jnp.zeros((n, *x.shape), x.dtype), first))
    x_next = x + dt * (b @ ks)
    return (x_next if project is None else project(t + dt, x_next)), sample
