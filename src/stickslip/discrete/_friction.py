"""Discrete-time friction: backward Euler solved in closed form by theorem (4) (SPEC §6).

Three pure step functions (``jax.numpy`` only: jit-, vmap- and grad-safe) and two small
stateful wrappers for a Python control loop. Every update is the *exact* solution of its
discrete inclusion, so static friction really holds at any sample period T: no chattering,
no drift, no smoothing.

Scalars throughout; a 2-vector velocity gives isotropic planar friction (``sat`` clips to a
disc), and ``jax.vmap`` runs many independent elements at once.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from .._parameters import FRICTION_LEVEL, INITIAL, MASS, SAMPLE_PERIOD, Rule, check_parameters
from .._rules import check_friction_pair
from ..errors import SimulationError
from ..laws import curve_slip_speed, friction_curve
from ..nonsmooth import sat
from ._export_c import register_c
from ._friction_templates import _COULOMB, _COULOMB_STATIC, _DA, _DA_STATIC, _SIGN

__all__ = ["sign_inclusion_step", "coulomb_mass_step", "da_relaxation_step",
           "CoulombMass", "DARelaxation", "RULES"]

RULES: dict[str, Rule] = {
    "M": MASS, "F": FRICTION_LEVEL, "T": SAMPLE_PERIOD,
    "K": Rule("nonnegative", "Pass a relaxation stiffness in N/m (>= 0)."),
    "B": Rule("positive", "Pass a positive relaxation damping in N·s/m (KT + B must be > 0)."),
    "p0": INITIAL, "v0": INITIAL,
}
"""One rule per parameter of every discrete friction algorithm, pure step or loop wrapper
(so ``coulomb_mass_step`` and ``CoulombMass`` agree: F ≥ 0, SPEC §1 eq. 2/4)."""

_CURVE_RULES = {
    "F_s": FRICTION_LEVEL.but(hint="Pass the static friction level in newtons (>= F)."),
    "v_stribeck": Rule("positive", "Pass the Stribeck velocity in m/s, or leave it out."),
    "viscous": Rule("nonnegative", "Pass the viscous coefficient in N·s/m (>= 0)."),
}

# The pure steps are vmapped over parameters (a planar sliding velocity, many elements), so
# the mass need not be one number there; the loop wrappers take one mass.
_STEP_RULES = {**RULES, "M": MASS.but(scalar=False)}


def sign_inclusion_step(x_prev: ArrayLike, u: ArrayLike, T: ArrayLike) -> jnp.ndarray:
    """One backward-Euler step of ``ẋ ∈ −sgn(x) − u`` (SPEC §6, "implicit Euler").

    Parameters
    ----------
    x_prev : ArrayLike
        the state x_{k−1} (any unit; the sgn term has unit x/s).
    u : ArrayLike
        the input u_k held over the step [x/s].
    T : ArrayLike
        sample period [s] > 0.

    Returns
    -------
    jnp.ndarray
        x_k, the unique solution of ``(x_k − x_{k−1})/T ∈ −sgn(x_k) − u_k``.

    Notes
    -----
    With ``w = x_{k−1} − T u_k`` theorem (4) gives ``x_k = w − T sat(w/T)`` (the slide's
    form); computed here as ``w − sat(T, w)``, which is the same number but exactly 0 in the
    sliding set ``|w| ≤ T`` (forward Euler would chatter around 0 there).

    Examples
    --------
    >>> import stickslip as ss
    >>> float(ss.discrete.sign_inclusion_step(0.3, 0.0, 1e-3))   # moves down at rate 1
    0.299
    >>> float(ss.discrete.sign_inclusion_step(0.0005, 0.0, 1e-3))  # reaches 0 and stays
    0.0
    """
    check_parameters("sign_inclusion_step", RULES, T=T)
    w = jnp.asarray(x_prev) - T * jnp.asarray(u)
    return w - sat(T, w)


def coulomb_mass_step(v_prev: ArrayLike, h: ArrayLike, M: ArrayLike, F: ArrayLike,
                      T: ArrayLike, *, F_s: ArrayLike | None = None,
                      v_stribeck: ArrayLike | None = None, stribeck_exponent: ArrayLike = 2,
                      viscous: ArrayLike | None = None) -> tuple[jnp.ndarray, jnp.ndarray]:
    """One step of a mass with Coulomb friction in discrete time (SPEC §6; Kikuuwe et al.,
    IEEE T-RO 2006), optionally with static above kinetic friction and a Stribeck curve.

    Solves ``M (v_k − v_{k−1})/T = h_k − f_k``, ``f_k ∈ F sgn(v_k)`` exactly; with a
    friction curve, ``f_k ∈ F(|v_k|)·sgn(v_k)`` with F(0) = F_s (:func:`stickslip.laws.
    friction_curve`).

    Parameters
    ----------
    v_prev : ArrayLike
        velocity v_{k−1} [m/s] (a 2-vector for planar sliding).
    h : ArrayLike
        every force on the mass except friction, h_k [N], held over the step.
    M : ArrayLike
        mass [kg] > 0.
    F : ArrayLike
        friction force level [N] ≥ 0 (the kinetic level when F_s is given).
    T : ArrayLike
        sample period [s] > 0.
    F_s : ArrayLike, optional
        static level [N] ≥ F (default F).
    v_stribeck, stribeck_exponent, viscous : ArrayLike, optional
        the Stribeck drop from F_s to F and the viscous term, as in
        :class:`stickslip.laws.CoulombODE` (default: none; a jump at rest).

    Returns
    -------
    tuple[jnp.ndarray, jnp.ndarray]
        ``(v_k, f_k)``: the new velocity [m/s] and the friction force [N] (the force *on*
        the mass is ``−f_k``). Positions follow as ``p_k = p_{k−1} + T v_k``.

    Notes
    -----
    ``f_k = F sat((M v_{k−1}/T + h_k)/F)`` (**[fix]** the slide has v_k inside sat, which is
    unknown; v_{k−1} is right), computed as ``sat(F, M v_{k−1}/T + h_k)`` (same value, and
    defined for F = 0); then ``v_k = v_{k−1} + T (h_k − f_k)/M``.

    With a friction curve, w = M v_{k−1}/T + h_k is the force that stops the mass in this
    step: it sticks (v_k = 0, f_k = w) when |w| ≤ F_s, else it slides at the speed s with
    ``F(s) + (M/T)·s = |w|`` — the slip solve of :func:`stickslip.laws.curve_slip_speed`
    with the damping M/T (unique when M/T exceeds the Stribeck drop's steepest slope; with
    F_s = F, σ = 0 it is the sat above) — and ``f_k = F(s)·w/|w|``. Where both stick and a
    kinetic slide solve the step (F < |w| ≤ F_s, the static/kinetic jump) it sticks.

    Examples
    --------
    >>> import stickslip as ss
    >>> v, f = ss.discrete.coulomb_mass_step(0.0, 0.4, M=1.0, F=0.5, T=1e-3)
    >>> float(v), float(f)            # 0.4 N < F = 0.5 N: it stays stuck, friction = 0.4 N
    (0.0, 0.4)
    """
    check_parameters("coulomb_mass_step", _STEP_RULES, M=M, T=T, F=F)
    v_prev, h = jnp.asarray(v_prev), jnp.asarray(h)
    if F_s is None and v_stribeck is None and viscous is None:
        f = sat(F, M * v_prev / T + h)
        return v_prev + T * (h - f) / M, f
    w = M * v_prev / T + h
    f, sliding = _curve_force("coulomb_mass_step", w, M / T, F, F_s, v_stribeck,
                              stribeck_exponent, viscous)
    # v_k = v_{k−1} + T(h − f)/M as on the plain path (not T(w − f)/M: w carries M/T·v_{k−1},
    # whose rounding XLA and the C export differ in), and exactly 0 when stuck
    return jnp.where(sliding, v_prev + T * (h - f) / M, 0.0), f


def _curve_force(owner, w, damping, F, F_s, v_stribeck, exponent, viscous):
    """The friction force of a backward-Euler step with a friction curve: w if |w| ≤ F_s
    (stick), else F(s)·w/|w| with F(s) + damping·s = |w| (slide); and whether it slides."""
    static = F if F_s is None else F_s
    check_parameters(owner, _CURVE_RULES, F_s=F_s, v_stribeck=v_stribeck, viscous=viscous)
    check_friction_pair(owner, F_s, F, names=("F_s", "F"), each=False)
    squared = jnp.sum(w * w)
    positive = squared > 0.0
    r = jnp.where(positive, jnp.sqrt(jnp.where(positive, squared, 1.0)), 1.0)
    s = curve_slip_speed(jnp.where(positive, r, 0.0), F, static, damping, v_stribeck,
                         exponent, viscous)
    level = friction_curve(s, F, static, v_stribeck, exponent, viscous)
    return jnp.where(s > 0.0, level * w / r, w), s > 0.0


def da_relaxation_step(e_prev: ArrayLike, v: ArrayLike, F: ArrayLike, K: ArrayLike,
                       B: ArrayLike, T: ArrayLike, *, F_s: ArrayLike | None = None,
                       v_stribeck: ArrayLike | None = None, stribeck_exponent: ArrayLike = 2,
                       viscous: ArrayLike | None = None) -> tuple[jnp.ndarray, jnp.ndarray]:
    """One step of differential-algebraic relaxation of friction (SPEC §6; Kikuuwe et al.,
    IEEE T-RO 2006).

    For a device whose velocity v is *measured* (admittance or haptic control), Coulomb
    friction ``f ∈ F sgn(v)`` is relaxed through a massless proxy at deflection e, tied to
    the device by a spring K and damper B: ``f ∈ F sgn(v − ė)``, ``f = K e + B ė``. Backward
    Euler gives ``f_k ∈ F sgn(v_k − (e_k − e_{k−1})/T)``, ``f_k = K e_k + B (e_k − e_{k−1})/T``.

    Parameters
    ----------
    e_prev : ArrayLike
        proxy deflection e_{k−1} [m].
    v : ArrayLike
        measured device velocity v_k [m/s].
    F : ArrayLike
        friction force level [N] ≥ 0 (the kinetic level when F_s is given).
    K : ArrayLike
        relaxation stiffness [N/m] ≥ 0 (as large as the loop allows).
    B : ArrayLike
        relaxation damping [N·s/m] > 0 (as large as the loop allows).
    T : ArrayLike
        sample period [s] > 0.
    F_s, v_stribeck, stribeck_exponent, viscous : ArrayLike, optional
        the friction curve, as in :func:`coulomb_mass_step` (default none).

    Returns
    -------
    tuple[jnp.ndarray, jnp.ndarray]
        ``(f_k, e_k)``: the friction force resisting the motion [N] (apply ``−f_k`` to the
        device) and the new deflection [m].

    Notes
    -----
    ``f_k = F sat(((KT + B) v_k + K e_{k−1})/F)`` (computed as ``sat(F, ·)``) and
    ``e_k = (B e_{k−1} + T f_k)/(KT + B)``.

    With a friction curve, w = (KT + B) v_k + K e_{k−1} is the force that holds the proxy
    (its slip u = v_k − ė = (w − f_k)/(KT + B)): stick (f_k = w) when |w| ≤ F_s, else
    ``F(s) + (KT + B)·s = |w|`` and f_k = F(s)·w/|w| — as in :func:`coulomb_mass_step` with
    the damping KT + B.

    Examples
    --------
    >>> import stickslip as ss
    >>> f, e = ss.discrete.da_relaxation_step(0.0, 1.0, F=2.0, K=1e3, B=10.0, T=1e-3)
    >>> float(f)   # moving at 1 m/s: (KT + B) v = 11 N > F, so the full 2 N
    2.0
    """
    check_parameters("da_relaxation_step", RULES, B=B, T=T, K=K, F=F)
    e_prev, v = jnp.asarray(e_prev), jnp.asarray(v)
    gain = K * T + B
    if F_s is None and v_stribeck is None and viscous is None:
        f = sat(F, gain * v + K * e_prev)
    else:
        f, _ = _curve_force("da_relaxation_step", gain * v + K * e_prev, gain, F, F_s,
                            v_stribeck, stribeck_exponent, viscous)
    e = jnp.asarray((B * e_prev + T * f) / gain)
    return f, e


# --- stateful wrappers for loop use --------------------------------------------------------

# A loop wrapper steps one element with Python floats: every parameter is one number.
_WRAPPER_RULES = {name: rule.but(scalar=True) for name, rule in RULES.items()}


class _Loop:
    """Shared host-side bookkeeping: step counter and a finite-input check."""

    k: int        # steps taken (set by each wrapper)
    T: float      # sample period [s]

    def _check_input(self, name: str, value: float) -> float:
        value = float(value)
        if not math.isfinite(value):
            t = self.k * float(self.T)
            raise SimulationError(
                f"`{type(self).__name__}.step` got a non-finite {name}={value} at step "
                f"k={self.k} (t={t:g} s). Check the sensor or the upstream computation; the "
                "state was left unchanged.", time=t)
        return value


class CoulombMass(_Loop):
    """A mass with Coulomb friction stepped in a loop (wraps :func:`coulomb_mass_step`).

    ``sim = CoulombMass(M=1.0, F=0.5, T=1e-3)``; each ``sim.step(h)`` applies the force h
    [N] for one period and returns the friction force f_k [N]; ``sim.p``, ``sim.v`` hold the
    position [m] and velocity [m/s]. ``F_s=`` (≥ F) adds a static level above the kinetic F.
    :func:`~stickslip.discrete.export_c` and ``export_fmu`` export it as ``coulomb_mass``, or
    as ``coulomb_mass_static`` (which carries F_s, p0 and v0) when F_s is given or it does
    not start at rest.
    """

    def __init__(self, M: float, F: float, T: float, p0: float = 0.0, v0: float = 0.0, *,
                 F_s: float | None = None):
        check_parameters("CoulombMass", _WRAPPER_RULES, M=M, F=F, T=T, p0=p0, v0=v0)
        check_parameters("CoulombMass", _CURVE_RULES, F_s=F_s)
        check_friction_pair("CoulombMass", F_s, F, names=("F_s", "F"), each=False)
        self.M, self.F, self.T = float(M), float(F), float(T)
        self.F_s = None if F_s is None else float(F_s)
        self.p0, self.v0 = float(p0), float(v0)          # the start state (export_c needs it)
        self.p, self.v, self.k = self.p0, self.v0, 0
        self._step = jax.jit(lambda v, h: coulomb_mass_step(v, h, self.M, self.F, self.T,
                                                            F_s=self.F_s))

    def step(self, h: float) -> float:
        h = self._check_input("h", h)
        v, f = self._step(self.v, h)
        self.v = float(v)
        self.p += self.T * self.v
        self.k += 1
        return float(f)


class DARelaxation(_Loop):
    """Friction felt through a device with measured velocity (wraps
    :func:`da_relaxation_step`): ``fr = DARelaxation(F=2.0, K=1e4, B=50.0, T=1e-3)``; each
    ``fr.step(v)`` returns the friction force f_k [N] to resist the measured velocity v [m/s]
    with (apply ``−f_k``); ``fr.e`` is the proxy deflection [m]. ``F_s=`` (≥ F) adds a static
    level above the kinetic F (exported as ``da_relaxation_static``, which carries it)."""

    def __init__(self, F: float, K: float, B: float, T: float, *, F_s: float | None = None):
        check_parameters("DARelaxation", _WRAPPER_RULES, F=F, K=K, B=B, T=T)
        check_parameters("DARelaxation", _CURVE_RULES, F_s=F_s)
        check_friction_pair("DARelaxation", F_s, F, names=("F_s", "F"), each=False)
        self.F, self.K, self.B, self.T = float(F), float(K), float(B), float(T)
        self.F_s = None if F_s is None else float(F_s)
        self.e, self.k = 0.0, 0
        self._step = jax.jit(lambda e, v: da_relaxation_step(e, v, self.F, self.K, self.B,
                                                             self.T, F_s=self.F_s))

    def step(self, v: float) -> float:
        v = self._check_input("v", v)
        f, e = self._step(self.e, v)
        self.e = float(e)
        self.k += 1
        return float(f)


# --- C export: the same updates in C99 (._friction_templates), registered for export_c ----

def _plain_coulomb(m: CoulombMass) -> dict[str, float] | None:
    """coulomb_mass carries M, F, T: a CoulombMass without F_s that starts at rest."""
    if m.F_s is not None or m.p0 != 0.0 or m.v0 != 0.0:
        return None                                     # → coulomb_mass_static
    return {"M": m.M, "F": m.F, "T": m.T}


def _static_coulomb(m: CoulombMass) -> dict[str, float] | None:
    if _plain_coulomb(m) is not None:
        return None
    # F_s=None with a start state: F_s = F (the same step; its C agrees to round-off)
    return {"M": m.M, "F": m.F, "F_s": m.F if m.F_s is None else m.F_s, "T": m.T,
            "p0": m.p0, "v0": m.v0}


def _plain_da(r: DARelaxation) -> dict[str, float] | None:
    if r.F_s is not None:
        return None                                     # → da_relaxation_static
    return {"F": r.F, "K": r.K, "B": r.B, "T": r.T}


def _static_da(r: DARelaxation) -> dict[str, float] | None:
    if r.F_s is None:
        return None
    return {"F": r.F, "F_s": r.F_s, "K": r.K, "B": r.B, "T": r.T}


register_c(_SIGN, functions=(sign_inclusion_step,))
register_c(_COULOMB, functions=(coulomb_mass_step,), objects={CoulombMass: _plain_coulomb})
register_c(_COULOMB_STATIC, objects={CoulombMass: _static_coulomb})
register_c(_DA, functions=(da_relaxation_step,), objects={DARelaxation: _plain_da})
register_c(_DA_STATIC, objects={DARelaxation: _static_da})
