"""Output samples taken from the first stage of the step that starts at them
(``AbstractSystem.samples_in_stages``, :func:`stickslip.integrate._fixed_step._integrate_sampled`)
equal the samples computed after the loop: same states, same channels, the same grid with a
short last step, continuation and batches."""

import numpy as np
import pytest

import stickslip as ss
from stickslip.spatial._link_system import LinkSystem

sp = ss.spatial


def hinged_ball(mu=0.3, v0=1.5):
    """A ball rolling off a slip (one contact: its force is unique) beside a pendulum on a
    revolute joint (joint reactions among the channels)."""
    m = sp.SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("ball", mass=1.0, shape=sp.Sphere(0.1), position=(0, 0, 0.1),
               velocity=(v0, 0, 0))
    m.add_body("bob", mass=0.5, inertia=(1e-3, 1e-3, 1e-3), shape=None,
               position=(1.0, 0.0, 0.5))
    m.add(sp.RevoluteJoint("ground", "bob", point=(1.0, 0.0, 1.0), axis=(0, 1, 0),
                           name="hinge"))
    m.add_ground(mu_s=mu, mu_k=mu)
    return m




def test_samples_from_the_stages_equal_samples_after_the_loop(both_ways, same_results):
    # t_end not a multiple of dt_out nor of dt: a short last step and a short last sample
    staged, after = both_ways(LinkSystem,
                              lambda: hinged_ball().simulate(0.4237, dt=1e-3, dt_out=0.01))
    assert staged.t[-1] == 0.4237
    same_results(staged, after, atol=1e-12)
    assert abs(staged["hinge.fz"]).max() > 1.0        # the channels carry real values


def test_sample_every_step_and_continuation(both_ways, same_results):
    def split():
        m = hinged_ball()
        first = m.simulate(0.05, dt=1e-3, dt_out=1e-3)
        return m.simulate(0.1, dt=1e-3, dt_out=1e-3, initial=first)
    staged, after = both_ways(LinkSystem, split)
    same_results(staged, after, atol=1e-12)
    whole = hinged_ball().simulate(0.1, dt=1e-3, dt_out=1e-3)
    np.testing.assert_allclose(staged["ball.x"][-1], whole["ball.x"][-1], atol=1e-13)


@pytest.mark.slow
def test_batches_take_their_samples_from_the_stages_too(both_ways, same_results):
    def batch():
        return ss.sweep(hinged_ball, {"mu": [0.2, 0.4]},
                        {"v": lambda r: r["ball.vx"][..., -1],
                         "fn": lambda r: r["ground-ball.fn"][..., -1]},
                        t_end=0.3, dt=1e-3, dt_out=0.05)
    staged, after = both_ways(LinkSystem, batch)
    assert staged.attrs["mode"] == "vmap"
    np.testing.assert_allclose(staged["v"], after["v"], atol=1e-12)
    np.testing.assert_allclose(staged["fn"], 9.81, rtol=1e-9)
