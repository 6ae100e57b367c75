"""The box-under-force protocol (benchmarks/spatial_box_force.py, issue 20) at a large step:
`PointContacts` on ``method="moreau_jean"`` at h = 0.1 s — ten steps for the 1 s trial —
keeps what the protocol measures, because friction is solved exactly at every step. A 1 kg
cube of side 0.1 m on the ground, μ = 0.5, loaded at the centre of its bottom face; all
loads in one batch (one compiled program).

Closed forms: below μ m g = 4.905 N (push) and below μ m g r = 0.3468 N·m (vertical torque,
four corners at r = 0.05√2 m) every corner sticks; above, a straight push slides at
a = (F − μ m g)/m and a pure torque turns at α = (T − μ m g r)/I_z (the friction moment of
four corners sliding on their circle is μ r Σ N_k = μ m g r whatever the split of the
weight among them). The θ-method at θ = 1/2 is exact for a constant acceleration, so both
motions are exact at the step's ends, at any h.
"""

import math

import numpy as np
import pytest

import stickslip as ss

# slow: its one program compiles for ~13 s CPU, and the default run holds, slides and turns
# boxes on this route at the usual steps (tests/spatial/test_point_contacts_moreau_jean.py)
pytestmark = pytest.mark.slow

MU, MASS, G, SIDE = 0.5, 1.0, 9.81, 0.1
I_Z = MASS * SIDE ** 2 / 6                                   # the cube's inertia [kg m²]
F_LIMIT = MU * MASS * G                                     # 4.905 N
T_LIMIT = MU * MASS * G * SIDE / 2 * math.sqrt(2.0)         # 0.3468 N·m
H = 0.1
# (F_x [N], T_z [N·m]) of the members
LOADS = [(3.0, 0.0), (4.8, 0.0), (6.0, 0.0), (0.0, 0.33), (0.0, 0.35), (2.0, 0.15)]


@pytest.fixture(scope="module")
def run():
    model = ss.spatial.Model(gravity=(0.0, 0.0, -G))
    model.add_body("box", mass=MASS, inertia=None, shape=ss.spatial.Box(SIDE, SIDE, SIDE),
                   position=(0.0, 0.0, SIDE / 2))
    model.add_ground(mu_s=MU, mu_k=MU)
    base = ss.spatial.PointContacts.from_model(model, force_point=(0.0, 0.0, -SIDE / 2))
    systems = [base.replace(force=np.array([[f, 0.0, 0.0]]), torque=np.array([[0.0, 0.0, t]]))
               for f, t in LOADS]
    return ss.simulate_batch(systems, 1.0, method="moreau_jean", dt=H, dt_out=H)


def _angle(res, k):
    """The turn about z [rad] of member k at every sample."""
    return 2.0 * np.arctan2(res["box.qz"][k], res["box.qw"][k])


def test_held_boxes_do_not_creep_at_a_tenth_of_a_second(run):
    # a push and a torque below their limits, and a combined load inside both
    for k in (0, 1, 3, 5):
        moved = np.hypot(run["box.x"][k] - run["box.x"][k][0],
                         run["box.y"][k] - run["box.y"][k][0])
        assert np.max(moved) < 1e-12, LOADS[k]
        assert np.max(np.abs(_angle(run, k))) < 1e-12, LOADS[k]


def test_a_push_above_the_limit_slides_the_closed_form_distance(run):
    a = (6.0 - F_LIMIT) / MASS
    np.testing.assert_allclose(run["box.x"][2], 0.5 * a * run.t ** 2, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(run["box.vx"][2], a * run.t, rtol=1e-9, atol=1e-13)


def test_a_torque_above_the_four_corner_limit_turns_the_closed_form_angle(run):
    alpha = (0.35 - T_LIMIT) / I_Z                                    # 1.90 rad/s²
    np.testing.assert_allclose(_angle(run, 4), 0.5 * alpha * run.t ** 2, rtol=1e-9,
                               atol=1e-12)
    assert np.max(np.hypot(run["box.x"][4], run["box.y"][4])) < 1e-12
