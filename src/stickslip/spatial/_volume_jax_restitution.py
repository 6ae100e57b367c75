"""A restitution in the joint QP of the JAX engine (SPEC §7, eq. 3 split): the counterpart of
the numba `_volume_wrench.contact_step` with per-pair coefficients (`SpatialModel._pairs_e`)
for the slots of `_volume_jax_joint`.

* eq. 3's target of a contact with a restitution e is v⁺ n uniform over S (per unit area:
  v⁺ Q[:, :3] n / area): v⁺ = e·v_in between two bodies and its energy-consistent
  counterpart on the ground, v_in = −n·(v_B − v_A) at the volume's centroid p_g, and 0
  (plastic) when it approaches slower than RESTING_SPEED_STEPS·|g|·Δt
  (`_volume_wrench.rebound_speed`); a contact without one keeps the paper's k·nᵀc per
  unit area;
* the penetration goes to a position-only solve: the QP (16) with the free motion removed
  (b = 0), the target k h n at the contacts with a restitution (0 at the others), the same
  constraints (25), without eq. 10's λ; its wrenches, moved to the centres of mass, give the
  pseudo-velocities (n_b, 6) the bodies' positions advance with (`_volume_jax.finish_pose`).
  With no such contact active the solve's gradient is 0 and so are its pseudo-velocities
  (numba skips it then).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ._volume_jax_contact import rotation
from ._volume_jax_qp import cone_qp
from ._volume_wrench import RESTING_SPEED_STEPS, rebound_speed

__all__ = ["body_wrenches", "position_correction", "rebound_targets"]


def _point_velocity(X, body, p):
    """Velocity (K, 3) of the points p (K, 3) of the bodies `body` (K,) (0 for −1: ground)."""
    x = X[jnp.maximum(body, 0)]
    v = x[:, 7:10] + jnp.cross(x[:, 10:13], p - x[:, :3])
    return jnp.where((body >= 0)[:, None], v, 0.0)


def rebound_targets(X, a, b, n, pg, Qs, e, has_e, cn, dt, params):
    """eq. 3's targets per slot (K, 6): the rebound v⁺·Q[:, :3] n where the slot's contact
    has a restitution (`has_e`), `cn` (k·nᵀc per unit area) elsewhere (module docstring)."""
    v_in = -jnp.sum((_point_velocity(X, b, pg) - _point_velocity(X, a, pg)) * n, axis=1)
    v_rest = RESTING_SPEED_STEPS * jnp.sqrt(jnp.sum(params.gravity ** 2)) * dt
    # the energy-consistent rebound: gravity's approach on the ground, none between bodies;
    # the depth from eq. 3's k h n per unit area
    a_n = jnp.where(a < 0, -(n @ params.gravity), 0.0)
    depth = jnp.sum(cn[:, :3] * n, axis=1) / params.k
    speed = rebound_speed(e, v_in, v_rest, a_n, depth, dt, jnp)
    target = speed[:, None] * jnp.einsum("kij,kj->ki", Qs[:, :, :3], n)
    return jnp.where(has_e[:, None], target, cn)


def body_wrenches(X, a, b, pg, f, nb):
    """Force and torque (nb, 3) on the centres of mass of the slots' wrenches f (K, 6) on B at
    p_g (+ on B, − on A; rows of absent bodies and empty slots are zero in f)."""
    on_b = (b[:, None] == jnp.arange(nb)[None, :]).astype(f.dtype)
    on_a = (a[:, None] == jnp.arange(nb)[None, :]).astype(f.dtype)
    fw, tw = f[:, :3], f[:, 3:]

    def moment(body):
        return tw + jnp.cross(pg - X[jnp.maximum(body, 0), :3], fw)
    return on_b.T @ fw - on_a.T @ fw, on_b.T @ moment(b) - on_a.T @ moment(a)


def position_correction(X, a, b, pg, A, Qbig, off, G, n_rows, cpen, dt, params):
    """The pseudo-velocities (n_b, 6) [m/s, rad/s] of the position-only solve (module
    docstring); `cpen` (6K,) the target k h n per unit area at the slots with a restitution,
    0 elsewhere; `off` (6K,) 1 on the empty slots' variables."""
    Hp = A.T @ Qbig @ A
    Hp = Hp * (1.0 + 1e-9 * jnp.eye(Hp.shape[0])) + jnp.diag(off)
    f = cone_qp(Hp, -(A.T @ cpen), G, n_rows).reshape(-1, 6)
    Fp, Tp = body_wrenches(X, a, b, pg, f, X.shape[0])
    R = jax.vmap(rotation)(X[:, 3:7])
    wp = jnp.einsum("nij,njk,nlk,nl->ni", R, params.inv_inertia, R, Tp)
    return jnp.concatenate([Fp / params.mass[:, None], wp], axis=1) * dt
