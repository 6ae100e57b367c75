"""Coulomb friction as a Lipschitz ODE (SPEC §2, eq. 9)."""

from __future__ import annotations

import math
from typing import ClassVar, NamedTuple

import equinox as eqx
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
    law: the ``CoulombODE`` built from them.  error: the predicted rest-position error [m]
    of the slide-then-stick problem (:func:`slide_then_stick_error`).
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
    """
    ratio = F / push
    if not 0.0 < ratio < 1.0:
        raise ParameterError(f"`slide_then_stick_error.push` must exceed F for the block to "
                             f"slide; got push={push!r}, F={F!r}. Pass push > F.")
    return F * _momentum_fraction(ratio) * slide_time / (K * beta) - F / K


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
                      damping_ratio: float = 5.0) -> ToleranceTuning:
        """K, β and a fixed RK4 step for a rest-position error ≤ `tol` after a slide.

        Sizes the proxy for the slide-then-stick problem of :func:`slide_then_stick_error`
        (a body at rest pushed by ``push`` [N] > F, sliding for ``slide_time`` [s], then
        sticking): its error is ``E = F·g(F/P)·t*/(Kβ) − F/K``, so the recipe is

        * ``K·β ≥ 2·F·g(F/P)·t*/tol`` and ``K ≥ 2·F/tol`` (each term ≤ tol/2, half the
          budget left for integration error);
        * ``β = min(t*/20, g·t*)`` (the proxy relaxes within the slide), raised K so the stick
          mode is at least `damping_ratio` over-damped (ζ = β√(K/M)/2; ζ ≈ 5 by default);
        * ``dt = 0.5 × the largest stable RK4 step`` (the fastest mode is ≈ −Kβ/M).

        The cost (steps ∝ K·β/M) grows like 1/tol: ≈ 2·10⁶ steps per simulated second for
        tol = 1e-7 m with F = 0.5 N, M = 1 kg.

        Parameters
        ----------
        mass: body mass M [kg].
        tol: the rest-position error to stay below [m].
        F: friction level [N]; or `mu` with `normal_force` [N] (default ``mass·9.81``).
        push: the load that starts the slide [N] > F (default 2F, the worst g is for P → F).
        slide_time: how long the body slides before it sticks, t* [s].
        damping_ratio: the smallest stick-mode damping ratio ζ to accept.

        Returns
        -------
        :class:`ToleranceTuning` ``(K, beta, dt, law, error)``; ``error`` is the predicted E.

        Examples
        --------
        >>> import stickslip as ss
        >>> tuning = ss.laws.CoulombODE.for_tolerance(mass=1.0, F=0.5, tol=1e-5)
        >>> bool(abs(tuning.error) <= 0.5e-5 and tuning.law.K == tuning.K)
        True
        """
        from .._parameters import MASS, Rule, check_parameters

        check_parameters("CoulombODE.for_tolerance", {
            "mass": MASS, "tol": Rule("positive", "Pass the error bound in metres.", True),
            "slide_time": Rule("positive", "Pass the sliding time in seconds.", True),
            "damping_ratio": Rule("positive", "Pass a damping ratio (5 by default).", True),
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
        g = _momentum_fraction(level / push)
        damping_min = 2.0 * level * g * t_slide / tol          # K·β for term 1 ≤ tol/2
        K_min = 2.0 * level / tol                              # term 2 ≤ tol/2
        beta = min(t_slide / 20.0, g * t_slide)
        K = max(K_min, damping_min / beta, 4.0 * damping_ratio ** 2 * mass / beta ** 2)
        law = cls(F=F, K=K, beta=beta, mu=mu)
        fastest = max(abs(complex(lam)) for _, eig in law.linear_modes(mass, normal_force or
                                                                       (mass * 9.81))
                      for lam in np.ravel(eig))
        dt = 0.5 * _RK4_REAL_LIMIT / fastest
        error = slide_then_stick_error(level, K, beta, push, t_slide)
        return ToleranceTuning(K=K, beta=beta, dt=dt, law=law, error=error)

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
