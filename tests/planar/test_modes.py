"""The step check's mode estimates of a planar mechanism (planar/_modes.py) against the
eigenvalues of the full vector field's Jacobian at the initial state (computed here), and the
refusal of a too-large step naming the stiff element."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.errors import ParameterError
from stickslip.planar import examples

jax.config.update("jax_enable_x64", True)


def _full_jacobian_eigenvalues(model):
    system = model.system()
    x0 = system.initial_state()
    jac = jax.jit(jax.jacfwd(lambda x: system.vector_field(jnp.asarray(0.0), x)))(x0)
    return np.linalg.eigvals(np.asarray(jac))


def _stiffest(modes):
    return max(abs(complex(e)) for _, eig in modes for e in np.ravel(eig))


def _spring_pendulum(stiffness=4e4, damping=2.0):
    """A link on a pin, held by a stiff translational spring–damper from its tip to the
    ground: ω ≈ L √(k/I_pin) (a stiff rotational spring about the pin)."""
    m = ss.planar.Model(gravity=(0.0, -9.81))
    link = m.add_body("link", mass=1.0, inertia=1.0 / 12, x=0.5)
    m.add(ss.planar.RevoluteJoint(m.ground, link, (0.0, 0.0), (-0.5, 0.0), name="pin"))
    m.add(ss.planar.TranslationalSpringDamper(m.ground, link, (1.0, 0.5), (0.5, 0.0),
                                              stiffness=stiffness, damping=damping,
                                              free_length=0.5, name="spring"))
    return m


def _friction_slider_crank():
    law = ss.laws.CoulombODE(mu=0.1, K=50.0, beta=2 * math.sqrt((0.1 ** 2 / 3) / 50.0))
    slide = ss.laws.CoulombODE.tuned(0.5, 1e5, mu=0.1)
    return examples.slider_crank(pin_friction=law, pin_radius=0.01, slide_friction=slide)


@pytest.mark.parametrize("build", [_spring_pendulum, _friction_slider_crank],
                         ids=["spring_pendulum", "friction_slider_crank"])
def test_stiffest_mode_matches_the_full_jacobian(build):
    model = build()
    estimate = _stiffest(model.system().linear_modes())
    full = np.max(np.abs(_full_jacobian_eigenvalues(model)))
    assert abs(estimate - full) <= 0.15 * full, (estimate, full)


def test_spring_mode_is_the_pin_rotation_frequency():
    # spring from the ground point (1, 0.5) to the tip (1, 0): vertical, so about the pin
    # its stiffness is k·L² with L = 1 m; I_pin = 1/12 + 1·0.5² = 1/3 kg·m²
    k, c = 4e4, 2.0
    modes = dict(_spring_pendulum(k, c).system().linear_modes())
    eig = modes["TranslationalSpringDamper 'spring' on 'ground', 'link' (linearised at the "
                "initial state)"]
    expected = np.roots([1.0 / 3.0, c, k])
    np.testing.assert_allclose(sorted(eig, key=lambda z: z.imag),
                               sorted(expected, key=lambda z: z.imag), rtol=1e-9)


def test_joint_friction_mode_uses_the_mass_along_the_slide():
    # a block on a rail: the slide's effective mass is the block's mass
    m = ss.planar.Model(gravity=(0.0, -9.81))
    block = m.add_body("block", mass=2.0, inertia=0.1)
    law = ss.laws.CoulombODE(mu=0.3, K=1e5, beta=1e-3)
    m.add(ss.planar.TranslationalJoint(m.ground, block, friction=law, name="rail"))
    modes = m.system().linear_modes()
    stick = [eig for label, eig in modes if label.startswith("JointFriction 'rail'")
             and "stick" in label][0]
    np.testing.assert_allclose(sorted(stick, key=lambda z: z.imag),
                               sorted(np.roots([2.0, 1e5 * 1e-3, 1e5]),
                                      key=lambda z: z.imag), rtol=1e-9)


def test_too_large_step_is_refused_naming_the_spring():
    with pytest.raises(ParameterError, match=r"dt=0\.01 .*'spring'"):
        _spring_pendulum().simulate(0.1, dt=1e-2)


def test_too_large_step_is_refused_naming_the_stiff_friction():
    with pytest.raises(ParameterError, match=r"dt=0\.02 .*JointFriction 'D'"):
        _friction_slider_crank().simulate(0.1, dt=2e-2)


def test_load_dependent_friction_mode_uses_the_frictionless_normal_force():
    # TanhCoulomb(mu): its mode −μN/(v_eps m) depends on the normal force; a 2 kg block on
    # a level rail presses with N = m g (the frictionless reaction at the start)
    m = ss.planar.Model(gravity=(0.0, -9.81))
    block = m.add_body("block", mass=2.0, inertia=0.1)
    law = ss.laws.TanhCoulomb(mu=0.3, v_eps=1e-3)
    m.add(ss.planar.TranslationalJoint(m.ground, block, friction=law, name="rail"))
    modes = [eig for label, eig in m.system().linear_modes()
             if label.startswith("JointFriction 'rail'")]
    np.testing.assert_allclose(np.ravel(modes[0]), [-0.3 * 2.0 * 9.81 / (1e-3 * 2.0)],
                               rtol=1e-9)
