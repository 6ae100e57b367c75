"""The point–line pairs' rows in closed form (``PairGeometry.kinematics``) against automatic
differentiation of the gap ψ(q) and the sliding velocity v_t(q, q̇)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from stickslip.planar._contact_pairs import PairGeometry


# (body_i, body_j) per pair, 0 = ground: mixed bodies in both orders; a guide on the ground
# with one slider (the clearance slider's layout); points on the ground against a body's
# line; two pairs on one pair of bodies
LAYOUTS = [((0, 2, 1, 3), (1, 1, 3, 2)), ((0, 0, 0, 0), (3, 3, 3, 3)), ((2, 2, 2), (0, 0, 0)),
           ((1, 1), (3, 3))]


@pytest.mark.parametrize("body_i, body_j", LAYOUTS)
def test_closed_form_rows_match_automatic_differentiation(body_i, body_j):
    rng = np.random.default_rng(12)
    k = len(body_i)
    pairs = PairGeometry(body_i=body_i, body_j=body_j, point_j=rng.normal(size=(k, 2)),
                         line_point_i=rng.normal(size=(k, 2)),
                         line_axis_i=rng.normal(size=(k, 2)))
    for _ in range(4):
        q, qd = jnp.asarray(rng.normal(size=9)), jnp.asarray(rng.normal(size=9))
        psi, Jn, psi_d, jdot_n, vt, Jt, jdot_t = pairs.kinematics(q, qd)
        Jn_ad = jax.jacfwd(pairs.gaps)(q)
        expected = {
            "gap": (psi, pairs.gaps(q)),
            "J_n": (Jn, Jn_ad),
            "gap rate": (psi_d, Jn_ad @ qd),
            # J̇_n q̇ = d²/ds² ψ(q + s q̇) at s = 0
            "J̇_n q̇": (jdot_n, jax.jvp(lambda z: jax.jvp(pairs.gaps, (z,), (qd,))[1],
                                      (q,), (qd,))[1]),
            "v_t": (vt, pairs.sliding_velocities(q, qd)),
            "J_t": (Jt, jax.jacfwd(lambda v: pairs.sliding_velocities(q, v))(qd)),
            "J̇_t q̇": (jdot_t, jax.jvp(lambda z: pairs.sliding_velocities(z, qd),
                                      (q,), (qd,))[1]),
        }
        for name, (got, want) in expected.items():
            assert np.asarray(got).shape == np.asarray(want).shape, name
            assert np.max(np.abs(np.asarray(got) - np.asarray(want))) < 1e-13, name
        # the rows are nonzero only in the columns of the pair's two bodies
        for p, (bi, bj) in enumerate(zip(body_i, body_j)):
            other = np.ones(9, dtype=bool)
            other[[c for b in (bi, bj) if b for c in range(3 * b - 3, 3 * b)]] = False
            assert np.all(np.asarray(Jn)[p, other] == 0.0)
            assert np.all(np.asarray(Jt)[p, other] == 0.0)
