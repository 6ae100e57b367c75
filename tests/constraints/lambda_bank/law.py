"""The λ-problem's law read directly (SPEC §6), in NumPy: independent of stickslip's solvers.

With w = Aλ − b and, per block (rows (t, n) of a planar contact, (t1, t2, n) of a spatial
one), ρ = 1/max|A_ii| turning w into force units, the scales are s_λ = max|λ| + ρ max|b|
[N] and s_w = s_λ/ρ [m/s²]. :func:`law_violations` lists every condition that fails by more
than `tol` of its scale:

* bilateral: w = 0;
* unilateral: λ ≥ 0, w ≥ 0, λ w = 0;
* [−F, F]: |λ| ≤ F, λ w ≤ 0 (dissipation), w = 0 where |λ| < F;
* contact: normal λ_n ≥ 0; in the cone ‖λ_t‖ ≤ μ λ_n; gap rate w_n ≥ 0 (``"kikuuwe"``) or
  w_n ≥ μ‖w_t‖ (``"anitescu"``); complementarity λ_n (w_n − [μ‖w_t‖]) = 0; maximal
  dissipation λ_t·w_t = −‖λ_t‖‖w_t‖ (friction opposite to the sliding); sticking
  (‖λ_t‖ < μλ_n) ⇒ w_t = 0; sliding (w_t ≠ 0) ⇒ ‖λ_t‖ = μλ_n.

:func:`natural_residual` is the fixed-point residual max|λ − P_F(λ − ρŵ)| / s_λ, with De
Saxcé's ŵ = (w_t, w_n + μ‖w_t‖) for the seed's law and ŵ = w for Anitescu's: 0 exactly at
a solution. The Siconos script imports this module too (plain NumPy).
"""

import numpy as np

__all__ = ["law_violations", "natural_residual", "scales"]


def _rows(blocks):
    o = 0
    for blk in blocks:
        yield blk, slice(o, o + blk["size"])
        o += blk["size"]


def scales(A, b, lam):
    """(ρ, s_λ, s_w) of the module docstring."""
    A, b, lam = np.asarray(A), np.asarray(b), np.asarray(lam)
    rho = 1.0 / max(float(np.max(np.abs(np.diag(A)))), 1e-300)
    s_lam = float(np.max(np.abs(lam), initial=0.0)) + rho * float(np.max(np.abs(b)))
    return rho, max(s_lam, 1e-300), max(s_lam, 1e-300) / rho


def _project(blk, x):
    kind = blk["kind"]
    if kind == "bilateral":
        return x
    if kind == "unilateral":
        return np.maximum(x, 0.0)
    if kind == "coulomb":
        return np.clip(x, -blk["bound"], blk["bound"])
    mu, t, n = blk["mu"], x[:-1], x[-1]
    norm = float(np.linalg.norm(t))
    if norm <= mu * n and n >= 0:
        return x
    if mu * norm <= -n:
        return np.zeros_like(x)
    s = (mu * norm + n) / (1.0 + mu * mu)
    return np.concatenate([mu * s * t / norm if norm > 0 else 0.0 * t, [s]])


def natural_residual(blocks, lam, w, formulation, A=None, b=None):
    """max|λ − P_F(λ − ρŵ)| / s_λ over the blocks (module docstring); ρ = 1 and s_λ =
    max|λ| + max|w| where A and b are not given."""
    lam, w = np.asarray(lam, float), np.asarray(w, float)
    if A is None:
        rho, s_lam = 1.0, float(np.max(np.abs(lam)) + np.max(np.abs(w))) + 1e-300
    else:
        rho, s_lam, _ = scales(A, b, lam)
    worst = 0.0
    for blk, sl in _rows(blocks):
        what = w[sl].copy()
        if formulation == "kikuuwe" and blk["kind"] in ("planar_contact", "spatial_contact"):
            what[-1] += blk["mu"] * float(np.linalg.norm(what[:-1]))
        gap = lam[sl] - _project(blk, lam[sl] - rho * what)
        worst = max(worst, float(np.max(np.abs(gap))))
    return worst / s_lam


def law_violations(blocks, A, b, lam, formulation, tol):
    """Every condition of the law that λ breaks by more than `tol` of its scale.

    Parameters
    ----------
    blocks : list of dict
        The instance's block records.
    A : numpy.ndarray
        Delassus matrix, shape (m, m).
    b : numpy.ndarray
        Free term, shape (m,).
    lam : numpy.ndarray
        The forces to check, shape (m,).
    formulation : str
        ``"kikuuwe"`` or ``"anitescu"``.
    tol : float
        Relative tolerance.

    Returns
    -------
    list of str
        One line per violated condition (empty: λ solves the problem).
    """
    A, b, lam = np.asarray(A, float), np.asarray(b, float), np.asarray(lam, float)
    w = A @ lam - b
    _, s_l, s_w = scales(A, b, lam)
    el, ew, elw = tol * s_l, tol * s_w, tol * s_l * s_w
    bad = []

    def need(ok, what, k, value):
        if not ok:
            bad.append(f"block {k} ({blocks[k]['kind']}): {what} (value {value:.3g}; scales "
                       f"s_λ={s_l:.3g}, s_w={s_w:.3g})")

    for k, (blk, sl) in enumerate(_rows(blocks)):
        l, v = lam[sl], w[sl]
        if blk["kind"] == "bilateral":
            need(np.max(np.abs(v)) <= ew, "bilateral w = 0", k, np.max(np.abs(v)))
        elif blk["kind"] == "unilateral":
            need(l[0] >= -el, "λ ≥ 0", k, l[0])
            need(v[0] >= -ew, "w ≥ 0", k, v[0])
            need(abs(l[0] * v[0]) <= elw, "λ w = 0", k, l[0] * v[0])
        elif blk["kind"] == "coulomb":
            F = blk["bound"]
            need(abs(l[0]) <= F + el, "|λ| ≤ F", k, abs(l[0]) - F)
            need(l[0] * v[0] <= elw, "λ w ≤ 0 (dissipation)", k, l[0] * v[0])
            if abs(l[0]) < F - el:
                need(abs(v[0]) <= ew, "w = 0 inside the bound", k, v[0])
        else:
            mu = blk["mu"]
            lt, ln, wt, wn = l[:-1], l[-1], v[:-1], v[-1]
            nlt, nwt = float(np.linalg.norm(lt)), float(np.linalg.norm(wt))
            need(ln >= -el, "normal λ_n ≥ 0", k, ln)
            need(nlt <= mu * ln + el, "‖λ_t‖ ≤ μ λ_n (in the cone)", k, nlt - mu * ln)
            rate = wn - (mu * nwt if formulation == "anitescu" else 0.0)
            need(rate >= -ew, "gap rate w_n ≥ 0" if formulation == "kikuuwe"
                 else "w_n ≥ μ‖w_t‖", k, rate)
            need(abs(ln * rate) <= elw, "complementarity λ_n · gap rate = 0", k, ln * rate)
            need(nlt * nwt + float(lt @ wt) <= elw,
                 "maximal dissipation λ_t·w_t = −‖λ_t‖‖w_t‖", k, nlt * nwt + float(lt @ wt))
            if nlt < mu * ln - el:
                need(nwt <= ew, "sticking ⇒ w_t = 0", k, nwt)
            if nwt > ew:
                need(nlt >= mu * ln - el, "sliding ⇒ ‖λ_t‖ = μ λ_n", k, mu * ln - nlt)
    return bad
