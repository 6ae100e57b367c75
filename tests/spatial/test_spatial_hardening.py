"""Issue 11 items 1, 2, 6, 9 and the divergence guard for `ss.spatial` (SPEC §7); issue 14's
`static_friction_holds` default. Each test here failed on the code before these fixes."""

import inspect

import numpy as np
import pytest

import stickslip as ss

G = 9.81


def _box_model(z, vz=0.0, **model_kw):
    model = ss.spatial.SpatialModel(gravity=(0, 0, -G), **model_kw)
    model.add_body("box", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, z),
                   velocity=(0, 0, vz))
    model.add_ground(mu_s=0.5, mu_k=0.3)
    return model


# --- item 1: tunnelling and restitution --------------------------------------------------

def test_fast_box_does_not_tunnel_through_the_ground():
    # the case: a 0.1 m box resting on the ground at 100 m/s downward, Δt = 1 ms:
    # before, it passed through (z = -4.96 m after 0.05 s, no contact detected)
    model = _box_model(0.05, -100.0)
    with pytest.raises(ss.SimulationError, match=r"body 'box'.*t=0 s.*dt <= 0\.0004") as err:
        model.simulate(0.05, dt=1e-3)
    assert err.value.time == 0.0
    # the step the message names works: the box meets the ground and stays above it
    res = _box_model(0.05, -100.0, restitution=0.5).simulate(0.05, dt=4e-4)
    assert res["ground-box.active"].sum() > 0
    assert np.min(res["box.z"]) > 0.0 and res["box.z"][-1] > 0.05
    assert res["box.vz"][-1] == pytest.approx(0.5 * 100.0 - G * 0.05, rel=0.01)


def test_fast_box_does_not_tunnel_through_another_box():
    model = ss.spatial.SpatialModel(gravity=(0, 0, 0))
    model.add_body("a", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0))
    model.add_body("b", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0.2, 0, 0),
                   velocity=(-100.0, 0, 0))
    with pytest.raises(ss.SimulationError, match=r"body 'b'.*body 'a'.*dt <= "):
        model.simulate(0.01, dt=1e-3)


@pytest.mark.parametrize("e", [0.0, 0.3, 0.8, 1.0])
def test_rebound_keeps_e_squared_of_the_impact_energy(e):
    # the paper's eq. 3 (k = 1/Δt) rebounds anywhere between 4 % and 99 % of the impact
    # speed depending on how deep the impact step happened to go; with `restitution` the
    # bounce keeps e² of the energy it met the ground with, whatever the speed and the
    # phase (`_volume_wrench.rebound_speed`): ½v² + g z of the box's bottom after the
    # impact step is e² times that at its start, to eq. 10's λ = 1e-3 (the rebound speed
    # (1 + e) λ low). With v⁺ = e·v_in, a bounce at e = 1 gained m g (depth + Δt v⁺):
    # 1.5 % of the energy at 1.4 m/s
    for v in (1.0, 5.0, 20.0, 50.0):
        for gap in (0.0005, 0.004, 0.009):
            model = _box_model(0.05 + gap + 1e-3 * v, -v, restitution=e)
            res = model.simulate(0.03, dt=1e-3)
            first = int(np.argmax(res["ground-box.active"] > 0))
            energy = 0.5 * res["box.vz"] ** 2 + G * (res["box.z"] - 0.05)
            before, after = energy[first - 1], energy[first]
            assert after == pytest.approx(e * e * before,
                                          abs=2 * (1 + e) * 1.5e-3 * before + 1e-9)
            # at speed, the rebound speed is e times the impact speed
            v_out, v_in = res["box.vz"][first], -res["box.vz"][first - 1]
            assert v_out == pytest.approx(e * v_in, abs=(1 + e) * 1.5e-3 * v_in
                                          + 2 * G * 1e-3 + 1e-9)
            assert np.min(res["box.z"]) > 0.05 - 1e-3 * v      # never deeper than one step


def test_a_box_bouncing_with_e_1_keeps_its_energy_bounce_after_bounce():
    # ten bounces from 10 cm in 3 s: with v⁺ = e·v_in the peaks rose 0.1013, 0.1031, …,
    # 0.1148 m (+15 % energy); now each keeps its energy to eq. 10's λ (0.4 % a bounce)
    res = _box_model(0.15, restitution=1.0).simulate(3.0, dt=1e-3, dt_out=1e-3)
    z = res["box.z"] - 0.05
    energy = 0.5 * res["box.vz"] ** 2 + G * z
    assert energy.max() <= energy[0] * (1 + 1e-9)
    peaks = [z[k] for k in range(1, len(z) - 1) if z[k - 1] < z[k] >= z[k + 1] and z[k] > 1e-3]
    assert len(peaks) == 10
    np.testing.assert_allclose(np.diff(peaks) / peaks[:-1], -0.004, atol=0.001)


@pytest.mark.parametrize("e", [0.0, 0.5, 1.0])
def test_restitution_between_bodies_keeps_momentum(e):
    # two boxes (1 kg, 2 kg) meet head-on in free space at 1.5 m/s: Newton's law of
    # restitution, v_b' - v_a' = e (v_a - v_b), and momentum conservation
    m = ss.spatial.SpatialModel(gravity=(0, 0, 0), restitution=e)
    m.add_body("a", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 1),
               velocity=(1.0, 0, 0))
    m.add_body("b", mass=2.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0.1053, 0, 1),
               velocity=(-0.5, 0, 0))
    res = m.simulate(0.03, dt=1e-3)
    va, vb = res["a.vx"][-1], res["b.vx"][-1]
    assert va + 2 * vb == pytest.approx(0.0, abs=1e-12)
    assert vb - va == pytest.approx(e * 1.5, abs=(1 + e) * 1.5e-3 * 1.5 + 1e-9)


def test_paper_target_rebound_depends_on_the_impact_phase():
    # documents why `restitution` exists: same speed, different phase, different rebound
    ratios = []
    for gap in (0.0005, 0.004):
        res = _box_model(0.05 + gap + 5e-3, -5.0).simulate(0.03, dt=1e-3)
        first = int(np.argmax(res["ground-box.active"] > 0))
        ratios.append(res["box.vz"][first:].max() / -res["box.vz"][first - 1])
    assert abs(ratios[0] - ratios[1]) > 0.2


def test_ground_restitution_overrides_the_models():
    model = ss.spatial.SpatialModel(gravity=(0, 0, -G), restitution=1.0)
    model.add_body("box", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1),
                   position=(0, 0, 0.057), velocity=(0, 0, -2.0))
    model.add_ground(mu_s=0.5, mu_k=0.3, restitution=0.0)
    res = model.simulate(0.05, dt=1e-3)
    assert np.max(res["box.vz"][10:]) < 1e-3                   # stays down


def test_restitution_resting_box_settles():
    res = _box_model(0.05, restitution=0.7).simulate(0.2, dt=1e-3)
    assert abs(res["box.z"][-1] - 0.05) < 1e-6
    # eq. 10's λ lowers the normal force by λ: the velocity target 0 is missed by λ g Δt
    # (the paper's target hides this in a depth of λ g Δt / k instead)
    assert abs(res["box.vz"][-1]) < 1.1e-3 * G * 1e-3
    assert np.max(res["box.vz"][50:]) < 1e-9                       # no hops
    assert res["ground-box.fn"][-1] == pytest.approx(G, rel=1e-3)


# --- item 2: starting interpenetration ----------------------------------------------------

def test_overlapping_bodies_are_rejected_with_volume_names_and_fix():
    # before: two 0.1 m boxes 1 cm into each other were launched apart at tens of m/s
    model = ss.spatial.SpatialModel(gravity=(0, 0, 0))
    model.add_body("a", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0))
    model.add_body("b", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0.09, 0, 0))
    with pytest.raises(ss.ModelError, match=r"'a' and 'b'.*overlap volume 0\.0001 m\^3"
                       r".*by 0\.01 m along \[1\.0, 0\.0, 0\.0\]"):
        model.simulate(0.01, dt=1e-3)


def test_coincident_bodies_are_rejected():
    # before: coincident bodies saw no contact at all (eq. 2's normal sums to zero)
    model = ss.spatial.SpatialModel(gravity=(0, 0, 0))
    for name in ("a", "b"):
        model.add_body(name, mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 1))
    with pytest.raises(ss.ModelError, match="coincident"):
        model.simulate(0.01, dt=1e-3)


def test_body_inside_the_ground_is_rejected_but_a_resting_state_is_not():
    with pytest.raises(ss.ModelError, match=r"'box' starts 0\.01 m inside the ground.*"
                       r"Raise its position z by 0\.01 m"):
        _box_model(0.04).simulate(0.01, dt=1e-3)
    model = _box_model(0.05)
    rest = model.simulate(0.05, dt=1e-3)
    assert rest.final_state[0, 2] < 0.05                         # penetrates by ~1e-8 m
    model.simulate(0.01, dt=1e-3, initial=rest.final_state)     # accepted
    model.simulate(0.01, dt=1e-3, initial=rest, t0=0.0)


# --- item 6: continuation, t0, last sample = t_end ----------------------------------------

def _pushed(t0_force=0.0):
    # a horizontal push growing with time: a run that restarts time at 0 would differ
    return {"box": lambda t, s: (np.array([8.0 * t, 0.0, 0.0]), np.zeros(3))}


def test_continuation_from_results_equals_one_run():
    model = _box_model(0.05)
    whole = model.simulate(0.3, dt=1e-3, forces=_pushed(), dt_out=0.01)
    first = model.simulate(0.15, dt=1e-3, forces=_pushed(), dt_out=0.01)
    second = model.simulate(0.3, dt=1e-3, forces=_pushed(), dt_out=0.01, initial=first)
    assert second.t[0] == pytest.approx(0.15) and second.t[-1] == 0.3
    np.testing.assert_allclose(second.final_state, whole.final_state, rtol=0, atol=1e-12)
    np.testing.assert_allclose(second["box.x"], whole["box.x"][15:], rtol=0, atol=1e-12)
    assert whole["box.vx"][-1] > 0.0                            # it did slide (8 t > μ g)


def test_last_sample_is_t_end_and_matches_final_state():
    # before: t_end = 0.105 with dt_out = 0.01 ended at 0.1 s, final_state at 0.105 s
    model = _box_model(0.05)
    res = model.simulate(0.105, dt=1e-3, dt_out=0.01, forces=_pushed())
    assert res.t[-1] == 0.105 and res.t[-2] == pytest.approx(0.1) and len(res.t) == 12
    for j, c in enumerate(["x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz"]):
        assert res[f"box.{c}"][-1] == res.final_state[0, j]
    assert res.meta["t_end"] == 0.105 and res.meta["system"] == "SpatialModel"


def test_t_end_off_the_step_grid_ends_with_a_short_step():
    # the grid rule of ss.simulate (stickslip.integrate.step_grid): a shorter last step
    model = _box_model(0.3)
    res = model.simulate(0.1005, dt=1e-3, dt_out=0.01)
    assert res.t[-1] == 0.1005 and res.t[-2] == pytest.approx(0.1)
    assert res["box.vz"][-1] == pytest.approx(-G * 0.1005, rel=1e-12)    # free fall


def test_t0_shifts_time_dependent_forces():
    seen = []

    def force(t, s):
        seen.append(t)
        return np.zeros(3), np.zeros(3)

    _box_model(0.05).simulate(1.01, dt=1e-3, t0=1.0, forces={"box": force})
    assert min(seen) == pytest.approx(1.0) and max(seen) <= 1.01


def test_model_names():
    assert ss.spatial.Model is ss.spatial.SpatialModel
    assert ss.spatial.SpatialModel is not ss.planar.Model


# --- item 9: geometry ---------------------------------------------------------------------

def test_open_polyhedron_is_rejected():
    cube = ss.spatial.Box(1.0, 1.0, 1.0)
    with pytest.raises(ss.ParameterError, match=r"`open5` is not closed"):
        ss.spatial.Polyhedron(cube.vertices, [list(f) for f in cube.faces[:5]], name="open5")


def test_inverted_face_is_rejected():
    cube = ss.spatial.Box(1.0, 1.0, 1.0)
    faces = [list(f) for f in cube.faces]
    faces[0] = faces[0][::-1]
    with pytest.raises(ss.ParameterError):
        ss.spatial.Polyhedron(cube.vertices, faces)


def test_impossible_inertia_is_rejected_naming_body_and_moments():
    model = ss.spatial.SpatialModel()
    with pytest.raises(ss.ParameterError,
                       match=r"body 'rod'.*\[1\.0, 1\.0, 3\.0\].*I3 <= I1 \+ I2"):
        model.add_body("rod", mass=1.0, inertia=(1.0, 1.0, 3.0),
                       shape=ss.spatial.Box(0.1, 0.1, 0.1))
    # a flat plate is the limit I3 = I1 + I2: accepted
    model.add_body("plate", mass=1.0, inertia=(1.0, 2.0, 3.0),
                   shape=ss.spatial.Box(0.1, 0.1, 0.1))


# --- divergence ---------------------------------------------------------------------------

def test_finite_divergence_stops_with_time_body_and_last_sane_state():
    # explicit Euler on a spinning plate (intermediate axis) gains energy at every step;
    # before, the run returned angular velocities of 10^3 rad/s and more without a word
    model = ss.spatial.SpatialModel(gravity=(0, 0, 0))
    model.add_body("plate", mass=1.0, shape=ss.spatial.Box(0.4, 0.2, 0.02),
                   position=(0, 0, 1), angular_velocity=(0.1, 100.0, 0.1))
    with pytest.raises(ss.SimulationError, match=r"diverged by t=.*body 'plate'.*last sane") \
            as err:
        model.simulate(5.0, dt=2e-2, method="euler")
    assert 0 < err.value.time < 1.0
    assert np.all(np.isfinite(err.value.state["plate"]))
    # the same plate with RK4 and a small step conserves its energy: no false alarm
    model.simulate(1.0, dt=1e-3, method="rk4")


def test_nan_force_stops_naming_body_and_time():
    model = _box_model(0.2)
    bad = {"box": lambda t, s: (np.array([np.nan if t > 0.01 else 0.0, 0, 0]), np.zeros(3))}
    with pytest.raises(ss.SimulationError, match=r"'box'.*t=0\.01"):
        model.simulate(0.05, dt=1e-3, forces=bad)


# --- issue 14: static_friction_holds ------------------------------------------------------

def test_static_friction_holds_defaults_to_nnls_and_agrees_with_highs():
    default = inspect.signature(ss.spatial.static_friction_holds).parameters["solver"].default
    assert default == "nnls"
    sq = [(-0.05, -0.05), (0.05, -0.05), (0.05, 0.05), (-0.05, 0.05)]
    fmax, tmax = 0.5 * G, 0.5 * G * 0.05 * np.sqrt(2)
    agree = held = 0
    for f in np.linspace(0, 1.1 * fmax, 13):
        for tau in np.linspace(0, 1.1 * tmax, 13):
            a = ss.spatial.static_friction_holds((f, 0.3 * f), tau, sq, mu_s=0.5,
                                                 normal_force=G)
            b = ss.spatial.static_friction_holds((f, 0.3 * f), tau, sq, mu_s=0.5,
                                                 normal_force=G, solver="highs")
            agree += a == b
            held += a
    assert agree == 169 and 20 < held < 150
