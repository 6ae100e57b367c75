"""The brush tire model as a partial differential-algebraic inclusion (SPEC §6; Kikuuwe et
al., SI2007), discretised in space and time and solved node by node by theorem (4)."""

from __future__ import annotations

from typing import ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._parameters import (FRICTION_COEFFICIENT, SAMPLE_PERIOD, AbstractParametrised, Rule,
                           check_parameters)
from .._repr import parameter_repr
from ..errors import ParameterError
from .._parameter_arrays import as_parameter
from ..nonsmooth import sat

__all__ = ["BrushTire", "brush_tire_step", "brush_analytic_force", "steady_state_curve"]

_PRESSURES = ("parabolic", "uniform")


class BrushTire(AbstractParametrised):
    """Longitudinal brush model of a tire contact patch (SPEC §6, Kikuuwe et al. SI2007).

    Bristles of deflection e(ξ, t) along the patch ξ ∈ [0, L] enter undeformed at the
    leading edge and are carried through at the rolling speed Rω. Each bristle element is a
    spring–damper ``K e + B De/Dt`` whose tip feels Coulomb friction ``μ q(ξ)`` against the
    road::

        0 ∈ K e + B De/Dt − μ q(ξ) sgn(V − Rω − De/Dt),   De/Dt = ∂e/∂t + Rω ∂e/∂ξ

    (SPEC §6's F_n(ξ) is the normal load per unit length q(ξ)).

    Parameters
    ----------
    L : Array, optional
        contact patch length [m] > 0.
    K : Array, optional
        bristle stiffness per unit length [N/m²] > 0.
    B : Array, optional
        bristle damping per unit length [N·s/m²] ≥ 0.
    mu : Array, optional
        road friction coefficient [-] ≥ 0.
    Fz : Array, optional
        vertical load [N] > 0.
    R : Array, optional
        rolling radius [m] > 0.
    n_cells : int, optional
        number of cells along the patch (grid step Z = L/n_cells), ≥ 2 (static).
    pressure : str, optional
        ``"parabolic"`` (``q = 6 Fz ξ(L − ξ)/L³``, the classic brush model) or
        ``"uniform"`` (``q = Fz/L``) (static).
    """

    L: jnp.ndarray = eqx.field(converter=as_parameter)
    K: jnp.ndarray = eqx.field(converter=as_parameter)
    B: jnp.ndarray = eqx.field(converter=as_parameter)
    mu: jnp.ndarray = eqx.field(converter=as_parameter)
    Fz: jnp.ndarray = eqx.field(converter=as_parameter)
    R: jnp.ndarray = eqx.field(converter=as_parameter)
    n_cells: int = eqx.field(static=True, default=100)
    pressure: str = eqx.field(static=True, default="parabolic")

    parameter_rules: ClassVar[dict[str, Rule]] = {
        "L": Rule("positive", "Pass the contact patch length in metres (> 0)."),
        "K": Rule("positive", "Pass the bristle stiffness per unit length in N/m² (> 0)."),
        "B": Rule("nonnegative", "Pass the bristle damping in N·s/m² (>= 0)."),
        "mu": FRICTION_COEFFICIENT,
        "Fz": Rule("positive", "Pass the vertical load in newtons (> 0)."),
        "R": Rule("positive", "Pass the rolling radius in metres (> 0)."),
    }

    def __check_init__(self):
        if not isinstance(self.n_cells, int) or self.n_cells < 2:
            raise ParameterError(f"`BrushTire.n_cells` must be an integer >= 2; got "
                                 f"{self.n_cells!r}. Pass e.g. n_cells=100.")
        if self.pressure not in _PRESSURES:
            raise ParameterError(f"`BrushTire.pressure` must be one of {_PRESSURES}; got "
                                 f"{self.pressure!r}.")

    def __repr__(self) -> str:
        return parameter_repr(self)

    @classmethod
    def example(cls) -> "BrushTire":
        """A passenger-car-like patch: θ = K L²/(6 μ Fz) = 4 (full sliding from 25 % slip)."""
        return cls(L=0.2, K=2.4e6, B=100.0, mu=1.0, Fz=4000.0, R=0.3, n_cells=100)

    @property
    def nodes(self) -> jnp.ndarray:
        """Node positions ξ_i = i Z, i = 0 … n_cells [m] (ξ = 0 leads when ω > 0)."""
        return jnp.linspace(0.0, 1.0, self.n_cells + 1) * self.L

    def load_density(self) -> jnp.ndarray:
        """Normal load per unit length q(ξ_i) at the nodes [N/m]."""
        xi = self.nodes
        if self.pressure == "parabolic":
            return 6.0 * self.Fz * xi * (self.L - xi) / self.L ** 3
        return jnp.full_like(xi, 1.0) * self.Fz / self.L

    def initial_state(self) -> jnp.ndarray:
        """Undeformed bristles: e = 0 at every node [m]."""
        return jnp.zeros(self.n_cells + 1)

    def theta(self) -> float:
        """The brush-model stiffness ratio θ = K L²/(6 μ Fz) [-] (peak force at |σ| = 1/θ)."""
        return float(self.K * self.L ** 2 / (6.0 * self.mu * self.Fz))


def brush_tire_step(e_prev, V, omega, T, tire: BrushTire):
    """One time step of the space–time discretised brush tire (SPEC §6, slide algorithm).

    Parameters
    ----------
    e_prev
        bristle deflections e(ξ_i, t − T) at the nodes [m], shape (n_cells + 1,).
    V
        longitudinal speed of the wheel centre over the road [m/s].
    omega
        wheel angular velocity [rad/s] (either sign).
    T
        time step [s] > 0.
    tire : BrushTire
        the :class:`BrushTire`.

    Returns
    -------
    tuple
        ``(Fx, e, f)``: the longitudinal road force on the tire [N] (> 0 when driving,
        Rω > V; < 0 when braking), the new deflections [m] and the bristle force density
        ``f(ξ_i) = K e + B De/Dt`` [N/m] (its sign is that of the sliding velocity V − Rω).

    Notes
    -----
    Starting at the leading edge ξ = (1 − sgn ω)L/2 with e = 0, for each node in turn
    (upwind, so the sweep is sequential)::

        T̂ = T Z/(Z + T R|ω|)
        ê = (Z e(ξ, t − T) + T R|ω| e(ξ − sgn(ω) Z, t))/(Z + T R|ω|)
        f = sat(μ q(ξ), (K T̂ + B)(V − Rω) + K ê)          theorem (4)
        e = (B ê + T̂ f)/(K T̂ + B)

    **[fix]** the slide prints ``e := (K ê + B f)/(K T̂ + B)``, which is not even
    dimensionally consistent; backward Euler of ``f = K e + B (e − ê)/T̂`` gives the line
    above (the same update as :func:`da_relaxation_step` with ê for e_{k−1}, T̂ for T).
    Longitudinal only: the lateral direction and the slide's yaw term ψ̇(ξ − ξ_c) are in
    :func:`~stickslip.discrete.brush_tire_step_combined`.
    """
    check_parameters("brush_tire_step", {"T": SAMPLE_PERIOD}, T=T)
    if not isinstance(tire, BrushTire):
        raise ParameterError(f"`brush_tire_step.tire` must be a BrushTire; got "
                             f"{type(tire).__name__}. Build one with ss.discrete.BrushTire(...).")
    e_prev = jnp.asarray(e_prev, dtype=float)
    V, omega = jnp.asarray(V, dtype=float), jnp.asarray(omega, dtype=float)
    n = tire.n_cells
    Z = tire.L / n
    forward = omega >= 0
    q = tire.load_density()
    e_old = jnp.where(forward, e_prev, e_prev[::-1])    # sweep order: leading edge first
    q_sweep = jnp.where(forward, q, q[::-1])
    transport = T * tire.R * jnp.abs(omega)              # distance carried in one step
    T_hat = T * Z / (Z + transport)
    w = V - tire.R * omega                               # sliding velocity of the road
    gain = tire.K * T_hat + tire.B

    def node(e_upwind, inputs):
        e_old_i, q_i = inputs
        e_hat = (Z * e_old_i + transport * e_upwind) / (Z + transport)
        f = sat(tire.mu * q_i, gain * w + tire.K * e_hat)
        e = (tire.B * e_hat + T_hat * f) / gain
        return e, (e, f)

    _, (e_new, f_new) = jax.lax.scan(node, jnp.zeros(()), (e_old[1:], q_sweep[1:]))
    e_sweep = jnp.concatenate([jnp.zeros(1), e_new])     # e = 0 where bristles enter
    f_sweep = jnp.concatenate([jnp.zeros(1), f_new])
    e = jnp.where(forward, e_sweep, e_sweep[::-1])
    f = jnp.where(forward, f_sweep, f_sweep[::-1])
    total = Z * (jnp.sum(f) - 0.5 * (f[0] + f[-1]))      # trapezoid over the patch
    return -total, e, f


def brush_analytic_force(sigma, tire: BrushTire):
    """Steady-state force of the classic brush model with a parabolic pressure (B = 0):
    ``Fx = μ Fz (3θσ − 3(θσ)|θσ| + (θσ)³)`` for ``|θσ| ≤ 1``, else ``μ Fz sgn(σ)``, with the
    theoretical slip ``σ = (Rω − V)/(Rω)`` and θ = K L²/(6 μ Fz) (Pacejka, *Tire and Vehicle
    Dynamics*, §3.2). A reference for :func:`brush_tire_step`."""
    s = np.asarray(sigma, dtype=float) * tire.theta()
    a = np.abs(s)
    inside = np.sign(s) * (3 * a - 3 * a ** 2 + a ** 3)
    return float(tire.mu * tire.Fz) * np.where(a <= 1, inside, np.sign(s))


def _steady_state(tire: BrushTire, V, omega, T, n_steps):
    """Run `n_steps` at constant (V, ω) from undeformed bristles; returns (Fx, e, f)."""
    def body(e, _):
        Fx, e, f = brush_tire_step(e, V, omega, T, tire)
        return e, (Fx, f)
    e, (Fx, f) = jax.lax.scan(body, tire.initial_state(), None, length=n_steps)
    return Fx[-1], e, f[-1]


@eqx.filter_jit
def steady_state_curve(tire: BrushTire, V, slip_ratios, T, n_steps: int):
    """Steady longitudinal force for each slip ratio κ = (Rω − V)/V at speed V (vmapped)."""
    omegas = V * (1.0 + slip_ratios) / tire.R
    return jax.vmap(lambda om: _steady_state(tire, V, om, T, n_steps))(omegas)
