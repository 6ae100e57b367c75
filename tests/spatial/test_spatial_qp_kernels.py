"""The numba-compiled solvers under the spatial contact's QP (SPEC §7 step 3) against SciPy and
against the NumPy implementation they replaced (kept here as a reference): the Lawson–Hanson
NNLS and the cone QP (16, 25), compiled and host-side. The friction kernels are in
test_spatial_kernels.py."""

import numpy as np
import pytest
from scipy.optimize import nnls as scipy_nnls

from stickslip.spatial._nnls import nnls
from stickslip.spatial._qp import solve_cone_qp

# --- the replaced NumPy implementation (reference) ------------------------------------------

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


# --- the cone QP ---------------------------------------------------------------------------

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


# --- the host-side composition (SpatialModel calls it; one kernel less to compile) ----------

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
