"""The numba-compiled per-step solvers of the spatial contact (SPEC §7 steps 3–5) against
SciPy and against the NumPy/SciPy implementations they replaced (kept here as references):
the Lawson–Hanson NNLS, the small LP of eq. 33/34, the LP feasibility test of eq. 28–31, the
kinetic correction (32–34), the previous method and the cone QP (16, 25)."""

from itertools import combinations

import numba
import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.optimize import nnls as scipy_nnls

from stickslip.spatial._friction import (
    kinetic_correction,
    lp_feasible,
    previous_kinetic,
    previous_static,
    previous_torque_limit,
    pyramid_matrix,
    small_lp_max,
    static_lp_feasible,
)
from stickslip.spatial._nnls import nnls
from stickslip.spatial._qp import solve_cone_qp

# --- the replaced NumPy/SciPy implementations (references) ------------------------------

def ref_pyramid_matrix(r, mu, P):
    ang = 2 * np.pi * np.arange(P) / P
    cp, sp = np.cos(ang), np.sin(ang)
    r1, r2 = r[:, 0][:, None], r[:, 1][:, None]
    ones = np.ones((len(r), P))
    return np.stack([ones, mu * cp * ones, mu * sp * ones, mu * (r1 * sp - r2 * cp),
                     r2 * ones, -r1 * ones]).reshape(6, -1)


def ref_lp_feasible(wrench, r, mu_s, P=8, rtol=1e-9):
    fn = wrench[0]
    if fn <= 0:
        return bool(np.all(np.abs(wrench) <= 1e-12))
    R = max(float(np.max(np.abs(r))), 1e-300)
    s = np.array([1.0, 1.0, 1.0, 1 / R, 1 / R, 1 / R])
    M, y = ref_pyramid_matrix(r, mu_s, P) * s[:, None], wrench * s / fn
    _, res = scipy_nnls(M, y, maxiter=50 * M.shape[1])
    return bool(res <= rtol * max(np.linalg.norm(y), 1.0))


def ref_small_lp_max(w, A, b):
    L = A.shape[1]
    if L >= 3:
        B = np.array(list(combinations(range(L), 3)), dtype=int).reshape(-1, 3)
        mats = A[:, B].transpose(1, 0, 2)
        det = np.linalg.det(mats)
        good = np.abs(det) > 1e-12 * np.abs(A).max() ** 3
        if good.any():
            sol = np.linalg.solve(mats[good],
                                  np.broadcast_to(b, (good.sum(), 3))[..., None])[..., 0]
            feas = np.all(sol >= -1e-9 * max(abs(b[0]), 1e-300), axis=1)
            if feas.any():
                idx = B[good][feas]
                k = int(np.argmax(np.einsum("ij,ij->i", w[idx], sol[feas])))
                x = np.zeros(L)
                x[idx[k]] = np.maximum(sol[feas][k], 0.0)
                return x
    out = linprog(-w, A_eq=A, b_eq=b, bounds=(0, None), method="highs")
    if out.status == 0:
        return out.x
    return scipy_nnls(A, b)[0]


def ref_normal_rows(r):
    return np.stack([np.ones(len(r)), r[:, 1], -r[:, 0]])


def ref_kinetic_correction(wrench, r, slip_dir, mu_d):
    fn, f1, f2, tn = wrench[0], wrench[1], wrench[2], wrench[3]
    R = max(float(np.max(np.hypot(r[:, 0], r[:, 1]))), 1e-300)
    scale_f = max(abs(fn), abs(f1), abs(f2), 1e-300)
    inv = lambda x, s: (1.0 / x) if abs(x) > 1e-6 * s else 0.0
    tnl = r[:, 0] * slip_dir[:, 1] - r[:, 1] * slip_dir[:, 0]
    w = mu_d * (slip_dir[:, 0] * inv(f1, scale_f) + slip_dir[:, 1] * inv(f2, scale_f)
                + tnl * inv(tn, scale_f * R))
    eps = ref_small_lp_max(w, ref_normal_rows(r), wrench[[0, 4, 5]])
    return np.array([eps.sum(), mu_d * eps @ slip_dir[:, 0], mu_d * eps @ slip_dir[:, 1],
                     mu_d * eps @ tnl, eps @ r[:, 1], -eps @ r[:, 0]])


def ref_previous_torque_limit(wrench, r, mu):
    rad = np.hypot(r[:, 0], r[:, 1])
    eps = ref_small_lp_max(mu * rad, ref_normal_rows(r), wrench[[0, 4, 5]])
    return float(mu * rad @ eps)


def ref_previous_kinetic(wrench, r, mu_d):
    out = np.array(wrench, dtype=float)
    ft = np.hypot(out[1], out[2])
    if ft > mu_d * out[0]:
        out[1:3] *= mu_d * out[0] / ft
    tl = ref_previous_torque_limit(out, r, mu_d)
    out[3] = np.clip(out[3], -tl, tl)
    return out


def ref_solve_cone_qp(H, g, G, x0, max_iter=200):
    x = -np.linalg.solve(H, g)
    if G.shape[0] == 0 or np.all(G @ x <= 1e-12 * (np.abs(G) @ np.abs(x) + 1e-300)):
        return x
    x = np.array(x0, dtype=float)
    work, n = [], len(x)
    for _ in range(max_iter):
        grad = H @ x + g
        if work:
            Gw, m = G[work], len(work)
            K = np.zeros((n + m, n + m))
            K[:n, :n], K[:n, n:], K[n:, :n] = H, Gw.T, Gw
            rhs = np.concatenate([-grad, np.zeros(m)])
            try:
                sol = np.linalg.solve(K, rhs)
            except np.linalg.LinAlgError:
                sol = np.linalg.lstsq(K, rhs, rcond=None)[0]
            p, lam = sol[:n], sol[n:]
        else:
            p, lam = np.linalg.solve(H, -grad), np.zeros(0)
        if np.linalg.norm(p) <= 1e-13 * (np.linalg.norm(x) + 1e-300):
            if lam.size == 0 or lam.min() >= -1e-12 * (np.abs(lam).max() + 1e-300):
                return x
            work.pop(int(np.argmin(lam)))
            continue
        Gp, Gx = G @ p, G @ x
        alpha, block = 1.0, -1
        for i in np.flatnonzero(Gp > 0):
            if i in work:
                continue
            a = max(-Gx[i], 0.0) / Gp[i]
            if a < alpha:
                alpha, block = a, int(i)
        x = x + alpha * p
        if block >= 0:
            work.append(block)
    return x


# --- random problems ---------------------------------------------------------------------

def random_polygon(rng, L):
    """A convex polygon (L, 2) [m] around the origin: points in angular order on an ellipse
    (semi-axes 2–10 cm), gaps below π, centre shifted a little; the origin stays inside."""
    while True:
        base = 2 * np.pi * np.arange(L) / L
        ang = base + rng.uniform(-0.2, 0.2, L) * 2 * np.pi / L + rng.uniform(0, 2 * np.pi)
        a, b = rng.uniform(0.02, 0.1, 2)
        r = np.column_stack([a * np.cos(ang), b * np.sin(ang)])
        r += rng.uniform(-0.1, 0.1, 2) * min(a, b)
        e = np.roll(r, -1, axis=0) - r
        if np.all(e[:, 0] * (-r[:, 1]) - e[:, 1] * (-r[:, 0]) > 0):   # origin strictly inside
            return np.ascontiguousarray(r)


def random_wrench(rng, r, mu, cop_inside=True):
    """(f_n, f_1, f_2, tau_n, tau_1, tau_2): friction up to 1.5 of its cone, normal torque up
    to 1.5 of μ f_n R, centre of pressure at a random polygon point (or outside)."""
    fn = rng.uniform(1.0, 20.0)
    R = np.max(np.hypot(r[:, 0], r[:, 1]))
    lam = rng.dirichlet(np.ones(len(r)))
    cop = lam @ r if cop_inside else rng.uniform(-3, 3, 2) * R
    f1, f2 = mu * fn * rng.uniform(-1.5, 1.5, 2)
    tn = mu * fn * R * rng.uniform(-1.5, 1.5)
    return np.array([fn, f1, f2, tn, fn * cop[1], -fn * cop[0]])   # τ = p × f_n n


def random_slip(rng, L):
    ang = rng.uniform(0, 2 * np.pi)
    d = np.column_stack([np.cos(ang + rng.normal(0, 0.3, L)), np.sin(ang + rng.normal(0, 0.3, L))])
    d[rng.random(L) < 0.15] = 0.0                      # some vertices not slipping
    return np.ascontiguousarray(d)


def rel(a, b):
    return np.abs(np.asarray(a) - np.asarray(b)).max() / max(np.abs(b).max(), 1e-300)


# --- NNLS ----------------------------------------------------------------------------------

def nnls_problems():
    rng = np.random.default_rng(1)
    for trial in range(300):
        m, n = rng.integers(1, 9), rng.integers(1, 40)
        kind = trial % 5
        M = rng.normal(size=(m, n))
        if kind == 1:                                   # rank deficient: low-rank product
            k = rng.integers(1, max(min(m, n) - 1, 1) + 1)
            M = rng.normal(size=(m, k)) @ rng.normal(size=(k, n))
        elif kind == 2 and n > 1:                       # repeated columns
            M[:, n // 2:] = M[:, :n - n // 2]
        y = rng.normal(size=m)
        if kind == 3:                                   # zero solution: Mᵀy ≤ 0
            y = -M @ rng.uniform(0, 1, n)
            M = np.abs(M)
            y = -np.abs(y)
        elif kind == 4:                                 # consistent, x ≥ 0
            x = np.where(rng.random(n) < 0.5, 0.0, rng.uniform(0, 2, n))
            y = M @ x
        yield np.ascontiguousarray(M), y


def test_nnls_matches_scipy_on_random_problems():
    for M, y in nnls_problems():
        x, res = nnls(M, y, 50 * M.shape[1])
        xs, ress = scipy_nnls(M, y, maxiter=50 * M.shape[1])
        assert np.all(x >= 0)
        assert res == pytest.approx(np.linalg.norm(M @ x - y), abs=1e-12 * (1 + np.abs(y).max()))
        assert res <= ress + 1e-10 * (1 + np.linalg.norm(y))       # as good as SciPy's
        assert abs(res - ress) <= 1e-9 * (1 + np.linalg.norm(y))
        # the optimum satisfies the Kuhn–Tucker conditions: w = Mᵀ(y − Mx) ≤ 0, = 0 on x > 0
        w = M.T @ (y - M @ x)
        tol = 1e-9 * (1 + np.abs(M).max() * np.linalg.norm(y))
        assert np.all(w <= tol) and np.all(np.abs(w[x > 0]) <= tol)
        if M.shape[1] <= M.shape[0] and np.linalg.matrix_rank(M) == M.shape[1]:
            np.testing.assert_allclose(x, xs, atol=1e-8 * (1 + np.abs(xs).max()))


def test_nnls_zero_solution_and_zero_data():
    M = np.array([[1.0, 2.0], [3.0, 1.0]])
    x, res = nnls(M, np.array([-1.0, -2.0]), 100)
    assert np.all(x == 0) and res == pytest.approx(np.sqrt(5.0))
    x, res = nnls(M, np.zeros(2), 100)
    assert np.all(x == 0) and res == 0.0


# --- the small LP (eq. 33/34 and the previous method's torque limit) ----------------------

def lp_problems(collinear):
    rng = np.random.default_rng(2 + collinear)
    for _ in range(200):
        L = rng.integers(1, 10)
        if collinear:                                   # a box resting on an edge
            t = rng.uniform(-0.05, 0.05, L)
            d, o = rng.normal(size=2), rng.normal(size=2) * 0.01
            r = o + np.outer(t, d / np.linalg.norm(d))
            if rng.random() < 0.2:
                r[:] = r[0]                             # all at one point: rank 1
        else:
            r = rng.uniform(-0.05, 0.05, (L, 2))
        A = np.ascontiguousarray(np.stack([np.ones(L), r[:, 1], -r[:, 0]]))
        b = A @ (rng.uniform(0, 5, L) * (rng.random(L) < 0.7))
        if not b.any():
            continue
        yield rng.normal(size=L), A, b


@pytest.mark.parametrize("collinear", [False, True])
def test_small_lp_max_equals_highs(collinear):
    for w, A, b in lp_problems(collinear):
        x = small_lp_max(w, A, b)
        ref = linprog(-w, A_eq=A, b_eq=b, bounds=(0, None), method="highs")
        assert ref.status == 0
        assert np.all(x >= 0)
        np.testing.assert_allclose(A @ x, b, atol=1e-9 * np.abs(b).max())
        scale = np.abs(w).max() * np.abs(b).max()
        assert w @ x == pytest.approx(-ref.fun, abs=1e-9 * scale)


def test_small_lp_max_falls_back_to_least_squares_when_infeasible():
    r = np.array([(0.0, 0.0), (0.1, 0.0), (0.0, 0.1)])
    A = np.ascontiguousarray(np.stack([np.ones(3), r[:, 1], -r[:, 0]]))
    b = np.array([1.0, 0.5, -0.5])                     # centre of pressure far outside
    x = small_lp_max(np.ones(3), A, b)
    _, res_ref = scipy_nnls(A, b)
    assert np.linalg.norm(A @ x - b) == pytest.approx(res_ref, rel=1e-9)


# --- old against new on random polygons (3–12 vertices) and wrenches ----------------------

def test_pyramid_matrix_matches_reference():
    rng = np.random.default_rng(3)
    for L in range(1, 13):
        r = random_polygon(rng, L) if L >= 3 else rng.uniform(-0.1, 0.1, (L, 2))
        for P in (3, 4, 8, 12):
            np.testing.assert_allclose(pyramid_matrix(r, 0.4, P), ref_pyramid_matrix(r, 0.4, P),
                                       rtol=1e-15, atol=1e-16)


def test_lp_feasibility_agrees_with_the_old_test_away_from_the_boundary():
    rng = np.random.default_rng(4)
    counts = {True: 0, False: 0}
    for _ in range(400):
        L, P, mu = rng.integers(3, 13), int(rng.choice([4, 8, 12])), rng.uniform(0.2, 1.0)
        r = random_polygon(rng, L)
        w = random_wrench(rng, r, mu, cop_inside=rng.random() < 0.85)
        w[1:4] *= rng.uniform(0.05, 1.0)                # more of them inside the region
        lo, hi = w.copy(), w.copy()
        lo[1:] *= 1 - 1e-6
        hi[1:] *= 1 + 1e-6
        inside = ref_lp_feasible(lo, r, mu, P)
        if inside != ref_lp_feasible(hi, r, mu, P):
            continue                                    # within 1e-6 of the boundary
        assert lp_feasible(w, r, mu, P, 1e-9) == ref_lp_feasible(w, r, mu, P) == inside
        assert static_lp_feasible(w, r, mu, P) == inside
        counts[inside] += 1
    assert min(counts.values()) >= 50                   # both sides well represented


def test_kinetic_correction_matches_the_old_one():
    rng = np.random.default_rng(5)
    for _ in range(300):
        L, mu_d = rng.integers(3, 13), rng.uniform(0.1, 0.8)
        r = random_polygon(rng, L)
        w = random_wrench(rng, r, mu_d)
        d = random_slip(rng, L)
        out = kinetic_correction(w, r, d, mu_d)
        assert rel(out, ref_kinetic_correction(w, r, d, mu_d)) <= 1e-10
        np.testing.assert_allclose(out[[0, 4, 5]], w[[0, 4, 5]],
                                   atol=1e-10 * np.abs(w).max())      # eq. 34


def test_previous_method_matches_the_old_one():
    rng = np.random.default_rng(6)
    for _ in range(300):
        L, mu = rng.integers(3, 13), rng.uniform(0.1, 0.8)
        r = random_polygon(rng, L)
        w = random_wrench(rng, r, mu)
        tl = previous_torque_limit(w, r, mu)
        assert tl == pytest.approx(ref_previous_torque_limit(w, r, mu), rel=1e-10)
        assert rel(previous_kinetic(w, r, mu), ref_previous_kinetic(w, r, mu)) <= 1e-10
        ft, lim_t = np.hypot(w[1], w[2]) / (mu * w[0]), abs(w[3]) / tl
        if abs(ft - 1) > 1e-6 and abs(lim_t - 1) > 1e-6:
            assert previous_static(w, r, mu) == (ft < 1 and lim_t < 1)


@pytest.mark.parametrize("seed", range(30))
def test_cone_qp_is_optimal_and_never_worse_than_the_old_solver(seed):
    # the dual NNLS method against the primal active-set method it replaced: it certifies
    # its optimum (KKT with its multipliers) and is never worse; for seed 20 the old method
    # stopped at the apex x = 0 with objective 0, the optimum is -0.187
    from stickslip.spatial._qp import solve_cone_qp_with_multipliers

    rng = np.random.default_rng(100 + seed)
    n, m = rng.integers(2, 13), rng.integers(1, 12)
    Mh = rng.normal(size=(n, n))
    H = Mh @ Mh.T + 0.1 * np.eye(n)
    g = rng.normal(size=n) * 3
    x0 = rng.normal(size=n)
    G = rng.normal(size=(m, n))
    G -= np.outer(G @ x0 + rng.uniform(0.1, 1, m), x0) / (x0 @ x0)     # G x0 < 0
    x, mu = solve_cone_qp_with_multipliers(H, g, np.ascontiguousarray(G))
    ref = ref_solve_cone_qp(H, g, G, x0)
    scale = np.abs(np.linalg.solve(H, g)).max()
    f = lambda y: 0.5 * y @ H @ y + g @ y                           # noqa: E731
    assert np.all(G @ x <= 1e-10 * scale) and np.all(mu >= 0)
    assert np.abs(H @ x + g + G.T @ mu).max() <= 1e-10 * np.abs(g).max()
    assert abs(mu @ (G @ x)) <= 1e-10 * scale * np.abs(g).max()
    assert f(x) <= f(ref) + 1e-12 * scale * np.abs(g).max()


def test_non_finite_input_is_not_hidden():
    r = np.array([(-0.05, -0.05), (0.05, -0.05), (0.05, 0.05), (-0.05, 0.05)])
    w = np.array([np.nan, 1.0, 0.0, 0.0, 0.0, 0.0])
    d = np.tile([1.0, 0.0], (4, 1))
    assert not lp_feasible(w, r, 0.5, 8, 1e-9)
    assert np.all(np.isnan(kinetic_correction(w, r, d, 0.3)))
    assert np.all(np.isnan(previous_kinetic(w, r, 0.3)))
    assert not previous_static(w, r, 0.5)
    H = np.eye(2)
    x = solve_cone_qp(H, np.array([np.inf, 0.0]), -np.eye(2))
    assert not np.all(np.isfinite(x))


@numba.njit
def _all_kernels(H, g, G, w, r, d, P, max_iter):
    """A compiled caller: every kernel is reachable from numba code. (P and max_iter are
    arguments: integer constants would make numba compile literal-typed copies of the
    kernels, compile time and nothing else.)"""
    x = solve_cone_qp(H, g, G)
    ok = lp_feasible(w, r, 0.5, P, 1e-9)
    kc = kinetic_correction(w, r, d, 0.3)
    pk = previous_kinetic(w, r, 0.3)
    ps = previous_static(w, r, 0.5)
    M = pyramid_matrix(r, 0.5, P)
    _, res = nnls(M, w, max_iter)
    A = np.empty((3, r.shape[0]))
    A[0, :] = 1.0
    A[1, :] = r[:, 1]
    A[2, :] = -r[:, 0]
    b = np.array([w[0], w[4], w[5]])
    s = small_lp_max(np.ones(r.shape[0]), A, b)
    return x, ok, kc, pk, ps, res, s


def test_kernels_are_callable_from_compiled_code():
    rng = np.random.default_rng(7)
    r = random_polygon(rng, 5)
    w = random_wrench(rng, r, 0.5)
    d = random_slip(rng, 5)
    H, g, G = np.eye(3), np.array([1.0, -2.0, 0.5]), -np.eye(3)
    x, ok, kc, pk, ps, res, s = _all_kernels(H, g, G, w, r, d, 8, 100)
    np.testing.assert_array_equal(x, solve_cone_qp(H, g, G))
    assert ok == lp_feasible(w, r, 0.5, 8, 1e-9) and ps == previous_static(w, r, 0.5)
    np.testing.assert_array_equal(kc, kinetic_correction(w, r, d, 0.3))
    np.testing.assert_array_equal(pk, previous_kinetic(w, r, 0.3))
    assert res == nnls(pyramid_matrix(r, 0.5, 8), w, 100)[1]
    assert s.shape == (5,)


@pytest.mark.parametrize("seed", range(10))
def test_cone_qp_with_repeated_constraints(seed):
    # linearly dependent constraints (repeated rows of G) still give the optimum
    rng = np.random.default_rng(200 + seed)
    n = 6
    Mh = rng.normal(size=(n, n))
    H, g, x0 = Mh @ Mh.T + 0.1 * np.eye(n), rng.normal(size=n) * 3, rng.normal(size=n)
    G = rng.normal(size=(4, n))
    G -= np.outer(G @ x0 + rng.uniform(0.1, 1, 4), x0) / (x0 @ x0)
    G = np.ascontiguousarray(np.vstack([G, G[:2]]))
    x = solve_cone_qp(H, g, G)
    ref = ref_solve_cone_qp(H, g, G, x0)
    f = lambda y: 0.5 * y @ H @ y + g @ y
    scale = np.abs(np.linalg.solve(H, g)).max()
    assert np.all(G @ x <= 1e-9 * scale)
    assert f(x) <= f(ref) + 1e-9 * abs(f(ref)) + 1e-12


@pytest.mark.parametrize("seed", range(20))
def test_cone_qp_is_optimal_when_badly_conditioned(seed):
    # H with eigenvalues spread over seven decades and a tiny overall scale, as a sliver
    # contact gives (the primal active-set method once returned an objective of +3e10 here,
    # worse than the feasible point x = 0): the dual solution certifies itself — x feasible,
    # multipliers μ ≥ 0, stationarity Hx + g + Gᵀμ = 0 and complementarity μ·Gx = 0
    from stickslip.spatial._qp import solve_cone_qp_with_multipliers

    rng = np.random.default_rng(300 + seed)
    n, m = 6, rng.integers(3, 9)
    U = np.linalg.qr(rng.normal(size=(n, n)))[0]
    H = U @ np.diag(np.logspace(-14, -7, n)) @ U.T
    H = 0.5 * (H + H.T)
    g = U @ (rng.normal(size=n) * np.logspace(-8, -5, n))
    G = np.ascontiguousarray(rng.normal(size=(m, n)))
    x, mu = solve_cone_qp_with_multipliers(H, g, G)
    scale_x = np.abs(x).max()
    assert np.all(mu >= 0)
    assert np.all(G @ x <= 1e-9 * np.abs(G).max() * scale_x)
    stat = H @ x + g + G.T @ mu
    assert np.abs(stat).max() <= 1e-7 * (np.abs(H).max() * scale_x + np.abs(g).max())
    assert abs(mu @ (G @ x)) <= 1e-7 * abs(x @ H @ x + 1e-300)
    f = lambda y: 0.5 * y @ H @ y + g @ y                           # noqa: E731
    assert f(x) <= 0.0                                               # x = 0 is feasible


# --- the host-side compositions (SpatialModel calls them; one kernel less to compile) --------

def cone_qp_problems():
    rng = np.random.default_rng(500)
    for trial in range(60):
        n, m = int(rng.integers(1, 13)), int(rng.integers(0, 10))
        Mh = rng.normal(size=(n, n))
        scale = 10.0 ** rng.uniform(-14, 2) if trial % 3 == 0 else 1.0   # slivers too
        H = scale * (Mh @ Mh.T + 1e-3 * np.eye(n))
        g = scale * rng.normal(size=n)
        G = np.ascontiguousarray(rng.normal(size=(m, n)))
        yield H, g, G
    H = np.ones((3, 3))                                 # semi-definite: the jitter path
    yield H, np.array([1.0, -1.0, 0.5]), -np.eye(3)
    yield np.eye(2), np.array([np.nan, 0.0]), -np.eye(2)
    yield np.diag([1.0, np.inf]), np.zeros(2), np.zeros((0, 2))
    yield -np.eye(2), np.ones(2), -np.eye(2)            # not positive definite


def test_host_cone_qp_is_the_compiled_one_bit_for_bit():
    from stickslip.spatial._qp import cone_qp, solve_cone_qp_with_multipliers

    for H, g, G in cone_qp_problems():
        np.testing.assert_array_equal(cone_qp(H, g, G),
                                      solve_cone_qp_with_multipliers(H, g, G)[0])


def test_host_lp_feasibility_is_the_compiled_one():
    rng = np.random.default_rng(501)
    answers = set()
    for trial in range(300):
        L, P, mu = int(rng.integers(3, 13)), int(rng.choice([4, 8, 12])), rng.uniform(0.2, 1.0)
        r = random_polygon(rng, L)
        w = random_wrench(rng, r, mu, cop_inside=rng.random() < 0.85)
        if trial % 10 == 0:
            w[0] = -abs(w[0])                           # pulling: infeasible
        elif trial % 10 == 1:
            w[:] = 0.0                                  # the zero wrench: feasible
        elif trial % 10 == 2:
            w[int(rng.integers(0, 6))] = np.nan         # non-finite: never feasible
        expected = bool(lp_feasible(w, r, mu, P, 1e-9))
        assert static_lp_feasible(w, r, mu, P) is expected
        answers.add(expected)
    assert answers == {True, False}


def test_host_kinetic_correction_is_the_compiled_one_bit_for_bit():
    from stickslip.spatial._friction import kinetic_correction_host

    rng = np.random.default_rng(502)
    for trial in range(200):
        L, mu = int(rng.integers(3, 13)), rng.uniform(0.1, 1.0)
        r = random_polygon(rng, L)
        w = random_wrench(rng, r, mu, cop_inside=rng.random() < 0.9)
        d = random_slip(rng, L)
        if trial % 20 == 0:
            d[int(rng.integers(0, L))] = np.inf          # non-finite: NaN out
        np.testing.assert_array_equal(kinetic_correction_host(w, r, d, mu),
                                      kinetic_correction(w, r, d, mu))


def test_host_previous_method_is_the_compiled_one_bit_for_bit():
    from stickslip.spatial._friction import (
        previous_kinetic_host,
        previous_static_host,
        previous_torque_limit_host,
    )

    rng = np.random.default_rng(503)
    answers = set()
    for trial in range(300):
        L, mu = int(rng.integers(3, 13)), rng.uniform(0.1, 1.0)
        r = random_polygon(rng, L)
        w = random_wrench(rng, r, mu, cop_inside=rng.random() < 0.9)
        w[1:4] *= rng.uniform(0.1, 1.0)                 # both answers well represented
        if trial % 20 == 0:
            w[0] = -abs(w[0])                           # pulling
        elif trial % 20 == 1:
            w[int(rng.integers(0, 6))] = np.nan         # non-finite
        expected = bool(previous_static(w, r, mu))
        assert previous_static_host(w, r, mu) is expected
        answers.add(expected)
        np.testing.assert_array_equal(previous_kinetic_host(w, r, mu),
                                      previous_kinetic(w, r, mu))
        if np.all(np.isfinite(w)):
            assert previous_torque_limit_host(w, r, mu) == previous_torque_limit(w, r, mu)
    assert answers == {True, False}
