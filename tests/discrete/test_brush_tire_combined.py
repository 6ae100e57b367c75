"""Brush tire with combined slip and the yaw term (SPEC §6, Kikuuwe et al. SI2007; issue 22
item 7), against the classic isotropic brush model (Pacejka, *Tire and Vehicle Dynamics*,
§3.2: parabolic pressure, B = 0)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stickslip as ss
from stickslip.discrete._tire_combined import (
    brush_analytic_combined,
    brush_analytic_spin,
    steady_state_combined,
    theoretical_slip,
)
from stickslip.nonsmooth import in_sgn

finite = {"allow_nan": False, "allow_infinity": False}
TIRE = ss.discrete.BrushTire.example()
MU_FZ = float(TIRE.mu * TIRE.Fz)
ARM = 0.5 * float(TIRE.L)                                  # a: half the patch length
SPEED, T, N_STEPS = 10.0, 1e-3, 80
_step = jax.jit(ss.discrete.brush_tire_step_combined)

# (κ, α [deg]): pure lateral, pure longitudinal, combined, full sliding
KAPPA = np.array([0.0, 0.0, 0.0, 0.05, -0.05, 0.03, -0.05, 0.1, 0.02, -0.3])
ALPHA = np.deg2rad([1.0, 2.0, 5.0, 0.0, 0.0, 2.0, 3.0, -4.0, 10.0, 1.0])


def tire(B=100.0, n_cells=100):
    return ss.discrete.BrushTire(L=0.2, K=2.4e6, B=B, mu=1.0, Fz=4000.0, R=0.3, n_cells=n_cells)


def _quadrature(sigma_x, sigma_y, t):
    """F and M_z integrated from the closed-form force density on a fine grid: stick with
    density K σ ξ (ξ from the leading edge), sliding at μ q(ξ), both along σ."""
    L, K, mu, Fz = (float(v) for v in (t.L, t.K, t.mu, t.Fz))
    xi = np.linspace(0.0, L, 200_001)
    sigma = np.hypot(sigma_x, sigma_y)
    density = np.minimum(K * sigma * xi, mu * 6 * Fz * xi * (L - xi) / L ** 3)
    F = np.trapezoid(density, xi)
    return (F * sigma_x / sigma, F * sigma_y / sigma,
            np.trapezoid((L / 2 - xi) * density, xi) * sigma_y / sigma)


def test_closed_forms_agree_with_a_quadrature_of_the_force_density():
    sx, sy = theoretical_slip(KAPPA, ALPHA)
    closed = np.array(brush_analytic_combined(sx, sy, TIRE))
    quad = np.array([_quadrature(a, b, TIRE) for a, b in zip(sx, sy)]).T
    np.testing.assert_allclose(closed, quad, atol=1e-7 * MU_FZ)


@pytest.mark.parametrize("B, tol_force, tol_moment", [(0.0, 2e-4, 1e-4), (10.0, 5e-4, 5e-4)])
def test_combined_slip_matches_the_classic_brush_model(B, tol_force, tol_moment):
    """Force parallel to σ with the brush-model magnitude, and the aligning moment, to
    `tol_force` μF_z and `tol_moment` μF_z·(L/2) (measured at 100 cells: 1.0e-4 and 3.0e-5
    with B = 0; 2.5e-4 and 1.9e-4 with B = 10 N·s/m², which adds B·w over the stick region).
    Isotropic bristles under a uniform slip keep F parallel to σ to round-off (6e-16 μF_z)."""
    t = tire(B)
    F, Mz, _, _ = steady_state_combined(t, SPEED, KAPPA, ALPHA, T, N_STEPS)
    F, Mz = np.asarray(F), np.asarray(Mz)
    sx, sy = theoretical_slip(KAPPA, ALPHA)
    Fx, Fy, Mz_ref = brush_analytic_combined(sx, sy, t)
    np.testing.assert_allclose(F[:, 0], Fx, atol=tol_force * MU_FZ)
    np.testing.assert_allclose(F[:, 1], Fy, atol=tol_force * MU_FZ)
    np.testing.assert_allclose(Mz, Mz_ref, atol=tol_moment * MU_FZ * ARM)
    cross = (F[:, 0] * sy - F[:, 1] * sx) / np.hypot(sx, sy)    # |F| sin(angle to σ)
    assert np.max(np.abs(cross)) <= 1e-12 * MU_FZ
    assert np.all(np.hypot(F[:, 0], F[:, 1]) <= MU_FZ * (1 + 1e-12))   # inside the circle


def test_pure_side_slip_aligning_moment_and_stick_region():
    """Pacejka §3.2: M_z = −μF_z a λ(1 − λ)³, λ = θ tan α (free rolling), and the patch
    sticks from the leading edge to ξ_s = L(1 − λ)."""
    t = tire(0.0)
    alpha = np.deg2rad([0.5, 1.0, 2.0, 3.0, 4.0, 6.0])
    F, Mz, _, f = steady_state_combined(t, SPEED, 0.0, alpha, T, N_STEPS)
    lam = t.theta() * np.tan(alpha)
    expected = -MU_FZ * ARM * lam * (1 - lam) ** 3
    np.testing.assert_allclose(np.asarray(Mz), expected, atol=1e-4 * MU_FZ * ARM)
    assert np.all(np.asarray(Mz) < 0) and np.all(np.asarray(F)[:, 1] > 0)  # self-aligning
    bound = float(t.mu) * np.asarray(t.load_density())
    nodes = np.asarray(t.nodes)
    for row, lam_i in zip(np.asarray(f), lam):
        sliding = np.hypot(row[1:-1, 0], row[1:-1, 1]) >= bound[1:-1] * (1 - 1e-9)
        assert np.all(np.diff(sliding.astype(int)) >= 0)          # stick first, then slide
        if lam_i < 1:
            xi_s = nodes[1 + int(np.argmax(sliding))]
            assert xi_s == pytest.approx(float(t.L) * (1 - lam_i), abs=2 * float(t.L) / 100)


def test_pure_yaw_rate_gives_the_parabolic_deflection_and_the_spin_closed_form():
    """Free rolling, V_y = 0, yaw rate ψ̇ = s Rω (derivation: `brush_analytic_spin`). The
    sticking deflection e_y = (s/2)(a² − x²) is even in x, so at small spin the lateral force
    is F_y = −K L³ s/12 (not zero: bristles entering at the front accumulate it) and the
    moment vanishes; beyond s = 2c (2.5 /m here) the front slides and M_z opposes ψ̇.
    Measured at 100 cells: F_y within 5.0e-4 relative (1.0e-4 while all sticks: the
    trapezoid rule on the parabola), M_z within 1.5e-4 μF_z a, |M_z| < 1e-12 N·m while all
    sticks, e_y on the parabola to 1e-14."""
    t = tire(0.0)
    s = np.array([0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 50.0, -0.5, -5.0])
    F, Mz, e, _ = steady_state_combined(t, SPEED, 0.0, 0.0, T, N_STEPS, s * SPEED)
    F, Mz, e = np.asarray(F), np.asarray(Mz), np.asarray(e)
    Fy_ref, Mz_ref = brush_analytic_spin(s, t)
    assert np.max(np.abs(F[:, 0])) < 1e-9 * MU_FZ                 # no longitudinal force
    np.testing.assert_allclose(F[:, 1], Fy_ref, rtol=1e-3)
    np.testing.assert_allclose(Mz, Mz_ref, atol=3e-4 * MU_FZ * ARM)
    small = np.abs(s) <= 2.0
    K, L = float(t.K), float(t.L)
    np.testing.assert_allclose(F[small, 1], -K * L ** 3 * s[small] / 12, rtol=2e-4)
    assert np.all(np.abs(Mz[small]) < 1e-9 * MU_FZ * ARM)
    large = np.abs(s) >= 3.0
    assert np.all(np.sign(Mz[large]) == -np.sign(s[large]))       # opposes the yaw rate
    x = ARM - np.asarray(t.nodes)
    np.testing.assert_allclose(e[1, :, 1], 0.5 * s[1] * (ARM ** 2 - x ** 2),
                               atol=1e-12 * 0.5 * s[1] * ARM ** 2)  # the parabola


def test_convergence_with_n_cells_is_second_order():
    """Translation slip and spin (the yaw term sampled mid-cell: see the step's Notes)."""
    kappa, alpha = np.array([0.03, 0.0, 0.0]), np.deg2rad([2.0, 3.0, 0.0])
    yaw = np.array([0.0, 0.0, 5.0 * SPEED])                       # spin s = 5 /m: sliding
    sx, sy = theoretical_slip(kappa, alpha)
    ref = np.array(brush_analytic_combined(sx, sy, TIRE))[:2, :2].T
    spin_ref = np.array(brush_analytic_spin(5.0, TIRE))
    slip_err, spin_err = [], []
    for n in (50, 100, 200):
        F, Mz, _, _ = steady_state_combined(tire(0.0, n), SPEED, kappa, alpha, T, N_STEPS, yaw)
        F, Mz = np.asarray(F), np.asarray(Mz)
        slip_err.append(np.max(np.abs(F[:2] - ref)))
        spin_err.append(np.max(np.abs([F[2, 1] - spin_ref[0], (Mz[2] - spin_ref[1]) / ARM])))
    slip_order = np.log2(slip_err[0] / slip_err[-1]) / 2
    spin_order = np.log2(spin_err[0] / spin_err[-1]) / 2
    assert slip_order > 1.8 and spin_order > 1.8, (slip_order, spin_order, slip_err, spin_err)


def test_without_lateral_slip_and_yaw_it_is_the_longitudinal_step():
    rng = np.random.default_rng(7)
    for _ in range(5):
        e1 = rng.normal(0.0, 2e-3, TIRE.n_cells + 1)
        V, omega = rng.uniform(-30, 30), rng.uniform(-100, 100)
        Fx, e, f = ss.discrete.brush_tire_step(e1, V, omega, T, TIRE)
        e2 = np.stack([e1, np.zeros_like(e1)], axis=-1)
        F2, Mz2, e2, f2 = _step(e2, jnp.array([V, 0.0]), omega, T, TIRE)
        assert float(F2[0]) == pytest.approx(float(Fx), rel=1e-12, abs=1e-9)
        np.testing.assert_allclose(np.asarray(e2[:, 0]), np.asarray(e), rtol=1e-12, atol=1e-17)
        np.testing.assert_allclose(np.asarray(f2[:, 0]), np.asarray(f), rtol=1e-12, atol=1e-9)
        assert float(F2[1]) == 0.0 and float(Mz2) == 0.0 and not np.any(np.asarray(e2[:, 1]))


@settings(max_examples=30, deadline=None)
@given(Vx=st.floats(-30, 30, **finite), Vy=st.floats(-5, 5, **finite),
       omega=st.floats(-100, 100, allow_subnormal=False, **finite),  # XLA flushes subnormals
       yaw=st.floats(-20, 20, allow_subnormal=False, **finite),
       T=st.floats(1e-4, 1e-2, **finite), seed=st.integers(0, 2 ** 31 - 1))
def test_every_node_satisfies_the_discrete_inclusion(Vx, Vy, omega, yaw, T, seed):
    """|f| ≤ μq everywhere, f = μq·(sliding velocity)/|…| where it slides (SPEC §6)."""
    e_prev = jnp.asarray(np.random.default_rng(seed).normal(0, 2e-3, (TIRE.n_cells + 1, 2)))
    F, Mz, e, f = (np.asarray(v) for v in _step(e_prev, jnp.array([Vx, Vy]), omega, T, TIRE,
                                                 yaw))
    n, Z, K, B = TIRE.n_cells, float(TIRE.L) / TIRE.n_cells, float(TIRE.K), float(TIRE.B)
    mu, R = float(TIRE.mu), float(TIRE.R)
    x = ARM - np.asarray(TIRE.nodes)
    x_cell = x + (0.5 if omega >= 0 else -0.5) * Z          # middle of the upwind cell
    w = np.stack([np.full(n + 1, Vx - R * omega), Vy + yaw * x_cell], axis=-1)
    order = slice(None) if omega >= 0 else slice(None, None, -1)
    e_s, e_old, f_s, w_s = e[order], np.asarray(e_prev)[order], f[order], w[order]
    q = np.asarray(TIRE.load_density())[order]
    transport = T * R * abs(omega)
    T_hat = T * Z / (Z + transport)
    assert not np.any(e_s[0])
    for i in range(1, n + 1):
        e_hat = (Z * e_old[i] + transport * e_s[i - 1]) / (Z + transport)
        rate = (e_s[i] - e_hat) / T_hat                          # De/Dt
        scale = max(1.0, np.linalg.norm(f_s[i]), (K + B / T_hat) * np.linalg.norm(e_hat),
                    K * T_hat * np.linalg.norm(w_s[i]))
        assert np.linalg.norm(f_s[i] - (K * e_s[i] + B * rate)) <= 1e-9 * scale
        assert np.linalg.norm(f_s[i]) <= mu * q[i] * (1 + 1e-12) + 1e-9 * scale
        assert in_sgn(f_s[i], (K * T_hat + B) * (w_s[i] - rate), mu * q[i], tol=1e-9 * scale)
    np.testing.assert_allclose(F, -Z * (f.sum(axis=0) - 0.5 * (f[0] + f[-1])), rtol=1e-12,
                               atol=1e-9)
    assert Mz == pytest.approx(-Z * (np.sum(x * f[:, 1]) - 0.5 * (x[0] * f[0, 1]
                                                                   + x[-1] * f[-1, 1])),
                               rel=1e-12, abs=1e-9)


def test_reversed_rolling_mirrors_the_patch():
    """Mirroring x → −x: V_x, ω and ψ̇ change sign, V_y does not; F_x and M_z flip."""
    e0 = jnp.zeros((TIRE.n_cells + 1, 2))
    ahead = _step(e0, jnp.array([10.0, -0.5]), 30.0, T, TIRE, 2.0)
    back = _step(e0, jnp.array([-10.0, -0.5]), -30.0, T, TIRE, -2.0)
    assert float(back[0][0]) == pytest.approx(-float(ahead[0][0]), rel=1e-12)
    assert float(back[0][1]) == pytest.approx(float(ahead[0][1]), rel=1e-12)
    assert float(back[1]) == pytest.approx(-float(ahead[1]), rel=1e-12)
    np.testing.assert_allclose(np.asarray(back[2]), np.asarray(ahead[2])[::-1] * [-1, 1],
                               atol=1e-15)


def test_compiled_step_does_not_retrace():
    e0 = jnp.zeros((TIRE.n_cells + 1, 2))
    traces = []
    step = jax.jit(lambda e, V, om, r: (traces.append(1),
                                        ss.discrete.brush_tire_step_combined(e, V, om, T, TIRE,
                                                                             r))[1])
    step(e0, jnp.array([10.0, 0.1]), 30.0, 0.5)
    step(e0, jnp.array([11.0, -0.1]), 31.0, -0.5)
    assert len(traces) == 1


GOOD = {"e_prev": jnp.zeros((TIRE.n_cells + 1, 2)), "V": jnp.array([10.0, 0.0]),
        "omega": 30.0, "T": 1e-3, "tire": TIRE, "yaw_rate": 0.0}


@pytest.mark.parametrize("field, value, match", [
    ("V", jnp.array([10.0, 0.0, 0.0]), "brush_tire_step_combined.V` must be the wheel"),
    ("V", 10.0, "brush_tire_step_combined.V"),
    ("V", jnp.array([10.0, np.nan]), "brush_tire_step_combined.V` must be finite"),
    ("e_prev", jnp.zeros(TIRE.n_cells + 1), r"e_prev` must have shape \(101, 2\)"),
    ("e_prev", jnp.zeros((TIRE.n_cells, 2)), r"e_prev` must have shape \(101, 2\)"),
    ("yaw_rate", np.nan, "brush_tire_step_combined.yaw_rate` must be finite"),
    ("yaw_rate", np.inf, "brush_tire_step_combined.yaw_rate` must be finite"),
    ("yaw_rate", jnp.zeros(3), "brush_tire_step_combined.yaw_rate` must be a scalar"),
    ("omega", np.nan, "brush_tire_step_combined.omega` must be finite"),
    ("T", -1e-3, "brush_tire_step_combined.T"),
    ("tire", "example", "brush_tire_step_combined.tire` must be a BrushTire"),
])
def test_bad_input_is_named(field, value, match):
    with pytest.raises(ss.ParameterError, match=match):
        ss.discrete.brush_tire_step_combined(**{**GOOD, field: value})


@pytest.mark.slow
def test_figure_is_written_with_its_claims(tmp_path):
    from stickslip.figures._brush_tire_combined import make

    summary = make(tmp_path)
    assert (tmp_path / "brush_tire_combined.png").stat().st_size > 10_000
    assert (tmp_path / "brush_tire_combined.csv").stat().st_size > 1_000
    assert summary["max_deviation_from_brush_model_over_muFz"] < 5e-3
    assert summary["max_combined_force_over_muFz"] <= 1 + 1e-12
