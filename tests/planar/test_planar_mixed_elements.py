"""Planar models that mix joints, joint friction, drivers, impact stops, contact-law stops and
frictional contacts (issue 23, item 3): ``method="moreau_jean"`` solves every row kind in one
impulse problem per step (``planar._mj_step``); the ODE routes run contacts with contact-law
stops and refuse joint friction and impact stops by name
(tests/bad_input/test_planar_mixed_bad_input.py).

Closed forms: (a) a pendulum with pin friction whose bob rests on a frictional floor,
twisted below lift-off, is held exactly with both laws, its moment and force balance met to
round-off (the split between pin and floor is statically indeterminate); a cart resting on a frictional floor, carrying a pendulum with pin friction,
pushed and twisted below both static levels, is held exactly, with the floor's normal force
(m_c + m_p) g, its friction −F, the pin's normal force a·m_p g (the pin carries the pendulum's
weight) and its friction torque τ; (b) a particle sliding on a frictional floor between two
impact stops decelerates at exactly μg between the walls (θ = 1/2 is exact for constant
forces) and leaves each wall with exactly e times its speed (Newton's law at the velocity
level); (c) the two, plus a driven crank, in one model give each part's result alone.
"""

import math

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

G = 9.81


L, ALPHA, RADIUS = 0.4, 0.6, 0.02          # link length [m], angle [rad], pin radius [m]


def pendulum_on_floor(torque):
    """A uniform link (1 kg, length L) pinned at its top to the ground with pin friction
    (μ = 0.3, μ_s = 0.4), hanging at ALPHA from the vertical with its lower end (the bob)
    resting on a frictional floor (μ = 0.5, μ_s = 0.6) at y = 0, twisted by `torque`."""
    m = ss.planar.Model(gravity=(0.0, -G), name="bob")
    top = L * math.cos(ALPHA)
    link = m.add_body("link", mass=1.0, inertia=L ** 2 / 12, x=L / 2 * math.sin(ALPHA),
                      y=top - L / 2 * math.cos(ALPHA), phi=ALPHA)
    law = ss.laws.CoulombODE(mu=0.3, mu_s=0.4, K=1e4, beta=1e-3)
    m.add(ss.planar.RevoluteJoint(m.ground, link, (0.0, top), (0.0, L / 2), friction=law,
                                  pin_radius=RADIUS, name="pin"))
    m.add(ss.planar.PointLineContact(m.ground, link, point_j=(0.0, -L / 2), mu=0.5, mu_s=0.6,
                                     name="floor"))
    m.add(ss.planar.BodyTorque(link, lambda t, q, qd: torque + 0.0 * t, name="twist"))
    return m


@pytest.mark.parametrize("torque", [0.5, -0.3])
def test_a_pendulum_whose_bob_rests_on_a_frictional_floor_is_held_exactly(torque):
    # gravity turns the bob into the floor; the twist (either way, below lifting it off:
    # m g L/2 sin α = 1.11 N·m) is held. The split of the load between the pin's friction and
    # the floor is statically indeterminate; whichever the step returns must satisfy both
    # laws, the link's moment balance about the pin and its force balance (pin normal a|R|)
    res = pendulum_on_floor(torque).simulate(0.2, dt=1e-3, method="moreau_jean",
                                             dt_out=2e-2)
    for name in ("link.x", "link.y", "link.phi"):
        assert np.max(np.abs(res[name] - res[name][0])) <= 1e-12, name
    fn, ft, friction = res["floor.fn"], res["floor.ft"], res["pin.friction"]
    assert np.all(fn > 0.0) and np.all(np.abs(ft) <= 0.6 * fn * (1 + 1e-12))
    assert np.all(np.abs(friction) <= 0.4 * res["pin.normal"] * (1 + 1e-12))
    # R = −(floor force) − weight on the link: a|R| = a·|(−ft, m g − fn)|
    np.testing.assert_allclose(res["pin.normal"], RADIUS * np.hypot(ft, G - fn), rtol=1e-12)
    s, c = math.sin(ALPHA), math.cos(ALPHA)
    moment = torque - G * L / 2 * s + L * (s * fn + c * ft)   # all but the pin's friction
    np.testing.assert_allclose(np.abs(moment), np.abs(friction), rtol=0, atol=1e-12)
    assert np.all(res["painleve.status"] == 0.0)


def test_a_twist_above_the_lift_off_moment_lifts_the_bob_and_slides_the_pin():
    res = pendulum_on_floor(1.5).simulate(0.05, dt=1e-3, method="moreau_jean", dt_out=1e-2)
    assert res["link.phi"][-1] > ALPHA + 1e-3
    np.testing.assert_allclose(res["floor.fn"], 0.0, atol=0)
    np.testing.assert_allclose(np.abs(res["pin.friction"]), 0.3 * res["pin.normal"],
                               rtol=1e-9)


def cart_with_pendulum(force, torque, *, mu=0.3, mu_s=0.5, pin_mu=0.3, pin_mu_s=0.4,
                       radius=0.02):
    """A cart (2 kg, kept level) resting at its centre on a frictional floor, pushed by
    `force` [N]; on a mast at its (0, 0.2) a pendulum (1 kg, its pin 0.1 m above its centre)
    hangs with friction on the pin (radius `radius`) and is twisted by `torque` [N·m]."""
    m = ss.planar.Model(gravity=(0.0, -G), name="cart_pendulum")
    cart = m.add_body("cart", mass=2.0, inertia=0.02)
    link = m.add_body("link", mass=1.0, inertia=2e-3, y=0.1)
    m.add(ss.planar.AbsoluteAngle(cart, name="level"))
    m.add(ss.planar.PointLineContact(m.ground, cart, mu=mu, mu_s=mu_s, name="floor"))
    law = ss.laws.CoulombODE(mu=pin_mu, mu_s=pin_mu_s, K=1e4, beta=1e-3)
    m.add(ss.planar.RevoluteJoint(cart, link, (0.0, 0.2), (0.0, 0.1), friction=law,
                                  pin_radius=radius, name="pin"))
    m.add(ss.planar.PointForce(cart, lambda t, q, qd: jnp.stack([force + 0.0 * t, 0.0 * t]),
                               name="push"))
    m.add(ss.planar.BodyTorque(link, lambda t, q, qd: torque + 0.0 * t, name="twist"))
    return m


def test_a_cart_and_pendulum_below_both_static_levels_are_held_exactly():
    F = 0.5 * 0.5 * 3.0 * G                       # half the floor's static level
    tau = 0.5 * 0.4 * 0.02 * 1.0 * G              # half the pin's static level
    m = cart_with_pendulum(F, tau)
    res = m.simulate(0.5, dt=1e-3, method="moreau_jean", dt_out=1e-2)
    for name in ("cart.x", "cart.y", "cart.phi", "link.x", "link.phi"):
        assert np.max(np.abs(res[name] - res[name][0])) <= 1e-12, name
    np.testing.assert_allclose(res["link.y"], 0.1, rtol=0, atol=1e-12)
    # the floor: N = (m_c + m_p) g, f = −F, |f| <= μ_s N, N >= 0
    np.testing.assert_allclose(res["floor.fn"], 3.0 * G, rtol=1e-12)
    np.testing.assert_allclose(res["floor.ft"], -F, rtol=1e-12)
    assert np.all(res["floor.fn"] >= 0.0)
    assert np.all(np.abs(res["floor.ft"]) <= 0.5 * res["floor.fn"] * (1 + 1e-12))
    # the pin: its normal force a·|R| = a·m_p g, its friction torque τ (sign: the slide's)
    np.testing.assert_allclose(res["pin.normal"], 0.02 * G, rtol=1e-12)
    np.testing.assert_allclose(np.abs(res["pin.friction"]), tau, rtol=1e-12)
    assert np.all(np.abs(res["pin.friction"]) <= 0.4 * res["pin.normal"] * (1 + 1e-12))
    for name in ("painleve.none", "painleve.several", "painleve.status"):
        assert np.all(res[name] == 0.0)


def test_above_the_pin_level_the_pendulum_turns_while_the_cart_stays():
    # the twist at twice the pin's static level: the pin slides at its kinetic level
    # μ a m_p g while the floor still holds the cart
    F = 0.5 * 0.5 * 3.0 * G
    tau = 2.0 * 0.4 * 0.02 * G
    res = cart_with_pendulum(F, tau).simulate(0.05, dt=1e-4, method="moreau_jean",
                                              dt_out=1e-3)
    assert np.max(np.abs(res["cart.x"])) <= 1e-12
    assert res["link.phi"][-1] > 1e-4
    sliding = np.abs(res["link.phid"]) > 1e-9
    assert sliding[1:].all()
    # the kinetic level of the pin at its reaction (which now has a centripetal part)
    np.testing.assert_allclose(np.abs(res["pin.friction"][1:]),
                               0.3 * res["pin.normal"][1:], rtol=1e-9)


def particle_between_stops(v0=1.5, mu=0.2, e=0.8, half_gap=0.05):
    """A particle (contact point at its centre) sliding at `v0` on a frictional floor
    between two impact stops at x = ±`half_gap` with restitution `e`."""
    m = ss.planar.Model(gravity=(0.0, -G), name="particle")
    block = m.add_body("block", mass=1.0, inertia=0.01, xd=v0)
    m.add(ss.planar.PointLineContact(m.ground, block, mu=mu, name="floor"))
    m.add(ss.planar.PointLineStop(block, line_point=(half_gap, 0.0), normal=(-1.0, 0.0),
                                  restitution=e, name="right"))
    m.add(ss.planar.PointLineStop(block, line_point=(-half_gap, 0.0), normal=(1.0, 0.0),
                                  restitution=e, name="left"))
    return m


def test_a_particle_between_two_stops_bounces_with_e_and_decelerates_at_mu_g():
    h, mu, e = 1e-4, 0.2, 0.8
    res = particle_between_stops(mu=mu, e=e).simulate(0.6, dt=h, method="moreau_jean")
    v = res["block.xd"]
    bounce = np.flatnonzero(v[1:] * v[:-1] < 0.0)
    # 1.5 m/s, walls 0.1 m apart: three impacts (right, left, right), then rest
    assert bounce.size == 3
    np.testing.assert_allclose(v[bounce + 1], -e * v[bounce], rtol=1e-12)
    assert np.all(res["right.force"][bounce[[0, 2]] + 1] > 0.0)
    assert res["left.force"][bounce[1] + 1] > 0.0
    # every other moving step: Δv = −sign(v) μ g h, exactly (the floor slides kinetically)
    steps = np.setdiff1d(np.flatnonzero(np.abs(v[1:]) > 0.0), bounce)
    np.testing.assert_allclose(np.diff(v)[steps], -np.sign(v[steps]) * mu * G * h,
                               rtol=0, atol=1e-12)
    assert v[-1] == 0.0 and np.all(np.abs(res["block.x"]) <= 0.05 + 1e-12 + 2 * h * 1.5)
    np.testing.assert_allclose(res["floor.fn"][1:], G, rtol=1e-12)   # N = m g (no bounce)


def mixed_model():
    """The particle of (b), a pendulum with pin friction released at 0.5 rad, and a crank
    driven at 2 rad/s: three separate mechanisms in one model."""
    m = particle_between_stops()
    pendulum = m.add_body("link", mass=1.0, inertia=2e-3, x=0.1 * math.sin(0.5) + 1.0,
                          y=-0.1 * math.cos(0.5), phi=0.5)
    law = ss.laws.CoulombODE(mu=0.3, K=1e4, beta=1e-3)
    m.add(ss.planar.RevoluteJoint(m.ground, pendulum, (1.0, 0.0), (0.0, 0.1), friction=law,
                                  pin_radius=0.02, name="pin"))
    crank = m.add_body("crank", mass=0.5, inertia=1e-3, x=2.05)
    m.add(ss.planar.RevoluteJoint(m.ground, crank, (2.0, 0.0), (-0.05, 0.0), name="bearing"))
    m.add(ss.planar.RotationalDriver(m.ground, crank, angle=lambda t: 2.0 * t, name="drive"))
    return m


def test_each_element_in_a_mixed_model_gives_its_result_alone():
    run = {"t_end": 0.3, "dt": 1e-4, "method": "moreau_jean", "dt_out": 1e-3}
    mixed = mixed_model().simulate(**run)
    particle = particle_between_stops().simulate(**run)
    mechanism = mixed_model()
    # the same pendulum and crank without the particle: the plain PlanarSystem route
    alone = ss.planar.Model(gravity=(0.0, -G), name="alone")
    for body in mechanism.bodies[1:]:
        alone.add_body(body.name, mass=body.mass, inertia=body.inertia, x=body.x, y=body.y,
                       phi=body.phi)
    law = ss.laws.CoulombODE(mu=0.3, K=1e4, beta=1e-3)
    link, crank = alone.bodies
    alone.add(ss.planar.RevoluteJoint(alone.ground, link, (1.0, 0.0), (0.0, 0.1),
                                      friction=law, pin_radius=0.02, name="pin"))
    alone.add(ss.planar.RevoluteJoint(alone.ground, crank, (2.0, 0.0), (-0.05, 0.0),
                                      name="bearing"))
    alone.add(ss.planar.RotationalDriver(alone.ground, crank, angle=lambda t: 2.0 * t,
                                         name="drive"))
    plain = alone.simulate(**run)
    assert mixed.t.size == particle.t.size == plain.t.size
    # every element acts: the particle bounces, the pin slides, the driver turns the crank
    assert np.any(mixed["block.xd"] < 0) and np.any(np.abs(mixed["link.phid"]) > 0.1)
    assert np.all(np.abs(mixed["drive.effort"]) > 0)
    for name in ("block.x", "block.y", "block.xd", "floor.fn", "floor.ft", "right.force",
                 "left.force", "right.gap"):
        np.testing.assert_allclose(mixed[name], particle[name], rtol=0, atol=1e-12,
                                   err_msg=name)
    for name in ("link.x", "link.y", "link.phi", "link.phid", "crank.phi", "crank.phid",
                 "pin.friction", "pin.normal"):
        np.testing.assert_allclose(mixed[name], plain[name], rtol=0, atol=1e-10,
                                   err_msg=name)


def test_a_contact_law_stop_with_contacts_runs_on_the_ode_route():
    # a particle on a frictional floor pushed into a compliant wall (Kelvin–Voigt) by a
    # force above the floor's kinetic level: it comes to rest against the wall, where the
    # wall's force and the floor's static friction hold the push; with the wall far away
    # the run equals the one without it
    def model(wall):
        m = ss.planar.Model(gravity=(0.0, -G), name="wall")
        block = m.add_body("block", mass=1.0, inertia=0.01)
        m.add(ss.planar.PointLineContact(m.ground, block, mu=0.2, name="floor"))
        m.add(ss.planar.PointForce(block, lambda t, q, qd: jnp.stack([5.0 + 0.0 * t,
                                                                       0.0 * t]),
                                   name="push"))
        if wall is not None:
            m.add(ss.planar.PointLineStop(block, line_point=(wall, 0.0), normal=(-1.0, 0.0),
                                          law=ss.laws.KelvinVoigt(k=1e4, c=200.0),
                                          name="wall"))
        return m

    run = {"t_end": 0.4, "dt": 1e-4, "dt_out": 1e-2}
    far = model(10.0).simulate(**run)
    free = model(None).simulate(**run)
    np.testing.assert_allclose(far["block.x"], free["block.x"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(far["wall.force"], 0.0, atol=0)
    near = model(0.05).simulate(**run)
    # the penetration stays below the undamped spring's v/ω plus the static push's
    # (hit at v² = 2 (5 − μ m g) 0.05 / m, ω = √(k/m) = 100/s)
    speed = math.sqrt(2.0 * (5.0 - 0.2 * G) * 0.05)
    assert np.max(near["block.x"]) < 0.05 + speed / 100.0 + 5.0 / 1e4
    assert np.max(near["wall.force"]) > 5.0
    # at rest against the wall: the wall's force and the floor's friction hold the push
    # (5 N), the friction within its cone
    assert abs(near["block.xd"][-1]) < 1e-3
    np.testing.assert_allclose(near["wall.force"][-1] - near["floor.ft"][-1], 5.0,
                               rtol=1e-3)
    assert abs(near["floor.ft"][-1]) <= 0.2 * near["floor.fn"][-1] * (1 + 1e-9)


@pytest.mark.parametrize("method", ["rk4", "moreau_jean"])
def test_contact_law_stops_and_impact_stops_never_pass_silently(method):
    # each route either runs an element or names it (never passes through it): the impact
    # stop on the ODE route, the contact-law stop under moreau_jean
    m = particle_between_stops()
    block = m.bodies[0]
    m.add(ss.planar.PointLineStop(block, line_point=(0.2, 0.0), normal=(-1.0, 0.0),
                                  law=ss.laws.KelvinVoigt(k=1e4, c=10.0), name="soft"))
    stop = "'soft'" if method == "moreau_jean" else r"\['right', 'left'\]"
    error = ss.ParameterError if method == "moreau_jean" else ss.ModelError
    with pytest.raises(error, match=stop):
        m.simulate(0.01, dt=1e-3, method=method)
