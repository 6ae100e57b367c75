"""Coulomb friction as a Lipschitz ODE (SPEC §2, eq. 9), with static above kinetic, Stribeck and
viscous friction on the same exact stick (module _stribeck)."""

from __future__ import annotations

from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from .._parameters import (DAMPING, FRICTION_COEFFICIENT, FRICTION_LEVEL, STIFFNESS,
                           TIME_CONSTANT, Rule)
from .._validation import concrete, keyword_alias
from ..errors import ParameterError
from ..nonsmooth import sat
from ._base import AbstractFrictionLaw, as_parameter
from ._coulomb_tuning import ToleranceTuning, slide_then_stick_error, tune_for_tolerance
from ._stribeck import curve, proxy_slip_speed, steepest_drop

__all__ = ["CoulombODE", "ToleranceTuning", "slide_then_stick_error"]


class CoulombODE(AbstractFrictionLaw):
    """Coulomb friction as a Lipschitz ODE (SPEC §2, eq. 9; Xiong, Kikuuwe & Yamamoto), with
    an optional friction curve: static above kinetic, a Stribeck drop, a viscous term.

    A massless proxy at ``p − a`` is tied to the body by a virtual spring ``K`` and damper
    ``K·beta``; Coulomb friction acts on the proxy. Theorem (4) solves the algebraic loop::

        s    = sat(F/K, a + beta·v)          (eq. 9b: friction magnitude f = K·s)
        da/dt = (s − a)/beta                 (eq. 9a)

    While stuck the body is held by a stiff spring–damper, so it stays within ``F/K`` of
    where it stuck — no creep under any force below F. While sliding the force is exactly
    ``F`` opposing the motion.

    With a friction curve (``F_s``, ``v_stribeck``, ``viscous``) the proxy's friction is
    ``F(|u|)`` at its own sliding speed |u|, and eq. 4 generalises (module
    :mod:`stickslip.laws._stribeck`, a theorem with proof): the proxy sticks while
    ``K·|a + β v| ≤ F_s`` — the same exact stick, now up to the static level — and otherwise
    slides at the one speed s with ``F(s) + K·β·s = K·|a + β v|``; the force is then the curve
    at the sliding speed, exactly::

        F(s) = F + (F_s − F)·exp(−(s/v_stribeck)^stribeck_exponent) + viscous·s

    A load applied suddenly is taken up by the proxy's spring–damper, whose force overshoots
    the load before it settles — by 13.5 % at the stick mode's damping ratio ζ = 1, 4.8 % at
    ζ = 2, 2.4 % at 3, 0.9 % at 5 (step response of M s² + Kβ s + K). With one level the
    overshoot only makes the contact slip a moment earlier; with ``F_s > F`` a step load
    within that margin of F_s breaks a contact loose that ideal static friction would hold,
    and then only F holds it. Tune ζ ≥ 3 (``CoulombODE.tuned(..., damping_ratio=5)``) where
    sudden loads come near F_s.

    Without ``v_stribeck`` the drop is a jump (F_s at rest, F once sliding): the classic
    static/kinetic model, whose force steps down at breakaway. With ``v_stribeck`` the curve
    is Lipschitz; it must satisfy ``K·beta + viscous > (F_s − F)·m/v_stribeck`` (m ≈ 0.858
    for the exponent 2, 1 for 1: the steepest slope of the drop), else several sliding
    speeds solve the loop and the law is refused (checked when the levels are numbers).

    Parameters
    ----------
    F
        Kinetic (sliding) friction level [N], a fixed force. Give exactly one of F and mu.
    K
        Proxy stiffness [N/m] (N·m/rad for rotation); larger means stiffer sticking.
    beta
        Proxy time constant [s]; the proxy damping is ``K·beta`` [N·s/m].
    mu, mu_k
        Kinetic friction coefficient [-] (two spellings of one parameter: ``mu_k`` matches
        ``mu_s`` and the other elements' ``mu_k``, ``mu`` is the seed's name for a
        one-level law; give one); the level is ``mu·N`` with N the normal force the host
        supplies (joint reaction, contact force). Stored as ``mu`` (``law.mu_k`` reads it).
    F_s
        Static level [N] ≥ F (with ``F``); default F — one level, as eq. 9.
    mu_s
        Static coefficient [-] ≥ mu (with ``mu``); default mu.
    v_stribeck
        Stribeck velocity [m/s] > 0 (rad/s for rotation); default none: a jump from F_s to F.
    stribeck_exponent
        Shape δ ≥ 1 of the drop (default 2, Gaussian; 1 is exponential).
    viscous
        Viscous coefficient σ [N·s/m] ≥ 0 (N·m·s/rad for rotation); default none.

    Notes
    -----
    ``force_and_rate`` returns the force on the body, ``−K·s`` (it opposes the velocity).
    Planar sliding: pass a 2-vector velocity; ``sat`` then clips to a disc (Coulomb's
    isotropic friction), eq. 21; the curve acts on the speed of that sliding.

    Examples
    --------
    >>> import stickslip as ss, jax.numpy as jnp
    >>> law = ss.laws.CoulombODE(F=0.5, K=1e4, beta=1e-3)
    >>> force, rate = law.force_and_rate(law.initial_state(), jnp.asarray(1.0), 1.0)
    >>> float(force)  # sliding at 1 m/s: the full level, opposing the motion
    -0.5
    >>> sticky = ss.laws.CoulombODE(F=0.4, F_s=0.5, K=1e4, beta=1e-2)
    >>> float(sticky.level(1.0)), float(sticky.force_and_rate(sticky.initial_state(),
    ...                                                       jnp.asarray(1.0), 1.0)[0])
    (0.5, -0.4)
    """

    K: jnp.ndarray = eqx.field(converter=as_parameter)
    beta: jnp.ndarray = eqx.field(converter=as_parameter)
    F: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    mu: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    F_s: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    mu_s: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    v_stribeck: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    stribeck_exponent: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    viscous: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)

    n_states: ClassVar[int] = 1
    state_names: ClassVar[tuple[str, ...]] = ("a",)
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "F": FRICTION_LEVEL, "mu": FRICTION_COEFFICIENT,
        "K": STIFFNESS.but(hint="Pass a positive proxy stiffness in N/m (e.g. 1e4 for a "
                                "1 kg body)."),
        "beta": TIME_CONSTANT.but(hint="Pass a positive proxy time constant in seconds "
                                       "(e.g. 1e-3)."),
        "F_s": FRICTION_LEVEL.but(hint="Pass the static friction level in newtons (>= F)."),
        "mu_s": FRICTION_COEFFICIENT.but(hint="Pass a static friction coefficient >= mu."),
        "v_stribeck": Rule("positive", "Pass the Stribeck velocity in m/s (e.g. 1e-3), or "
                                       "leave it out for a jump from F_s to F."),
        "stribeck_exponent": Rule("positive", "Pass the Stribeck exponent (>= 1; 2 is "
                                              "Gaussian, 1 exponential)."),
        "viscous": DAMPING.but(hint="Pass the viscous friction coefficient in N·s/m (>= 0)."),
    }
    friction_pairs: ClassVar[tuple[tuple[str, str], ...]] = (("F_s", "F"), ("mu_s", "mu"))
    parameter_aliases: ClassVar[dict[str, str]] = {"mu_k": "mu"}

    def __init__(self, F=None, K=None, beta=None, *, mu=None, F_s=None, mu_s=None,
                 v_stribeck=None, stribeck_exponent=None, viscous=None, mu_k=None):
        mu = keyword_alias("CoulombODE", "mu", mu, "mu_k", mu_k)
        if (F is None) == (mu is None):
            raise ParameterError(
                "`CoulombODE` needs exactly one of `F` (a fixed force level [N]) and `mu` "
                f"(a coefficient times the host's normal force); got F={F!r}, mu={mu!r}. "
                "Pass F=... for a fixed level or mu=... for a load-dependent one.")
        if K is None or beta is None:
            name = "K" if K is None else "beta"
            raise ParameterError(
                f"`CoulombODE.{name}` is required; got none. "
                f"{self.parameter_rules[name].hint}")
        if F_s is not None and F is None:
            raise ParameterError(
                f"`CoulombODE.F_s`={F_s!r} is a static force level, but the kinetic level is a "
                f"coefficient (mu={mu!r}). Pass mu_s=... with mu, or F_s=... with F.")
        if mu_s is not None and mu is None:
            raise ParameterError(
                f"`CoulombODE.mu_s`={mu_s!r} is a static coefficient, but the kinetic level is "
                f"a force (F={F!r}). Pass F_s=... with F, or mu_s=... with mu.")
        if stribeck_exponent is not None and v_stribeck is None:
            raise ParameterError(
                f"`CoulombODE.stribeck_exponent`={stribeck_exponent!r} has no effect without "
                "`v_stribeck`. Pass v_stribeck=... (the Stribeck velocity, m/s) too.")
        self.F, self.mu, self.K, self.beta = F, mu, K, beta
        self.F_s, self.mu_s, self.v_stribeck = F_s, mu_s, v_stribeck
        self.stribeck_exponent, self.viscous = stribeck_exponent, viscous

    def __check_init__(self):
        # F <= F_s and mu <= mu_s: `friction_pairs` (check_friction_pair, after the rules)
        delta = concrete(self.stribeck_exponent)
        if delta is not None and not np.all(delta >= 1.0):
            raise ParameterError(
                f"`CoulombODE.stribeck_exponent` must be >= 1; got {delta}. Below 1 the "
                "drop is infinitely steep at rest and the slip solve is not unique. Pass "
                "an exponent >= 1 (2 is Gaussian, 1 exponential).")
        self._check_admissible()

    def _check_admissible(self):
        """Refuse a Stribeck drop steeper than K·β + viscous (module _stribeck: the slip
        speed would not be unique); checked when F, F_s, v_stribeck, K, beta are numbers."""
        F, F_s, v_s, K, beta = (concrete(v) for v in (self.F, self.F_s, self.v_stribeck,
                                                      self.K, self.beta))
        if F is None or F_s is None or v_s is None or K is None or beta is None:
            return
        values = [F, F_s, v_s, K, beta]
        delta = 2.0 if self.stribeck_exponent is None else concrete(self.stribeck_exponent)
        viscous = 0.0 if self.viscous is None else concrete(self.viscous)
        if delta is None or viscous is None or np.ndim(delta) != 0:
            return
        if not (all(np.all(np.isfinite(v)) for v in (*values, delta, viscous)) and np.all(v_s > 0)
                and delta >= 1.0):
            return                                  # the field rules name the bad value
        slope = (F_s - F) * steepest_drop(float(delta)) / v_s
        if np.any(slope >= K * beta + viscous):
            raise ParameterError(
                f"`CoulombODE`: the Stribeck drop is too steep for the proxy: its steepest "
                f"slope (F_s − F)·m/v_stribeck = {np.max(slope):.4g} N·s/m must be below "
                f"K·beta + viscous = {np.min(K * beta + viscous):.4g} N·s/m, else several "
                "sliding speeds solve the friction loop. Raise K·beta (a stiffer or more "
                "damped proxy), raise v_stribeck, or lower F_s − F.")

    @property
    def has_curve(self) -> bool:
        """True when the law has a friction curve (a static level, a Stribeck drop or a
        viscous term) beyond eq. 9's single level."""
        return any(v is not None for v in (self.F_s, self.mu_s, self.v_stribeck,
                                           self.viscous))

    @classmethod
    def tuned(cls, mass: float, K: float, *, F=None, mu=None,
              damping_ratio: float | None = None, **curve) -> "CoulombODE":
        """A CoulombODE whose stick mode on `mass` [kg] has the given damping ratio.

        While stuck the body sits on the proxy spring K and damper K·β, so its stick mode is
        ``M s² + Kβ s + K = 0`` with damping ratio ``ζ = β√(K/M)/2``. A lightly damped stick
        mode (ζ ≪ 1) rings after every stop and overshoots under sudden loads — a load step
        below F can then break the contact loose for a moment. ``β = 2ζ√(M/K)``; ζ = 1
        (critical) is the default for one level. With a static level above the kinetic one
        (``F_s`` or ``mu_s``) the default is ζ = 5: the proxy's force overshoots a step load
        by 13.5 % at ζ = 1 but 0.9 % at ζ = 5, and a load within the overshoot of F_s would
        break a contact loose that ideal static friction holds (class docstring). See
        docs/tuning.md for the accuracy trade-off.
        ``curve``: the friction curve's keywords (``F_s``, ``mu_s``, ``v_stribeck``,
        ``stribeck_exponent``, ``viscous``, ``mu_k``), passed on.

        Raises ParameterError naming `mass`, `K` or `damping_ratio` when one is not finite
        and > 0 (checked before β is derived from them, so a negative mass is reported as
        such, not as ``beta=nan``); traced values are skipped.
        """
        from .._parameters import MASS, check_parameters

        if damping_ratio is None:
            static = any(curve.get(k) is not None for k in ("F_s", "mu_s"))
            damping_ratio = 5.0 if static else 1.0
        check_parameters("CoulombODE.tuned", {
            "mass": MASS.but(scalar=False, optional=False),
            "K": STIFFNESS.but(optional=False),
            "damping_ratio": Rule("positive", "Pass the damping ratio ζ of the stick mode "
                                  "(> 0; 1 is critical).", optional=False)},
            mass=mass, K=K, damping_ratio=damping_ratio)
        beta = 2.0 * damping_ratio * (mass / K) ** 0.5
        return cls(F=F, K=K, beta=beta, mu=mu, **curve)

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
        mass : float
            body mass M [kg].
        tol : float
            the rest-position error to stay below [m].
        F : float, optional
            friction level [N]; or `mu` with `normal_force` [N] (default ``mass·9.81``).
        push : float, optional
            the step load that starts the slide [N] > F (default 2F).
        slide_time : float, optional
            how long the body slides before it sticks, t* [s].
        damping_ratio : float, optional
            the stick-mode damping ratio ζ to use; None (default) chooses.

        Returns
        -------
        ToleranceTuning
            :class:`ToleranceTuning` ``(K, beta, dt, law, error)``; ``error`` is the simulated
            rest-position error p_rest − p* [m] at (K, beta, dt).

        Examples
        --------
        >>> import stickslip as ss
        >>> tuning = ss.laws.CoulombODE.for_tolerance(mass=1.0, F=0.5, tol=1e-5)
        >>> bool(abs(tuning.error) <= 0.75e-5 and tuning.law.K == tuning.K)
        True
        """
        return tune_for_tolerance(cls, mass, tol, F=F, mu=mu, normal_force=normal_force,
                                  push=push, slide_time=slide_time,
                                  damping_ratio=damping_ratio)

    @classmethod
    def example(cls) -> "CoulombODE":
        return cls(F=0.5, K=1e4, beta=1e-3)

    def kinetic_level(self, normal_force):
        """The sliding level F (or mu·N) [N]: the curve's value far from rest (no viscous)."""
        if self.F is not None:
            return self.F
        if self.mu is None:     # __init__ takes exactly one of F and mu
            raise ParameterError("`CoulombODE` has neither F nor mu (built around __init__?). "
                                 "Build it with CoulombODE(F=..., ...) or mu=....")
        return self.mu * jnp.maximum(normal_force, 0.0)

    def level(self, normal_force):
        """The static level F_s (or mu_s·N; F when there is no static level) [N]: the largest
        |force| the law holds while stuck."""
        if self.F_s is not None:
            return self.F_s
        if self.mu_s is not None:
            return self.mu_s * jnp.maximum(normal_force, 0.0)
        return self.kinetic_level(normal_force)

    def curve(self, speed: ArrayLike, normal_force: ArrayLike = 1.0):
        """The friction level [N] the law applies while sliding at `speed` [m/s] (F_s at
        rest): ``F + (F_s − F)·exp(−(s/v_stribeck)^δ) + viscous·s``."""
        return curve(speed, self.kinetic_level(normal_force), self.level(normal_force),
                     self.v_stribeck, self._exponent(), self.viscous)

    def _exponent(self):
        # the default as a Python int: x ** 2 is two multiplications, a traced exponent a pow
        return 2 if self.stribeck_exponent is None else self.stribeck_exponent

    def force_and_rate(self, state, velocity, normal_force):
        a = state[0]
        z = a + self.beta * velocity
        if not self.has_curve:
            w = sat(self.level(normal_force) / self.K, z)                   # eq. 9b
        else:                                       # eq. 9b with the curve (module _stribeck)
            squared = jnp.sum(z * z)
            positive = squared > 0.0
            r = jnp.where(positive, jnp.sqrt(jnp.where(positive, squared, 1.0)), 1.0)
            kinetic, static = self.kinetic_level(normal_force), self.level(normal_force)
            s = proxy_slip_speed(self.K * jnp.where(positive, r, 0.0), kinetic, static,
                                 self.K * self.beta, self.v_stribeck, self._exponent(),
                                 self.viscous)
            # sliding: K·w = F(s)·z/|z| (= K(z − β s z/|z|) at the root, written so that
            # the force is the curve to the last bit); stuck: w = z
            level = curve(s, kinetic, static, self.v_stribeck, self._exponent(), self.viscous)
            w = jnp.where(s > 0.0, (level / self.K) * (z / r), z)
        return -self.K * w, ((w - a) / self.beta)[None]                     # eq. 9a

    def linear_modes(self, mass, normal_force=1.0):
        K, beta = np.asarray(self.K), np.asarray(self.beta)
        disc = np.sqrt((K * beta) ** 2 - 4 * mass * K + 0j)
        stick = np.stack([(-K * beta + disc) / (2 * mass), (-K * beta - disc) / (2 * mass)])
        from ..integrate import NO_OVERSHOOT

        # with a static level above the kinetic one, a step that carries the proxy past its
        # equilibrium can pass the static level and break loose below it, for good: the
        # step check keeps the stick mode's stages from overshooting
        two_level = self.F_s is not None or self.mu_s is not None
        modes = [("stick (M s² + Kβ s + K = 0)" + (NO_OVERSHOOT if two_level else ""), stick),
                 ("slip (−1/β)", -1.0 / beta + 0j)]
        if self.viscous is not None:
            modes.append(("slip with viscous friction", self._slip_modes(
                mass, np.asarray(self.viscous, dtype=float))))
        return modes

    def _slip_modes(self, mass, slope):
        """Eigenvalues of (v, a) while sliding where the curve's slope is `slope` = F'(s):
        the linearisation of the module _stribeck solve (f = −F(s), g'(s) = F' + Kβ)."""
        K, beta = np.asarray(self.K, dtype=float), np.asarray(self.beta, dtype=float)
        g = slope + K * beta
        J = np.array([[-slope * K * beta / (g * mass), -slope * K / (g * mass)],
                      [slope * beta / (g * beta), (slope / g - 1.0) / beta]])
        return np.linalg.eigvals(J).astype(complex)
