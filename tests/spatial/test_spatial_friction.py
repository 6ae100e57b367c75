"""The static-friction LP (eq. 28–31), the kinetic correction (32–34), the previous method and
the contact QP solver (SPEC §7 steps 3–5)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

import stickslip as ss
from stickslip.spatial._friction import (
    kinetic_correction,
    previous_static,
    static_lp_feasible,
)
from stickslip.spatial._qp import solve_cone_qp

A = 0.05                      # half side of the square footprint [m]
SQUARE = np.array([(-A, -A), (A, -A), (A, A), (-A, A)])
MU, FN = 0.5, 9.81


def test_force_axis_boundary_equals_lp_value():
    # Derivation: with zero normal-axis torque and the centre of pressure at the origin, the
    # LP's tangential forces are μ_s f_n times a point of the P-gon conv{t_p}. Along +x (a
    # pyramid edge for any P) the reach is μ_s f_n; along the bisector of two edges it is
    # μ_s f_n cos(π/P).
    for P in (4, 8, 12):
        lim = MU * FN
        assert ss.spatial.static_friction_holds((0.999 * lim, 0), 0.0, SQUARE, MU, FN, P=P)
        assert not ss.spatial.static_friction_holds((1.001 * lim, 0), 0.0, SQUARE, MU, FN, P=P)
        mid = MU * FN * np.cos(np.pi / P)
        d = np.array([np.cos(np.pi / P), np.sin(np.pi / P)])
        assert ss.spatial.static_friction_holds(0.999 * mid * d, 0.0, SQUARE, MU, FN, P=P)
        assert not ss.spatial.static_friction_holds(1.001 * mid * d, 0.0, SQUARE, MU, FN, P=P)


def test_torque_axis_boundary_equals_lp_value():
    # Derivation: τ_n = Σ_l r_l × f_l,t ≤ Σ_l |r_l| |f_l,t| ≤ μ_s Σ_l |r_l| ε_l = μ_s f_n a√2
    # for the square (every vertex is a√2 from the centre). For P = 8 the direction
    # perpendicular to each vertex (45° + 90°k) is a pyramid edge, so the bound is reached
    # with f_n/4 at each vertex.
    lim = MU * FN * A * np.sqrt(2)
    assert ss.spatial.static_friction_holds((0, 0), 0.999 * lim, SQUARE, MU, FN, P=8)
    assert not ss.spatial.static_friction_holds((0, 0), 1.001 * lim, SQUARE, MU, FN, P=8)
    assert not ss.spatial.static_friction_holds((0, 0), -1.001 * lim, SQUARE, MU, FN, P=8)


def test_force_and_torque_are_coupled_unlike_the_previous_method():
    # 0.8 of each limit: the previous method (separate limits) holds, the LP does not
    lim_f, lim_t = MU * FN, MU * FN * A * np.sqrt(2)
    w = np.array([FN, 0.8 * lim_f, 0.0, 0.8 * lim_t, 0.0, 0.0])
    assert previous_static(w, SQUARE, MU)
    assert not static_lp_feasible(w, SQUARE, MU, 8)
    assert not ss.spatial.static_friction_holds((0.8 * lim_f, 0), 0.8 * lim_t, SQUARE, MU, FN)


@settings(max_examples=150)
@given(fx=st.floats(-6, 6), fy=st.floats(-6, 6), tz=st.floats(-0.5, 0.5),
       tx=st.floats(-0.3, 0.3), ty=st.floats(-0.3, 0.3))
def test_nnls_feasibility_agrees_with_highs(fx, fy, tz, tx, ty):
    w = np.array([FN, fx, fy, tz, tx, ty])
    a = static_lp_feasible(w, SQUARE, MU, 8, solver="nnls")
    b = static_lp_feasible(w, SQUARE, MU, 8, solver="highs")
    if a != b:   # only allowed within round-off of the boundary: 0.1 % away they agree
        w2 = w.copy()
        w2[1:] *= 0.999 if b is False else 1.001
        assert static_lp_feasible(w2, SQUARE, MU, 8, solver="nnls") == \
            static_lp_feasible(w2, SQUARE, MU, 8, solver="highs")


def test_kinetic_correction_keeps_normal_part_and_limits_friction():
    w = np.array([FN, 10.0, 0.0, 0.0, 0.1, -0.05])        # far outside the cone
    d = np.tile([-1.0, 0.0], (4, 1))                       # sliding along +x everywhere
    out = kinetic_correction(w, SQUARE, d, 0.3)
    np.testing.assert_allclose(out[[0, 4, 5]], w[[0, 4, 5]], atol=1e-12)   # eq. 34
    assert out[1] == pytest.approx(-0.3 * FN)                               # μ_d f_n
    assert out[2] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_cone_qp_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    n = 6
    M = rng.normal(size=(n, n))
    H = M @ M.T + 0.1 * np.eye(n)
    g = rng.normal(size=n)
    G = rng.normal(size=(5, n))
    x0 = -np.linalg.lstsq(G, np.ones(5), rcond=None)[0]
    if not np.all(G @ x0 < 0):
        pytest.skip("no strictly feasible start for this draw")
    x = solve_cone_qp(H, g, G)
    ref = minimize(lambda y: 0.5 * y @ H @ y + g @ y, x0, jac=lambda y: H @ y + g,
                   constraints=[{"type": "ineq", "fun": lambda y: -G @ y, "jac": lambda y: -G}],
                   method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
    assert np.all(G @ x <= 1e-9)
    f = lambda y: 0.5 * y @ H @ y + g @ y      # noqa: E731
    assert f(x) <= f(ref.x) + 1e-8


def test_static_friction_holds_rejects_bad_input():
    with pytest.raises(ss.ParameterError, match="P"):
        ss.spatial.static_friction_holds((0, 0), 0, SQUARE, MU, FN, P=2)
    with pytest.raises(ss.ParameterError, match="normal_force"):
        ss.spatial.static_friction_holds((0, 0), 0, SQUARE, MU, -1.0)
    with pytest.raises(ss.ParameterError, match="footprint"):
        ss.spatial.static_friction_holds((0, 0), 0, [1, 2, 3], MU, FN)


@pytest.mark.parametrize("engine", ["numba", pytest.param("jax", marks=pytest.mark.slow)])
def test_a_box_placed_on_the_ground_holds_under_a_sub_static_push(engine):
    # placed at zero depth, the box used to fall for one step and land with an impact whose
    # next step carried half its weight: 4 N < mu_s m g broke it loose and it slid on at
    # mu_k (0.048 m in 0.3 s). It now starts 1e-9 m in (`_model_touch.placed_in_touch`).
    m = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("box", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    m.add_ground(mu_s=0.5, mu_k=0.3)
    push = {"box": lambda t, s: ((4.0, 0.0, 0.0), (0.0, 0.0, 0.0))}
    res = m.simulate(0.3, dt=1e-3, dt_out=0.01, forces=push, engine=engine)
    assert abs(res["box.x"][-1]) < 1e-9
    assert res["box.z"][0] == pytest.approx(0.05 - 1e-9, abs=1e-15)


@pytest.mark.parametrize("engine", ["numba", pytest.param("jax", marks=pytest.mark.slow)])
def test_a_stack_placed_on_the_ground_holds_under_a_sub_static_push(engine):
    # two 1 kg cubes placed exactly on each other and on the ground, 4 N on the top one
    # (< mu_s m g = 4.905 N between them, < mu_s 2 m g under the lower one). Started at zero
    # depth, the top cube landed with an impact and slid 0.047 m in 0.3 s; the stack now
    # starts each level 1e-9 m into the one under it (`_model_touch.placed_in_touch`).
    m = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("low", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    m.add_body("top", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0.15))
    m.add_ground(mu_s=0.5, mu_k=0.3)
    push = {"top": lambda t, s: ((4.0, 0.0, 0.0), (0.0, 0.0, 0.0))}
    res = m.simulate(0.3, dt=1e-3, dt_out=0.01, forces=push, engine=engine)
    assert abs(res["top.x"][-1]) < 1e-9 and abs(res["low.x"][-1]) < 1e-9
    assert res["top.z"][0] == pytest.approx(0.15 - 2e-9, abs=1e-15)
