"""Nonsmooth primitives: sgn, sat, dio and the projections behind them (SPEC §1).

The set-valued functions of SPEC §1 (eq. 1-3) cannot be evaluated as numbers, but the
algebraic loops they appear in can be solved in closed form:

* theorem (4): ``y ∈ Z·sgn(x − y)  ⇔  y = sat(Z, x)``  (x, y ∈ R^r, Z ≥ 0)
* theorem (5): ``y ∈ dio(x + y)    ⇔  y = max(0, −x)`` (x ∈ R, y ≥ 0)

Both are projections: ``sat(Z, ·)`` projects onto the ball of radius Z, ``max(0, ·)`` onto
[0, ∞). These closed forms are what turn Coulomb friction and rigid contact into Lipschitz
ODEs (SPEC §2-§4). Everything here is pure ``jax.numpy``: jit-, vmap- and grad-safe.

The membership tests (:func:`in_sgn`, :func:`in_dio`) are host-side checks with a tolerance,
used by tests and by discrete-time algorithms to verify that a computed force really lies in
the inclusion.

Examples
--------
>>> import stickslip as ss
>>> float(ss.nonsmooth.sat(1.0, 3.0)), float(ss.nonsmooth.sat(1.0, -0.5))
(1.0, -0.5)
>>> [round(float(c), 6) for c in ss.nonsmooth.sat(1.0, [3.0, 4.0])]
[0.6, 0.8]
>>> float(ss.nonsmooth.dio_solve(-2.0)), float(ss.nonsmooth.dio_solve(2.0))
(2.0, 0.0)
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

__all__ = [
    "sat",
    "dio_solve",
    "safe_norm",
    "in_sgn",
    "in_dio",
    "project_interval",
    "project_disc",
    "project_friction_cone",
]


def safe_norm(x: ArrayLike, axis: int = -1) -> jnp.ndarray:
    """Euclidean norm along `axis`: scaled so tiny vectors do not underflow to 0, and with a
    finite gradient at x = 0."""
    x = jnp.asarray(x)
    largest = jnp.max(jnp.abs(x), axis=axis, keepdims=True)
    nonzero = largest > 0
    scaled = x / jnp.where(nonzero, largest, 1.0)
    sq = jnp.where(nonzero[..., 0] if axis == -1 else jnp.squeeze(nonzero, axis),
                   jnp.sum(scaled * scaled, axis=axis), 1.0)
    largest = jnp.squeeze(largest, axis)
    return jnp.where(largest > 0, largest * jnp.sqrt(sq), 0.0)


def sat(Z: ArrayLike, x: ArrayLike) -> jnp.ndarray:
    """Saturation ``sat(Z, x)``: `x` clipped to the ball of radius `Z` (SPEC §1, eq. 2).

    Parameters
    ----------
    Z : array_like
        Radius, Z ≥ 0 (same unit as `x`). Broadcasts against the leading axes of `x`.
    x : array_like
        A scalar (0-d: clipped to [−Z, Z]) or a vector along its last axis (r = 2 for planar
        sliding; scaled onto the disc ‖x‖ ≤ Z when outside it).

    Returns
    -------
    Array
        ``Z x/‖x‖`` if ``‖x‖ > Z``, else ``x``. By theorem (4) this is the unique y with
        ``y ∈ Z sgn(x − y)``.
    """
    x = jnp.asarray(x)
    Z = jnp.asarray(Z)
    if x.ndim == 0:
        return jnp.clip(x, -Z, Z)
    n = safe_norm(x)
    scale = jnp.where(n > Z, Z / jnp.where(n > 0, n, 1.0), 1.0)
    return x * scale[..., None]


def dio_solve(x: ArrayLike) -> jnp.ndarray:
    """The unique solution y of ``y ∈ dio(x + y)``: ``max(0, −x)`` (SPEC §1, theorem 5).

    `x` is a scalar (or an array of independent scalars); the result is ≥ 0 everywhere.
    """
    return jnp.maximum(0.0, -jnp.asarray(x))


def in_sgn(y: ArrayLike, x: ArrayLike, Z: float = 1.0, tol: float = 1e-9) -> bool:
    """Host-side test of ``y ∈ Z·sgn(x)`` (SPEC §1, eq. 1) within `tol`.

    `x`, `y` are scalars or vectors of the same shape. For ``‖x‖ > tol`` the only member is
    ``Z x/‖x‖``; otherwise any y with ``‖y‖ ≤ Z`` belongs. Tolerances are absolute, scaled by
    ``max(1, Z)``.
    """
    x = np.atleast_1d(np.asarray(x, dtype=float))
    y = np.atleast_1d(np.asarray(y, dtype=float))
    scale = max(1.0, float(Z))
    nx = float(np.linalg.norm(x))
    if nx <= tol:
        return bool(np.linalg.norm(y) <= Z + tol * scale)
    return bool(np.linalg.norm(y - Z * x / nx) <= tol * scale)


def in_dio(y: float, x: float, tol: float = 1e-9) -> bool:
    """Host-side test of ``y ∈ dio(x)`` (SPEC §1, eq. 3) within `tol`.

    ``dio(x)`` is {0} for x > 0, [0, ∞) for x = 0 and empty for x < 0.
    """
    x, y = float(x), float(y)
    scale = max(1.0, abs(y))
    if x > tol * scale:
        return abs(y) <= tol * scale
    if x >= -tol * scale:
        return y >= -tol * scale
    return False


def project_interval(x: ArrayLike, lower: ArrayLike, upper: ArrayLike) -> jnp.ndarray:
    """Projection of `x` onto the interval [lower, upper] (the set S of SPEC §1)."""
    return jnp.clip(jnp.asarray(x), lower, upper)


def project_disc(x: ArrayLike, radius: ArrayLike) -> jnp.ndarray:
    """Projection of the vector `x` (last axis) onto the disc ‖x‖ ≤ radius; same as `sat`."""
    return sat(radius, jnp.atleast_1d(jnp.asarray(x)))


def project_friction_cone(f: ArrayLike, mu: ArrayLike) -> jnp.ndarray:
    """Euclidean projection of a force onto the Coulomb friction cone ``‖f_t‖ ≤ μ f_n``.

    Parameters
    ----------
    f : array_like
        Force with the normal component last: ``[f_t..., f_n]`` (2 or 3 components).
    mu : array_like
        Friction coefficient μ ≥ 0 [-].

    Notes
    -----
    Second-order-cone projection: inside the cone f is kept; inside the polar cone
    (``μ‖f_t‖ ≤ −f_n``) the result is 0; otherwise it lands on the cone's surface at
    ``f_n' = (μ‖f_t‖ + f_n)/(1 + μ²)``, ``f_t' = μ f_n' f_t/‖f_t‖``. The normal cone of the
    friction cone at the result contains ``f − proj(f)`` (SPEC §1, ``N_S(y) ∋ u − y``).
    """
    f = jnp.asarray(f)
    mu = jnp.asarray(mu)
    ft, fn = f[..., :-1], f[..., -1]
    nt = safe_norm(ft)
    inside = nt <= mu * fn
    polar = mu * nt <= -fn
    fn_new = (mu * nt + fn) / (1.0 + mu * mu)
    direction = ft / jnp.where(nt > 0, nt, 1.0)[..., None]
    ft_new = (mu * fn_new)[..., None] * direction
    surface = jnp.concatenate([ft_new, fn_new[..., None]], axis=-1)
    out = jnp.where(inside[..., None], f, surface)
    return jnp.where((polar & ~inside)[..., None], jnp.zeros_like(f), out)
