"""Friction constraints on a contact's 6-axis force (SPEC §7 steps 4–5; Wakisaka & Sugihara).

Forces are written in the contact frame (n, e1, e2): ``f = (f_n, f_1, f_2)`` and
``tau = (tau_n, tau_1, tau_2)`` about p_g. The polygon vertices ``r`` (L, 2) are in (e1, e2).
"""

from __future__ import annotations

import functools
from itertools import combinations

import numpy as np
from scipy.optimize import linprog, nnls

from ..errors import ParameterError

__all__ = ["pyramid_matrix", "static_lp_feasible", "kinetic_correction",
           "previous_torque_limit", "previous_static", "previous_kinetic",
           "static_friction_holds"]


def pyramid_matrix(r: np.ndarray, mu: float, P: int) -> np.ndarray:
    """The 6 × (L·P) matrix of eq. 28–31: column (l, p) is the 6-axis force
    (f_n, f_1, f_2, tau_n, tau_1, tau_2) of the unit pyramid edge n + μ t_p at vertex l."""
    ang = 2 * np.pi * np.arange(P) / P
    cp, sp = np.cos(ang), np.sin(ang)                          # eq. 27
    r1, r2 = r[:, 0][:, None], r[:, 1][:, None]
    ones = np.ones((len(r), P))
    return np.stack([ones,                                       # (28)
                     mu * cp * ones, mu * sp * ones,             # (29)
                     mu * (r1 * sp - r2 * cp),                   # (30), r of vertex l
                     r2 * ones, -r1 * ones]).reshape(6, -1)      # (31)


def _scaled(M: np.ndarray, y: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    R = max(float(np.max(np.abs(r))), 1e-300)
    s = np.array([1.0, 1.0, 1.0, 1 / R, 1 / R, 1 / R])
    return M * s[:, None], y * s


def static_lp_feasible(wrench: np.ndarray, r: np.ndarray, mu_s: float, P: int = 8,
                       solver: str = "nnls", rtol: float = 1e-9) -> bool:
    """Whether eq. 28–31 have a solution ε ≥ 0 (static friction can hold the wrench).

    `wrench` = (f_n, f_1, f_2, tau_n, tau_1, tau_2) in the contact frame.
    ``solver="nnls"`` decides feasibility by min ‖Mε − y‖ over ε ≥ 0 (SciPy's Lawson–Hanson
    NNLS; residual ≤ rtol·‖y‖ means feasible); ``"highs"`` solves the LP with SciPy/HiGHS.
    """
    wrench = np.asarray(wrench, dtype=float)
    fn = wrench[0]
    if fn <= 0:
        return bool(np.all(np.abs(wrench) <= 1e-12))
    M, y = _scaled(pyramid_matrix(r, mu_s, P), wrench, r)
    y = y / fn
    if solver == "nnls":
        _, res = nnls(M, y, maxiter=50 * M.shape[1])
        return bool(res <= rtol * max(np.linalg.norm(y), 1.0))
    if solver == "highs":
        out = linprog(np.zeros(M.shape[1]), A_eq=M, b_eq=y, bounds=(0, None), method="highs")
        return bool(out.status == 0)
    raise ParameterError(f"`solver` must be 'nnls' or 'highs'; got {solver!r}.")


@functools.lru_cache(maxsize=64)
def _bases(L: int) -> np.ndarray:
    return np.array(list(combinations(range(L), 3)), dtype=int).reshape(-1, 3)


def _small_lp_max(w: np.ndarray, A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """max wᵀx s.t. A x = b (3 rows), x ≥ 0, by enumerating the basic solutions (the LP
    optimum is one of them); SciPy/HiGHS when A is rank deficient or none is feasible."""
    L = A.shape[1]
    if L >= 3:
        B = _bases(L)
        mats = A[:, B].transpose(1, 0, 2)                      # (nB, 3, 3)
        det = np.linalg.det(mats)
        scale = np.abs(A).max() ** 3
        good = np.abs(det) > 1e-12 * scale
        if good.any():
            sol = np.linalg.solve(mats[good], np.broadcast_to(b, (good.sum(), 3))[..., None])
            sol = sol[..., 0]
            tol = 1e-9 * max(abs(b[0]), 1e-300)
            feas = np.all(sol >= -tol, axis=1)
            if feas.any():
                idx = B[good][feas]
                vals = np.einsum("ij,ij->i", w[idx], sol[feas])
                k = int(np.argmax(vals))
                x = np.zeros(L)
                x[idx[k]] = np.maximum(sol[feas][k], 0.0)
                return x
    out = linprog(-w, A_eq=A, b_eq=b, bounds=(0, None), method="highs")
    if out.status == 0:
        return out.x
    # A compatible normal distribution always exists under eq. 25; fall back to least squares
    return nnls(A, b)[0]


def _normal_rows(r: np.ndarray) -> np.ndarray:
    """Eq. 34's rows: (Σ ε, Σ r_2 ε, −Σ r_1 ε) = (f_n, tau_1, tau_2)."""
    return np.stack([np.ones(len(r)), r[:, 1], -r[:, 0]])


def kinetic_correction(wrench: np.ndarray, r: np.ndarray, slip_dir: np.ndarray,
                       mu_d: float) -> np.ndarray:
    """Kinetic friction replacing a wrench static friction cannot hold (eq. 32–34).

    Each vertex l carries ε'_l (n + μ_d d_l), ε' ≥ 0, where d_l (L, 2) is the unit friction
    direction (opposite the slip at the vertex; zero where it does not slip). ε' keeps
    (f_n, tau_1, tau_2) of `wrench` (eq. 34) and maximises eq. 33's alignment of the friction
    components with those of `wrench`; a component whose magnitude is below 1e-6 of its
    scale gets weight 0 there instead of the paper's division by a near-zero number.
    Returns the corrected wrench (f_n, f_1, f_2, tau_n, tau_1, tau_2).
    """
    fn, f1, f2, tn = wrench[0], wrench[1], wrench[2], wrench[3]
    R = max(float(np.max(np.hypot(r[:, 0], r[:, 1]))), 1e-300)
    scale_f = max(abs(fn), abs(f1), abs(f2), 1e-300)
    inv = lambda x, s: (1.0 / x) if abs(x) > 1e-6 * s else 0.0   # noqa: E731
    tnl = r[:, 0] * slip_dir[:, 1] - r[:, 1] * slip_dir[:, 0]
    w = mu_d * (slip_dir[:, 0] * inv(f1, scale_f) + slip_dir[:, 1] * inv(f2, scale_f)
                + tnl * inv(tn, scale_f * R))                   # eq. 33
    eps = _small_lp_max(w, _normal_rows(r), wrench[[0, 4, 5]])
    return np.array([eps.sum(), mu_d * eps @ slip_dir[:, 0], mu_d * eps @ slip_dir[:, 1],
                     mu_d * eps @ tnl, eps @ r[:, 1], -eps @ r[:, 0]])


def previous_torque_limit(wrench: np.ndarray, r: np.ndarray, mu: float) -> float:
    """The previous method's normal-torque limit (Wakisaka & Sugihara 2016; SPEC §7 end of
    2.4): max μ Σ_l |r_l| ε_l over normal distributions ε ≥ 0 compatible with
    (f_n, tau_1, tau_2), i.e. friction at every vertex at its limit and circumferential."""
    rad = np.hypot(r[:, 0], r[:, 1])
    eps = _small_lp_max(mu * rad, _normal_rows(r), wrench[[0, 4, 5]])
    return float(mu * rad @ eps)


def previous_static(wrench: np.ndarray, r: np.ndarray, mu_s: float) -> bool:
    """The previous method's test: |f_t| ≤ μ_s f_n and |tau_n| ≤ the torque limit,
    separately."""
    fn = wrench[0]
    if fn <= 0:
        return bool(np.all(np.abs(wrench) <= 1e-12))
    return bool(np.hypot(wrench[1], wrench[2]) <= mu_s * fn * (1 + 1e-12)
                and abs(wrench[3]) <= previous_torque_limit(wrench, r, mu_s) * (1 + 1e-12))


def previous_kinetic(wrench: np.ndarray, r: np.ndarray, mu_d: float) -> np.ndarray:
    """The previous method's kinetic correction: the friction force limited to μ_d f_n (its
    direction kept) and the normal torque to the μ_d torque limit, separately."""
    out = np.array(wrench, dtype=float)
    ft = np.hypot(out[1], out[2])
    lim = mu_d * out[0]
    if ft > lim:
        out[1:3] *= lim / ft
    tl = previous_torque_limit(out, r, mu_d)
    out[3] = np.clip(out[3], -tl, tl)
    return out


def static_friction_holds(force, torque, footprint, mu_s: float, normal_force: float,
                          P: int = 8, *, solver: str = "highs") -> bool:
    """Whether static friction can hold a tangential force and a normal-axis torque on a
    flat contact: the LP of eq. 28–31 alone (SPEC §7 step 4).

    Parameters
    ----------
    force: (f_x, f_y) tangential force [N] at the footprint's origin.
    torque: tau_z, torque about the normal (+z) [N m] at the footprint's origin.
    footprint: (L, 2) vertices of the convex contact polygon [m], in the same frame.
    mu_s: static friction coefficient μ_s [-].
    normal_force: f_n > 0 [N]; its centre of pressure is the origin (tau_x = tau_y = 0).
    P: sides of the pyramid inscribed in the friction cone (>= 3); its first edge is along +x.
    solver: "highs" (SciPy's HiGHS LP, default) or "nnls".

    Returns
    -------
    True when some distribution of forces at the footprint's vertices, each inside the
    P-sided pyramid, adds up to (f_n, f_x, f_y, tau_z, 0, 0).

    Examples
    --------
    >>> import stickslip as ss
    >>> sq = [(-0.05, -0.05), (0.05, -0.05), (0.05, 0.05), (-0.05, 0.05)]
    >>> ss.spatial.static_friction_holds((4.0, 0.0), 0.0, sq, mu_s=0.5, normal_force=9.81)
    True
    >>> ss.spatial.static_friction_holds((5.0, 0.0), 0.0, sq, mu_s=0.5, normal_force=9.81)
    False
    """
    P = check_pyramid_sides(P)
    mu_s = float(mu_s)
    if not (np.isfinite(mu_s) and mu_s >= 0):
        raise ParameterError(f"`static_friction_holds.mu_s` must be >= 0; got mu_s={mu_s!r}.")
    fn = float(normal_force)
    if not (np.isfinite(fn) and fn > 0):
        raise ParameterError(f"`static_friction_holds.normal_force` must be > 0; got "
                             f"normal_force={normal_force!r}. Pass the normal force in N.")
    f = np.asarray(force, dtype=float).reshape(-1)
    if f.shape != (2,):
        raise ParameterError(f"`static_friction_holds.force` must be (f_x, f_y); got shape "
                             f"{f.shape}.")
    r = np.asarray(footprint, dtype=float)
    if r.ndim != 2 or r.shape[1] != 2 or len(r) < 1:
        raise ParameterError(f"`static_friction_holds.footprint` must be an (L, 2) array; got "
                             f"shape {r.shape}.")
    wrench = np.array([fn, f[0], f[1], float(torque), 0.0, 0.0])
    return static_lp_feasible(wrench, r, mu_s, P, solver=solver)


def check_pyramid_sides(P) -> int:
    """P as an int >= 3, or a ParameterError."""
    if int(P) != P or P < 3:
        raise ParameterError(f"`P` (sides of the friction pyramid) must be an integer >= 3; got "
                             f"P={P!r}. The paper uses P=8.")
    return int(P)
