"""Multi-input closed loops: JointActuator, MechanismPlant, per-joint gains, the host loop."""

import math

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

GAINS = {"F": 20.0, "H": 0.2, "K": 1600.0, "B": 80.0, "L": 16000.0, "T": 1e-3}


def _pendulum(gravity=(0.0, 0.0), **actuator):
    """A uniform rod (1 kg, 0.2 m) pinned at one end at the origin, pointing along +x."""
    m = ss.planar.Model(gravity=gravity, name="rod")
    rod = m.add_body("rod", mass=1.0, inertia=0.2 ** 2 / 12, x=0.1)
    pin = m.add(ss.planar.RevoluteJoint(m.ground, rod, point_j=(-0.1, 0.0), name="pin"))
    m.add(ss.planar.JointActuator(pin, name="motor", **actuator))
    return m


def test_joint_actuator_turns_a_rod_by_the_closed_form():
    # constant torque τ on a rod about its end: φ = ½ (τ / (m L²/3)) t² (no gravity)
    tau, inertia = 0.3, 0.2 ** 2 / 3
    res = _pendulum(tau=tau).simulate(0.2, dt=1e-3)
    np.testing.assert_allclose(res["rod.phi"], 0.5 * tau / inertia * res.t ** 2, rtol=0,
                               atol=1e-9)
    np.testing.assert_allclose(res["motor.force"], tau)
    assert res.units["motor.force"] == "N·m"


def test_mechanism_plant_measures_joint_angles_and_runs_per_joint_psmc():
    plant = ss.planar.MechanismPlant.from_model(_pendulum())
    assert plant.input_names == ("motor",) and plant.measured_units == ("rad",)
    np.testing.assert_allclose(plant.measure(0.0, plant.initial_state()), [0.0], atol=1e-12)
    res = ss.control.simulate_closed_loop(
        plant, ss.control.PSMCParams(**{**GAINS, "F": [0.5], "K": [10.0], "B": [1.0],
                                        "L": [50.0]}), 1.5, reference=[0.3])
    assert {"motor.u", "motor.p_d", "motor.measured", "motor.proxy"} <= set(res.names)
    assert res.units["motor.u"] == "N·m" and res.units["motor.proxy"] == "rad"
    assert np.max(np.abs(res["motor.u"])) <= 0.5
    assert abs(res["rod.phi"][-1] - 0.3) < 1e-3
    # the plant's outputs are computed with the held torque (the actuator reports it)
    np.testing.assert_allclose(res["motor.force"], res["motor.u"], rtol=0, atol=0)


def test_host_loop_with_a_stateful_psmc_equals_the_compiled_loop():
    plant = ss.control.MassPlant(M=1.0)

    def ref(t):
        return 0.5 * (t >= 0.05)
    compiled = ss.control.simulate_closed_loop(plant, ss.control.PSMCParams(**GAINS), 0.5, ref)
    host = ss.control.simulate_host_loop(plant, ss.control.PSMC(**GAINS).step, 0.5, ref)
    np.testing.assert_allclose(host["p"], compiled["p"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(host["u"], compiled["u"], rtol=0, atol=1e-9)
    assert host.units["u"] == "N" and host.meta["T"] == 1e-3


def test_host_loop_names_a_bad_controller_output():
    plant = ss.control.MassPlant(M=1.0)
    with pytest.raises(ss.SimulationError, match=r"returned .*nan.* at sample k=0"):
        ss.control.simulate_host_loop(plant, lambda p_d, p: math.nan, 0.01, T=1e-3)
    with pytest.raises(ss.ParameterError, match="`simulate_host_loop.T` is required"):
        ss.control.simulate_host_loop(plant, lambda p_d, p: 0.0, 0.01)


def test_multi_input_loops_reject_bad_gains_references_and_models():
    plant = ss.planar.MechanismPlant.from_model(_pendulum())
    psmc = ss.control.PSMCParams(**GAINS)
    with pytest.raises(ss.ParameterError, match=r"`PSMCParams.F` has shape \(3,\)"):
        ss.control.simulate_closed_loop(plant, ss.control.PSMCParams(**{**GAINS, "F": [1.0] * 3}),
                                        0.01)
    with pytest.raises(ss.ParameterError, match=r"`PIDParams.K` has shape \(2,\).*a scalar"):
        ss.control.simulate_closed_loop(ss.control.MassPlant(M=1.0), ss.control.PIDParams(
            K=[1.0, 2.0], L=0.0, B=0.0, T=1e-3), 0.01)
    with pytest.raises(ss.ParameterError, match=r"`PSMCParams.T` must be one sample period"):
        ss.control.simulate_closed_loop(plant, ss.control.PSMCParams(**{**GAINS,
                                                                        "T": [1e-3, 2e-3]}), 0.01)
    with pytest.raises(ss.ParameterError, match=r"`reference` must be a scalar or shape \(1,\)"):
        ss.control.simulate_closed_loop(plant, psmc, 0.01, reference=[0.1, 0.2])
    with pytest.raises(ss.ParameterError, match=r"`reference\(t\)` must return a scalar or"):
        ss.control.simulate_closed_loop(plant, psmc, 0.01,
                                        reference=lambda t: jnp.stack([t, t, t]))
    model = _pendulum()
    with pytest.raises(ss.ModelError, match="'elbow' is no JointActuator.*\\['motor'\\]"):
        ss.planar.MechanismPlant.from_model(model, actuators=["elbow"])
    stop = model.add(ss.planar.RevoluteStop(model.element("pin"), upper=1.0, name="limit"))
    with pytest.raises(ss.ModelError, match="stop 'limit' has no contact law"):
        ss.planar.MechanismPlant.from_model(model)
    assert stop.law is None
    bare = ss.planar.Model()
    bare.add_body("b", mass=1.0, inertia=1.0)
    with pytest.raises(ss.ModelError, match="has no JointActuator"):
        ss.planar.MechanismPlant.from_model(bare)


def test_joint_actuator_rejects_what_is_not_a_joint_or_a_finite_effort():
    m = ss.planar.Model()
    body = m.add_body("b", mass=1.0, inertia=1.0)
    pin = m.add(ss.planar.RevoluteJoint(m.ground, body))
    drive = ss.planar.RotationalDriver(m.ground, body, angle=lambda t: t)
    with pytest.raises(ss.ParameterError, match="`JointActuator.joint` must be a joint"):
        ss.planar.JointActuator(drive)
    with pytest.raises(ss.ParameterError, match="`JointActuator.joint` must be a joint"):
        ss.planar.JointActuator(body)
    with pytest.raises(ss.ParameterError, match=r"`m1.tau` must be a finite effort \[N·m\]"):
        ss.planar.JointActuator(pin, tau=math.inf, name="m1")



def _actuator_outputs(f, qi, qj):
    gen, value = f.generalized_force([qi, qj], [qi * 0, qj * 0], 0.0)
    return (*gen, value)


@pytest.mark.parametrize("kind", ["revolute", "translational"])
def test_joint_actuator_passes_the_planar_element_checks(kind):
    """The checks of tests/planar/test_element_conformance.py (that suite lists its classes;
    JointActuator lives in control): bound and immutable, jit = eager, vmap over a stacked
    group = a loop, finite gradients through its arrays — and its power is τ·ṡ."""
    import dataclasses

    import equinox as eqx
    import jax

    from stickslip.planar._base import stack

    m = ss.planar.Model()
    bi = m.add_body("bi", mass=1.0, inertia=0.1, x=0.2, y=-0.1, phi=0.4)
    bj = m.add_body("bj", mass=2.0, inertia=0.3, x=0.7, y=0.3, phi=-0.9)
    joint = m.add(ss.planar.RevoluteJoint(bi, bj, (0.1, 0.0), (-0.3, 0.05))
                  if kind == "revolute" else
                  ss.planar.TranslationalJoint(bi, bj, (0.1, 0.0), (0.0, 0.2), axis_i=(0.6, 0.8)))
    element = m.add(ss.planar.JointActuator(joint, tau=0.7))
    assert element.name.startswith("actuator") and repr(element).startswith("JointActuator(")
    with pytest.raises(dataclasses.FrozenInstanceError):
        element.tau = 1.0
    rng = np.random.default_rng(0)
    args = [tuple(jnp.asarray(rng.standard_normal(3)) for _ in range(2)) for _ in range(3)]
    eager = _actuator_outputs(element, *args[0])
    for a, b in zip(eager, eqx.filter_jit(_actuator_outputs)(element, *args[0])):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)
    # the effort acts along the joint's slide: Q·q̇ = τ ṡ (power balance)
    qd = tuple(jnp.asarray(rng.standard_normal(3)) for _ in range(2))
    s_rate = jax.jvp(joint.slide, args[0], qd)[1]
    np.testing.assert_allclose(eager[0] @ qd[0] + eager[1] @ qd[1], 0.7 * s_rate, rtol=1e-12)
    members = [jax.tree.map(lambda x, s=s: x * s if eqx.is_inexact_array(x) else x, element)
               for s in (1.0, 1.1, 0.9)]
    arrays, static = eqx.partition(stack(members), eqx.is_array)
    batched = jax.vmap(lambda a, *z: _actuator_outputs(eqx.combine(a, static), *z))(
        arrays, *(jnp.stack(col) for col in zip(*args)))
    for k, member in enumerate(members):
        for b, single in zip(batched, _actuator_outputs(member, *args[k])):
            np.testing.assert_allclose(b[k], single, rtol=1e-12, atol=1e-12)
    grads = eqx.filter_grad(
        lambda e: sum(jnp.sum(o ** 2) for o in _actuator_outputs(e, *args[0])))(element)
    assert all(np.all(np.isfinite(g)) for g in jax.tree.leaves(eqx.filter(grads, eqx.is_array)))


@pytest.mark.parametrize("kwargs, name", [
    (dict(t_end=float("nan")), "simulate_host_loop.t_end"),
    (dict(t_end=-1.0), "simulate_host_loop.t_end"),
    (dict(t_end=0.1, substeps=float("nan")), "simulate_host_loop.substeps"),
    (dict(t_end=0.1, substeps=1.5), "simulate_host_loop.substeps")])
def test_host_loop_checks_time_and_substeps_like_the_compiled_loop(kwargs, name):
    """The host loop shares the compiled loop's time and substep checks (a NaN substeps was a
    bare ValueError)."""
    plant = ss.planar.MechanismPlant.from_model(_pendulum())
    with pytest.raises(ss.ParameterError, match=name):
        ss.control.simulate_host_loop(plant, lambda p_d, p: 0.0 * p_d, reference=0.0,
                                      T=1e-3, **kwargs)
