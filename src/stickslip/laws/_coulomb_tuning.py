"""Tuning `CoulombODE` for a rest-position tolerance: the slide-then-stick problem, its closed
form error (:func:`slide_then_stick_error`) and the measured recipe behind
:meth:`CoulombODE.for_tolerance` (docs/tuning.md, "friction accuracy")."""

from __future__ import annotations

import math
from typing import NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._parameters import FRICTION_LEVEL, MASS, Rule, check_parameters
from ..errors import ParameterError
from ._base import AbstractFrictionLaw

__all__ = ["ToleranceTuning", "slide_then_stick_error", "tune_for_tolerance"]

MAX_STEPS = 20_000_000
"""The most RK4 steps one calibration or check run of the recipe may take (about 2 s); a
candidate that needs more is skipped, and when every candidate does the tolerance is refused
as out of reach instead of running for hours."""


class _TooManySteps(Exception):
    """A calibration or check run would take more than MAX_STEPS steps."""

_RK4_REAL_LIMIT = 2.785293563405282   # RK4 stability interval on the negative real axis


class ToleranceTuning(NamedTuple):
    """What :meth:`CoulombODE.for_tolerance` returns.

    K: proxy stiffness [N/m].  beta: proxy time constant [s].  dt: fixed RK4 step [s].
    law: the ``CoulombODE`` built from them.  error: the rest-position error p_rest − p* [m]
    of the slide-then-stick problem (:func:`slide_then_stick_error`), simulated at (K, beta,
    dt).
    """

    K: float
    beta: float
    dt: float
    law: AbstractFrictionLaw            # the CoulombODE built from K and beta
    error: float


def _momentum_fraction(ratio: float) -> float:
    """g(r) = 1 + (1/r − 1)·ln(1 − r) for r = F/P in (0, 1): the fraction of M·F/(Kβ) the
    body gains at breakaway (g → 1 as P → F, g ≈ r/2 for P ≫ F)."""
    return 1.0 + (1.0 / ratio - 1.0) * math.log1p(-ratio)


def slide_then_stick_error(F: float, K: float, beta: float, push: float,
                           slide_time: float) -> float:
    """Rest-position error [m] of eq. 10 on the slide-then-stick problem (closed form).

    Problem: a block at rest, pushed by a constant force ``push`` = P > F from t = 0, slides
    and then sticks when it comes to rest ``slide_time`` = t* later (its push may end before,
    e.g. at t_p with t* = t_p·P/F; the exact rest position is p* = (P − F)·P·t_p²/(2 M F)).

    Error (p_rest − p*, for ζ = β√(K/M)/2 ≳ 2 and β ≪ t*)::

        E = (F/(K·β))·g(F/P)·t*  −  F/K,      g(r) = 1 + (1/r − 1)·ln(1 − r)

    Derivation: while stuck the body sits on the proxy spring K and damper K·β; the contact
    breaks loose only when the proxy force K(a + β v) reaches F, i.e. once the body moves at
    about F/(Kβ). Until then the friction is below F, so the modelled block gains a momentum
    Δ = M·F·g(F/P)/(Kβ) over the ideal one (the fast stuck mode M/(Kβ) solved in closed form
    with K·a negligible: breakaway at t_b = −(M/(Kβ))·ln(1 − F/P), Δ = M v_b − (P − F) t_b).
    While sliding the force is exactly F (eq. 9 saturated) in both, so the extra velocity
    Δ/M lasts the whole slide: + (Δ/M)·t*. At rest the proxy spring, deflected by F/K while
    sliding, relaxes back: − F/K. The first term is the one that matters: the error falls
    like 1/(K·β) — not like F/K — which is why an over-damped stick mode (large K·β, ζ ≈ 5)
    is the efficient choice. Checked against the exact piecewise-linear solution and against
    simulation in ``tests/laws/test_for_tolerance.py``.

    Regime: the closed form assumes the stuck transient is over-damped (within 2 % of the
    exact piecewise solution from ζ = 2 up; off by more than 5 % at ζ ≤ 1, where the breakaway
    term is ∝ 1/√K) and resolved in time. At the usual RK4 step (0.5 × the stable one) the
    breakaway happens inside the first step and the discretisation changes the term (at
    P = 5F it doubles it); :meth:`CoulombODE.for_tolerance` measures it instead.
    """
    ratio = F / push
    if not 0.0 < ratio < 1.0:
        raise ParameterError(f"`slide_then_stick_error.push` must exceed F for the block to "
                             f"slide; got push={push!r}, F={F!r}. Pass push > F.")
    return F * _momentum_fraction(ratio) * slide_time / (K * beta) - F / K


_CANDIDATE_ZETAS = (0.5, 1.0, 2.0, 5.0, 20.0)
_CANDIDATE_STEP_FRACTIONS = (0.5, 0.25, 0.1)
_CALIBRATION_OMEGA_T = (100.0, 300.0, 900.0)
_ACCEPT = 0.75            # the check run must land within 0.75·tol (designed for tol/2)


def _stable_step(mass: float, K: float, beta: float) -> float:
    """The largest stable RK4 step of eq. 10 with the proxy (K, beta) on `mass`: the fastest
    of the stick mode M s² + Kβ s + K = 0 and the slip relaxation −1/β, on the real axis
    (ζ ≥ 1) or through |λ| (the RK4 region reaches about as far along the imaginary axis)."""
    disc = np.sqrt((K * beta) ** 2 - 4 * mass * K + 0j)
    fastest = max(abs((-K * beta + disc) / (2 * mass)), abs((-K * beta - disc) / (2 * mass)),
                  1.0 / beta)
    return _RK4_REAL_LIMIT / fastest


@eqx.filter_jit
def _rest_state(law, mass, push, n_push, dt, n):
    """(p, v) after n RK4 steps of eq. 10 with a step load `push` on for the first n_push
    steps, from rest (the slide-then-stick problem)."""
    from ..integrate import rk_step   # integrate imports laws: import late

    def step(i, x):
        load = jnp.where(i < n_push, push, 0.0)

        def field(t, x):
            force, rate = law.force_and_rate(x[2:], x[1], 1.0)
            return jnp.concatenate([x[1:2], ((load + force) / mass)[None], rate])

        return rk_step(field, "rk4", i * dt, x, dt)

    x = jax.lax.fori_loop(0, n, step, jnp.zeros(3))
    return x[0], x[1]


def _slide_then_stick_run(law_class, mass, level, push, slide_time, K, beta, dt_max):
    """Simulated rest-position error p_rest − p* [m] of the slide-then-stick problem (RK4,
    the push ending on a step boundary) and the step used: dt ≤ dt_max."""
    t_push = slide_time * level / push
    n_push = math.ceil(t_push / dt_max)
    dt = t_push / n_push
    disc = np.sqrt((K * beta) ** 2 - 4 * mass * K + 0j)
    slowest = min(abs(((-K * beta + disc) / (2 * mass)).real), 1.0 / beta)
    n = math.ceil((slide_time + 40.0 / slowest) / dt)           # settled to e^-40
    if n > MAX_STEPS:
        raise _TooManySteps(n)
    law = law_class(F=level, K=K, beta=beta)
    p, _ = _rest_state(law, *(jnp.asarray(v) for v in (mass, push, n_push, dt, n)))
    p_star = (push - level) * push * t_push ** 2 / (2 * mass * level)
    return float(p) - p_star, dt


def _error_coefficients(law_class, mass, level, push, slide_time, zeta, kappa):
    """(A, B) of E·K/F = A + B·ω·t* for damping ratio ζ and step fraction κ, measured by
    three short runs (ω·t* = 100, 300, 900, divided by ζ/5 for ζ > 5); |A| is the worst
    residual."""
    wt = np.asarray(_CALIBRATION_OMEGA_T) / max(1.0, zeta / 5.0)   # same K·β/M range
    phi = []
    for omega_t in wt:
        K = mass * (omega_t / slide_time) ** 2
        beta = 2.0 * zeta * math.sqrt(mass / K)
        error, _ = _slide_then_stick_run(law_class, mass, level, push, slide_time, K, beta,
                                         kappa * _stable_step(mass, K, beta))
        phi.append(error * K / level)
    B = float(np.polyfit(wt, np.asarray(phi), 1)[0])
    A = float(np.max(np.abs(np.asarray(phi) - B * wt)))
    return A, B


def tune_for_tolerance(cls, mass, tol, *, F=None, mu=None, normal_force=None, push=None,
                       slide_time=1.0, damping_ratio=None) -> ToleranceTuning:
    """:meth:`CoulombODE.for_tolerance` (its docstring is the documentation); `cls` is the
    law class to build."""
    check_parameters("CoulombODE.for_tolerance", {
        "mass": MASS, "tol": Rule("positive", "Pass the error bound in metres.", True),
        "slide_time": Rule("positive", "Pass the sliding time in seconds.", True),
        "damping_ratio": Rule("positive", "Pass a damping ratio, or None to choose.",
                              True),
        "push": Rule("positive", "Pass the load that starts the slide in newtons.", True),
        "normal_force": Rule("nonnegative", "Pass the normal force in newtons.", True)},
        mass=mass, tol=tol, slide_time=slide_time, damping_ratio=damping_ratio,
        push=push, normal_force=normal_force)
    if (F is None) == (mu is None):
        raise ParameterError("`CoulombODE.for_tolerance` needs exactly one of `F` and `mu`; "
                             f"got F={F!r}, mu={mu!r}.")
    level = F if F is not None else mu * (mass * 9.81 if normal_force is None
                                          else normal_force)
    check_parameters("CoulombODE.for_tolerance", {"F": FRICTION_LEVEL.but(kind="positive")},
                     F=level)
    mass, tol, level, t_slide = float(mass), float(tol), float(level), float(slide_time)
    push = 2.0 * level if push is None else float(push)
    if push <= level:
        raise ParameterError(f"`CoulombODE.for_tolerance.push` must exceed the friction "
                             f"level F={level:g} N for the body to slide; got push={push:g}. "
                             "Pass the load that starts the slide.")
    zetas = _CANDIDATE_ZETAS if damping_ratio is None else (float(damping_ratio),)
    candidates = []                          # (step, ζ or None, κ, K, β or None)
    for zeta in zetas:
        for kappa in _CANDIDATE_STEP_FRACTIONS:
            try:
                A, B = _error_coefficients(cls, mass, level, push, t_slide, zeta, kappa)
            except _TooManySteps:
                continue
            # (F/K)·|A| + F·|B|·t*/√(K·M) ≤ tol/2: a quadratic in u = 1/√K
            a2, a1 = level * abs(A), level * abs(B) * t_slide / math.sqrt(mass)
            u = (2 * (tol / 2) / (a1 + math.sqrt(a1 ** 2 + 4 * a2 * tol / 2))
                 if a2 > 0 else (tol / 2) / a1)
            K = 1.0 / u ** 2
            beta = 2.0 * zeta * math.sqrt(mass / K)
            candidates.append((_stable_step(mass, K, beta) * kappa, zeta, kappa, K, None))
    if damping_ratio is None:
        # the strongly over-damped closed form (ζ ≫ 5, β fixed by the slide): each term
        # of E = F·g·t*/(Kβ) − F/K ≤ tol/2, β = min(t*/20, g·t*)
        g = _momentum_fraction(level / push)
        beta = min(t_slide / 20.0, g * t_slide)
        K = max(2.0 * level / tol, 2.0 * level * g * t_slide / tol / beta,
                100.0 * mass / beta ** 2)
        candidates.append((_stable_step(mass, K, beta) * 0.5, None, 0.5, K, beta))
    candidates.sort(key=lambda c: -c[0])
    fewest_steps = math.inf
    for _, zeta, kappa, K, fixed_beta in candidates:
        for _ in range(8):
            beta = fixed_beta or 2.0 * zeta * math.sqrt(mass / K)
            try:
                error, dt = _slide_then_stick_run(cls, mass, level, push, t_slide, K, beta,
                                                  kappa * _stable_step(mass, K, beta))
            except _TooManySteps as too_many:
                fewest_steps = min(fewest_steps, too_many.args[0])
                break                            # a stiffer K only needs more: next candidate
            if abs(error) <= _ACCEPT * tol:
                law = cls(F=F, K=K, beta=beta, mu=mu)
                return ToleranceTuning(K=K, beta=beta, dt=dt, law=law, error=error)
            K *= 1.3
    if fewest_steps < math.inf:
        raise ParameterError(
            f"`CoulombODE.for_tolerance` cannot reach tol={tol:g} m for slide_time="
            f"{t_slide:g} s (push={push:g} N, F={level:g} N): the cheapest candidate needs "
            f"{fewest_steps:.3g} RK4 steps per checked run (the limit is {MAX_STEPS:.0e}). Pass "
            "a larger tol or a shorter slide_time (the error grows with the sliding time; "
            "a long slide is better tuned for a shorter one and checked by simulation).")
    raise ParameterError(  # pragma: no cover - every candidate failed its check run
        f"`CoulombODE.for_tolerance` found no (K, beta, dt) meeting tol={tol:g} m for "
        f"push={push:g} N, F={level:g} N, slide_time={t_slide:g} s. Pass a larger tol.")
