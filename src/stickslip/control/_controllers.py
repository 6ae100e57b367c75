"""Discrete-time position controllers: PSMC, PID and naive SMC (SPEC §6).

Each controller is two things:

* a parameter module (``PSMCParams``, ``PIDParams``, ``NaiveSMCParams``; an ``equinox.Module``
  validated at construction) with pure ``init_state(p_d0, p0)`` and
  ``update(state, p_d, p) -> (f, state)`` — jit-safe, vmappable, what
  :func:`~stickslip.control.simulate_closed_loop` and the C export use;
* a small stateful wrapper (``PSMC``, ``PID``, ``NaiveSMC``) with ``.step(p_d, p) -> f`` for a
  host-side control loop, which also rejects non-finite measurements with a
  :class:`~stickslip.errors.SimulationError` naming the step.

Sign convention: the plant is ``M p̈ = f + h`` (SPEC §6): ``f`` is the actuator force
pushing p towards p_d; ``h`` everything else (gravity, friction, disturbances).
"""

from __future__ import annotations

import abc
import math
from typing import Any, ClassVar, NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._parameters import FRICTION_LEVEL, MASS, SAMPLE_PERIOD, AbstractParametrised, Rule
from .._repr import parameter_repr
from .._validation import concrete
from ..errors import ParameterError, SimulationError
from .._parameter_arrays import as_parameter
from ..discrete import CTemplate, da_relaxation_step, register_c

__all__ = ["AbstractController", "PSMCParams", "PSMCState", "psmc_step", "PSMC",
           "PIDParams", "PIDState", "pid_step", "PID",
           "NaiveSMCParams", "NaiveSMCState", "naive_smc_step", "NaiveSMC",
           "RenderedFrictionParams", "RenderedFrictionState", "RenderedFriction"]


_PERIOD = SAMPLE_PERIOD
_GAIN = "Pass a non-negative gain."


class AbstractController(AbstractParametrised):
    """A discrete-time controller sampled every ``T`` seconds (the contract).

    Parameters follow the shared rules of :mod:`stickslip._parameters` (``parameter_rules``,
    checked at construction; messages name the stateful wrapper, e.g. ``PSMC.F``).

    * ``T`` — the sample period [s].
    * ``init_state(p_d0, p0)`` — the state before the first sample, given the first
      reference and measurement (so the first difference ∇p is 0, no derivative kick).
    * ``update(state, p_d, p) -> (f, state)`` — pure ``jax.numpy``: the force for sample k
      from the reference p_{d,k} and the measured position p_k.
    * ``extras(state, p)`` — ``{name: value}`` of internal signals worth recording
      (e.g. the PSMC proxy position); none by default.
    """

    # every final controller has a field ``T`` (the sample period [s]); it is not declared
    # here as an abstract field because that would put T first in the positional order.

    @abc.abstractmethod
    def init_state(self, p_d0, p0) -> Any:
        """State before the first sample."""

    @abc.abstractmethod
    def update(self, state, p_d, p) -> tuple[jnp.ndarray, Any]:
        """Force f_k [N] (or [N·m]) and the next state."""

    def extras(self, state, p) -> dict[str, jnp.ndarray]:
        return {}

    def __repr__(self) -> str:
        return parameter_repr(self)


# --- PSMC ----------------------------------------------------------------------------------

class PSMCState(NamedTuple):
    """PSMC state: ``a1 = a_{k−1}`` [m·s] (a is the time integral of the proxy–plant
    offset), ``da1 = a_{k−1} − a_{k−2}`` [m·s] (so ``da1/T`` is the proxy–plant offset
    q − p [m]), and the previous measurement and reference [m]."""

    a1: jnp.ndarray
    da1: jnp.ndarray
    p_prev: jnp.ndarray
    pd_prev: jnp.ndarray


class PSMCParams(AbstractController):
    """Proxy-based sliding mode control (SPEC §6; Kikuuwe & Fujimoto, ICRA 2006).

    A massless proxy is driven by sliding mode control towards p_d; the plant is tied to
    the proxy by a PID coupling. In continuous time::

        f ∈ F sgn(p_d − p − ȧ + H(ṗ_d − ṗ − ä)),    f = L a + K ȧ + B ä

    where ȧ = q − p is the offset of the proxy q from the plant p.

    Parameters
    ----------
    F : Array, optional
        force limit [N] > 0 — the sliding-mode gain; |f| ≤ F always.
    H : Array, optional
        sliding-surface time constant [s] > 0 — large errors are recovered along
        ``p_d − q + H(ṗ_d − q̇) = 0``, i.e. exponentially with time constant H.
    K : Array, optional
        proportional gain of the coupling [N/m] > 0 (K_p).
    B : Array, optional
        derivative gain [N·s/m] > 0 (K_d).
    L : Array, optional
        integral gain [N/(m·s)] ≥ 0 (K_i); 0 gives PD coupling.
    T : Array, optional
        sample period [s] > 0.
    M : Array, optional
        optional nominal plant mass [kg]; when given, the Routh–Hurwitz condition
        ``B·K > M·L`` of the PID coupling ``M s³ + B s² + K s + L`` is checked too.

    Raises
    ------
    ParameterError
        a non-positive T, F, H, B or K, a negative L (the saturated proxy
        dynamics ``B s² + K s + L`` is then unstable — the message says which condition
        fails), or ``B·K ≤ M·L`` when M is given.

    Notes
    -----
    Every gain may also be an array of shape ``(n,)``: n independent PSMCs, one per joint of
    a multi-input plant (p_d and p are then vectors, and each joint saturates at its own
    F_j); T must then be one period for all.

    The discrete algorithm (backward Euler plus theorem (4), ∇x_k = x_k − x_{k−1})::

        σ_k  = p_{d,k} − p_k + H(∇p_{d,k} − ∇p_k)/T
        f*_k = (B + KT + LT²)/(H + T) σ_k + (KH − B + LT(2H + T))/((H + T)T) a_{k−1}
               − (KH − B + LTH)/((H + T)T) a_{k−2}
        f_k  = F sat(f*_k/F)
        a_k  = ((2B + KT) a_{k−1} − B a_{k−2} + T² f_k)/(B + KT + LT²)

    It solves ``f_k ∈ F sgn(p_{d,k} − q_k + H(∇p_{d,k} − ∇q_k)/T)``,
    ``f_k = L a_k + K ∇a_k/T + B ∇²a_k/T²`` with ``q_k = p_k + ∇a_k/T`` exactly.

    Implemented in the algebraically identical form that carries ``a_{k−1}`` and
    ``∇a_{k−1}`` instead of ``a_{k−1}`` and ``a_{k−2}``::

        f*_k = (B + KT + LT²)/(H + T) σ_k + L a_{k−1} + (KH − B + LTH)/((H + T)T) ∇a_{k−1}
        ∇a_k = (B ∇a_{k−1} + T² (f_k − L a_{k−1}))/(B + KT + LT²),   a_k = a_{k−1} + ∇a_k

    The slide's form subtracts two terms of size ~(K/T)·a that nearly cancel (a_{k−1} ≈
    a_{k−2}), losing several digits at T = 1 ms; this form does not (it is what makes the C
    export agree with Python to 1e-12, and it would matter more in float32).
    """

    F: jnp.ndarray = eqx.field(converter=as_parameter)
    H: jnp.ndarray = eqx.field(converter=as_parameter)
    K: jnp.ndarray = eqx.field(converter=as_parameter)
    B: jnp.ndarray = eqx.field(converter=as_parameter)
    L: jnp.ndarray = eqx.field(converter=as_parameter)
    T: jnp.ndarray = eqx.field(converter=as_parameter)
    M: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)

    owner_name: ClassVar[str] = "PSMC"
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "T": _PERIOD,
        "F": Rule("positive", "Pass the force limit in newtons (> 0)."),
        "H": Rule("positive", "Pass the sliding-surface time constant in seconds (> 0, e.g. "
                              "0.05)."),
        "B": Rule("positive", "The proxy dynamics B s² + K s + L (force saturated) needs "
                              "B > 0 to be stable; pass a positive K_d in N·s/m."),
        "K": Rule("positive", "With K <= 0 the proxy dynamics B s² + K s + L (force "
                              "saturated) is unstable (Routh–Hurwitz needs B, K > 0 and "
                              "L >= 0). Pass a positive K_p in N/m."),
        "L": Rule("nonnegative", "With L < 0 the proxy dynamics B s² + K s + L has a root in "
                                 "the right half-plane (and the discrete recursion a root "
                                 "outside the unit circle). Pass L >= 0 (0 for PD)."),
        "M": MASS.but(hint="Pass the nominal plant mass in kg.", scalar=False),
    }

    def __check_init__(self):
        if self.M is not None:
            B, K, L, M = (concrete(x) for x in (self.B, self.K, self.L, self.M))
            if B is None or K is None or L is None or M is None:
                return                      # traced: checked when it was first built
            if all(np.all(np.isfinite(x)) for x in (B, K, L, M)) and not np.all(B * K > M * L):
                raise ParameterError(
                    f"PSMC gains make the PID coupling unstable: Routh–Hurwitz for "
                    f"M s³ + B s² + K s + L needs B·K > M·L; got B·K={float(np.min(B * K)):g}"
                    f", M·L={float(np.max(M * L)):g} (B={float(np.min(B))}, "
                    f"K={float(np.min(K))}, L={float(np.max(L))}, M={float(np.max(M))}). "
                    "Lower L or raise B or K.")

    def init_state(self, p_d0, p0) -> PSMCState:
        zero = jnp.zeros_like(jnp.asarray(p0, dtype=float))
        return PSMCState(zero, zero, jnp.asarray(p0, dtype=float),
                         jnp.asarray(p_d0, dtype=float))

    def update(self, state: PSMCState, p_d, p) -> tuple[jnp.ndarray, PSMCState]:
        F, H, K, B, L, T = self.F, self.H, self.K, self.B, self.L, self.T
        a1, da1 = state.a1, state.da1
        sigma = p_d - p + H * ((p_d - state.pd_prev) - (p - state.p_prev)) / T
        D = B + K * T + L * T * T
        # f*_k of SPEC §6 with a_{k−2} = a_{k−1} − ∇a_{k−1} (same value, no cancellation)
        f_star = D / (H + T) * sigma + L * a1 + (K * H - B + L * T * H) / ((H + T) * T) * da1
        f = jnp.clip(f_star, -F, F)                 # = F sat(f*/F), theorem (4), per joint
        da = (B * da1 + T * T * (f - L * a1)) / D   # a_k − a_{k−1}
        return f, PSMCState(a1 + da, da, jnp.asarray(p, dtype=float),
                            jnp.asarray(p_d, dtype=float))

    def extras(self, state: PSMCState, p) -> dict[str, jnp.ndarray]:
        return {"proxy": p + state.da1 / self.T}


def psmc_step(state: PSMCState, p_d, p, params) -> tuple[jnp.ndarray, PSMCState]:
    """One PSMC sample, pure: ``(f_k, state_k) = psmc_step(state_{k−1}, p_{d,k}, p_k, params)``.

    `params` is a :class:`PSMCParams` (or a stateful :class:`PSMC`, whose parameters are
    used); start from ``params.init_state(p_d0, p0)``. See :class:`PSMCParams` for the
    algorithm.
    """
    return _params_of(params, PSMCParams).update(state, p_d, p)


# --- PID -----------------------------------------------------------------------------------

class PIDState(NamedTuple):
    """PID state: the error integral [m·s] and the previous error [m]."""

    integral: jnp.ndarray
    e_prev: jnp.ndarray


class PIDParams(AbstractController):
    """Discrete PID on the position error (the comparison of SPEC §6), same gain names as
    PSMC: ``f_k = K e_k + L i_k + B (e_k − e_{k−1})/T``, ``i_k = i_{k−1} + T e_k``,
    ``e_k = p_{d,k} − p_k``.

    K: proportional gain [N/m] ≥ 0.  L: integral gain [N/(m·s)] ≥ 0.  B: derivative gain
    [N·s/m] ≥ 0.  T: sample period [s] > 0.  f_max: optional actuator limit [N] (> 0):
    the force is clipped to ±f_max (no anti-windup: the textbook behaviour).
    """

    K: jnp.ndarray = eqx.field(converter=as_parameter)
    L: jnp.ndarray = eqx.field(converter=as_parameter)
    B: jnp.ndarray = eqx.field(converter=as_parameter)
    T: jnp.ndarray = eqx.field(converter=as_parameter)
    f_max: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)

    owner_name: ClassVar[str] = "PID"
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "T": _PERIOD, "K": Rule("nonnegative", _GAIN), "L": Rule("nonnegative", _GAIN),
        "B": Rule("nonnegative", _GAIN),
        "f_max": Rule("positive", "Pass the actuator limit in newtons.")}

    def init_state(self, p_d0, p0) -> PIDState:
        e0 = jnp.asarray(p_d0, dtype=float) - jnp.asarray(p0, dtype=float)
        return PIDState(jnp.zeros_like(e0), e0)

    def update(self, state: PIDState, p_d, p) -> tuple[jnp.ndarray, PIDState]:
        e = p_d - p
        integral = state.integral + self.T * e
        f = self.K * e + self.L * integral + self.B * (e - state.e_prev) / self.T
        if self.f_max is not None:
            f = jnp.clip(f, -self.f_max, self.f_max)   # per joint (not a ball: sat on vectors)
        return f, PIDState(integral, jnp.asarray(e, dtype=float))


def pid_step(state: PIDState, p_d, p, params) -> tuple[jnp.ndarray, PIDState]:
    """One discrete PID sample, pure (see :class:`PIDParams`)."""
    return _params_of(params, PIDParams).update(state, p_d, p)


# --- naive SMC -----------------------------------------------------------------------------

class NaiveSMCState(NamedTuple):
    """Naive SMC state: the previous measurement and reference [m]."""

    p_prev: jnp.ndarray
    pd_prev: jnp.ndarray


class NaiveSMCParams(AbstractController):
    """Naive sliding mode control with the sign function (SPEC §6) — the one that chatters:
    ``f_k = F sign(p_{d,k} − p_k + H(∇p_{d,k} − ∇p_k)/T)`` (sign(0) = 0).

    F: force magnitude [N] > 0.  H: sliding-surface time constant [s] > 0.  T: sample
    period [s] > 0.
    """

    F: jnp.ndarray = eqx.field(converter=as_parameter)
    H: jnp.ndarray = eqx.field(converter=as_parameter)
    T: jnp.ndarray = eqx.field(converter=as_parameter)

    owner_name: ClassVar[str] = "NaiveSMC"
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "T": _PERIOD, "F": Rule("positive", "Pass the force magnitude in newtons."),
        "H": Rule("positive", "Pass the surface time constant in seconds.")}

    def init_state(self, p_d0, p0) -> NaiveSMCState:
        return NaiveSMCState(jnp.asarray(p0, dtype=float), jnp.asarray(p_d0, dtype=float))

    def update(self, state: NaiveSMCState, p_d, p) -> tuple[jnp.ndarray, NaiveSMCState]:
        sigma = p_d - p + self.H * ((p_d - state.pd_prev) - (p - state.p_prev)) / self.T
        f = self.F * jnp.sign(sigma)
        return f, NaiveSMCState(jnp.asarray(p, dtype=float), jnp.asarray(p_d, dtype=float))


def naive_smc_step(state: NaiveSMCState, p_d, p, params) -> tuple[jnp.ndarray, NaiveSMCState]:
    """One naive SMC sample, pure (see :class:`NaiveSMCParams`)."""
    return _params_of(params, NaiveSMCParams).update(state, p_d, p)


# --- friction rendered by DA relaxation (haptics / admittance) -----------------------------

class RenderedFrictionState(NamedTuple):
    """State: the DA-relaxation deflection e [m] and the previous measured position [m]."""

    e: jnp.ndarray
    p_prev: jnp.ndarray


class RenderedFrictionParams(AbstractController):
    """Coulomb friction *rendered* on a device by its actuator (SPEC §6, DA relaxation):
    the velocity is estimated as ``v_k = ∇p_k/T`` from the measured position and
    :func:`~stickslip.discrete.da_relaxation_step` gives the friction f_k; the actuator applies
    ``−f_k``. The reference p_d is not used.

    F: rendered friction level [N] ≥ 0 (the shared friction-level rule; 0 renders none).
    K: relaxation stiffness [N/m] ≥ 0.
    B: relaxation damping [N·s/m] > 0.  T: sample period [s] > 0.
    """

    F: jnp.ndarray = eqx.field(converter=as_parameter)
    K: jnp.ndarray = eqx.field(converter=as_parameter)
    B: jnp.ndarray = eqx.field(converter=as_parameter)
    T: jnp.ndarray = eqx.field(converter=as_parameter)

    owner_name: ClassVar[str] = "RenderedFriction"
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "T": _PERIOD, "F": FRICTION_LEVEL,
        "K": Rule("nonnegative", "Pass a relaxation stiffness in N/m (>= 0)."),
        "B": Rule("positive", "Pass a positive relaxation damping in N·s/m.")}

    def init_state(self, p_d0, p0) -> RenderedFrictionState:
        p0 = jnp.asarray(p0, dtype=float)
        return RenderedFrictionState(jnp.zeros_like(p0), p0)

    def update(self, state, p_d, p):
        v = (p - state.p_prev) / self.T
        f, e = da_relaxation_step(state.e, v, self.F, self.K, self.B, self.T)
        return -f, RenderedFrictionState(e, jnp.asarray(p, dtype=float))


# --- stateful wrappers ---------------------------------------------------------------------

def _params_of(params, cls):
    if isinstance(params, _StatefulController):
        params = params.params
    if not isinstance(params, cls):
        raise ParameterError(f"`params` must be a {cls.__name__} (or its stateful wrapper); "
                             f"got {type(params).__name__}.")
    return params


class _StatefulController:
    """Host-side loop wrapper: keeps the state and the step counter k."""

    params_class: type[AbstractController]

    def __init__(self, **parameters: Any):
        self.params = self.params_class(**parameters)
        # parameters baked in as constants: one compile per controller, ~20 µs per call
        params = self.params
        self._update = jax.jit(lambda state, p_d, p: params.update(state, p_d, p))
        self.reset()

    def reset(self) -> None:
        """Forget the state; the next ``step`` starts afresh (no derivative kick)."""
        self.state = None
        self.k = 0

    @property
    def T(self) -> float:
        return float(self.params.T)

    def step(self, p_d: float, p: float) -> float:
        """The force f_k [N] for reference `p_d` and measured position `p` [m] at this step.

        Raises SimulationError (state unchanged) when p_d or p is NaN or infinite.
        """
        for name, value in (("p_d", p_d), ("p", p)):
            if not math.isfinite(float(value)):
                raise SimulationError(
                    f"`{type(self).__name__}.step` got a non-finite measurement {name}="
                    f"{float(value)} at step k={self.k} (t={self.k * self.T:g} s). Check the "
                    "sensor or the reference; the controller state was left unchanged.",
                    time=self.k * self.T)
        p_d, p = float(p_d), float(p)
        if self.state is None:
            self.state = self.params.init_state(p_d, p)
        f, self.state = self._update(self.state, p_d, p)
        self.k += 1
        return float(f)

    def __repr__(self) -> str:
        return type(self).__name__ + parameter_repr(self.params)[len(type(self.params).__name__):]


class PSMC(_StatefulController):
    """Proxy-based sliding mode control for a loop: ``ctrl = PSMC(F=, H=, K=, B=, L=, T=)``,
    then ``f = ctrl.step(p_d, p)`` each sample. Parameters and algorithm: :class:`PSMCParams`
    (validated at construction); the pure form is :func:`psmc_step`.

    Examples
    --------
    >>> import stickslip as ss
    >>> ctrl = ss.control.PSMC(F=20.0, H=0.05, K=1600.0, B=40.0, L=16000.0, T=1e-3)
    >>> f = ctrl.step(0.0, 0.5)          # a 0.5 m error: the force saturates at F
    >>> f
    -20.0
    """

    params_class = PSMCParams


class PID(_StatefulController):
    """Discrete PID for a loop: ``PID(K=, L=, B=, T=)`` (see :class:`PIDParams`)."""

    params_class = PIDParams


class NaiveSMC(_StatefulController):
    """Naive (chattering) sliding mode control for a loop: ``NaiveSMC(F=, H=, T=)``."""

    params_class = NaiveSMCParams


class RenderedFriction(_StatefulController):
    """Friction rendered by DA relaxation for a loop: ``RenderedFriction(F=, K=, B=, T=)``;
    ``.step(p_d, p)`` returns the actuator force −f_k [N] (see :class:`RenderedFrictionParams`)."""

    params_class = RenderedFrictionParams

# --- C export of PSMC (the same update in C99), registered for export_c -----------------

_PSMC = CTemplate(
    name="psmc",
    summary="Proxy-based sliding mode control (Kikuuwe & Fujimoto, ICRA 2006)",
    params=(("F", "force limit [N] > 0; |f| <= F always"),
            ("H", "sliding-surface time constant [s] > 0"),
            ("K", "proportional coupling gain K_p [N/m] > 0"),
            ("B", "derivative coupling gain K_d [N s/m] > 0"),
            ("L", "integral coupling gain K_i [N/(m s)] >= 0"),
            ("T", "sample period [s] > 0")),
    state=(("double", "a1", "a_{k-1}: integral of the proxy-plant offset [m s]"),
           ("double", "da1", "a_{k-1} - a_{k-2} [m s]; da1/T is the proxy-plant offset [m]"),
           ("double", "p_prev", "previous measured position [m]"),
           ("double", "pd_prev", "previous reference [m]"),
           ("int", "started", "0 until the first step (no derivative kick)"),
           ("unsigned long", "faults", "samples rejected for a non-finite input")),
    step_args="double p_d, double p",
    step_doc="Force f_k [N] for reference p_d and measured position p [m]; updates *s.",
    init_body="    s->a1 = 0.0;\n    s->da1 = 0.0;\n    s->p_prev = 0.0;\n    s->pd_prev = 0.0;\n"
              "    s->started = 0;\n    s->faults = 0;\n",
    check_body="""    if (!(prm->T > 0.0) || !isfinite(prm->T)) return 1;
    if (!(prm->F > 0.0) || !isfinite(prm->F)) return 2;
    if (!(prm->H > 0.0) || !isfinite(prm->H)) return 3;
    if (!(prm->B > 0.0) || !isfinite(prm->B)) return 4;
    if (!(prm->K > 0.0) || !isfinite(prm->K)) return 5;  /* proxy B s^2 + K s + L unstable */
    if (!(prm->L >= 0.0) || !isfinite(prm->L)) return 6;
    return 0;
""",
    step_body="""    const double F = prm->F, H = prm->H, K = prm->K, B = prm->B, L = prm->L, T = prm->T;
    double sigma, D, f_star, f, da;
    if (!isfinite(p_d) || !isfinite(p)) {
        s->faults += 1;
        return 0.0;
    }
    if (!s->started) {
        s->p_prev = p;
        s->pd_prev = p_d;
        s->started = 1;
    }
    sigma = p_d - p + H * ((p_d - s->pd_prev) - (p - s->p_prev)) / T;
    D = B + K * T + L * T * T;
    /* f*_k of SPEC 6 with a_{k-2} = a_{k-1} - da_{k-1} (same value, no cancellation) */
    f_star = D / (H + T) * sigma + L * s->a1 + (K * H - B + L * T * H) / ((H + T) * T) * s->da1;
    f = stickslip_sat(F, f_star);
    da = (B * s->da1 + T * T * (f - L * s->a1)) / D;
    s->a1 = s->a1 + da;
    s->da1 = da;
    s->p_prev = p;
    s->pd_prev = p_d;
    return f;
""")


register_c(_PSMC, functions=(psmc_step,),
           objects={PSMC: lambda c: {k: getattr(c.params, k) for k, _ in _PSMC.params},
                    PSMCParams: lambda p: {k: getattr(p, k) for k, _ in _PSMC.params}})
