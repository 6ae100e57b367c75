"""The point–line pairs' rows in closed form (``PairGeometry.kinematics``) against automatic
differentiation of the gap ψ(q) and the sliding velocity v_t(q, q̇)."""

import jax
import jax.numpy as jnp
import numpy as np

from stickslip.planar._contact_system import PairGeometry


def test_closed_form_rows_match_automatic_differentiation():
    rng = np.random.default_rng(12)
    # pairs against the ground (index 0) and between bodies, in both orders
    pairs = PairGeometry(body_i=(0, 2, 1, 3), body_j=(1, 1, 3, 2),
                         point_j=rng.normal(size=(4, 2)), line_point_i=rng.normal(size=(4, 2)),
                         line_axis_i=rng.normal(size=(4, 2)))
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
            assert np.max(np.abs(np.asarray(got) - np.asarray(want))) < 1e-13, name
        # the rows are nonzero only in the columns of the pair's two bodies
        assert np.all(np.asarray(Jn)[0, 3:] == 0.0) and np.all(np.asarray(Jt)[0, 3:] == 0.0)
