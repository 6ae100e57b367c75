"""The previous method of Wakisaka & Sugihara (2016; SPEC §7, end of 2.4) in pure JAX, the
counterpart of the numba `_friction_previous` for ``friction="previous"`` on the JAX volume
route: the friction force |f_t| ≤ μ f_n and the normal torque |τ_n| ≤ the torque limit
max μ Σ_l |r_l| ε_l (ε ≥ 0 keeping (f_n, τ_1, τ_2), eq. 34) are tested and corrected
separately.

The polygon is a padded buffer ``r`` (Lmax, 2) [m] in (e1, e2) about p_g with ``count`` real
vertices (`_volume_jax_friction`); wrenches are (f_n, f_1, f_2, τ_n, τ_1, τ_2) [N, N m].
Non-finite input: not static, and NaN corrections (as numba).
"""

from __future__ import annotations

import jax.numpy as jnp

from ._volume_jax_friction import small_lp_max

__all__ = ["previous_kinetic", "previous_static", "previous_torque_limit"]


def _finite(wrench, r):
    return jnp.all(jnp.isfinite(wrench)) & jnp.all(jnp.isfinite(r))


def previous_torque_limit(wrench, r, count, mu):
    """max μ Σ_l |r_l| ε_l over ε ≥ 0 with eq. 34's rows equal to (f_n, τ_1, τ_2) of
    `wrench` [N m] (numba `previous_torque_limit`)."""
    valid = jnp.arange(r.shape[0]) < count
    c = jnp.where(valid, mu * jnp.hypot(r[:, 0], r[:, 1]), 0.0)
    A = jnp.stack([jnp.where(valid, 1.0, 0.0), jnp.where(valid, r[:, 1], 0.0),
                   jnp.where(valid, -r[:, 0], 0.0)])
    b = jnp.stack([wrench[0], wrench[4], wrench[5]])
    return c @ small_lp_max(c, A, b, count)


def previous_static(wrench, r, count, mu_s):
    """|f_t| ≤ μ_s f_n and |τ_n| ≤ the torque limit, separately (numba `previous_static`);
    a contact without normal force holds only the zero wrench."""
    fn = wrench[0]
    force_ok = jnp.hypot(wrench[1], wrench[2]) <= mu_s * fn * (1 + 1e-12)
    safe = jnp.where(_finite(wrench, r), wrench, 0.0)
    limit = previous_torque_limit(safe, jnp.where(jnp.isfinite(r), r, 0.0), count, mu_s)
    torque_ok = jnp.abs(wrench[3]) <= limit * (1 + 1e-12)
    zero = jnp.all(jnp.abs(wrench) <= 1e-12)
    return _finite(wrench, r) & jnp.where(fn <= 0, zero, force_ok & torque_ok)


def previous_kinetic(wrench, r, count, mu_d):
    """The friction force limited to μ_d f_n (its direction kept), then the normal torque
    clamped to the μ_d torque limit of that wrench (numba `previous_kinetic`); all NaN when
    an input is not finite."""
    finite = _finite(wrench, r) & jnp.isfinite(mu_d)
    w = jnp.where(finite, wrench, 0.0)
    ft = jnp.hypot(w[1], w[2])
    lim = mu_d * jnp.maximum(w[0], 0.0)   # a round-off negative f_n: no friction, not reversed
    s = jnp.where(ft > lim, lim / jnp.where(ft > 0, ft, 1.0), 1.0)
    w = w.at[1].multiply(s).at[2].multiply(s)
    limit = previous_torque_limit(w, jnp.where(jnp.isfinite(r), r, 0.0), count, mu_d)
    w = w.at[3].set(jnp.minimum(jnp.maximum(w[3], -limit), limit))
    return jnp.where(finite, w, jnp.nan)
