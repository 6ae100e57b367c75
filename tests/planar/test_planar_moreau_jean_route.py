"""``method="moreau_jean"`` on a plain planar mechanism with joint friction and rigid impact
stops (issue 21, item 1; the step is ``stickslip.planar._mj_step``, its impulse problem and
reaction ↔ bound fixed point ``stickslip.planar._mj_friction``).

Closed forms used (each test names its own):

* a body held by Coulomb friction of level F under a load L ≤ F stays exactly where it is,
  and the friction equals the load (statics);
* a pendulum released from rest at φ0 with pin friction (radius a, coefficient μ): with the
  centre of mass at l from the pin, I_p = I_c + m l², e_t = (cos φ, sin φ) the direction of
  increasing φ, the pin force on the link R = m l α e_t + m g (0, 1) (Newton for the centre
  of mass at zero angular velocity) and the moment balance about the pin
  I_p α = −m g l sin φ0 + μ a |R| (friction opposing the motion, α < 0 for φ0 > 0) give the
  quadratic (I_p α + m g l s)² = μ² a² m² (l² α² + 2 l g s α + g²), s = sin φ0, whose root
  with α < 0 and I_p α + m g l s ≥ 0 is the initial angular acceleration. The first step of
  the route at rest is exactly that acceleration problem times h (velocities 0, the rows
  at q_0), so its friction and normal force equal the closed form to round-off;
* a wheel pinned at its centre under a torque τ > μ a m g: α = (τ − μ a m g)/I, φ = α t²/2
  (the θ = 1/2 step is exact for constant accelerations); a block on a horizontal slide
  with μ_s > μ: held by the static level, and above it slides at (P − μ m g)/m;
* a slider between travel stops without friction: the speed after impact k is e^k·v0
  exactly (Newton's law at the velocity level, free flight between impacts).
"""

from __future__ import annotations

import itertools
import math

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

G = 9.81
MU, RADIUS = 0.3, 0.02                     # pin friction coefficient, pin radius [m]
MASS, ARM, INERTIA = 1.0, 0.1, 2e-3        # link mass [kg], CM–pin distance [m], I_c [kg m²]


def pendulum(phi0, law=None, *, radius=RADIUS, arm=ARM, inertia=INERTIA, gravity=G,
             torque=None):
    """A link pinned to the ground at its point (0, arm), hanging at φ0 from the vertical,
    with friction on the pin (`law`, default CoulombODE(mu=MU)); `torque` [N·m] on it."""
    m = ss.planar.Model(gravity=(0.0, -gravity), name="pendulum")
    link = m.add_body("link", mass=MASS, inertia=inertia, x=arm * math.sin(phi0),
                      y=-arm * math.cos(phi0), phi=phi0)
    law = ss.laws.CoulombODE(mu=MU, K=1e4, beta=1e-3) if law is None else law
    m.add(ss.planar.RevoluteJoint(m.ground, link, (0.0, 0.0), (0.0, arm), friction=law,
                                  pin_radius=radius, name="pin"))
    if torque is not None:
        m.add(ss.planar.BodyTorque(link, lambda t, q, qd: torque + 0.0 * t, name="motor"))
    return m


def release_closed_form(phi0):
    """(α, friction torque, normal a|R|) of the pendulum released at φ0 (module docstring)."""
    s, c = math.sin(phi0), MU * RADIUS
    I_p = INERTIA + MASS * ARM ** 2
    coefficients = [I_p ** 2 - c ** 2 * MASS ** 2 * ARM ** 2,
                    2.0 * (I_p * MASS * G * ARM * s - c ** 2 * MASS ** 2 * ARM * G * s),
                    MASS ** 2 * G ** 2 * (ARM ** 2 * s ** 2 - c ** 2)]
    alpha = [r for r in np.roots(coefficients).real
             if r < 0 and I_p * r + MASS * G * ARM * s >= 0]
    assert len(alpha) == 1
    alpha = alpha[0]
    reaction = MASS * math.sqrt(ARM ** 2 * alpha ** 2 + 2 * ARM * alpha * G * s + G ** 2)
    return alpha, I_p * alpha + MASS * G * ARM * s, RADIUS * reaction


def test_a_pendulum_below_breakaway_does_not_move():
    # statics: the gravity torque m g l sin φ0 = 0.8·μ a m g is below the level μ a m g
    phi0 = math.asin(0.8 * MU * RADIUS / ARM)
    res = pendulum(phi0).simulate(2.0, dt=1e-3, method="moreau_jean", dt_out=0.01)
    assert np.max(np.abs(res["link.phi"] - phi0)) <= 1e-12
    assert np.max(np.abs(res["link.phid"])) <= 1e-12
    held = MASS * G * ARM * math.sin(phi0)
    np.testing.assert_allclose(res["pin.friction"], held, rtol=1e-12)
    np.testing.assert_allclose(res["pin.normal"], RADIUS * MASS * G, rtol=1e-12)


def test_a_released_pendulum_starts_with_the_closed_form():
    alpha, friction, normal = release_closed_form(0.5)
    h = 1e-4
    res = pendulum(0.5).simulate(2 * h, dt=h, method="moreau_jean")
    # the first step's mean forces: the reaction ↔ bound fixed point at round-off
    assert res["pin.friction"][1] == pytest.approx(friction, rel=1e-9)
    assert res["pin.normal"][1] == pytest.approx(normal, rel=1e-9)
    # the velocity after it (the projection onto the pin moves it by O(h²) of α)
    assert res["link.phid"][1] / h == pytest.approx(alpha, rel=1e-6)


def test_a_wheel_above_breakaway_follows_the_closed_form():
    torque = 0.1                                   # > μ a m g = 0.0589 N·m
    wheel = pendulum(0.0, arm=0.0, torque=torque)
    res = wheel.simulate(1.0, dt=1e-2, method="moreau_jean", dt_out=0.05)
    alpha = (torque - MU * RADIUS * MASS * G) / INERTIA
    np.testing.assert_allclose(res["link.phi"], 0.5 * alpha * res.t ** 2, rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_allclose(res["pin.friction"], -MU * RADIUS * MASS * G, rtol=1e-12)


PUSH = 7.8          # [N] the point force; a larger push adds a horizontal gravity


def _pushed_block(push, mu=0.3, mu_s=0.5):
    """A 2 kg block on a horizontal slide pushed along it by `push` [N] in all: a PointForce
    of PUSH at its centre plus (push − PUSH)/m of horizontal gravity (a traced number, so
    every push runs the one compiled program: the force callable is one function object,
    compared by identity, with PUSH baked into it)."""
    m = ss.planar.Model(gravity=((push - PUSH) / 2.0, -G), name="pushed_block")
    block = m.add_body("block", mass=2.0, inertia=0.1)
    law = ss.laws.CoulombODE(mu=mu, mu_s=mu_s, K=1e5, beta=1e-2)
    m.add(ss.planar.TranslationalJoint(m.ground, block, axis_i=(1.0, 0.0), friction=law,
                                       name="slide"))
    m.add(ss.planar.PointForce(block, _point_push, name="push"))
    return m


def _point_push(t, q, qd):
    return jnp.stack([PUSH + 0.0 * t, 0.0 * t])


@pytest.mark.parametrize("push", [7.8, 10.5])
def test_a_block_is_held_by_the_static_level_and_slides_at_the_kinetic_one(push):
    # μ_s m g = 9.81 N holds 7.8 N exactly; 10.5 N breaks it loose at once and the
    # kinetic level μ m g = 5.886 N acts from the first step: x = (P − μ m g) t²/(2 m)
    res = _pushed_block(push).simulate(1.0, dt=1e-2, method="moreau_jean", dt_out=0.1)
    if push < 0.5 * 2.0 * G:
        assert np.max(np.abs(res["block.x"])) == 0.0
        np.testing.assert_allclose(res["slide.friction"], -push, rtol=1e-12)
    else:
        a = (push - 0.3 * 2.0 * G) / 2.0
        np.testing.assert_allclose(res["block.x"], 0.5 * a * res.t ** 2, rtol=1e-9,
                                   atol=1e-13)
        np.testing.assert_allclose(res["slide.friction"], -0.3 * 2.0 * G, rtol=1e-12)
    np.testing.assert_allclose(res["slide.normal"], 2.0 * G, rtol=1e-12)


@pytest.mark.slow      # compiles a model of its own
def test_a_pin_whose_static_level_holds_its_rod_keeps_it_still():
    # a horizontal rod (1 kg, 1 m) on a pin of radius 2 at its end: stuck, the reaction is
    # m g and μ_s a m g = 11.8 N m holds the 4.9 N m of gravity. The step's fixed point
    # started from the swinging rod's reaction (m g / 4): the static level looked too low,
    # its first round broke the pin loose, and the sliding solution (consistent too) swung
    # the rod 1.02 rad in 1 s; the ODE route holds it. It starts from the stuck reactions
    m = ss.planar.Model(gravity=(0.0, -9.81))
    rod = m.add_body("rod", mass=1.0, inertia=1.0 / 12, x=0.5, y=0.0, phi=0.0)
    law = ss.laws.CoulombODE.tuned(1.0 / 3, 1e4, mu=0.2, mu_s=0.6)
    m.add(ss.planar.RevoluteJoint(m.ground, rod, point_j=(-0.5, 0), friction=law,
                                  pin_radius=2.0, name="pin"))
    res = m.simulate(0.5, method="moreau_jean", dt=1e-3, dt_out=0.05)
    assert np.abs(res["rod.phi"]).max() < 1e-12
    np.testing.assert_allclose(np.abs(res["pin.friction"][1:]), 9.81 * 0.5, rtol=1e-9)


@pytest.mark.slow      # compiles a model of its own (13 s)
def test_a_block_on_a_slope_its_static_level_holds_stays_put():
    # 20°: μ = 0.3 < tan 20° = 0.364 < μ_s = 0.5. The stuck block's velocity is round-off
    # (1e-19), as large as its whole slide rate, so the step's rest test (relative to the
    # motion alone) called it sliding from step 2: the kinetic level acted and it slid
    # 2.63 m in 3 s (a fuzz campaign; `_mj_step`'s rest test now has the step's velocity
    # change as a scale too)
    m = ss.planar.Model(gravity=(0.0, -9.8))
    block = m.add_body("block", mass=1.0, inertia=0.1)
    law = ss.laws.CoulombODE(mu=0.3, mu_s=0.5, K=1e5, beta=1e-2)
    angle = math.radians(20.0)
    m.add(ss.planar.TranslationalJoint(m.ground, block, axis_i=(math.cos(angle),
                                                                -math.sin(angle)),
                                       friction=law, name="slide"))
    res = m.simulate(1.0, method="moreau_jean", dt=1e-2, dt_out=0.1)
    assert np.max(np.hypot(res["block.x"], res["block.y"])) < 1e-12
    np.testing.assert_allclose(res["slide.friction"][1:], -9.8 * math.sin(angle), rtol=1e-9)


@pytest.mark.slow
def test_the_ode_route_converges_to_the_route_as_K_grows():
    # the proxy's error falls as K^-1/2 (measured: |Δφ(0.3 s)| = 6.6e-5, 2.1e-5, 6.4e-6,
    # 1.9e-6 for K = 1e2 … 1e5; max over the samples 0.1, 0.2, 0.3 s: 4.3e-6 at K = 1e5);
    # the route's own error at h = 1e-5 is 2e-7 (h halved: 2.2e-7 change)
    T = 0.3
    reference = pendulum(0.5).simulate(T, dt=1e-5, method="moreau_jean", dt_out=0.1)
    I_p = INERTIA + MASS * ARM ** 2
    errors = []
    for K in (1e2, 1e3, 1e4, 1e5):
        law = ss.laws.CoulombODE(mu=MU, K=K, beta=2.0 * math.sqrt(I_p / K))
        res = pendulum(0.5, law).simulate(T, dt=1e-5, method="rk4", dt_out=0.1)
        errors.append(float(np.max(np.abs(res["link.phi"] - reference["link.phi"]))))
    assert all(b < 0.6 * a for a, b in itertools.pairwise(errors)), errors
    assert errors[-1] < 1e-5


def test_a_slider_bounces_off_its_stops_with_e():
    e, v0 = 0.7, 0.5
    model = ss.planar.examples.slider_end_stop(restitution=e, speed=v0, travel=0.1)
    res = model.simulate(3.0, dt=1e-3, method="moreau_jean")
    speeds = [res["slider.xd"][0]]
    for v in res["slider.xd"][1:]:
        if abs(v - speeds[-1]) > 1e-12 * abs(speeds[-1]):
            speeds.append(v)
    k = np.arange(len(speeds))
    assert len(speeds) >= 5
    np.testing.assert_allclose(np.abs(speeds), v0 * e ** k, rtol=1e-9)
    assert np.all(np.sign(speeds[1:]) == -np.sign(speeds[:-1]))


def _rail(restitution):
    """A 1 kg slider dropped from 1 m on a vertical rail onto a lower travel stop."""
    m = ss.planar.Model(gravity=(0.0, -G), name="rail_drop")
    ball = m.add_body("ball", mass=1.0, inertia=1e-2, y=1.0)
    rail = m.add(ss.planar.TranslationalJoint(m.ground, ball, axis_i=(0.0, 1.0),
                                              name="rail"))
    m.add(ss.planar.TranslationalStop(rail, lower=0.0, restitution=restitution,
                                      name="floor"))
    return m


def test_a_zeno_accumulation_of_impacts_ends_at_rest():
    # the bounces of e = 0.5 accumulate at t∞ = √(2h0/g)(1 + e)/(1 − e) = 1.35 s; the
    # route steps through it (no hang, no error) and the stop then holds the weight
    res = _rail(0.5).simulate(2.0, dt=1e-3, method="moreau_jean", dt_out=1e-2)
    after = res.t > 1.5
    assert np.max(np.abs(res["ball.yd"][after])) <= 1e-12
    np.testing.assert_allclose(res["floor.force"][after], G, rtol=1e-9)
    assert np.ptp(res["ball.y"][after]) == 0.0
    assert np.min(res["floor.gap"]) > -G * 1e-3 * 0.5            # at most one step's travel


def test_split_runs_equal_one_run():
    model = pendulum(0.5)
    whole = model.simulate(0.4, dt=1e-3, method="moreau_jean", dt_out=0.05)
    first = model.simulate(0.2, dt=1e-3, method="moreau_jean", dt_out=0.05)
    second = model.simulate(0.4, dt=1e-3, method="moreau_jean", dt_out=0.05,
                            initial=first)
    for name in ("link.phi", "link.phid", "link.x", "pin.friction", "pin.normal"):
        np.testing.assert_allclose(second[name][1:], whole[name][5:], rtol=0, atol=1e-12)
    assert second.t[-1] == 0.4


def test_the_run_ends_exactly_at_t_end():
    res = pendulum(0.5).simulate(0.0105, dt=1e-3, method="moreau_jean")
    assert res.t[-1] == 0.0105 and res.t[-2] == pytest.approx(0.01, abs=1e-15)


def test_ss_simulate_runs_the_systems_stops_and_the_same_channels_as_the_ode_route():
    model = ss.planar.examples.slider_end_stop(restitution=0.7)
    # every step sampled (as test_a_slider_bounces_off_its_stops_with_e: its program)
    direct = ss.simulate(model.system(), 0.5, dt=1e-3, method="moreau_jean")
    routed = model.simulate(0.5, dt=1e-3, method="moreau_jean")
    np.testing.assert_allclose(direct["slider.x"], routed["slider.x"], rtol=0, atol=1e-12)
    assert np.min(direct["slider.xd"]) < 0 < np.max(direct["slider.xd"])     # it bounced
    ode = pendulum(0.5).simulate(0.01, dt=1e-3, method="rk4")
    stepped = pendulum(0.5).simulate(0.01, dt=1e-3, method="moreau_jean")
    assert set(ode.names) == set(stepped.names)
    assert {"end_stop.gap[0]", "end_stop.gap[1]", "end_stop.force"} <= set(direct.names)


def test_a_driven_mechanism_follows_its_driver():
    omega, theta0 = 2.0, math.radians(60.0)
    law = ss.laws.CoulombODE(mu=0.2, K=1e4, beta=1e-3)
    model = ss.planar.examples.slider_crank(pin_friction=law, omega=omega)
    res = model.simulate(1.0, dt=1e-3, method="moreau_jean", dt_out=0.1)
    np.testing.assert_allclose(res["crank.phi"], theta0 + omega * res.t, rtol=0, atol=1e-9)
    assert np.all(np.isfinite(res["motor.effort"])) and np.any(res["motor.effort"] != 0)


@pytest.mark.slow
def test_simulate_batch_equals_a_loop():
    systems = [pendulum(0.5, ss.laws.CoulombODE(mu=mu, K=1e4, beta=1e-3)).system()
               for mu in (0.1, 0.4)]
    batch = ss.simulate_batch(systems, 0.1, dt=1e-3, method="moreau_jean", dt_out=0.05)
    for i, system in enumerate(systems):
        one = ss.simulate(system, 0.1, dt=1e-3, method="moreau_jean", dt_out=0.05)
        np.testing.assert_allclose(batch["link.phi"][i], one["link.phi"], rtol=0, atol=1e-13)
        np.testing.assert_allclose(batch["pin.friction"][i], one["pin.friction"], rtol=0,
                                   atol=1e-13)


@pytest.mark.slow
def test_the_slider_crank_with_pin_friction_agrees_with_the_ode_route():
    # the example's slider–crank released at 60° with pin friction μ = 0.2, a = 1 cm on
    # A, B, C; measured over 1 s (load 8): max|Δ crank.phi| = 7.4e-5, 9.2e-5, 1.1e-4 rad
    # against rk4 (dt = 1e-5) at K = 1e3, 1e4, 1e5, the route's own first-order error at
    # h = 1e-4 being 6.0e-5 rad (h = 2e-4 → 1e-4); the crank turns through 4.5 rad
    def model(K):
        law = ss.laws.CoulombODE(mu=0.2, K=K, beta=2.0 * math.sqrt(0.01 / K))
        return ss.planar.examples.slider_crank(pin_friction=law, pin_radius=0.01)

    stepped = model(1e4).simulate(0.5, dt=1e-4, method="moreau_jean", dt_out=0.1)
    ode = model(1e4).simulate(0.5, dt=1e-5, method="rk4", dt_out=0.1)
    assert np.max(np.abs(stepped["crank.phi"] - ode["crank.phi"])) < 1e-4
    np.testing.assert_allclose(stepped["A.normal"][1:], ode["A.normal"][1:], rtol=1e-2)


def test_point_line_and_revolute_stops_reverse_the_normal_velocity_with_e():
    # Newton's law at the velocity level: at the step of an impact G v⁺ = −e G v_k exactly.
    # A free ball in a box (PointLineStop walls, no joint: nothing projected): the ratio is e
    # to round-off. A pendulum against a RevoluteStop: the projection onto the pin after the
    # step moves φ̇ by O(h²) (measured 2e-8 of it at h = 1e-4)
    box = ss.planar.examples.ball_in_box(restitution=0.9)
    res = box.simulate(2.0, dt=1e-3, method="moreau_jean", dt_out=1e-3)
    yd, xd = res["ball.yd"], res["ball.xd"]
    floor = np.nonzero((yd[:-1] < 0) & (yd[1:] > 0))[0]          # not the apexes
    walls = np.nonzero(np.sign(xd[:-1]) * np.sign(xd[1:]) < 0)[0]  # no force along x
    assert len(floor) >= 2 and len(walls) >= 2
    np.testing.assert_allclose(yd[floor + 1] / yd[floor], -0.9, rtol=1e-12)
    np.testing.assert_allclose(xd[walls + 1] / xd[walls], -0.9, rtol=1e-12)
    model = pendulum(0.5, ss.laws.CoulombODE(mu=0.0, K=1e4, beta=1e-3))
    pin = next(c for c in model.constraints if c.name == "pin")
    model.add(ss.planar.RevoluteStop(pin, lower=-0.2, restitution=0.6, name="limit"))
    res = model.simulate(1.0, dt=1e-4, method="moreau_jean", dt_out=1e-4)
    rate = res["link.phid"]
    k = np.nonzero((rate[:-1] < 0) & (rate[1:] > 0))[0]
    assert len(k) >= 2
    np.testing.assert_allclose(rate[k + 1] / rate[k], -0.6, rtol=1e-6)
    assert np.min(res["limit.gap"]) > -1e-4              # one step's travel at most
