"""Output samples from the first RK stage (``AbstractSystem.samples_in_stages``) for the
hosts beyond the 3-D link systems equal the samples computed after the loop: a planar
mechanism with joint friction (``PlanarSystem``: on with two or more joint frictions) and
point contacts (``ss.spatial.PointContacts``: ``vector_field_and_outputs`` shares the
λ-solve). Same states, same channels, the grid with a short last step, continuation, and
a vmap batch. Both paths are forced in turn by setting the class variable."""

import math

import numpy as np
import pytest

import stickslip as ss
from stickslip.planar import examples
from stickslip.planar._system import PlanarSystem
from stickslip.spatial._point_contacts import PointContacts


def crank_with_friction(mu=0.1):
    """The slider–crank of benchmarks/planar_friction.py: CoulombODE on its three pins and
    its slider (four joint frictions: the samples come from the stages)."""
    inertia = 1.0 * 0.1 ** 2 / 3
    pin = ss.laws.CoulombODE(mu=mu, K=50.0, beta=2 * math.sqrt(inertia / 50.0))
    return examples.slider_crank(pin_friction=pin, pin_radius=0.01,
                                 slide_friction=ss.laws.CoulombODE.tuned(0.5, 1e5, mu=mu))


def pushed_box(push=3.0, v0=0.5):
    """A box sliding on the ground under a push at its bottom face (eight vertex contacts)."""
    m = ss.spatial.Model(gravity=(0.0, 0.0, -9.81))
    m.add_body("box", mass=1.0, inertia=None, shape=ss.spatial.Box(0.1, 0.1, 0.1),
               position=(0.0, 0.0, 0.05), velocity=(v0, 0.0, 0.0))
    m.add_ground(mu_s=0.5, mu_k=0.5)
    return ss.spatial.PointContacts.from_model(m, force=(push, 0.0, 0.0),
                                               force_point=(0.0, 0.0, -0.05))




def test_planar_samples_in_stages_only_with_several_joint_frictions():
    assert crank_with_friction().system().samples_in_stages
    assert not examples.four_bar().system().samples_in_stages
    assert not examples.sliding_block("lugre").system().samples_in_stages


def test_planar_samples_from_the_stages_equal_samples_after_the_loop(both_ways, same_results):
    # t_end not a multiple of dt_out nor of dt: a short last step and a short last sample
    staged, after = both_ways(PlanarSystem, lambda: crank_with_friction().simulate(
        0.4237, dt=1e-3, dt_out=0.01))
    assert staged.t[-1] == 0.4237
    same_results(staged, after, atol=1e-12)
    friction = [n for n in staged.names if n.endswith(".friction")]
    assert len(friction) == 4 and max(abs(staged[n]).max() for n in friction) > 1e-3


def test_planar_sample_every_step_and_continuation(both_ways, same_results):
    def split():
        m = crank_with_friction()
        first = m.simulate(0.05, dt=1e-3, dt_out=1e-3)
        return m.simulate(0.1, dt=1e-3, dt_out=1e-3, initial=first)
    staged, after = both_ways(PlanarSystem, split)
    same_results(staged, after, atol=1e-12)
    whole = crank_with_friction().simulate(0.1, dt=1e-3, dt_out=1e-3)
    np.testing.assert_allclose(staged["crank.phi"][-1], whole["crank.phi"][-1], atol=1e-13)


@pytest.mark.slow
def test_planar_batches_take_their_samples_from_the_stages_too(both_ways, same_results):
    def batch():
        members = [crank_with_friction(mu).system() for mu in (0.05, 0.2)]
        return ss.simulate_batch(members, 0.2, dt=1e-3, dt_out=0.05, check_step=False)
    staged, after = both_ways(PlanarSystem, batch)
    for name in ("crank.phi", "energy", "D.friction", "A.Fx"):
        np.testing.assert_allclose(staged[name], after[name], atol=1e-12, rtol=0,
                                   err_msg=name)
    assert not np.allclose(staged["crank.phi"][0], staged["crank.phi"][1])


def test_point_contacts_samples_from_the_stages_equal_samples_after_the_loop(both_ways,
                                                                             same_results):
    # eight contacts of a box carry no unique forces: compare the states, the gaps and
    # the summed forces (unique: the box's momentum balance)
    staged, after = both_ways(PointContacts, lambda: pushed_box().simulate(
        0.1237, dt=1e-3, dt_out=0.01))
    assert staged.t[-1] == 0.1237
    assert staged.names == after.names
    for name in staged.names:
        if ".fx." in name or ".fy." in name or ".fn." in name or ".ft." in name:
            continue
        np.testing.assert_allclose(staged[name], after[name], atol=1e-12, rtol=0,
                                   err_msg=name)
    for axis in ("fx", "fy", "fn"):
        total = [sum(r[f"box.{axis}.{k}"] for k in range(1, 9)) for r in (staged, after)]
        np.testing.assert_allclose(*total, atol=1e-9, err_msg=axis)
    np.testing.assert_allclose(sum(staged[f"box.fn.{k}"] for k in range(1, 9))[1:],
                               9.81, rtol=1e-6)


@pytest.mark.slow
def test_point_contacts_continuation_and_batch(both_ways, same_results):
    def split():
        pc = pushed_box()
        first = pc.simulate(0.03, dt=1e-3, dt_out=1e-3)
        return pc.simulate(0.06, dt=1e-3, dt_out=1e-3, initial=first)
    staged, after = both_ways(PointContacts, split)
    for name in ("box.x", "box.vx", "box.z", "box.qw"):
        np.testing.assert_allclose(staged[name], after[name], atol=1e-12, rtol=0)

    def batch():
        loads = [pushed_box().replace(force=np.array([[f, 0.0, 0.0]])) for f in (1.0, 8.0)]
        return ss.simulate_batch(loads, 0.05, dt=1e-3, dt_out=0.01)
    staged, after = both_ways(PointContacts, batch)
    np.testing.assert_allclose(staged["box.vx"], after["box.vx"], atol=1e-12, rtol=0)
