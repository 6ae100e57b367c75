"""The numba-compiled friction solvers of the spatial contact (SPEC §7 steps 4–5) against SciPy
and against the NumPy/SciPy implementations they replaced (kept here as references): the small
LP of eq. 33/34, the LP feasibility test of eq. 28–31, the kinetic correction (32–34) and the
previous method, their host-side compositions, and every kernel called from compiled code.
The NNLS and the cone QP (16, 25) are in test_spatial_qp_kernels.py."""

from itertools import combinations

import numba
import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.optimize import nnls as scipy_nnls

from stickslip.spatial._friction_kinetic import kinetic_correction
from stickslip.spatial._friction_previous import (
    previous_kinetic,
    previous_static,
    previous_torque_limit,
)
from stickslip.spatial._friction_static import (
    lp_feasible,
    pyramid_matrix,
    static_lp_feasible,
)
from stickslip.spatial._nnls import nnls
from stickslip.spatial._qp import solve_cone_qp
from stickslip.spatial._small_lp import small_lp_max

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


# --- the host-side compositions (SpatialModel calls them; one kernel less to compile) --------

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
    from stickslip.spatial._friction_kinetic import kinetic_correction_host

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
    from stickslip.spatial._friction_previous import (
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
