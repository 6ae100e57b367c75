"""`simulate(..., method="moreau_jean")` on PointOnPlane and TwoBlocksConveyor (issue 21,
item 1): exact stick, closed-form slides, the grid and continuation, batches, the ODE route
as its limit, and the route's refusals."""

import math

import equinox as eqx
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

G, MU = 9.81, 0.5                       # PointOnPlane's defaults: g and the friction μ
MU1, MU2, MU3, M1, M2, KS, U = 0.3, 0.3, 0.5, 1.0, 2.0, 100.0, 0.1   # TwoBlocks' defaults


class _Load(eqx.Module):
    """A constant load (fx, fy, fz) [N] held as an array: traced data of the system, so
    every load runs one compiled program (a closure's numbers would be baked into one each)."""

    value: jnp.ndarray

    def __call__(self, t):
        return self.value + 0.0 * t


def _point(force, M=1.0, **kw):
    return ss.systems.PointOnPlane(M=M, contact=ss.laws.NewtonImpact(e=0.0),
                                   force=_Load(jnp.asarray(force, dtype=float)), **kw)


def _rigid(e=0.0):
    return tuple(ss.laws.NewtonImpact(e=e) for _ in range(3))


def _blocks(x0, **kw):
    return ss.systems.TwoBlocksConveyor(contacts=_rigid(), x0=x0, **kw)


PRESSED = (0.0, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)   # blocks touching, spring 10 N: slides
HELD = (0.0, 0.03, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)     # spring 3 N: held by friction
FREE = (0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0)      # block 2 1 m from block 1


# --- PointOnPlane ---------------------------------------------------------------------------

def test_point_under_a_load_inside_the_cone_does_not_move():
    # |f_t| = 3.61 N < μ·M·g = 4.905 N: stuck from the first step, exactly
    res = ss.simulate(_point([3.0, 2.0, 0.0]), 2.0, method="moreau_jean", dt=1e-2)
    for name in ("x", "y", "z", "vx", "vy", "vz"):
        assert np.all(res[name] == 0.0), name
    np.testing.assert_allclose(res["fx"], -3.0, rtol=1e-12)
    np.testing.assert_allclose(res["fy"], -2.0, rtol=1e-12)
    np.testing.assert_allclose(res["fz"], G, rtol=1e-12)
    assert np.all(res["ax"] == 0.0) and np.all(res["ay"] == 0.0)     # no proxy


def test_point_above_the_cone_slides_along_the_force_at_the_closed_form_rate():
    # M = 2 kg, |f_t| = 15 N along (0.8, 0.6), pressed by 5 N: N = M g + 5, and the
    # acceleration is (|f_t| − μN)/M along the force; θ = 1/2 is exact for it
    M, push = 2.0, 5.0
    N = M * G + push
    a = (15.0 - MU * N) / M
    res = ss.simulate(_point([12.0, 9.0, -push], M=M), 1.0, method="moreau_jean", dt=1e-2)
    np.testing.assert_allclose(res["vx"], 0.8 * a * res.t, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res["vy"], 0.6 * a * res.t, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res["x"], 0.4 * a * res.t ** 2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res["y"], 0.3 * a * res.t ** 2, rtol=0, atol=1e-12)
    assert np.all(res["z"] == 0.0) and np.all(res["vz"] == 0.0)
    np.testing.assert_allclose(res["fz"], N, rtol=1e-12)
    np.testing.assert_allclose(np.hypot(res["fx"], res["fy"]), MU * N, rtol=1e-12)


def test_point_landing_with_a_sideways_speed_stops_in_the_closed_form_distance():
    # dropped from 0.2 m with vx = 1 m/s onto a plastic plane: the landing step's normal
    # impulse M·|vz| also bounds the friction impulse (μ·P_n), then Coulomb deceleration μg
    point = ss.systems.PointOnPlane(M=1.0, contact=ss.laws.NewtonImpact(e=0.0),
                                    p0=(0.0, 0.0, 0.2), v0=(1.0, 0.0, 0.0))
    h = 1e-4
    res = ss.simulate(point, 1.0, method="moreau_jean", dt=h)
    landed = res.t > math.sqrt(2 * 0.2 / G) + 2 * h
    assert np.all(res["vz"][landed] == 0.0) and np.all(res["vy"] == 0.0)
    v_land = 1.0 - MU * math.sqrt(2 * G * 0.2)          # the impact's friction impulse
    x_land = math.sqrt(2 * 0.2 / G)
    rest = x_land + v_land ** 2 / (2 * MU * G)
    assert res["x"][-1] == pytest.approx(rest, abs=2 * h)      # landing resolved to a step
    stopped = res["vx"] == 0.0
    assert stopped[-1] and np.ptp(res["x"][stopped]) == 0.0


def _varying_point():
    # a load that alternately drives the point beyond the cone and lets it stick
    return ss.systems.PointOnPlane(
        M=1.0, contact=ss.laws.NewtonImpact(e=0.0),
        force=lambda t: jnp.stack([8.0 * jnp.sin(4.0 * t), 3.0 * jnp.cos(5.0 * t),
                                   -2.0 + 0.0 * t]))


def _split_equals_whole(system, names):
    whole = ss.simulate(system, 1.0, method="moreau_jean", dt=1e-3, dt_out=1e-2)
    first = ss.simulate(system, 0.6, method="moreau_jean", dt=1e-3, dt_out=1e-2)
    second = ss.simulate(system, 1.0, method="moreau_jean", dt=1e-3, dt_out=1e-2,
                         initial=first)
    assert second.t[0] == 0.6 and second.t[-1] == 1.0
    # the samples' times are t0 + k·dt from each run's start, so the loads see times that
    # differ in the last bit: the states are equal to 1e-14 of the channel's scale. The
    # forces to 1e-13: a stuck friction is (M/h)·w_free, the velocities' round-off over h.
    # A run's first sample reports the forces of its first step (the route's rule), so
    # forces compare from the second
    for name in names:
        force = name.startswith("f")
        first_sample = 1 if force else 0
        scale = max(np.abs(whole[name]).max(), 1.0) * (1e-13 if force else 1e-14)
        np.testing.assert_allclose(second[name][first_sample:],
                                   whole[name][60 + first_sample:], rtol=0, atol=scale,
                                   err_msg=name)
    return whole


def test_point_split_run_equals_one_run():
    whole = _split_equals_whole(_varying_point(), ("x", "y", "vx", "vy", "fx", "fy", "fz"))
    speed = np.hypot(whole["vx"], whole["vy"])
    assert np.any(speed[1:] == 0.0) and np.any(speed > 0.1)    # it sticks and it slides


def test_point_t_end_exact_when_not_a_multiple_of_dt():
    a = 15.0 - MU * G
    t_end = 0.3037
    res = ss.simulate(_point([15.0, 0.0, 0.0]), t_end, method="moreau_jean", dt=1e-2,
                      dt_out=0.1)
    assert res.t[-1] == t_end and res.meta["steps"] == 31
    assert res["x"][-1] == pytest.approx(0.5 * a * t_end ** 2, abs=1e-14)
    assert res["vx"][-1] == pytest.approx(a * t_end, abs=1e-14)


def _swirl(t):
    return jnp.stack([8.0 * jnp.sin(7.0 * t), 6.0 * jnp.cos(5.0 * t), 0.0 * t])


def test_point_batch_over_mu_equals_a_loop():
    points = [ss.systems.PointOnPlane(
        M=1.0, contact=ss.laws.NewtonImpact(e=0.0), force=_swirl,
        friction=ss.laws.CoulombODE(mu=mu, K=1e4, beta=2e-2)) for mu in (0.2, 0.5, 0.9)]
    batch = ss.simulate_batch(points, 1.0, method="moreau_jean", dt=1e-3, dt_out=1e-2)
    for i, point in enumerate(points):
        single = ss.simulate(point, 1.0, method="moreau_jean", dt=1e-3, dt_out=1e-2)
        for name in ("x", "y", "vx", "fx", "fz"):
            np.testing.assert_allclose(batch.member(i)[name], single[name], rtol=0,
                                       atol=1e-14, err_msg=name)


def test_point_ode_route_approaches_the_exact_step_as_K_grows():
    # a slide from rest under 8 N (> μ M g) for 0.5 s, then a stop: the ODE route's
    # proxies (friction K with β = 2/√K, contact 10 K) lag the exact Coulomb slide by
    # O(1/√K) (the breakaway term of CoulombODE.for_tolerance); measured max |Δx| over
    # 1 s 7.4e-3, 2.3e-3, 7.3e-4 m for K = 1e4, 1e5, 1e6 (RK4, dt = 1e-5)
    def load(t):
        return jnp.stack([jnp.where(t < 0.5, 8.0, 0.0), 0.0 * t, 0.0 * t])
    exact = ss.simulate(ss.systems.PointOnPlane(M=1.0, contact=ss.laws.NewtonImpact(e=0.0),
                                                force=load), 1.0, method="moreau_jean",
                        dt=1e-5, dt_out=1e-2)
    x_exact = 0.5 * (8.0 - MU * G) * 0.5 ** 2 * (1 + (8.0 - MU * G) / (MU * G))
    assert exact["x"][-1] == pytest.approx(x_exact, abs=1e-9)       # stopped, exactly
    errors = []
    for K in (1e4, 1e5, 1e6):
        ode = ss.simulate(ss.systems.PointOnPlane(
            M=1.0, force=load, friction=ss.laws.CoulombODE(mu=MU, K=K, beta=2 / math.sqrt(K)),
            contact=ss.laws.UnilateralODE(K=10 * K, beta=2 / math.sqrt(10 * K),
                                          alpha=1 / math.sqrt(10 * K))),
            1.0, dt=1e-5, dt_out=1e-2)
        errors.append(np.abs(ode["x"] - exact["x"]).max())
    assert errors[0] > 2.5 * errors[1] > 6 * errors[2]
    assert errors[2] < 1e-3


# --- TwoBlocksConveyor ----------------------------------------------------------------------

def test_blocks_spring_below_the_friction_hold_does_not_move():
    # the belt presses block 2 on block 1 on the wall with μ3·P3; block 1's 3 N spring is
    # held by the two frictions: nothing moves, to the last bit, for 2 s
    res = ss.simulate(_blocks(HELD), 2.0, method="moreau_jean", dt=1e-3)
    for name, start in zip(("p1x", "p1y", "p2x", "p2y", "v1x", "v1y", "v2x", "v2y"), HELD):
        assert np.all(res[name] == start), name
    # statically indeterminate (block 1 stuck on two surfaces, block 2 on the belt): the
    # step takes the least friction, half of the spring force each
    np.testing.assert_allclose(res["fr_wall"] + res["fr_blocks"], KS * 0.03, rtol=1e-12)
    np.testing.assert_allclose(res["fr_wall"], res["fr_blocks"], rtol=1e-12)
    np.testing.assert_allclose(res["f_belt"], M2 * G + res["fr_blocks"], rtol=1e-12)
    np.testing.assert_allclose(res["f_blocks"], MU3 * res["f_belt"], rtol=1e-12)  # slips
    np.testing.assert_allclose(res["fr_belt"], -res["f_blocks"], rtol=1e-12)
    np.testing.assert_allclose(res["f_wall"], res["f_blocks"], rtol=1e-12)


def test_blocks_spring_above_the_hold_slides_with_the_coupled_closed_form():
    # block 1 slides down both surfaces; its friction drags block 2 onto the belt, so the
    # belt's normal force is M2 g/(1 − μ2 μ3) and block 1 feels
    # Fk = (μ1 + μ2)·μ3·M2 g/(1 − μ2 μ3) (the coupled fixed point, exact at every step)
    # and moves as y* + (y0 − y*) cos ωt, y* = Fk/Ks, until it stops at ωt = π
    p3 = M2 * G / (1 - MU2 * MU3)
    fk = (MU1 + MU2) * MU3 * p3
    y_star, w = fk / KS, math.sqrt(KS / M1)
    res = ss.simulate(_blocks(PRESSED), 0.6, method="moreau_jean", dt=1e-4)
    slide = (res.t > 0.0) & (res.t < math.pi / w - 1e-3)
    np.testing.assert_allclose(res["f_belt"][slide], p3, rtol=1e-12)
    np.testing.assert_allclose((res["fr_wall"] + res["fr_blocks"])[slide], fk, rtol=1e-12)
    np.testing.assert_allclose(res["fr_wall"][slide], MU1 * res["f_wall"][slide], rtol=1e-12)
    # the θ-method's phase error (ωh)²ωt/12 ~ 3e-8 of the amplitude: measured 4.7e-9 m
    y = y_star + (PRESSED[1] - y_star) * np.cos(w * res.t)
    np.testing.assert_allclose(res["p1y"][slide], y[slide], rtol=0, atol=2e-8)
    stuck = res.t > math.pi / w + 2e-3
    assert np.all(res["v1y"][stuck] == 0.0) and np.ptp(res["p1y"][stuck]) == 0.0
    assert res["p1y"][-1] == pytest.approx(2 * y_star - PRESSED[1], abs=1e-8)
    for name in ("p1x", "p2x", "p2y", "v2x", "v2y"):
        assert np.all(res[name] == 0.0), name


def test_free_block_is_dragged_to_the_belt_speed_exactly():
    # block 2 alone on the belt: μ3 g until it moves with the belt (−u), then exactly −u
    res = ss.simulate(_blocks(FREE), 0.5, method="moreau_jean", dt=1e-3)
    t_stick = U / (MU3 * G)
    sliding = res.t < t_stick - 1e-3
    np.testing.assert_allclose(res["v2x"][sliding], -MU3 * G * res.t[sliding], rtol=0,
                               atol=1e-14)
    np.testing.assert_allclose(res["p2x"][sliding], 1.0 - 0.5 * MU3 * G * res.t[sliding] ** 2,
                               rtol=0, atol=1e-14)
    carried = res.t > t_stick + 1e-3
    assert np.all(res["v2x"][carried] == -U)
    np.testing.assert_allclose(res["p2x"][carried],
                               1.0 - U ** 2 / (2 * MU3 * G) - U * (res.t[carried] - t_stick),
                               rtol=0, atol=U * 1e-3)          # the stop within a step
    assert np.all(res["fr_belt"][carried] == 0.0)
    for name in ("p1x", "p1y", "v1x", "v1y", "p2y", "v2y", "f_blocks", "f_wall"):
        assert np.all(res[name] == 0.0), name


def test_blocks_split_run_equals_one_run():
    # the default run (rigid): block 2 dragged into block 1 (a plastic impact), block 1
    # sliding and sticking
    whole = _split_equals_whole(ss.systems.TwoBlocksConveyor(contacts=_rigid()),
                                ("p1y", "p2x", "v1y", "v2x", "f_belt", "fr_wall", "fr_blocks"))
    assert np.any(whole["v1y"][1:] == 0.0) and np.any(np.abs(whole["v1y"]) > 0.5)


def test_blocks_t_end_exact_when_not_a_multiple_of_dt():
    t_end = 0.0137                                # before block 2 reaches the belt speed
    res = ss.simulate(_blocks(FREE), t_end, method="moreau_jean", dt=1e-3, dt_out=5e-3)
    assert res.t[-1] == t_end and res.meta["steps"] == 14
    assert res["p2x"][-1] == pytest.approx(1.0 - 0.5 * MU3 * G * t_end ** 2, abs=1e-14)
    assert res["v2x"][-1] == pytest.approx(-MU3 * G * t_end, abs=1e-14)


@pytest.mark.slow   # batch = loop also checked on the point (test_point_batch_over_mu_...)
def test_blocks_batch_over_the_spring_equals_a_loop():
    systems = [ss.systems.TwoBlocksConveyor(contacts=_rigid(), Ks=ks) for ks in (50.0, 100.0,
                                                                                 200.0)]
    batch = ss.simulate_batch(systems, 1.0, method="moreau_jean", dt=1e-3, dt_out=1e-2)
    for i, system in enumerate(systems):
        single = ss.simulate(system, 1.0, method="moreau_jean", dt=1e-3, dt_out=1e-2)
        for name in ("p1y", "p2x", "v1y", "f_belt", "fr_wall"):
            np.testing.assert_allclose(batch.member(i)[name], single[name], rtol=0,
                                       atol=1e-14, err_msg=name)


@pytest.mark.slow   # the convergence study; the point's (test_point_ode_route_...) stays
def test_blocks_ode_route_approaches_the_exact_step_as_K_grows():
    # the slide of PRESSED through its stop: frictions CoulombODE(K, β = 2/√K), contacts
    # UnilateralODE(10 K); measured max |Δp1y| over 0.6 s 8.4e-4, 8.5e-5, 8.5e-6 m for
    # K = 1e4, 1e5, 1e6 (RK4, dt = 1e-5): O(1/K)
    exact = ss.simulate(_blocks(PRESSED), 0.6, method="moreau_jean", dt=1e-5, dt_out=1e-3)
    errors = []
    for K in (1e4, 1e5, 1e6):
        def law(mu, K=K):
            return ss.laws.CoulombODE(mu=mu, K=K, beta=2 / math.sqrt(K))
        contacts = tuple(ss.laws.UnilateralODE(K=10 * K, beta=2 / math.sqrt(10 * K),
                                               alpha=1 / math.sqrt(10 * K)) for _ in range(3))
        ode = ss.simulate(ss.systems.TwoBlocksConveyor(
            contacts=contacts, frictions=(law(MU1), law(MU2), law(MU3)), x0=PRESSED),
            0.6, dt=1e-5, dt_out=1e-3)
        errors.append(np.abs(ode["p1y"] - exact["p1y"]).max())
    assert errors[0] > 5 * errors[1] > 25 * errors[2]
    assert errors[2] < 2e-5


# --- refusals -------------------------------------------------------------------------------

POINT = _point([1.0, 0.0, 0.0])
BLOCKS = ss.systems.TwoBlocksConveyor(contacts=_rigid())


@pytest.mark.parametrize("system", [POINT, BLOCKS], ids=["point", "blocks"])
@pytest.mark.parametrize("dt", [0.0, -1e-3])
def test_nonpositive_step_is_refused(system, dt):
    with pytest.raises(ss.ParameterError, match=r"`simulate\.dt`"):
        ss.simulate(system, 1.0, method="moreau_jean", dt=dt)


def _lugre_frictions():
    return (ss.laws.LuGre(), *BLOCKS.frictions[1:])


@pytest.mark.parametrize("system, method, why", [
    (ss.systems.PointOnPlane(M=1.0, contact=ss.laws.NewtonImpact(e=0.0),
                             friction=ss.laws.LuGre()), "moreau_jean",
     "LuGre has no set-valued form"),
    (ss.systems.PointOnPlane(M=1.0), "moreau_jean",
     "contact law UnilateralODE is compliant"),
    (POINT, "rk4", "NewtonImpact is a rigid impact law"),
    (ss.systems.TwoBlocksConveyor(contacts=_rigid(), frictions=_lugre_frictions()),
     "moreau_jean", "frictions[0]: its friction law LuGre has no set-valued form"),
    (ss.systems.TwoBlocksConveyor(), "moreau_jean", "contacts [0, 1, 2] are compliant"),
    (BLOCKS, "tsit5", "NewtonImpact is a rigid impact law"),
])
def test_route_refused_for_a_law_without_that_form(system, method, why):
    with pytest.raises(ss.ParameterError) as info:
        ss.simulate(system, 1.0, method=method, dt=1e-2)
    text = str(info.value)
    assert text.startswith(f"{type(system).__name__} does not support method='{method}'")
    assert why in text and "It supports" in text


def test_both_problems_of_a_point_are_named_at_once():
    point = ss.systems.PointOnPlane(M=1.0, friction=ss.laws.LuGre())
    with pytest.raises(ss.ParameterError, match=r"LuGre has no set-valued form.*; and its "
                                                r"contact law UnilateralODE is compliant"):
        ss.simulate(point, 1.0, method="moreau_jean", dt=1e-2)


def test_blocks_coupling_too_strong_for_the_fixed_point_is_refused():
    frictions = tuple(ss.laws.CoulombODE(mu=mu, K=1e4, beta=2e-2) for mu in (1.0, 0.3, 0.95))
    blocks = ss.systems.TwoBlocksConveyor(contacts=_rigid(), frictions=frictions)
    with pytest.raises(ss.ParameterError, match=r"μ3·max\(μ1, μ2\) = 0\.95 must be below 0\.9"):
        ss.simulate(blocks, 1.0, method="moreau_jean", dt=1e-2)
