"""The LuGre composite element and the sliding-block tutorial (SPEC §8; issue 6)."""

import jax
import numpy as np
import pytest

import stickslip as ss
from stickslip.errors import ParameterError
from stickslip.planar import examples

jax.config.update("jax_enable_x64", True)

DT = 2e-4


@pytest.fixture(scope="module")
def tutorial():
    return examples.sliding_block_tutorial("lugre", raised=0.5, dt=DT)


def test_lugre_element_adds_state_force_and_channels_in_one_line():
    m = ss.planar.Model(gravity=(0.0, -9.8))
    b = m.add_body("block", mass=1.0, inertia=0.1)
    j = m.add(ss.planar.TranslationalJoint(m.ground, b, name="slide"))
    lugre = m.add(ss.planar.LuGreFriction(j))
    assert lugre.name == "lugre1"
    assert (lugre.vs, lugre.mu_s, lugre.mu_k, lugre.k0, lugre.k2) == (1e-3, 0.3, 0.2, 1e5, 0.4)
    assert "lugre1.z" in m.layout.state_names()
    res = m.simulate(0.01, dt=1e-4, dt_out=0.005)
    for name in ("lugre1.z", "lugre1.friction", "lugre1.force", "lugre1.normal"):
        assert name in res
    assert abs(res["lugre1.normal"][-1] - 9.8) < 1e-9


def test_sliding_block_moves_with_mus_03(tutorial):
    _, first, _ = tutorial
    assert np.max(np.abs(first["block.xd"])) > 0.1
    assert first.t[-1] == 4.0 and len(first.t) == 401


def test_sliding_block_stops_after_raising_mus_to_05(tutorial):
    _, first, second = tutorial
    x = second["block.x"]
    assert np.max(np.abs(x - x[0])) < 1e-3
    # the bristles hold: the block's speed dies out
    assert np.max(np.abs(second["block.xd"][second.t > 6.0])) < 1e-3


def test_continued_run_is_one_continuous_run(tutorial):
    model, first, second = tutorial
    assert second.t[0] == first.t[-1]
    for name in ("block.x", "block.xd", "lugre.z"):
        assert second[name][0] == first[name][-1]
    assert float(model.element("lugre").mu_s) == 0.5


@pytest.mark.slow
def test_split_run_equals_single_run_to_round_off():
    """Continuing from a Results (here at t = 2 s, no parameter change) reproduces the single
    run: the restart carries the exact state, bristle deflection included."""
    m = examples.sliding_block("lugre")
    single = m.simulate(4.0, dt=DT, dt_out=0.01)
    head = m.simulate(2.0, dt=DT, dt_out=0.01)
    tail = m.simulate(4.0, dt=DT, dt_out=0.01, initial=head)
    k = np.searchsorted(single.t, 2.0)
    for name in ("block.x", "block.xd", "lugre.z"):
        ref = single[name][k:]
        assert np.max(np.abs(tail[name] - ref)) <= 1e-12 * (1 + np.max(np.abs(ref)))


def test_lugre_parameters_validated_with_element_and_joint_named():
    m = ss.planar.Model()
    b = m.add_body("b", mass=1.0, inertia=0.1)
    j = m.add(ss.planar.TranslationalJoint(m.ground, b, name="slide"))
    lugre = m.add(ss.planar.LuGreFriction(j, name="lg"))
    with pytest.raises(ParameterError, match=r"lg.*slide.*mu_k"):
        m.replace(lugre, mu_s=0.1)
    with pytest.raises(ParameterError, match="vs"):
        m.replace("lg", vs=-1.0)
    with pytest.raises(ParameterError, match="no parameter"):
        m.replace("lg", mu=0.3)
    assert lugre.mu_s == 0.3         # a rejected change leaves the element as it was


@pytest.mark.slow
def test_continued_run_equals_single_run_with_mus_switched_at_4s(tutorial):
    """The two-segment tutorial against ONE run whose vector field switches μ_s at t = 4 s.
    (RK4 evaluates t = 4 in the last step before the switch and the first after; at that
    instant the block slides at 0.06 m/s ≫ vs, where μ_s has no effect — exp(−(v/vs)²)
    underflows — so both runs agree to round-off.)"""
    import dataclasses

    import equinox as eqx
    import jax.numpy as jnp

    model, first, second = tutorial

    class Switched(ss.planar.ProjectedPlanarSystem):
        laws_after: tuple = ()
        t_switch: float = 4.0

        def vector_field(self, t, x):
            after = eqx.tree_at(lambda s: s.frictions, self, self.laws_after)
            before_f = ss.planar.ProjectedPlanarSystem.vector_field(self, t, x)
            after_f = ss.planar.ProjectedPlanarSystem.vector_field(after, t, x)
            return jnp.where(t < self.t_switch, before_f, after_f)

    model.replace("lugre", mu_s=0.3)
    base = model.system((0.0, 0.0), projection=True)
    model.replace("lugre", mu_s=0.5)
    after = model.system((0.0, 0.0), projection=True).frictions   # the frictions, μs = 0.5
    fields = {f.name: getattr(base, f.name) for f in dataclasses.fields(base)}
    single = ss.simulate(Switched(**fields, laws_after=after), 8.0, dt=DT, dt_out=0.01)
    assert abs(first["block.xd"][-1]) > 0.03     # sliding at the switch: (v/vs)² > 744
    k = np.searchsorted(single.t, 4.0 - 1e-9)
    for name in ("block.x", "block.xd", "lugre.z"):
        joined = np.concatenate([first[name], second[name][1:]])
        assert np.max(np.abs(single[name] - joined)) < 1e-12 * (1 + np.max(np.abs(joined)))
    assert k == 400
