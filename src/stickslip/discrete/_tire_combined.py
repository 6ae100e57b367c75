"""The brush tire with combined longitudinal and lateral slip and the yaw term (SPEC §6;
Kikuuwe et al. SI2007): the slide's partial differential-algebraic inclusion with vector
bristle deflections e(ξ) ∈ R², isotropic Coulomb friction (a disc of radius μ q(ξ)) and the
yaw rate's contribution ψ̇·x(ξ) to the lateral sliding velocity; solved node by node by
theorem (4), as :func:`~stickslip.discrete.brush_tire_step` does for one direction."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._parameters import INITIAL, SAMPLE_PERIOD, check_parameters
from ..errors import ParameterError
from ..nonsmooth import sat
from ._tire import BrushTire

__all__ = [
    "brush_analytic_combined",
    "brush_analytic_spin",
    "brush_tire_step_combined",
    "steady_state_combined",
    "theoretical_slip",
]

_FINITE = INITIAL.but(hint="Pass a finite number.")


def _check_inputs(e_prev, V, omega, T, tire, yaw_rate):
    owner = "brush_tire_step_combined"
    check_parameters(owner, {"T": SAMPLE_PERIOD, "V": _FINITE, "omega": _FINITE,
                             "yaw_rate": _FINITE}, T=T, V=V, omega=omega, yaw_rate=yaw_rate)
    if not isinstance(tire, BrushTire):
        raise ParameterError(f"`{owner}.tire` must be a BrushTire; got {type(tire).__name__}. "
                             "Build one with ss.discrete.BrushTire(...).")
    shape = (tire.n_cells + 1, 2)
    if jnp.shape(e_prev) != shape:
        raise ParameterError(f"`{owner}.e_prev` must have shape {shape} (one (e_x, e_y) row "
                             f"per node); got shape {jnp.shape(e_prev)}. Start from "
                             "jnp.zeros((tire.n_cells + 1, 2)).")
    if jnp.shape(V) != (2,):
        raise ParameterError(f"`{owner}.V` must be the wheel centre's velocity (V_x, V_y) in "
                             f"the wheel frame, shape (2,); got shape {jnp.shape(V)}.")
    for name, value in (("omega", omega), ("yaw_rate", yaw_rate)):
        if jnp.ndim(value) != 0:
            raise ParameterError(f"`{owner}.{name}` must be a scalar; got shape "
                                 f"{jnp.shape(value)}. Use jax.vmap for many values.")


def brush_tire_step_combined(e_prev, V, omega, T, tire: BrushTire, yaw_rate=0.0):
    """One time step of the brush tire with combined slip and the yaw term (SPEC §6).

    Parameters
    ----------
    e_prev
        bristle deflections e(ξ_i, t − T) = (e_x, e_y) at the nodes [m], shape
        (n_cells + 1, 2).
    V
        velocity (V_x, V_y) of the wheel centre over the road in the wheel frame [m/s]
        (x forward, y to the left).
    omega
        wheel angular velocity ω [rad/s] (either sign).
    T
        time step [s] > 0.
    tire : BrushTire
        the :class:`BrushTire` (its K and B act in both directions: isotropic bristles).
    yaw_rate
        yaw rate ψ̇ of the wheel about the vertical axis [rad/s] (counter-clockwise
        seen from above positive).

    Returns
    -------
    tuple
        ``(F, Mz, e, f)``: the road force on the tire ``F = (F_x, F_y)`` [N]; the aligning
        moment ``M_z`` [N·m] of that force about the vertical axis through the patch centre
        (counter-clockwise positive); the new deflections [m] and the bristle force densities
        ``f = K e + B De/Dt`` [N/m], both of shape (n_cells + 1, 2).

    Notes
    -----
    The nodes ξ_i = i Z run from the front of the patch (ξ = 0) to its rear; the patch point
    of node i is ``x_i = ξ_c − ξ_i`` forward of the patch centre ξ_c = L/2. The bristle root
    at x slides over the road at ``w(x) = (V_x − Rω, V_y + ψ̇ x)``, and::

        0 ∈ K e + B De/Dt − μ q(ξ) Sgn(w − De/Dt),   De/Dt = ∂e/∂t + Rω ∂e/∂ξ

    with Sgn the set-valued unit vector (the unit disc at 0). Sweeping from the leading edge
    (ξ = 0 for ω ≥ 0, ξ = L for ω < 0) with T̂, ê as in :func:`brush_tire_step` (ê now a
    vector), theorem (4) with ``sat`` clipping to the disc gives at each node::

        f = sat(μ q(ξ), (K T̂ + B) w(x̄) + K ê)        (isotropic Coulomb friction)
        e = (B ê + T̂ f)/(K T̂ + B)

    **[choice]** the yaw term is sampled at x̄ = x ± Z/2, the middle of the cell the node's
    bristle has just crossed (+ for ω ≥ 0), where the upwind difference (e_i − e_{i−1})/Z is
    centred: the steady state is then second order in Z under spin too (sampled at the node
    it is first order, 3 % of the spin force at 100 cells). ψ̇ = 0 makes no difference.

    ``F = −∫ f dξ`` and ``M_z = −∫ x f_y dξ`` (trapezoid rule). As in the classical brush
    model, the arm of the moment is the root position x (the deflection e ≪ L is not added),
    and the rotation of the wheel frame (a term ψ̇ × e in De/Dt, ψ̇|e| ≪ ψ̇|x|) is neglected.
    With V_y = 0, ψ̇ = 0 and e_y = 0 this is :func:`brush_tire_step` to round-off.

    Examples
    --------
    >>> import jax.numpy as jnp, stickslip as ss
    >>> tire = ss.discrete.BrushTire.example()
    >>> e = jnp.zeros((tire.n_cells + 1, 2))
    >>> for _ in range(40):     # 10 m/s, free rolling, 1° slip angle: a force to the left
    ...     F, Mz, e, f = ss.discrete.brush_tire_step_combined(
    ...         e, jnp.array([10.0, -10.0 * jnp.tan(jnp.pi / 180)]), 10.0 / 0.3, 1e-3, tire)
    >>> bool(F[1] > 0) and bool(Mz < 0)     # self-aligning: the force acts behind the centre
    True
    """
    _check_inputs(e_prev, V, omega, T, tire, yaw_rate)
    e_prev = jnp.asarray(e_prev, dtype=float)
    V = jnp.asarray(V, dtype=float)
    omega, yaw_rate = jnp.asarray(omega, dtype=float), jnp.asarray(yaw_rate, dtype=float)
    n = tire.n_cells
    Z = tire.L / n
    forward = omega >= 0
    q = tire.load_density()
    x = 0.5 * tire.L - tire.nodes                        # forward of the patch centre [m]
    x_cell = x + jnp.where(forward, 0.5, -0.5) * Z       # middle of the cell just crossed
    w = jnp.stack([jnp.broadcast_to(V[0] - tire.R * omega, x.shape),
                   V[1] + yaw_rate * x_cell], axis=-1)   # root sliding velocity over the road
    e_old = jnp.where(forward, e_prev, e_prev[::-1])    # sweep order: leading edge first
    q_sweep = jnp.where(forward, q, q[::-1])
    w_sweep = jnp.where(forward, w, w[::-1])
    transport = T * tire.R * jnp.abs(omega)              # distance carried in one step
    T_hat = T * Z / (Z + transport)
    gain = tire.K * T_hat + tire.B

    def node(e_upwind, inputs):
        e_old_i, q_i, w_i = inputs
        e_hat = (Z * e_old_i + transport * e_upwind) / (Z + transport)
        f = sat(tire.mu * q_i, gain * w_i + tire.K * e_hat)     # theorem (4), disc
        e = (tire.B * e_hat + T_hat * f) / gain
        return e, (e, f)

    _, (e_new, f_new) = jax.lax.scan(node, jnp.zeros(2), (e_old[1:], q_sweep[1:], w_sweep[1:]))
    e_sweep = jnp.concatenate([jnp.zeros((1, 2)), e_new])    # e = 0 where bristles enter
    f_sweep = jnp.concatenate([jnp.zeros((1, 2)), f_new])
    e = jnp.where(forward, e_sweep, e_sweep[::-1])
    f = jnp.where(forward, f_sweep, f_sweep[::-1])
    F = -Z * (jnp.sum(f, axis=0) - 0.5 * (f[0] + f[-1]))     # trapezoid over the patch
    moment = x * f[:, 1]
    Mz = -Z * (jnp.sum(moment) - 0.5 * (moment[0] + moment[-1]))
    return F, Mz, e, f


def _steady_state(tire, V, omega, yaw_rate, T, n_steps):
    def body(e, _):
        F, Mz, e, f = brush_tire_step_combined(e, V, omega, T, tire, yaw_rate)
        return e, (F, Mz, f)
    e0 = jnp.zeros((tire.n_cells + 1, 2))
    e, (F, Mz, f) = jax.lax.scan(body, e0, None, length=n_steps)
    return F[-1], Mz[-1], e, f[-1]


@eqx.filter_jit
def steady_state_combined(tire: BrushTire, V, slip_ratios, slip_angles, T, n_steps: int,
                          yaw_rates=0.0):
    """Steady state after `n_steps` at constant slip, for each (κ, α, ψ̇) (vmapped, one
    compile per shape).

    Parameters
    ----------
    tire : BrushTire
        The tire.
    V : float
        Forward speed V_x of the wheel centre [m/s].
    slip_ratios : array_like
        Longitudinal slip ratios κ = (Rω − V_x)/V_x [-] (sets ω = V_x(1 + κ)/R).
    slip_angles : array_like
        Slip angles α [rad], tan α = −V_y/V_x (Pacejka's sign: α > 0 gives F_y > 0).
    T : float
        Time step [s].
    n_steps : int
        Number of steps from undeformed bristles (static).
    yaw_rates : array_like, optional
        Yaw rates ψ̇ [rad/s] (default 0).

    Returns
    -------
    F : jax.Array
        Forces, shape (m, 2).
    Mz : jax.Array
        Aligning moments, shape (m,).
    e : jax.Array
        Shape (m, n_cells + 1, 2).
    f : jax.Array
        Shape (m, n_cells + 1, 2).

    Notes
    -----
    The three (slip ratios, slip angles, yaw rates) are broadcast to one 1-D shape (m,).
    """
    kappa, alpha, yaw = jnp.broadcast_arrays(*(jnp.atleast_1d(jnp.asarray(a, dtype=float))
                                               for a in (slip_ratios, slip_angles, yaw_rates)))
    omegas = V * (1.0 + kappa) / tire.R
    Vs = jnp.stack([jnp.full_like(alpha, V), -V * jnp.tan(alpha)], axis=-1)
    return jax.vmap(lambda Vi, om, r: _steady_state(tire, Vi, om, r, T, n_steps))(
        Vs, omegas, yaw)


def theoretical_slip(slip_ratio, slip_angle):
    """Pacejka's theoretical slip σ = (σ_x, σ_y) = (κ, tan α)/(1 + κ) [-]: minus the root
    sliding velocity over the rolling speed, ``σ = −w/(Rω)`` (ψ̇ = 0)."""
    kappa = np.asarray(slip_ratio, dtype=float)
    return kappa / (1 + kappa), np.tan(np.asarray(slip_angle, dtype=float)) / (1 + kappa)


def brush_analytic_combined(sigma_x, sigma_y, tire: BrushTire):
    """Steady state of the classic isotropic brush model, parabolic pressure, B = 0
    (Pacejka, *Tire and Vehicle Dynamics*, §3.2): ``(F_x, F_y, M_z)`` [N, N, N·m].

    With σ = |σ| and λ = θσ, θ = K L²/(6 μ F_z): the force is parallel to σ with magnitude
    ``μ F_z (3λ − 3λ² + λ³)`` for λ ≤ 1 (μ F_z beyond), and the aligning moment is
    ``M_z = −μ F_z (L/2) λ (1 − λ)³ σ_y/σ`` (0 beyond): the patch sticks from the leading
    edge to ξ_s = L(1 − λ), where the road force density is K σ ξ, and slides at μ q(ξ)
    behind it; M_z = ∫ x (σ_y/σ) density dξ with x = L/2 − ξ. A reference for
    :func:`brush_tire_step_combined`.
    """
    sx, sy = np.broadcast_arrays(np.asarray(sigma_x, dtype=float),
                                 np.asarray(sigma_y, dtype=float))
    sigma = np.hypot(sx, sy)
    lam = np.minimum(tire.theta() * sigma, 1.0)
    mu_fz = float(tire.mu * tire.Fz)
    magnitude = mu_fz * (3 * lam - 3 * lam ** 2 + lam ** 3)
    safe = np.where(sigma > 0, sigma, 1.0)
    mz = -mu_fz * 0.5 * float(tire.L) * lam * (1 - lam) ** 3 * sy / safe
    return magnitude * sx / safe, magnitude * sy / safe, mz


def brush_analytic_spin(spin, tire: BrushTire):
    """Steady state of the classic brush model (parabolic pressure, B = 0) in pure turn slip:
    free rolling forward (V = (Rω, 0), ω > 0) at the yaw rate ψ̇ = s Rω. Returns
    ``(F_y, M_z)`` [N, N·m]; ``spin`` is s = ψ̇/(Rω) [1/m].

    Notes
    -----
    With a = L/2 and the bound ``μ q/K = c (a² − x²)``, c = 3 μ F_z/(4 a³ K): the roots slide
    at ψ̇ x, so a sticking bristle has ``e_y = (s/2)(a² − x²)``, the same parabola as the
    bound. For |s| ≤ 2c the whole patch sticks: ``F_y = −(2/3) K a³ s`` (Pacejka's C_Fφ =
    C_Mα) and ``M_z = 0`` (e_y is even in x). For s > 2c the front half slides at
    e_y = +c(a² − x²), the rear sticks on ``e_y = c a² − s x²/2`` down to
    ``x_r = −2a √(c/(s + 2c))`` and slides at e_y = −c(a² − x²) behind it; the road force
    density is −K e_y. Both are odd in s; M_z → −(3/8) μ F_z a as s → ∞ (opposing ψ̇).
    """
    s = np.asarray(spin, dtype=float)
    a, K = 0.5 * float(tire.L), float(tire.K)
    c = 3 * float(tire.mu * tire.Fz) / (4 * a ** 3 * K)
    m = np.abs(s)
    xr = -2 * a * np.sqrt(c / np.maximum(m + 2 * c, 4 * c))     # = −a while all sticks
    stick = -(2 / 3) * K * a ** 3 * m
    slide_f = -K * (2 / 3 * c * a ** 3 + (-c * a ** 2 * xr + m * xr ** 3 / 6)
                    - c * (a ** 2 * (xr + a) - (xr ** 3 + a ** 3) / 3))
    slide_m = -K * (c * a ** 4 / 4 + (-c * a ** 2 * xr ** 2 / 2 + m * xr ** 4 / 8)
                    - c * (a ** 2 * (xr ** 2 - a ** 2) / 2 - (xr ** 4 - a ** 4) / 4))
    sliding = m > 2 * c
    return (np.sign(s) * np.where(sliding, slide_f, stick),
            np.sign(s) * np.where(sliding, slide_m, 0.0))
