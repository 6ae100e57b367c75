"""`simulate(PointContacts, ..., method="moreau_jean")` (issues 20 and 21): free rigid bodies
with frictional point contacts stepped by their impulses — the ODE route's λ-solver at the
velocity level (stickslip.spatial._point_contacts_step). A 1 kg cube of side 0.1 m on the
ground, μ = 0.5, loaded at the centre of its bottom face (the box-under-force protocol of
benchmarks/spatial_box_force.py)."""

import math

import numpy as np
import pytest

import stickslip as ss
from stickslip.constraints._iterative import CONVERGED
from stickslip.integrate._moreau_jean import integrate_moreau_jean

MU, MASS, G, SIDE = 0.5, 1.0, 9.81, 0.1
I_Z = MASS * SIDE ** 2 / 6                                   # the cube's inertia [kg m²]
T_LIMIT = MU * MASS * G * SIDE / 2 * math.sqrt(2.0)         # 0.3468 N·m: four corners
CORNERS = range(1, 9)
# Exact stick up to the λ-solver's tolerance: it stops once the natural residual
# max_k ‖p_k − P(p_k − ρ_k ŵ_k)‖ / (max|p| + ρ_k max|b|) is below CONVERGED = 1e-13, so a
# sticking corner keeps |w_t| ≤ CONVERGED (max|p|/ρ_k + max|b|): max|b| is the open top
# corners' gap term ψ/(hθ) = 0.1/0.005 = 20 m/s at h = 1e-2, θ = 1/2, and max|p|/ρ_k =
# 0.025 N·s · trace(W_kk) = 0.025 · 12 = 0.3 m/s — 2.1e-12 m/s. The error has one sign, so a
# held box creeps by up to t·2.1e-12 m (measured over 2 s: 2.5e-12 m at F_x = 3 N, 1.2e-12 m
# at 4 N: not below the 1e-12 m of a perfect solve); its normal row also carries μ‖w_t‖
# (the modified velocity ŵ), hence twice the bound for z.
CREEP = CONVERGED * (SIDE / (1e-2 * 0.5) + 1.0)             # [m/s]


def _cube(z=SIDE / 2, **loads):
    model = ss.spatial.Model(gravity=(0.0, 0.0, -G))
    model.add_body("box", mass=MASS, inertia=None, shape=ss.spatial.Box(SIDE, SIDE, SIDE),
                   position=(0.0, 0.0, z))
    model.add_ground(mu_s=MU, mu_k=MU)
    loads.setdefault("force_point", (0.0, 0.0, -SIDE / 2))
    return ss.spatial.PointContacts.from_model(model, **loads)


def _mj(system, t_end, dt=1e-2, dt_out=0.05, **options):
    return ss.simulate(system, t_end, method="moreau_jean", dt=dt, dt_out=dt_out, **options)


@pytest.mark.parametrize("force", [1.0, 3.0, 4.0, 4.8])
def test_box_below_the_static_limit_does_not_move(force):
    # F_x < μ m g = 4.905 N: every corner sticks, w_t = 0 at the end of every step
    res = _mj(_cube(force=(force, 0.0, 0.0)), 2.0, dt_out=0.01)
    moved = np.hypot(res["box.x"] - res["box.x"][0], res["box.y"] - res["box.y"][0])
    assert np.max(moved) < CREEP * 2.0                               # < 4.2e-12 m
    assert np.max(np.abs(res["box.vx"])) < CREEP
    assert np.max(np.abs(res["box.z"] - SIDE / 2)) < 2 * CREEP * 2.0
    assert np.max(np.abs(res["box.qz"])) < 1e-10
    # the mean contact forces of each step: weight carried, friction balances the push
    fn = np.sum([res[f"box.fn.{k}"] for k in CORNERS], axis=0)
    fx = np.sum([res[f"box.fx.{k}"] for k in CORNERS], axis=0)
    np.testing.assert_allclose(fn, MASS * G, rtol=1e-9)
    np.testing.assert_allclose(fx, -force, rtol=1e-9)
    for k in CORNERS:
        assert np.all(res[f"box.fn.{k}"] >= 0.0)
        assert np.all(res[f"box.ft.{k}"] <= MU * res[f"box.fn.{k}"] * (1 + 1e-12) + 1e-15)
    assert np.all(res["painleve.status"] == 0) and res["painleve.none"][-1] == 0


def test_box_above_the_static_limit_slides_at_the_closed_form_acceleration():
    # F_x = 6 N: ẍ = (F − μ m g)/m = 1.095 m/s² from the first step (kinetic = static μ);
    # velocities exact for any step, positions by the trapezoidal θ = 1/2 exact as well
    acc = (6.0 - MU * MASS * G) / MASS
    res = _mj(_cube(force=(6.0, 0.0, 0.0)), 2.0)
    np.testing.assert_allclose(res["box.vx"], acc * res.t, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res["box.x"], acc * res.t ** 2 / 2, rtol=1e-9, atol=1e-12)
    ft = np.sum([res[f"box.fx.{k}"] for k in CORNERS], axis=0)
    np.testing.assert_allclose(ft[1:], -MU * MASS * G, rtol=1e-9)
    assert np.max(np.abs(res["box.z"] - SIDE / 2)) < 1e-12
    assert np.max(np.abs(res["box.y"])) < 1e-12


@pytest.mark.parametrize("torque, turns", [(0.33, False), (0.36, True)])
def test_vertical_torque_turns_the_box_only_above_the_four_corner_limit(torque, turns):
    res = _mj(_cube(torque=(0.0, 0.0, torque)), 1.0)
    if turns:
        # each corner slides on its circle: ω̇ = (T − μ m g r)/I_z exactly
        np.testing.assert_allclose(res["box.wz"], (torque - T_LIMIT) / I_Z * res.t,
                                   rtol=1e-9, atol=1e-12)
        assert res["box.qz"][-1] > 0.5
    else:
        assert np.max(np.abs(res["box.wz"])) < 1e-10
        assert np.max(np.abs(res["box.qz"])) < 1e-10
    assert np.max(np.hypot(res["box.x"], res["box.y"])) < 1e-11


def test_dropped_box_lands_without_penetration_and_rests():
    # θ = 1 (q⁺ = q + h ν⁺): wₙ ≥ 0 is exactly the end-of-step gap ≥ 0; e = 0: no bounce
    res = _mj(_cube(z=0.15), 1.0, dt_out=0.01, theta=1.0)
    gaps = np.array([res[f"box.gap.{k}"] for k in CORNERS])
    assert np.min(gaps) >= -1e-12 and np.min(res["box.z"]) >= SIDE / 2 - 1e-12
    landed = res.t > math.sqrt(2 * 0.1 / G) + 0.01        # free fall of 0.1 m takes 0.143 s
    assert np.max(np.abs(res["box.vz"][landed])) < CREEP
    assert np.max(np.abs(res["box.z"][landed] - SIDE / 2)) < 1e-12
    assert np.max(res["box.z"]) <= 0.15                          # never rises again


def test_dropped_box_at_theta_one_half_sinks_at_most_the_trapezoidal_carry():
    # θ = 1/2 carries the pre-impact velocity over half the step: an impact may end inside
    # by up to h(1 − θ)|vₙ| (module docstring); then it rests there (no push-out, no sinking)
    h, v_impact = 1e-2, math.sqrt(2 * G * 0.1)
    res = _mj(_cube(z=0.15), 1.0, dt_out=0.01)
    depth = SIDE / 2 - np.min(res["box.z"])
    assert 0.0 <= depth <= h * 0.5 * v_impact
    landed = res.t > 0.2
    assert np.ptp(res["box.z"][landed]) < 2 * CREEP * 1.0         # the solver's creep
    assert np.max(np.abs(res["box.vz"][landed])) < 2 * CREEP


def test_a_tumbling_box_lands_and_comes_to_rest():
    model = ss.spatial.Model(gravity=(0.0, 0.0, -G))
    c, s = math.cos(0.15), math.sin(0.15)
    model.add_body("box", mass=MASS, inertia=None, shape=ss.spatial.Box(SIDE, SIDE, SIDE),
                   position=(0.0, 0.0, 0.2), orientation=(c, 0.6 * s, 0.8 * s, 0.0),
                   velocity=(0.3, 0.0, 0.0), angular_velocity=(1.0, -2.0, 0.5))
    model.add_ground(mu_s=MU, mu_k=MU)
    res = _mj(ss.spatial.PointContacts.from_model(model), 2.0, dt_out=0.01, theta=1.0)
    gaps = np.array([res[f"box.gap.{k}"] for k in CORNERS])
    # landing on a corner while turning: the gap is linearised in the rotation, so a corner
    # may end a step inside by O(h²ω²|a|) (measured 5.8e-6 m at h = 1e-2)
    assert np.min(gaps) > -2e-5
    for name in ("box.vx", "box.vy", "box.vz", "box.wx", "box.wy", "box.wz"):
        assert abs(res[name][-1]) < 1e-10
    assert np.all(res["painleve.status"] == 0)


def test_split_run_equals_one_run():
    box = _cube(force=(2.0, 1.0, 0.0), torque=(0.0, 0.0, 0.4))     # slides and turns
    whole = _mj(box, 1.0, dt=1e-2, dt_out=0.05)
    first = _mj(box, 0.45, dt=1e-2, dt_out=0.05)
    second = _mj(box, 1.0, dt=1e-2, dt_out=0.05, initial=first)
    for name in ("box.x", "box.y", "box.qz", "box.vx", "box.wz", "box.fn.1", "box.fx.3"):
        np.testing.assert_allclose(second[name][1:], whole[name][10:], rtol=1e-12,
                                   atol=1e-14)


def test_t_end_exact_with_a_shortened_last_step():
    acc = (6.0 - MU * MASS * G) / MASS
    t_end = 0.3037
    res = _mj(_cube(force=(6.0, 0.0, 0.0)), t_end, dt=1e-2, dt_out=0.1)
    assert res.t[-1] == t_end and list(res.t[:-1]) == pytest.approx([0.0, 0.1, 0.2, 0.3])
    assert res["box.vx"][-1] == pytest.approx(acc * t_end, rel=1e-12)
    assert res["box.x"][-1] == pytest.approx(acc * t_end ** 2 / 2, rel=1e-12)
    assert res.meta["steps"] == 31


@pytest.mark.slow
def test_batch_over_the_force_equals_a_loop_and_reuses_the_program():
    base = _cube()
    loads = [(1.0, 0.0, 0.0), (6.0, 0.0, 0.0), (2.0, 1.0, 0.0)]
    systems = [base.replace(force=np.array([f]), torque=np.array([[0.0, 0.0, 0.4 * (k == 2)]]))
               for k, f in enumerate(loads)]
    batch = ss.simulate_batch(systems, 0.5, method="moreau_jean", dt=1e-2, dt_out=0.05)
    _mj(systems[0], 0.5)
    traced = ss.integrate.traces(integrate_moreau_jean)
    # a box that slides and turns on four corners has many impulses p (the normal ones are
    # statically indeterminate and the friction torque depends on their split): the batched
    # linear algebra rounds differently and may pick a neighbouring one (measured 8e-7
    # relative in x at 0.5 s, as under the ODE route); holding and sliding straight: 1e-9
    for k, (system, rtol) in enumerate(zip(systems, (1e-9, 1e-9, 1e-5))):
        alone = _mj(system, 0.5)
        for name in ("box.x", "box.y", "box.qz", "box.vx", "box.wz"):
            np.testing.assert_allclose(batch[name][k], alone[name], rtol=rtol, atol=1e-12)
    assert ss.integrate.traces(integrate_moreau_jean) == traced      # new loads: no retrace
    assert np.max(np.abs(batch["box.x"][0])) < 1e-11 < batch["box.x"][1][-1]


def test_ode_route_approaches_the_time_stepping_trajectory_as_delta_falls():
    # a box that slides and turns: the relaxed ODE route (δ → 0) against time stepping at a
    # fine step (its own error: 2e-4 m in x between h = 1e-3 and 1e-4)
    loads = {"force": (2.0, 1.0, 0.0), "torque": (0.0, 0.0, 0.4)}
    reference = _mj(_cube(**loads), 0.5, dt=1e-4, dt_out=0.05)
    gaps = []
    for delta, dt in ((1e-2, 1e-3), (3e-3, 5e-4), (1e-3, 2.5e-4)):
        ode = ss.simulate(_cube(delta=delta, **loads), 0.5, dt=dt, dt_out=0.05)
        gaps.append(max(np.max(np.abs(ode[n] - reference[n])) for n in ("box.x", "box.y")))
    # measured 2.5e-3, 8.7e-4, 1.9e-4 m: about linear in δ
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 5e-4


def test_channels_and_units_are_the_ode_routes():
    box = _cube(force=(1.0, 0.0, 0.0))
    mj = _mj(box, 0.1)
    ode = box.simulate(0.1, dt=1e-3, dt_out=0.05)
    assert sorted(mj.names) == sorted(ode.names)
    assert all(mj.units[n] == ode.units[n] for n in ode.names)
    # the method on the class runs the route too
    assert box.simulate(0.1, dt=1e-2, method="moreau_jean")["box.x"][-1] == mj["box.x"][-1]


def test_ode_route_turns_a_tilted_body_about_the_world_axis():
    # regression: q̇ = ½ (0, ω) ⊗ q for the world-frame ω (was q ⊗ (0, ω): a body tilted 90°
    # about x and spun about world z turned about the wrong axis, 0.84 off in R at 1 s)
    from stickslip.spatial._dynamics import quat_to_matrix

    model = ss.spatial.Model(gravity=(0.0, 0.0, 0.0))
    c = math.cos(math.pi / 4)
    model.add_body("box", mass=MASS, inertia=None, shape=ss.spatial.Box(SIDE, SIDE, SIDE),
                   position=(0.0, 0.0, 1.0), orientation=(c, c, 0.0, 0.0),
                   angular_velocity=(0.0, 0.0, 1.0))
    model.add_ground(mu_s=MU, mu_k=MU)
    pc = ss.spatial.PointContacts.from_model(model)
    spin = np.array([[math.cos(1.0), -math.sin(1.0), 0.0], [math.sin(1.0), math.cos(1.0), 0.0],
                     [0.0, 0.0, 1.0]])
    exact = spin @ quat_to_matrix(np.array([c, c, 0.0, 0.0]))
    for method in ("rk4", "moreau_jean"):
        res = ss.simulate(pc, 1.0, method=method, dt=1e-3, dt_out=0.5)
        q = np.array([res[f"box.{k}"][-1] for k in ("qw", "qx", "qy", "qz")])
        np.testing.assert_allclose(quat_to_matrix(q), exact, atol=1e-12)
