"""`simulate`'s option set as typed objects (`ss.Output`, `ss.Guard`, `ss.Steps`): each
equals its flat keywords, on every host that forwards options (core systems, batches,
planar, spatial, `ss.sweep`); bad fields fail where they are written; an option given
twice is refused; diffrax solver objects run the adaptive route; positional time arguments
still work, with a DeprecationWarning."""

import math
import warnings

import numpy as np
import pytest

import stickslip as ss


def _push(t):
    return 0.5 + 0.0 * t


def block(v0=0.3):
    law = ss.laws.CoulombODE(F=1.0, K=1e4, beta=1e-3)
    return ss.systems.FrictionMass(M=1.0, law=law, force=_push, v0=v0)


def _equal(a, b):
    assert a.names == b.names
    for name in a.names:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_objects_equal_their_flat_keywords():
    with_objects = ss.simulate(block(), 1.0, dt=1e-3, dt_out=0.1,
                               steps=ss.Steps(check=True, trace_stages_once=True),
                               guard=ss.Guard(max_state=1e6), output=ss.Output(chunk=64))
    flat = ss.simulate(block(), 1.0, dt=1e-3, dt_out=0.1, check_step=True,
                       trace_stages_once=True, max_state=1e6, chunk=64)
    _equal(with_objects, flat)


def test_guard_object_stops_a_run_the_default_lets_through():
    # a sliding block travels ~0.05 m: a 1 cm state bound must stop it, by name
    with pytest.raises(ss.SimulationError, match="max_state"):
        ss.simulate(block(), 1.0, dt=1e-3, guard=ss.Guard(max_state=1e-2))
    ss.simulate(block(), 1.0, dt=1e-3, guard=ss.Guard(max_state=math.inf))


def test_steps_reach_the_adaptive_and_time_stepping_routes():
    tight = ss.simulate(block(), 1.0, method="dopri5", dt_out=0.1,
                        steps=ss.Steps(rtol=1e-11, atol=1e-13))
    flat = ss.simulate(block(), 1.0, method="dopri5", dt_out=0.1, rtol=1e-11, atol=1e-13)
    _equal(tight, flat)
    mj = ss.simulate(block(), 1.0, method="moreau_jean", dt=1e-2, steps=ss.Steps(theta=1.0))
    mj_flat = ss.simulate(block(), 1.0, method="moreau_jean", dt=1e-2, theta=1.0)
    _equal(mj, mj_flat)


def test_a_diffrax_solver_object_runs_the_adaptive_route():
    diffrax = pytest.importorskip("diffrax")
    res = ss.simulate(block(), 1.0, method=diffrax.Dopri8(), dt_out=0.1,
                      steps=ss.Steps(rtol=1e-10, atol=1e-12))
    ref = ss.simulate(block(), 1.0, method="dopri5", dt_out=0.1, rtol=1e-10, atol=1e-12)
    assert res.meta["method"] == "diffrax.Dopri8"
    np.testing.assert_allclose(res["p"], ref["p"], rtol=0, atol=1e-8)
    batch = ss.simulate_batch([block(0.3), block(0.1)], 1.0, method=diffrax.Dopri8(),
                              dt_out=0.1)
    np.testing.assert_allclose(batch["p"][0], res["p"], rtol=0, atol=1e-6)


def test_batches_take_steps_and_guard():
    members = [block(0.3), block(0.1)]
    a = ss.simulate_batch(members, 0.5, dt=1e-3, steps=ss.Steps(check=False),
                          guard=ss.Guard(max_state=1e6))
    b = ss.simulate_batch(members, 0.5, dt=1e-3, check_step=False, max_state=1e6)
    np.testing.assert_array_equal(a["p"], b["p"])


def test_planar_and_spatial_models_forward_the_objects():
    crank = ss.planar.examples.slider_crank()
    a = crank.simulate(0.02, dt=1e-4, dt_out=1e-3, steps=ss.Steps(check=False),
                       guard=ss.Guard(max_state=1e9))
    b = crank.simulate(0.02, dt=1e-4, dt_out=1e-3, check_step=False, max_state=1e9)
    _equal(a, b)
    with pytest.raises(ss.ParameterError, match="pass `projection=` to Model.simulate"):
        crank.simulate(0.02, dt=1e-4, steps=ss.Steps(projection=False))
    m = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("bob", mass=0.5, inertia=(1e-3,) * 3, shape=None, position=(1.0, 0.0, 0.5))
    m.add(ss.spatial.RevoluteJoint("ground", "bob", point=(1.0, 0.0, 1.0), axis=(0, 1, 0),
                                   name="hinge"))
    with pytest.raises(ss.SimulationError, match="max_state"):
        m.simulate(0.5, dt=1e-3, guard=ss.Guard(max_state=0.9))    # |x| reaches 1 m


@pytest.mark.parametrize("make, match", [
    (lambda: ss.Steps(theta=1.5), r"`Steps.theta` must be a number in \[0, 1\]"),
    (lambda: ss.Steps(rtol=-1e-8), r"`Steps.rtol` must be a finite number > 0"),
    (lambda: ss.Steps(max_events=2.5), r"`Steps.max_events` must be a positive integer"),
    (lambda: ss.Steps(check="yes"), r"`Steps.check` must be True or False"),
    (lambda: ss.Output(chunk=0), r"`Output.chunk` must be a positive integer"),
    (lambda: ss.Output(stream_to=3), r"`Output.stream_to` must be a path"),
])
def test_bad_fields_fail_where_they_are_written(make, match):
    with pytest.raises(ss.ParameterError, match=match):
        make()


@pytest.mark.parametrize("kwargs, match", [
    ({"steps": ss.Steps(check=False), "check_step": True}, "`check_step` is given twice"),
    ({"output": ss.Output(chunk=64), "chunk": 64}, "`chunk` is given twice"),
    ({"guard": ss.Guard(), "max_state": 1.0}, "`max_state` is given twice"),
    ({"steps": {"rtol": 1e-9}}, r"`simulate.steps` must be a stickslip.Steps"),
    ({"guard": (1e6,)}, r"`simulate.guard` must be a stickslip.Guard"),
])
def test_an_option_given_twice_or_of_the_wrong_type_is_refused(kwargs, match):
    with pytest.raises(ss.ParameterError, match=match):
        ss.simulate(block(), 0.1, dt=1e-3, **kwargs)


def test_positional_time_arguments_are_deprecated_but_work():
    with pytest.warns(DeprecationWarning, match="pass dt, method, dt_out by keyword"):
        old = ss.simulate(block(), 0.5, 1e-3, "rk4", 0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = ss.simulate(block(), 0.5, dt=1e-3, method="rk4", dt_out=0.1)
    _equal(old, new)
    with pytest.raises(ss.ParameterError, match="`simulate.dt` is given twice"):
        ss.simulate(block(), 0.5, 1e-3, dt=1e-3)


def test_sweep_forwards_the_objects():
    def build(v0):
        return block(v0)

    grid = {"v0": [0.1, 0.2, 0.3]}
    final = {"p_end": lambda res: res["p"][..., -1]}
    a = ss.sweep(build, grid, final, t_end=0.5, dt=1e-3, steps=ss.Steps(check=False),
                 guard=ss.Guard(max_state=1e6))
    b = ss.sweep(build, grid, final, t_end=0.5, dt=1e-3, check_step=False, max_state=1e6)
    assert a.attrs["mode"] == "vmap" and a["error"].isna().all()
    np.testing.assert_array_equal(a["p_end"], b["p_end"])
    with pytest.raises(ss.ParameterError, match="max_state"):      # the guard reaches it
        ss.sweep(build, grid, final, t_end=0.5, dt=1e-3, guard=ss.Guard(max_state=-1.0))
    with pytest.raises(ss.ParameterError, match="sweep's own `chunk`"):
        ss.sweep(build, grid, final, t_end=0.5, dt=1e-3, output=ss.Output(chunk=64))
