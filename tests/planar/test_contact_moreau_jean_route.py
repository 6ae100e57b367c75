"""``method="moreau_jean"`` for planar models with frictional contacts (issue 21, item 1): the
contact system is a time-stepping host whose step is the Moreau–Jean reference's
(``stickslip.planar._contact_step``), so ``Model.simulate(..., method="moreau_jean")``,
``ss.simulate(contact_system, ..., method="moreau_jean")`` and ``ss.planar.moreau_jean``
are one route.

Recorded values: ``ss.planar.moreau_jean`` as it was before the route (its own jitted
scan over the same step), run on this machine's float64 CPU build: the clearance slider
(0.0605 s, h = 0.1 ms, dt_out = 2 ms) and the block on the 35° incline (μ = 0.4, 0.105 s,
h = 1 ms, dt_out = 10 ms). The route reproduces every sample of the slider bit for bit,
except the forces at t = 0, which are now the first step's mean forces (the core route's
convention; the old function wrote 0). The incline agrees up to t = 0.02 s: at t = 0.03 s
the old step let the resting contact open for one step on a round-off gap of +1e-22 m
(fn = 0, 8 µm of free fall); the shared step now counts a gap within 1e-12 of the
contact's length scale as touching (``activation_tolerance``), and the slide is the exact
s = a t²/2 of the θ = 1/2 step under constant forces.

Issue 23, item 3: the contact step became the one step of ``planar._mj_step`` (joints, joint
friction, contacts and impact stops in one impulse problem), whose joint rows are enforced at
t_k + h with the velocity part of γ carried over the step (the old contact step enforced
them at the mid-point only). The incline (no joints) is unchanged to 4.8e-13 N (fn, of 16 N);
the clearance slider's recorded values were re-recorded: the slider's states moved by up to
3.5e-5 m and its normal forces by 6.3e-3 N, and its penetration into the guide now stays at
3.8 µm where the old step let it grow to 38 µm over the run. (The unified step with the old
joint treatment patched back in reproduces the old values to 9.1e-13.)
"""

import dataclasses
import math

import equinox as eqx
import numpy as np
import pytest

import stickslip as ss
from stickslip.errors import ParameterError
from stickslip.planar._contact_examples import block_on_incline, clearance_slider_crank
from stickslip.planar._contact_simulate import contact_system

SLIDER_RUN = (0.0605, 1e-4, 2e-3)            # t_end, h, dt_out
INCLINE_RUN = (0.105, 1e-3, 1e-2)


def _of_a_step(name):
    """Channels of the step that ended at a sample (at a run's start: of its first step):
    the contacts' forces, the status, and the mechanism's step means (accelerations,
    reactions, driver efforts, joint friction, stop forces)."""
    means = ("dd", ".Fx", ".Fy", ".T", ".effort", ".friction", ".normal", ".force")
    return (".fn" in name or ".ft" in name or name == "painleve.status"
            or name.endswith(means))

# ss.planar.moreau_jean, samples 10, 19, 25, 31 (module docstring: since issue 23 item 3
# the joints' rows carry their curvature over the step, as planar._mj_step does)
SLIDER_RECORDED = {
    "slider.x": [0.4409271792174801, 0.3985392595229865, 0.36072770257449177,
                 0.32499271745507585],
    "slider.y": [-0.0006941269363102913, 0.001003810606440896, 0.0010037981638479723,
                 0.001003430028813534],
    "crank.phi": [0.4, 0.7600000000000001, 1.0, 1.2100000000000002],
    "guide.gap.1": [0.0016941269363102938, -3.8106064408939544e-06, -3.7981638479726854e-06,
                    -3.4300288135336032e-06],
    "guide.fn.1": [0.0, 1.6615808687963909, 0.997500631839192, 0.0],
    "guide.ft.1": [0.0, -0.01661580868796391, -0.00997500631839192, 0.0],
    "guide.fn.2": [0.0, 1.6782801740104243, 1.0075257638174757, 0.0],
}
# the same at samples 1, 2 of the incline (before the old step's round-off opening)
INCLINE_RECORDED = {
    "block.x": [9.880743918749592e-05, 0.0003952297567499837],
    "block.y": [-6.918571375028214e-05, -0.0002767428550011285],
    "block.xd": [0.019761487837499186, 0.03952297567499837],
    "slope.fn": [16.071763108950023, 16.071763108950005],
    "slope.ft": [-6.428705243580009, -6.428705243580002],
}


def _incline():
    return block_on_incline(math.radians(35.0), 0.4)


def _route(model, run, **options):
    t_end, h, dt_out = run
    return model.simulate(t_end, dt=h, method="moreau_jean", dt_out=dt_out, **options)


def _assert_same(a, b, tol=1e-12, skip_first_forces=False):
    np.testing.assert_array_equal(a.t, b.t)
    for name in b.names:
        first = 1 if skip_first_forces and _of_a_step(name) else 0
        np.testing.assert_allclose(a[name][first:], b[name][first:], rtol=0, atol=tol,
                                   err_msg=name)


@pytest.mark.parametrize(("make", "run", "recorded", "index"), [
    (clearance_slider_crank, SLIDER_RUN, SLIDER_RECORDED, [10, 19, 25, 31]),
    (_incline, INCLINE_RUN, INCLINE_RECORDED, [1, 2]),
], ids=["clearance_slider", "incline"])
def test_route_equals_the_reference_and_its_recorded_values(make, run, recorded, index):
    route = _route(make(), run)
    reference = ss.planar.moreau_jean(make(), run[0], run[1], dt_out=run[2])
    _assert_same(route, reference)
    for name, values in recorded.items():
        np.testing.assert_allclose(route[name][index], values, rtol=0, atol=1e-12,
                                   err_msg=name)
    assert reference.meta["status"] == 0 and route.meta["restitution"] == 0.0
    for name in ("painleve.none", "painleve.several", "painleve.status"):
        assert np.all(route[name] == 0.0)


def test_ss_simulate_runs_the_contact_system_itself():
    # the incline has no joints: the model's start is the system's, nothing to assemble
    host = ss.simulate(contact_system(_incline()), INCLINE_RUN[0], dt=INCLINE_RUN[1],
                       method="moreau_jean", dt_out=INCLINE_RUN[2], theta=0.5)
    _assert_same(host, _route(_incline(), INCLINE_RUN, theta=0.5))
    assert host.meta["method"] == "moreau_jean" and host.meta["theta"] == 0.5


def test_a_sliding_block_follows_the_closed_form_exactly():
    # θ = 1/2 is exact for constant forces: s = a t²/2, a = g (sin θ − μ cos θ)
    res = _route(_incline(), (0.5, 1e-3, 1e-2))
    angle = math.radians(35.0)
    s = res["block.x"] * math.cos(angle) - res["block.y"] * math.sin(angle)
    a = 9.81 * (math.sin(angle) - 0.4 * math.cos(angle))
    np.testing.assert_allclose(s, 0.5 * a * res.t ** 2, rtol=0, atol=1e-14)
    assert np.all(res["slope.fn"] > 0)               # never opens on a round-off gap


def test_a_block_between_the_kinetic_and_static_angle_does_not_move():
    # tan 25° = 0.466: above μ = 0.3, below μ_s = 0.6. Drift measured 8.3e-20 m after 2 s
    # (round-off of the stuck steps' velocity, ≈ 1e-19 m/s); the old activation rule
    # (gap <= 0) opened the contact on a round-off gap and slid 2.6 m.
    angle = math.radians(25.0)
    m = ss.planar.Model(gravity=(0.0, -9.81))
    block = m.add_body("block", mass=2.0, inertia=0.02)
    m.add(ss.planar.PointLineContact(m.ground, block, line_axis_i=(math.cos(angle),
                                                                  -math.sin(angle)),
                                     mu=0.3, mu_s=0.6, name="slope"))
    res = m.simulate(2.0, dt=1e-3, method="moreau_jean", dt_out=0.1)
    drift = np.hypot(res["block.x"], res["block.y"])
    assert np.max(drift) < 1e-14
    weight = 2.0 * 9.81
    np.testing.assert_allclose(res["slope.fn"], weight * math.cos(angle), rtol=1e-12)
    np.testing.assert_allclose(res["slope.ft"], -weight * math.sin(angle), rtol=1e-12)


@pytest.mark.parametrize(("make", "states", "forces"), [
    (_incline, 0.0, 0.0),                        # no time-dependent load: bit for bit
    (clearance_slider_crank, 1e-12, 1e-9),       # driven crank: t = t0 + k h rounds apart
], ids=["incline", "clearance_slider"])
def test_split_runs_equal_one_run(make, states, forces):
    one = make().simulate(0.06, dt=1e-4, method="moreau_jean", dt_out=2e-3)
    first = make().simulate(0.03, dt=1e-4, method="moreau_jean", dt_out=2e-3)
    second = make().simulate(0.06, dt=1e-4, method="moreau_jean", dt_out=2e-3,
                             initial=first)
    assert second.t[0] == first.t[-1] == 0.03 and second.t[-1] == 0.06
    tail = slice(first.t.size - 1, None)
    for name in second.names:
        if _of_a_step(name):
            # sample 0 of a run holds its first step's forces (the core's convention)
            np.testing.assert_allclose(second[name][1:], one[name][tail][1:], rtol=0,
                                       atol=forces, err_msg=name)
        else:
            np.testing.assert_allclose(second[name], one[name][tail], rtol=0, atol=states,
                                       err_msg=name)


def test_the_run_ends_exactly_at_t_end():
    res = _route(_incline(), (0.0105, 1e-3, None))
    assert res.t[-1] == 0.0105 and res.t.size == 12
    assert res.meta["last_interval"] == pytest.approx(5e-4)
    reference = ss.planar.moreau_jean(_incline(), 0.0105, 1e-3)
    assert reference.meta["last_step"] == pytest.approx(5e-4)
    _assert_same(res, reference)
    # the last step's mean force is its impulse over its own length, not over h
    np.testing.assert_allclose(res["slope.fn"][-1], res["slope.fn"][-2], rtol=1e-12)


@pytest.mark.parametrize(("options", "message"), [
    ({"dt": None}, r"method='moreau_jean' needs the time step `dt`"),
    ({"dt": -1e-3}, r"`planar.Model.simulate.dt` must be > 0"),
    ({"dt": 0.5}, r"`simulate.dt` must be at most the span"),
    ({"dt": 1e-3, "dt_out": 1.5e-3}, r"dt_out"),
    ({"dt": 1e-3, "theta": 1.5}, r"`simulate.theta` must be in \[0, 1\]; got theta=1.5"),
    ({"dt": 1e-3, "theta": float("nan")}, r"`simulate.theta` must be finite"),
    ({"dt": 1e-3, "restitution": 1.5},
     r"`planar.Model.simulate.restitution` must be <= 1; got restitution=1.5"),
    ({"dt": 1e-3, "baumgarte": (10.0, 10.0)}, r"drop `planar.Model.simulate.baumgarte`"),
    ({"dt": 1e-3, "contact_formulation": "anitescu"},
     (r"PlanarSystem does not support method='moreau_jean'.*contact_formulation is "
      r"'anitescu'")),
])
def test_bad_steps_and_options_are_refused_by_name(options, message):
    with pytest.raises(ParameterError, match=message):
        _incline().simulate(0.1, method="moreau_jean", **options)


def test_restitution_is_refused_on_the_ode_route_and_used_on_the_time_stepping_one():
    with pytest.raises(ParameterError, match=r"`planar.Model.simulate.restitution` is an "
                                             r"option of method='moreau_jean'"):
        _incline().simulate(0.1, dt=1e-3, restitution=0.5)
    # a block dropped 1 cm onto a floor bounces with e = 0.5: back at 1/4 of the height
    m = ss.planar.Model(gravity=(0.0, -9.81))
    block = m.add_body("block", mass=1.0, inertia=0.01, y=0.01)
    m.add(ss.planar.PointLineContact(m.ground, block, mu=0.5, name="floor"))
    res = m.simulate(0.12, dt=1e-5, method="moreau_jean", dt_out=1e-4, restitution=0.5)
    assert res.meta["restitution"] == 0.5
    bounce = res["block.y"][res.t > 0.05]
    assert bounce.max() == pytest.approx(0.0025, rel=0.02)


def test_impact_stops_with_contacts_are_refused_by_name_on_the_ode_route():
    # the event route that runs impact stops does not see the contacts: refused, never
    # passed through (method="moreau_jean" runs them: tests/planar/test_planar_mixed_elements)
    m = _incline()
    block = m.bodies[0]
    m.add(ss.planar.PointLineStop(block, restitution=0.5, name="floor_stop"))
    with pytest.raises(ss.ModelError, match=r"impact stops \['floor_stop'\].*use "
                                            r"method='moreau_jean'"):
        m.simulate(0.01, dt=1e-3, method="rk4")


def test_a_system_without_restitution_is_refused_by_name():
    base = contact_system(_incline())
    system = eqx.tree_at(lambda s: s.pairs, base,
                         dataclasses.replace(base.pairs, restitution=None))
    with pytest.raises(ParameterError, match=r"its contacts have no `restitution`"):
        ss.simulate(system, 0.01, dt=1e-3, method="moreau_jean")


def test_simulate_batch_over_mu_equals_a_loop():
    base = contact_system(_incline())
    members = [eqx.tree_at(lambda s: s.pairs.mu, base, np.array([mu]))
               for mu in (0.3, 0.5, 0.9)]
    batch = ss.simulate_batch(members, 0.2, dt=1e-3, method="moreau_jean", dt_out=1e-2)
    for i, member in enumerate(members):
        alone = ss.simulate(member, 0.2, dt=1e-3, method="moreau_jean", dt_out=1e-2)
        _assert_same(batch.member(i), alone, tol=0.0)
    # μ = 0.3 and 0.5 slide (tan 35° = 0.70), μ = 0.9 holds
    assert batch.member(0)["block.x"][-1] > batch.member(1)["block.x"][-1] > 1e-3
    assert abs(batch.member(2)["block.x"][-1]) < 1e-14
