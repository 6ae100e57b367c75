"""Frictional contacts in planar mechanisms (SPEC §6): the incline, force bounds, gaps as
δ → 0, and the Painlevé rod with its closed-form window."""

import numpy as np
import pytest

import stickslip as ss

G = 9.81


def incline(theta, mu, delta=1e-3, zeta=1.0, v0=0.0, gap0=0.0):
    """A 2 kg block (a point contact at its centre) on a slope at angle θ; the slope's line
    runs down-hill along (cos θ, −sin θ), its free side is (sin θ, cos θ)."""
    model = ss.planar.Model(gravity=(0.0, -G), name="incline")
    axis = np.array([np.cos(theta), -np.sin(theta)])
    normal = np.array([np.sin(theta), np.cos(theta)])
    x0 = gap0 * normal
    v = v0 * axis
    block = model.add_body("block", mass=2.0, inertia=0.01, x=x0[0], y=x0[1], xd=v[0], yd=v[1])
    model.add(ss.planar.PointLineContact(model.ground, block, point_j=(0.0, 0.0),
                                         line_point_i=(0.0, 0.0), line_axis_i=axis, mu=mu,
                                         delta=delta, zeta=zeta, name="slope"))
    return model


def _along(res, theta):
    return res["block.x"] * np.cos(theta) - res["block.y"] * np.sin(theta)


def test_block_sticks_below_the_friction_angle():
    theta, mu = np.radians(20.0), 0.5            # tan 20° = 0.364 < μ
    res = incline(theta, mu).simulate(10.0, dt=1e-3, dt_out=0.1)
    assert np.max(np.abs(_along(res, theta))) < 1e-12
    # the contact carries the weight: fn = m g cos θ, ft = −m g sin θ (up the slope)
    np.testing.assert_allclose(res["slope.fn"], 2.0 * G * np.cos(theta), rtol=1e-12)
    np.testing.assert_allclose(res["slope.ft"], -2.0 * G * np.sin(theta), rtol=1e-12)


@pytest.mark.slow
def test_block_sticks_for_100_seconds():
    theta, mu = np.radians(25.0), 0.5
    res = incline(theta, mu).simulate(100.0, dt=1e-3, dt_out=1.0)
    assert np.max(np.abs(_along(res, theta))) < 1e-12


@pytest.mark.parametrize("formulation", ["kikuuwe", "nakaoka"])
def test_block_slides_at_the_closed_form_acceleration(formulation):
    theta, mu = np.radians(35.0), 0.4
    res = incline(theta, mu).simulate(1.0, dt=1e-3, dt_out=0.01,
                                      contact_formulation=formulation)
    a = G * (np.sin(theta) - mu * np.cos(theta))  # closed form, m-independent
    s = _along(res, theta)
    np.testing.assert_allclose(s, 0.5 * a * res.t ** 2, rtol=1e-6, atol=1e-15)
    np.testing.assert_allclose(res["slope.ft"], -mu * res["slope.fn"], rtol=1e-12)


def test_anitescu_lifts_the_sliding_block():
    # the convexified law separates a sliding contact (w_n = μ|w_t| > 0): the gap opens
    theta, mu = np.radians(35.0), 0.4
    res = incline(theta, mu).simulate(0.5, dt=1e-3, dt_out=0.01,
                                      contact_formulation="anitescu")
    assert res["slope.gap"][-1] > 1e-4
    exact = incline(theta, mu).simulate(0.5, dt=1e-3, dt_out=0.01)
    assert np.max(np.abs(exact["slope.gap"])) < 1e-12


def _drop_and_slide(delta):
    # dropped from 5 mm and sliding: impact, bounce (ζ = 0.3), then sliding contact
    theta, mu = np.radians(30.0), 0.3
    res = incline(theta, mu, delta=delta, zeta=0.3, v0=0.5, gap0=5e-3).simulate(
        0.3, dt=delta / 10, dt_out=delta / 10)
    fn, ft = res["slope.fn"], res["slope.ft"]
    assert np.all(fn >= 0.0)
    assert np.all(np.abs(ft) <= mu * fn * (1 + 1e-12) + 1e-12)
    assert np.max(fn) > 100.0                     # the impact happened inside the run
    return -np.min(res["slope.gap"])


def test_forces_stay_in_the_cone_through_impact_and_sliding():
    assert 0 < _drop_and_slide(2e-3) < 5e-3


@pytest.mark.slow
def test_gaps_converge_as_delta_shrinks():
    worst = [_drop_and_slide(delta) for delta in (4e-3, 2e-3, 1e-3)]
    # penetration at the impact shrinks with δ (relaxed dynamics: ∝ δ |v_impact|)
    assert worst[1] < 0.6 * worst[0] and worst[2] < 0.6 * worst[1]


# --- the Painlevé rod -------------------------------------------------------------------
# A uniform rod (half-length l, mass m, J = m l²/3) at θ = 45° whose lower end touches the
# floor, sliding left (V < 0) and rising (u > 0). With s = sin θ, c = cos θ, A (rows t, n) =
# [[1 + 3s², −3sc], [−3sc, 1 + 3c²]]/m and, at λ = 0, w = (−C, D) with C = 2ζ|V|/δ,
# D = 2ζu/δ − g (SPEC §6's b). The λ-problem's solutions, mode by mode:
#   separate: λ = 0, feasible iff D ≥ 0;
#   slide (λ_t = μλ_n opposing V): λ_n = −mD/k, k = 1 + 3c² − 3μsc; needs λ_n ≥ 0 and
#     w_t = (μ(1+3s²) − 3sc)λ_n/m − C ≤ 0;
#   stick: λ_n = −(m/4)((1+3s²)D − 3scC), λ_t = (m/4)((1+3c²)C − 3scD); |λ_t| ≤ μλ_n;
#   slide the other way: λ_n = −mD/(1 + 3c² + 3μsc) < 0, never.
ROD = dict(m=1.0, l=0.5, theta=np.radians(45.0), V=-0.5, u=0.08, delta=0.01, zeta=1.0)


def rod_solution_count(mu, m, l, theta, V, u, delta, zeta):
    s, c = np.sin(theta), np.cos(theta)
    C, D = 2 * zeta * abs(V) / delta, 2 * zeta * u / delta - G
    n = int(D >= 0)
    k = 1 + 3 * c * c - 3 * mu * s * c
    if k < 0:
        ln = -m * D / k
        n += int(ln >= 0 and (mu * (1 + 3 * s * s) - 3 * s * c) * ln / m - C <= 0)
    ln = -(m / 4) * ((1 + 3 * s * s) * D - 3 * s * c * C)
    lt = (m / 4) * ((1 + 3 * c * c) * C - 3 * s * c * D)
    n += int(ln >= 0 and abs(lt) <= mu * ln)
    return n


def rod(mu, m, l, theta, V, u, delta, zeta):
    model = ss.planar.Model(gravity=(0.0, -G), name="painleve")
    body = model.add_body("rod", mass=m, inertia=m * l * l / 3, x=l * np.cos(theta),
                          y=l * np.sin(theta), phi=theta, xd=V, yd=u)
    model.add(ss.planar.PointLineContact(model.ground, body, point_j=(-l, 0.0), mu=mu,
                                         delta=delta, zeta=zeta, name="floor"))
    return model


def test_painleve_window_closed_form():
    s, c = np.sin(ROD["theta"]), np.cos(ROD["theta"])
    C = 2 * ROD["zeta"] * abs(ROD["V"]) / ROD["delta"]
    D = 2 * ROD["zeta"] * ROD["u"] / ROD["delta"] - G
    mu_stick = ((1 + 3 * c * c) * C - 3 * s * c * D) / (3 * s * c * C - (1 + 3 * s * s) * D)
    grid = np.linspace(0.1, 3.0, 59)
    several = [mu for mu in grid if rod_solution_count(mu, **ROD) > 1]
    # the window starts where sticking becomes admissible (slide is excluded here by w_t)
    assert min(several) == pytest.approx(grid[grid >= mu_stick][0])
    assert all(rod_solution_count(mu, **ROD) == 1 for mu in grid if mu < mu_stick)


@pytest.mark.parametrize("mu", [0.3, 1.6, 2.5])
def test_painleve_rod_stops_exactly_inside_the_window(mu):
    expected = rod_solution_count(mu, **ROD)
    model = rod(mu, **ROD)
    if expected > 1:
        with pytest.raises(ss.PainleveError, match="floor") as info:
            model.simulate(0.05, dt=1e-3)
        assert info.value.time == 0.0
        assert info.value.reason.startswith("several solutions")
        assert isinstance(info.value, ss.SimulationError)
    else:
        res = model.simulate(0.05, dt=1e-3)          # runs through
        assert res.t[-1] == pytest.approx(0.05)
        assert np.all(res["floor.fn"] >= 0)


def test_adaptive_integrator_runs_the_relaxed_contact():
    # the λ-problem inside diffrax (Tsit5): the sliding block keeps the closed-form motion
    theta, mu = np.radians(35.0), 0.4
    res = incline(theta, mu).simulate(0.5, method="tsit5", dt_out=0.05, rtol=1e-10,
                                      atol=1e-12)
    a = G * (np.sin(theta) - mu * np.cos(theta))
    np.testing.assert_allclose(_along(res, theta), 0.5 * a * res.t ** 2, rtol=1e-6,
                               atol=1e-12)


@pytest.mark.slow
def test_vector_field_derivative_is_finite_with_separated_contacts():
    """The clearance slider starts centred (all four corners apart, λ = 0): the derivative
    of q̈ in μ is 0 and finite in both modes (‖λ_t‖ = 0 in the cone projection once gave
    sqrt'(0) = inf, hence NaN in reverse mode)."""
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    from stickslip.planar._contact_examples import clearance_slider_crank
    from stickslip.planar._contact_simulate import contact_system

    system = contact_system(clearance_slider_crank(delta=1e-3), projection=False)
    x0 = system.initial_state()

    def qdd(mu):
        s = eqx.tree_at(lambda z: z.pairs.mu, system, jnp.full_like(system.pairs.mu, mu))
        return s.vector_field(jnp.asarray(0.0), x0)[9:18]

    for derivative in (jax.jacrev(qdd)(0.01), jax.jacfwd(qdd)(0.01)):
        assert np.all(np.asarray(derivative) == 0.0)


def test_lean_run_repeats_with_the_fallback_where_the_active_set_fails(monkeypatch):
    """The four-corner slider runs first without the enumeration fallback (the vector field
    of the lean run); where that run's active set failed — counted as "no solution", forced
    here on its counter — the run is repeated with the fallback compiled, and that run's
    results are returned (no Painlevé stop: the full solve finds the solutions)."""
    from stickslip import integrate
    from stickslip.planar._contact_examples import clearance_slider_crank

    real, fallbacks = integrate.simulate, []

    class FailedSomewhere:
        def __init__(self, res):
            self.res = res

        def __getitem__(self, name):
            out = self.res[name]
            return np.ones_like(out) if name == "painleve.none" else out

    def simulate(system, *args, **kwargs):
        fallbacks.append(system.pairs.fallback)
        res = real(system, *args, **kwargs)
        return res if system.pairs.fallback else FailedSomewhere(res)

    monkeypatch.setattr(integrate, "simulate", simulate)
    res = clearance_slider_crank(delta=1e-3).simulate(0.01, dt=2.5e-4, dt_out=1e-3)
    assert fallbacks == [False, True]
    assert res.meta["lambda_fallback"] == "rerun"
    assert np.all(res["painleve.none"] == 0.0)
    # where evaluations enumerate for uniqueness (the rod's two contacts: 16 combinations)
    # the fallback is compiled in the first and only run
    fallbacks.clear()
    res = rod(0.3, **ROD).simulate(0.01, dt=1e-3)
    assert fallbacks == [True] and res.meta["lambda_fallback"] == "compiled"
