"""Batches of spatial link systems (issue 20, benchmarks/results/spatial_links.md notes):
`ss.simulate_batch` runs its step check on stacked link systems with point contacts or joint
friction, and `ss.integrate.stack_systems` stacks many of them without compiling anything."""

import logging

import jax
import numpy as np
import pytest

import stickslip as ss

sp = ss.spatial


def pushed_box(push):
    """A 1 kg, 10 cm cube on the ground (μ = 0.5, 8 corner contacts), pushed along x [N]."""
    m = sp.SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("box", mass=1.0, shape=sp.Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    m.add_ground(mu_s=0.5, mu_k=0.5)
    m.add(sp.PointForce("box", force=(push, 0, 0)))
    return m.link_system()


def braked_wheel(torque):
    """A wheel on a hinge with pin friction (level μ·a·m g = 0.039 N·m) under a torque."""
    m = sp.SpatialModel(gravity=(0, -9.81, 0))
    m.add_body("wheel", mass=2.0, inertia=(0.01, 0.01, 0.02), shape=None)
    law = ss.laws.CoulombODE(mu=0.2, K=1e4, beta=2e-2)
    m.add(sp.RevoluteJoint("ground", "wheel", point=(0, 0, 0), axis=(0, 0, 1), name="J",
                           friction=law, pin_radius=0.01))
    m.add(sp.BodyTorque("wheel", torque=(0, 0, torque)))
    return m.link_system()


def test_batch_of_boxes_on_point_contacts_runs_with_the_step_check():
    """The step check reads member 0's contact relaxation (δ is stacked); the members equal
    their separate runs, the held box stays put and the pushed ones slide at (F − μmg)/m."""
    pushes = [0.0, 3.0, 7.0]
    systems = [pushed_box(p) for p in pushes]
    batch = ss.simulate_batch(systems, 0.05, dt=1e-3, dt_out=1e-2)
    assert ss.largest_stable_step(ss.integrate.stack_systems(systems)) == \
        ss.largest_stable_step(systems[0])
    for k, system in enumerate(systems):
        alone = ss.simulate(system, 0.05, dt=1e-3, dt_out=1e-2)
        np.testing.assert_allclose(batch["box.x"][k], alone["box.x"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(batch["box.vx"][:, -1],
                               np.maximum(np.array(pushes) - 0.5 * 9.81, 0.0) * 0.05,
                               atol=1e-9)


@pytest.mark.slow
def test_batch_with_joint_friction_runs_with_the_step_check():
    """The friction laws' modes come from member 0's pose (x0 is stacked): a torque below
    the friction level holds the wheel, one above turns it, as when run alone."""
    systems = [braked_wheel(0.02), braked_wheel(0.1)]
    batch = ss.simulate_batch(systems, 0.05, dt=1e-4, dt_out=1e-2)
    for k, system in enumerate(systems):
        alone = ss.simulate(system, 0.05, dt=1e-4, dt_out=1e-2)
        np.testing.assert_allclose(batch["J.rate"][k], alone["J.rate"], rtol=0, atol=1e-12)
    assert abs(batch["J.rate"][0, -1]) < 1e-4 < batch["J.rate"][1, -1]


def test_stacking_link_systems_stacks_on_the_host(caplog, monkeypatch):
    """`stack_systems` stacks each leaf on the host and transfers it once: an eager
    ``jnp.stack`` over the members' device arrays dispatched work per member and leaf
    (11.6 s for 1000 boxes). At most one small program per leaf shape may compile (a
    transfer), however many members there are."""
    import jax.numpy as jnp

    def no_device_stack(*args, **kwargs):
        raise AssertionError("stack_systems stacked device arrays with jnp.stack")

    monkeypatch.setattr(jnp, "stack", no_device_stack)
    systems = [pushed_box(p) for p in np.linspace(0.0, 10.0, 40)]
    with jax.log_compiles(True), caplog.at_level(logging.WARNING):
        caplog.clear()
        stacked = ss.integrate.stack_systems(systems)
    compiled = [r for r in caplog.records if "Compiling" in r.getMessage()]
    assert len(compiled) <= len(jax.tree.leaves(systems[0]))
    np.testing.assert_array_equal(np.asarray(stacked.force_values)[:, 0, 0],
                                  np.linspace(0.0, 10.0, 40))
    assert np.shape(stacked.x0) == (40,) + np.shape(systems[0].x0)
