"""More than three touching bodies and restitution between bodies on the JAX volume route
(`stickslip.spatial._volume_jax_route`, the joint QP's slots `_volume_jax_slots`, the
restitution `_volume_jax_restitution`, SPEC §7) against the numba host loop
(`_volume_host.run_host`, the reference: an independent implementation of the same
arithmetic, run here on the same arguments).

The reference's own conditioning: the host loop run again with the last body moved by
1e-13 m (`_sensitivity`, as test_volume_jax_bodies). Where that stays below 1e-9 the engines
must agree to `BOUNDS`; after an impact between bodies the two host-loop runs part (a stack
of five settling: 0.5 in the angular velocities by 30 ms), and the JAX run must stay within
100× that spread. Measured (0.1 m cubes of 1 kg, μ_s = 0.5, μ_k = 0.3, Δt = 1 ms, rk_gill):
the restitution stack of four 1.5e-10 in the states (its spread 2.6e-10), 8.9e-12 of the
largest normal force; a stack of five 8.8e-14 over the whole 0.1 s (its spread 1.6e-12:
placed in touch, it starts in contact, `_model_touch`; started at zero depth it landed and
bounced, and the runs parted by 0.54 after 80 steps); a pushed row of four 1e-7 while clean; a pile of six
2.5e-8 while clean (9 steps: the pile is unstable, its spread 0.54; the clean part only); two
boxes meeting in free space with e = 0.8 1e-15.
"""

from __future__ import annotations

import numpy as np
import pytest
from volume_channel_bounds import contact_tolerance

import stickslip as ss
from stickslip.spatial._model_touch import placed_in_touch
from stickslip.spatial._volume_host import run_host
from stickslip.spatial._volume_jax_route import jax_route_gap, run_jax
from stickslip.spatial._volume_jax_slots import slot_count

BOUNDS = {"state": 1e-6, "p": 1e-6, "n": 1e-7, "force": 1e-6, "volume": 1e-11}
PUSH = {"b0": lambda t, s: (np.array([12.0, 0, 0]), np.zeros(3))}


def _cubes(positions, spin=None, velocities=None, e=None, ground=True):
    m = ss.spatial.Model(gravity=(0, 0, -9.81) if ground else (0, 0, 0), restitution=e)
    for i, x in enumerate(positions):
        m.add_body(f"b{i}", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=x,
                   velocity=(0, 0, 0) if velocities is None else velocities[i],
                   angular_velocity=(0, 0, 0) if spin is None else spin[i])
    if ground:
        m.add_ground(mu_s=0.5, mu_k=0.3)
    return m


def _args(model, t_end, forces=None, initial=None):
    return (model, t_end, 1e-3, "rk_gill", forces, "pyramid", None, "nnls", initial, None,
            "step")


def _runs(model, t_end, forces=None, slots=None):
    """The host loop's run, the JAX run and the host loop's spread (per sample, running
    maximum over the states) under a 1e-13 m move of the last body."""
    args = _args(model, t_end, forces)
    # the run's own start (bodies placed in touch start in contact: `_model_touch`), moved
    moved = placed_in_touch(model, model.initial_state())
    moved[-1, 0] += 1e-13
    again = run_host(*_args(model, t_end, forces, moved))
    ref = run_host(*args)
    states = [n for n in ref.names if "-" not in n.split(".")[0]]
    spread = np.maximum.accumulate(np.max([np.abs(again[n] - ref[n]) for n in states],
                                          axis=0))
    return ref, run_jax(*args, slots=slots), spread


def _assert_as_host_loop(case, ref, got, spread, chaotic=False):
    """`got` equals `ref` to BOUNDS while the reference's spread is ≤ 1e-9 and, unless
    `chaotic` (a settling stack or pile whose host-loop runs part by O(1)), within 100× the
    spread afterwards."""
    clean = spread <= 1e-9
    assert clean[:5].all()
    assert ref.names == got.names and got.meta["engine"] == "jax"
    pairs = [n[:-7] for n in ref.names if n.endswith(".active")]
    fn_max = max(np.nanmax(np.abs(ref[f"{p}.fn"])) for p in pairs)
    for name in ref.names:
        a, b = ref[name], got[name]
        pair, field = name.split(".")
        np.testing.assert_array_equal(np.isnan(a[clean]), np.isnan(b[clean]), err_msg=name)
        if "-" not in pair:
            tol = BOUNDS["state"]
        elif field in ("active", "stick"):
            # a contact carrying no force may be judged either way (test_volume_jax_bodies)
            idle = (np.abs(ref[pair + ".fn"]) <= 1e-9 * fn_max) \
                & (np.abs(got[pair + ".fn"]) <= 1e-9 * fn_max)
            assert np.all((a == b) | idle | ~clean), f"{case}: {name}"
            continue
        else:
            tol = contact_tolerance(field, BOUNDS, fn_max)
        np.testing.assert_allclose(b[clean], a[clean], rtol=0, atol=tol,
                                   err_msg=f"{case}: {name}")
        if "-" not in pair and not chaotic:      # states: within the reference's spread
            assert np.all(np.abs(b - a) <= 100 * spread + tol), f"{case}: {name}"


def test_many_bodies_and_restitution_are_on_the_jax_route():
    stack = _cubes([(0, 0, 0.05 + 0.1 * i) for i in range(5)], e=0.5)
    assert jax_route_gap(stack, "pyramid", "nnls", "step") is None
    # slots: min(potential contacts, 2 per body), or the caller's
    assert slot_count(15, 5) == 10 and slot_count(3, 2) == 3 and slot_count(15, 5, 4) == 4
    with pytest.raises(ss.ParameterError, match="slots"):
        slot_count(15, 5, 0)


@pytest.fixture(scope="module")
def falling_on_a_stack():
    """A cube dropped turning onto a stack of three with e = 0.5 (four bodies: eight slots;
    the rebound and the position-only correction between bodies)."""
    model = _cubes([(0, 0, 0.05), (0, 0, 0.15), (0, 0, 0.25), (0.01, 0.005, 0.38)],
                   spin=[(0, 0, 0)] * 3 + [(0, 0, 0.5)], e=0.5)
    return _runs(model, 0.15)


@pytest.mark.slow     # its joint QP compiles for ~38 s CPU from an empty store (suite budget)
def test_a_cube_bouncing_on_a_stack_of_three_runs_as_in_the_host_loop(falling_on_a_stack):
    ref, got, spread = falling_on_a_stack
    assert (spread <= 1e-9).all()
    _assert_as_host_loop("bounce", ref, got, spread)
    # what the case claims: the top cube lands (b2-b3 active) and bounces back up
    hit = int(np.argmax(got["b2-b3.active"] == 1))
    assert hit > 0 and np.max(got["b3.vz"][hit:hit + 10]) > 0.2
    assert np.all(got["ground-b1.active"] == 0)


# slow: each case compiles the joint QP of its model (25–30 s CPU from an empty store)
MANY = {
    # a stack of five, from resting contact
    "stack of five": (_cubes([(0, 0, 0.05 + 0.1 * i) for i in range(5)]), None, 0.1),
    # test_spatial_model's row with four cubes: 12 N on the rear one, seven contacts
    "pushed row of four": (_cubes([(i * 0.1005, 0.002 * i, 0.05) for i in range(4)]), PUSH,
                           0.05),
    # a pile of six (three, two on them, one on top): ten contacts of twelve slots
    "pile of six": (_cubes([(-0.1005, 0, 0.05), (0, 0, 0.05), (0.1005, 0, 0.05),
                            (-0.05, 0, 0.1501), (0.05, 0, 0.1501), (0.0, 0.0, 0.2502)]),
                    None, 0.05),
    # test_spatial_hardening's head-on meeting in free space, with e = 0.8
    "meeting, e = 0.8": (_cubes([(0, 0, 1), (0.1053, 0.01, 1.002)], e=0.8, ground=False,
                                velocities=[(1.0, 0, 0), (-0.5, 0, 0)]), None, 0.03),
}


@pytest.fixture(scope="module", params=list(MANY))
def many(request):
    model, forces, t_end = MANY[request.param]
    return (request.param, *_runs(model, t_end, forces))


@pytest.mark.slow
def test_many_touching_bodies_run_as_in_the_host_loop(many):
    case, ref, got, spread = many
    _assert_as_host_loop(case, ref, got, spread,
                         chaotic=case == "pile of six")
    pairs = [n[:-7] for n in ref.names if n.endswith(".active")]
    active = max(sum(got[f"{p}.active"][i] for p in pairs) for i in range(len(got.t)))
    assert active == {"stack of five": 5, "pushed row of four": 7, "pile of six": 10,
                      "meeting, e = 0.8": 1}[case]
    if case == "meeting, e = 0.8":       # momentum kept, the pair parts
        assert got["b0.vx"][-1] + got["b1.vx"][-1] == pytest.approx(0.5, abs=1e-12)
        assert got["b1.vx"][-1] - got["b0.vx"][-1] > 0.5


@pytest.mark.slow
def test_more_active_contacts_than_slots_stop_the_run_naming_the_contact():
    """The pushed row with five slots: the sixth active contact finds none (the error names
    it and the step)."""
    model, forces, t_end = MANY["pushed row of four"]
    ref = run_host(*_args(model, t_end, forces))
    pairs = [n[:-7] for n in ref.names if n.endswith(".active")]
    count = np.sum([ref[f"{p}.active"] for p in pairs], axis=0)
    k = int(np.argmax(count > 5))                   # the first sample with six contacts
    with pytest.raises(ss.SimulationError, match=r"contacts are active in the step from "
                       r"t=.*5 slots and contact '.*' found none\. Pass more slots "
                       r"\(`simulate\(\.\.\., engine='jax', slots=6\)`") as err:
        model.simulate(t_end, dt=1e-3, method="rk_gill", forces=forces, engine="jax",
                       slots=5)
    assert err.value.time == pytest.approx(ref.t[k - 1], abs=1e-12)


def test_slots_are_an_option_of_the_jax_engine_only():
    model = _cubes([(0, 0, 0.05), (0, 0, 0.15)])
    with pytest.raises(ss.ParameterError, match=r"`simulate.slots` sizes the JAX engine"):
        model.simulate(0.01, dt=1e-3, slots=4)
    for bad in (0, 2.5, True):
        with pytest.raises(ss.ParameterError, match=r"`simulate.slots` .* must be a positive"):
            model.simulate(0.01, dt=1e-3, engine="jax", slots=bad)
