"""Forward, inverse and static analyses (SPEC §9; issue 3 "Must hold")."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import stickslip as ss
from stickslip.planar import examples

jax.config.update("jax_enable_x64", True)


def _double_pendulum_minimal(L, m1, m2, g, th1, th2, t_eval):
    """Reference: the same double pendulum in minimal coordinates (absolute angles θ1, θ2),
    Lagrange's equations from T − V by automatic differentiation, solved by DOP853."""
    I1, I2 = m1 * L ** 2 / 3, m2 * L ** 2 / 3

    def lagrangian(th, thd):
        v2 = (2 * L * thd[0] * jnp.array([-jnp.sin(th[0]), jnp.cos(th[0])])
              + L * thd[1] * jnp.array([-jnp.sin(th[1]), jnp.cos(th[1])]))
        T = 0.5 * (m1 * L ** 2 + I1) * thd[0] ** 2 + 0.5 * m2 * v2 @ v2 + 0.5 * I2 * thd[1] ** 2
        V = g * (m1 * L * jnp.sin(th[0]) + m2 * (2 * L * jnp.sin(th[0]) + L * jnp.sin(th[1])))
        return T - V

    @jax.jit
    def rhs(y):
        th, thd = y[:2], y[2:]
        H = jax.hessian(lagrangian, argnums=1)(th, thd)
        mixed = jax.jacfwd(jax.grad(lagrangian, argnums=1), argnums=0)(th, thd)
        dL = jax.grad(lagrangian, argnums=0)(th, thd)
        return jnp.concatenate([thd, jnp.linalg.solve(H, dL - mixed @ thd)])

    sol = solve_ivp(lambda t, y: np.asarray(rhs(jnp.asarray(y))), (0, t_eval[-1]),
                    [th1, th2, 0.0, 0.0], method="DOP853", t_eval=t_eval, rtol=1e-12,
                    atol=1e-12)
    return sol.y


def test_double_pendulum_dae_matches_minimal_coordinates_over_5s():
    L, m1, m2, g = 0.5, 1.0, 1.5, 9.81
    th1, th2 = math.radians(-30.0), math.radians(10.0)
    model = examples.double_pendulum(L=L, m1=m1, m2=m2, theta1=th1, theta2=th2)
    res = model.simulate(5.0, dt=5e-4, dt_out=0.05)
    ref = _double_pendulum_minimal(L, m1, m2, g, th1, th2, res.t)
    assert np.max(np.abs(res["link1.phi"] - ref[0])) < 1e-6
    assert np.max(np.abs(res["link2.phi"] - ref[1])) < 1e-6
    assert np.max(np.abs(res["link1.phid"] - ref[2])) < 1e-6
    assert res.meta["constraint_drift"] < 1e-12


@pytest.mark.parametrize("projection", [True, pytest.param(False, marks=pytest.mark.slow)])
def test_slider_crank_conserves_energy_with_small_residual(projection):
    model = examples.slider_crank()
    res = model.simulate(10.0, dt=1e-3, dt_out=0.01, projection=projection)
    energy = res["energy"]
    assert np.max(np.abs(energy - energy[0])) / abs(energy[0]) < 1e-6
    assert res.meta["constraint_drift"] <= 1e-8
    # reference crank angle at 10 s (issue 3: −30.495°, released at 60° from rest)
    assert abs(math.degrees(res["crank.phi"][-1]) - (-30.495)) < 0.01


@pytest.mark.slow
def test_slider_crank_adaptive_method_runs_through_core_simulate():
    model = examples.slider_crank()
    res = model.simulate(2.0, method="tsit5", dt_out=0.01, rtol=1e-10, atol=1e-12)
    assert res.meta["projection"] is False
    assert res.meta["constraint_drift"] < 1e-8
    assert res.meta["energy_drift"] / abs(res["energy"][0]) < 1e-6


def test_inverse_dynamics_torque_reproduces_driven_motion_in_forward_dynamics():
    omega, theta0 = 3.0, math.radians(60.0)
    driven = examples.slider_crank(omega=omega)
    times = np.linspace(0.0, 1.0, 4001)
    inv = driven.inverse_dynamics(times)
    effort = jnp.asarray(inv["motor.effort"])
    t_grid = jnp.asarray(times)
    # the same mechanism without the driver, loaded by the inverse-dynamics torque
    free = examples.slider_crank()
    for body in free.bodies:                      # start on the driven motion's velocities
        body.xd, body.yd, body.phid = (float(inv[f"{body.name}.{c}"][0])
                                       for c in ("xd", "yd", "phid"))
    crank = free.element("crank")
    free.add(ss.planar.BodyTorque(crank, lambda t, q, qd: jnp.interp(t, t_grid, effort),
                                  name="motor_torque"))
    fwd = free.simulate(1.0, dt=5e-4, dt_out=0.01)
    expected = theta0 + omega * fwd.t
    assert np.max(np.abs(fwd["crank.phi"] - expected)) < 1e-6
    assert np.max(np.abs(fwd["crank.phid"] - omega)) < 1e-5


@pytest.mark.slow
def test_forward_dynamics_of_driven_crank_reports_the_inverse_dynamics_effort():
    driven = examples.slider_crank(omega=3.0)
    times = np.linspace(0.0, 1.0, 4001)
    inv = driven.inverse_dynamics(times)
    run = driven.simulate(1.0, dt=5e-4, dt_out=0.01)
    np.testing.assert_allclose(run["motor.effort"], np.interp(run.t, times, inv["motor.effort"]),
                               atol=1e-6 * np.max(np.abs(inv["motor.effort"])) + 1e-9)


def test_inverse_dynamics_reactions_balance_a_static_pendulum():
    # a horizontal link held by a pin at one end and a driver: the pin carries the weight
    m = ss.planar.Model(gravity=(0.0, -9.81))
    link = m.add_body("link", mass=2.0, inertia=2.0 / 12, x=0.5)
    m.add(ss.planar.RevoluteJoint(m.ground, link, (0.0, 0.0), (-0.5, 0.0), name="pin"))
    m.add(ss.planar.RotationalDriver(m.ground, link, angle=0.0, name="hold"))
    res = m.inverse_dynamics([0.0, 0.5])
    # on body i (the ground) in its frame: the link pushes the pin down with its weight
    np.testing.assert_allclose(res["pin.Fy"], -2.0 * 9.81, rtol=1e-12)
    np.testing.assert_allclose(res["pin.Fx"], 0.0, atol=1e-12)
    np.testing.assert_allclose(res["hold.effort"], 2.0 * 9.81 * 0.5, rtol=1e-12)


def test_equilibrium_of_a_spring_loaded_pendulum():
    m = ss.planar.Model(gravity=(0.0, -9.81))
    link = m.add_body("link", mass=1.0, inertia=1.0 / 12, x=0.5, phi=0.0)
    m.add(ss.planar.RevoluteJoint(m.ground, link, (0.0, 0.0), (-0.5, 0.0)))
    m.add(ss.planar.RotationalSpringDamper(m.ground, link, stiffness=20.0, damping=0.1))
    res = m.equilibrium()
    phi = float(res["link.phi"][0])
    # k φ = −m g (L/2) cos φ   (moment balance about the pin)
    assert abs(20.0 * phi + 1.0 * 9.81 * 0.5 * math.cos(phi)) < 1e-9
    assert phi < 0


def test_translational_spring_oscillator_frequency():
    # a slider on a horizontal rail with a spring to the ground: ω = √(k/m)
    m = ss.planar.Model(gravity=(0.0, 0.0))
    block = m.add_body("block", mass=2.0, inertia=0.1, x=1.1)
    m.add(ss.planar.TranslationalJoint(m.ground, block, axis_i=(1, 0)))
    m.add(ss.planar.TranslationalSpringDamper(m.ground, block, stiffness=50.0,
                                              free_length=1.0, name="spring"))
    res = m.simulate(2.0, dt=1e-3, dt_out=0.01)
    expected = 1.0 + 0.1 * np.cos(math.sqrt(50.0 / 2.0) * res.t)
    assert np.max(np.abs(res["block.x"] - expected)) < 1e-8
    np.testing.assert_allclose(res["spring.force"], 50.0 * (res["block.x"] - 1.0), atol=1e-9)
