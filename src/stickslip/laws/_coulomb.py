"""Coulomb friction as a Lipschitz ODE (SPEC §2, eq. 9)."""

from __future__ import annotations

import math
from typing import ClassVar, NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._parameters import (FRICTION_COEFFICIENT, FRICTION_LEVEL, STIFFNESS, TIME_CONSTANT,
                           Rule)
from ..errors import ParameterError
from ..nonsmooth import sat
from ._base import AbstractFrictionLaw, as_parameter

__all__ = ["CoulombODE", "ToleranceTuning", "slide_then_stick_error"]

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
    law: "CoulombODE"
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
    from ..integrate._rk_step import rk_step

    def step(i, x):
        load = jnp.where(i < n_push, push, 0.0)

        def field(t, x):
            force, rate = law.force_and_rate(x[2:], x[1], 1.0)
            return jnp.concatenate([x[1:2], ((load + force) / mass)[None], rate])

        return rk_step(field, "rk4", i * dt, x, dt)

    x = jax.lax.fori_loop(0, n, step, jnp.zeros(3))
    return x[0], x[1]


def _slide_then_stick_run(mass, level, push, slide_time, K, beta, dt_max):
    """Simulated rest-position error p_rest − p* [m] of the slide-then-stick problem (RK4,
    the push ending on a step boundary) and the step used: dt ≤ dt_max."""
    t_push = slide_time * level / push
    n_push = math.ceil(t_push / dt_max)
    dt = t_push / n_push
    disc = np.sqrt((K * beta) ** 2 - 4 * mass * K + 0j)
    slowest = min(abs(((-K * beta + disc) / (2 * mass)).real), 1.0 / beta)
    n = math.ceil((slide_time + 40.0 / slowest) / dt)           # settled to e^-40
    law = CoulombODE(F=level, K=K, beta=beta)
    p, _ = _rest_state(law, *(jnp.asarray(v) for v in (mass, push, n_push, dt, n)))
    p_star = (push - level) * push * t_push ** 2 / (2 * mass * level)
    return float(p) - p_star, dt


def _error_coefficients(mass, level, push, slide_time, zeta, kappa):
    """(A, B) of E·K/F = A + B·ω·t* for damping ratio ζ and step fraction κ, measured by
    three short runs (ω·t* = 100, 300, 900, divided by ζ/5 for ζ > 5); |A| is the worst
    residual."""
    wt = np.asarray(_CALIBRATION_OMEGA_T) / max(1.0, zeta / 5.0)   # same K·β/M range
    phi = []
    for omega_t in wt:
        K = mass * (omega_t / slide_time) ** 2
        beta = 2.0 * zeta * math.sqrt(mass / K)
        error, _ = _slide_then_stick_run(mass, level, push, slide_time, K, beta,
                                         kappa * _stable_step(mass, K, beta))
        phi.append(error * K / level)
    B = float(np.polyfit(wt, np.asarray(phi), 1)[0])
    A = float(np.max(np.abs(np.asarray(phi) - B * wt)))
    return A, B


class CoulombODE(AbstractFrictionLaw):
    """Coulomb friction as a Lipschitz ODE (SPEC §2, eq. 9; Xiong, Kikuuwe & Yamamoto).

    A massless proxy at ``p − a`` is tied to the body by a virtual spring ``K`` and damper
    ``K·beta``; Coulomb friction acts on the proxy. Theorem (4) solves the algebraic loop::

        s    = sat(F/K, a + beta·v)          (eq. 9b: friction magnitude f = K·s)
        da/dt = (s − a)/beta                 (eq. 9a)

    While stuck the body is held by a stiff spring–damper, so it stays within ``F/K`` of
    where it stuck — no creep under any force below F. While sliding the force is exactly
    ``F`` opposing the motion.

    Parameters
    ----------
    F:
        Friction force level [N] (a fixed Coulomb force). Give exactly one of F and mu.
    K:
        Proxy stiffness [N/m] (N·m/rad for rotation); larger means stiffer sticking.
    beta:
        Proxy time constant [s]; the proxy damping is ``K·beta`` [N·s/m].
    mu:
        Friction coefficient [-]; the level is ``mu·N`` with N the normal force the host
        supplies (joint reaction, contact force).

    Notes
    -----
    ``force_and_rate`` returns the force on the body, ``−K·s`` (it opposes the velocity).
    Planar sliding: pass a 2-vector velocity; ``sat`` then clips to a disc (Coulomb's
    isotropic friction), eq. 21.

    Examples
    --------
    >>> import stickslip as ss, jax.numpy as jnp
    >>> law = ss.laws.CoulombODE(F=0.5, K=1e4, beta=1e-3)
    >>> force, rate = law.force_and_rate(law.initial_state(), jnp.asarray(1.0), 1.0)
    >>> float(force)  # sliding at 1 m/s: the full level, opposing the motion
    -0.5
    """

    K: jnp.ndarray = eqx.field(converter=as_parameter)
    beta: jnp.ndarray = eqx.field(converter=as_parameter)
    F: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    mu: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)

    n_states: ClassVar[int] = 1
    state_names: ClassVar[tuple[str, ...]] = ("a",)
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "F": FRICTION_LEVEL, "mu": FRICTION_COEFFICIENT,
        "K": STIFFNESS.but(hint="Pass a positive proxy stiffness in N/m (e.g. 1e4 for a "
                                "1 kg body)."),
        "beta": TIME_CONSTANT.but(hint="Pass a positive proxy time constant in seconds "
                                       "(e.g. 1e-3)."),
    }

    def __init__(self, F=None, K=None, beta=None, *, mu=None):
        if (F is None) == (mu is None):
            raise ParameterError(
                "`CoulombODE` needs exactly one of `F` (a fixed force level [N]) and `mu` "
                f"(a coefficient times the host's normal force); got F={F!r}, mu={mu!r}. "
                "Pass F=... for a fixed level or mu=... for a load-dependent one.")
        for name, value in (("K", K), ("beta", beta)):
            if value is None:
                raise ParameterError(
                    f"`CoulombODE.{name}` is required; got none. "
                    f"{self.parameter_rules[name].hint}")
        self.F, self.mu, self.K, self.beta = F, mu, K, beta

    @classmethod
    def tuned(cls, mass: float, K: float, *, F=None, mu=None, damping_ratio: float = 1.0
              ) -> "CoulombODE":
        """A CoulombODE whose stick mode on `mass` [kg] has the given damping ratio.

        While stuck the body sits on the proxy spring K and damper K·β, so its stick mode is
        ``M s² + Kβ s + K = 0`` with damping ratio ``ζ = β√(K/M)/2``. A lightly damped stick
        mode (ζ ≪ 1) rings after every stop and overshoots under sudden loads — a load step
        below F can then break the contact loose for a moment. ``β = 2ζ√(M/K)``; ζ = 1
        (critical) is the safe default. See docs/tuning.md for the accuracy trade-off.
        """
        beta = 2.0 * damping_ratio * (mass / K) ** 0.5
        return cls(F=F, K=K, beta=beta, mu=mu)

    @classmethod
    def for_tolerance(cls, mass: float, tol: float, *, F: float | None = None,
                      mu: float | None = None, normal_force: float | None = None,
                      push: float | None = None, slide_time: float = 1.0,
                      damping_ratio: float | None = None) -> ToleranceTuning:
        """The cheapest K, β and fixed RK4 step whose rest-position error after a slide is
        ≤ `tol` (with a factor-2 margin), for the slide-then-stick problem.

        Problem (:func:`slide_then_stick_error`): a body of `mass` at rest is pushed by a step
        load ``push`` = P > F from t = 0 to t_p = t*·F/P; it slides and sticks after
        ``slide_time`` = t*. Exact rest position p* = (P − F)·P·t_p²/(2 M F).

        Error law (measured, docs/tuning.md "friction accuracy"). Writing ω = √(K/M) and
        ζ = β·ω/2, the RK4 rest-position error at a step dt = κ × the largest stable step is
        exactly of the form::

            E = (F/K)·(A + B·ω·t*)          A, B = functions of (ζ, F/P, κ) only

        ``B·ω·t*`` is the breakaway term: until the proxy force K(a + βv) reaches F the
        friction is below F, and the momentum the body gains over ideal Coulomb friction
        lasts the whole slide; ``A`` holds the spring relaxation −F/K and the stop. Resolved
        in time (κ → 0) and over-damped (ζ ≳ 5), B·ω·t*·F/K is the closed form
        F·g(F/P)·t*/(Kβ) of :func:`slide_then_stick_error`; at ζ ≈ 1 the breakaway term
        grows like 1/√K, not like F/K. With the usual step κ = 0.5 the breakaway is not
        resolved and B depends on the discretisation: at P = 2F and ζ ≤ 1 it nearly vanishes
        (the error is then ≈ −F/K), at P = 5F or P = 1.1F it does not.

        Recipe: for each candidate (ζ, κ) — ζ ∈ {0.5, 1, 2, 5, 20} (or the given
        `damping_ratio`), κ ∈ {0.5, 0.25, 0.1} — A and B are measured by three short runs
        of the problem (ω·t* = 100, 300, 900; /(ζ/5) for ζ = 20), K is the smallest with
        ``(F/K)·(|A| + |B|·ω·t*) ≤ tol/2``; one more candidate is the strongly over-damped
        closed form (β = min(t*/20, g·t*), K·β ≥ 2F·g·t*/tol, K ≥ 2F/tol, κ = 0.5). The
        candidate with the largest step (fewest steps per simulated second) is run once at
        full size; it is returned if its error is ≤ 0.75·tol, else K is raised by 30 % (up to
        seven times; then the
        next candidate is tried). The returned ``error`` is that simulated error.

        The run switches the push off exactly at t_p (on a step boundary, all RK4 stages of
        the last push step seeing the load). A load written ``where(t < t_p, P, 0)`` in one
        fixed-step run is seen as off by the last stage of that step: a further momentum
        error P·dt/6, i.e. up to P·dt·t*/(6M) of position — switch loads by restarting the
        run (``ss.simulate(..., initial=previous_results)``). Takes about a second (more for tol ≲ 1e-7 when a
        resolved candidate wins).

        Parameters
        ----------
        mass: body mass M [kg].
        tol: the rest-position error to stay below [m].
        F: friction level [N]; or `mu` with `normal_force` [N] (default ``mass·9.81``).
        push: the step load that starts the slide [N] > F (default 2F).
        slide_time: how long the body slides before it sticks, t* [s].
        damping_ratio: the stick-mode damping ratio ζ to use; None (default) chooses.

        Returns
        -------
        :class:`ToleranceTuning` ``(K, beta, dt, law, error)``; ``error`` is the simulated
        rest-position error p_rest − p* [m] at (K, beta, dt).

        Examples
        --------
        >>> import stickslip as ss
        >>> tuning = ss.laws.CoulombODE.for_tolerance(mass=1.0, F=0.5, tol=1e-5)
        >>> bool(abs(tuning.error) <= 0.75e-5 and tuning.law.K == tuning.K)
        True
        """
        from .._parameters import MASS, Rule, check_parameters

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
                A, B = _error_coefficients(mass, level, push, t_slide, zeta, kappa)
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
        for _, zeta, kappa, K, fixed_beta in candidates:
            for _ in range(8):
                beta = fixed_beta or 2.0 * zeta * math.sqrt(mass / K)
                error, dt = _slide_then_stick_run(mass, level, push, t_slide, K, beta,
                                                  kappa * _stable_step(mass, K, beta))
                if abs(error) <= _ACCEPT * tol:
                    law = cls(F=F, K=K, beta=beta, mu=mu)
                    return ToleranceTuning(K=K, beta=beta, dt=dt, law=law, error=error)
                K *= 1.3
        raise ParameterError(  # pragma: no cover - every candidate failed its check run
            f"`CoulombODE.for_tolerance` found no (K, beta, dt) meeting tol={tol:g} m for "
            f"push={push:g} N, F={level:g} N, slide_time={t_slide:g} s. Pass a larger tol.")

    @classmethod
    def example(cls) -> "CoulombODE":
        return cls(F=0.5, K=1e4, beta=1e-3)

    def level(self, normal_force):
        if self.F is not None:
            return self.F
        return self.mu * jnp.maximum(normal_force, 0.0)

    def force_and_rate(self, state, velocity, normal_force):
        a = state[0]
        s = sat(self.level(normal_force) / self.K, a + self.beta * velocity)   # eq. 9b
        return -self.K * s, ((s - a) / self.beta)[None]                        # eq. 9a

    def linear_modes(self, mass, normal_force=1.0):
        K, beta = np.asarray(self.K), np.asarray(self.beta)
        disc = np.sqrt((K * beta) ** 2 - 4 * mass * K + 0j)
        stick = np.stack([(-K * beta + disc) / (2 * mass), (-K * beta - disc) / (2 * mass)])
        return [("stick (M s² + Kβ s + K = 0)", stick), ("slip (−1/β)", -1.0 / beta + 0j)]
