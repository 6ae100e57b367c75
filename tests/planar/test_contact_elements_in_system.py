"""Frictional contacts are planar elements of the one frozen model (issue 23, item 3):
``Model.add(PointLineContact(...))`` returns a new bound module, ``model.system()`` is a
:class:`~stickslip.planar.PlanarSystem` holding the contacts' stacked per-pair arrays, whose
μ is traced (a μ sweep under ``vmap`` compiles once) and whose vector field jits to the
eager one. ``Model.simulate`` takes ``dt, method, dt_out`` by keyword, positionally with a
DeprecationWarning.

Reference: the block on an incline at rest (SPEC §6), θ = 35°: it holds for μ ≥ tan θ and
otherwise slides down the slope at g(sin θ − μ cos θ) (the relaxed law at v_t = 0, ψ = 0).
"""

import dataclasses
import math

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.planar._contact_examples import block_on_incline

THETA = math.radians(35.0)
G = 9.81


@pytest.fixture(scope="module")
def incline():
    return block_on_incline(THETA, mu=0.4)


def test_add_returns_a_new_frozen_bound_module_named_from_its_prefix():
    m = ss.planar.Model()
    block = m.add_body("block", mass=1.0, inertia=0.01)
    given = ss.planar.PointLineContact("ground", "block", mu=0.3)
    bound = m.add(given)
    assert bound is not given and given.name is None and given.body_j == "block"
    assert bound.name == "contact1" and bound.body_j is block and bound.body_i is m.ground
    with pytest.raises(dataclasses.FrozenInstanceError):
        bound.mu = 0.5                                   # type: ignore[misc]
    slider = m.add(ss.planar.ClearanceSlider(
        m.ground, block, half_length=0.05, half_height=0.02, clearance=1e-3))
    assert slider.name == "slider2" and m.frictional_contacts == [bound, slider]
    system = m.system()
    assert type(system) is ss.planar.PlanarSystem
    assert system.pairs.n_pairs == 5 and system.state_names[-2:] == ("painleve.none",
                                                                     "painleve.several")


def test_a_mu_sweep_under_vmap_compiles_once_and_matches_the_closed_form(incline):
    system = incline.system()
    x = system.initial_state()
    traces = []

    @eqx.filter_jit
    def tangential(mus):
        traces.append(1)

        def one(mu):
            s = eqx.tree_at(lambda z: z.pairs.mu, system, mu[None])
            qdd = s.vector_field(jnp.asarray(0.0), x)[3:5]
            return qdd @ jnp.array([math.cos(THETA), -math.sin(THETA)])   # down the slope
        return jax.vmap(one)(mus)

    low, high = np.array([0.0, 0.2, 0.4, 0.6]), np.array([0.1, 0.5, 0.8, 1.2])
    for mus in (low, high):
        got = np.asarray(tangential(jnp.asarray(mus)))
        expected = np.where(mus >= math.tan(THETA), 0.0,
                            G * (math.sin(THETA) - mus * math.cos(THETA)))
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)
    assert len(traces) == 1                     # the second sweep reused the first compile


def test_jit_of_the_systems_vector_field_equals_eager(incline):
    system = incline.system()
    x = system.initial_state().at[3].set(0.1)           # sliding: v_t ≠ 0
    t = jnp.asarray(0.0)
    eager = system.vector_field(t, x)
    jitted = eqx.filter_jit(lambda s, x: s.vector_field(t, x))(system, x)
    np.testing.assert_allclose(jitted, eager, rtol=1e-13, atol=1e-13)
    out = eqx.filter_jit(lambda s, x: s.outputs(t, x))(system, x)
    assert float(out["block.xdd"]) == float(jitted[3])
    # friction against the motion, at the kinetic bound: ft = −μ fn along the slope
    assert float(out["slope.ft"]) == pytest.approx(-0.4 * float(out["slope.fn"]), rel=1e-12)


def test_positional_step_arguments_still_work_with_a_deprecation_warning(incline):
    by_keyword = incline.simulate(0.02, dt=1e-3, dt_out=1e-2)
    with pytest.warns(DeprecationWarning, match=r"planar.Model.simulate: pass dt, method, "
                                                r"dt_out by keyword"):
        positional = incline.simulate(0.02, 1e-3, "rk4", 1e-2)
    for name in by_keyword.names:
        np.testing.assert_array_equal(positional[name], by_keyword[name])
    with pytest.raises(ss.ParameterError, match=r"`planar.Model.simulate.dt` is given twice"):
        incline.simulate(0.02, 1e-3, dt=2e-3)
