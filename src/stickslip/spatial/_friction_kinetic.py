"""The kinetic correction of SPEC §7 step 5 (eq. 32–34; Wakisaka & Sugihara): the wrench that
static friction cannot hold is replaced by vertex forces ε'_l (n + μ_d d_l), ε' ≥ 0, that keep
its normal part (f_n, tau_1, tau_2) (eq. 34) and best align its friction (eq. 33) — the small
LP of :mod:`._small_lp`. `kinetic_correction` is compiled (numba) for compiled callers;
`kinetic_correction_host` gives the same numbers from Python. Also eq. 34's rows and
right-hand side, which the previous method's torque limit shares. Non-finite input gives NaN.

`slip_stopping_share` is ours, not the paper's: the share of a corrected wrench's friction
that the step can take without reversing the slip (both engines apply it to both friction
methods, on contacts with the ground; docs/spatial.md).
"""

from __future__ import annotations

import numpy as np

from ._friction_static import _finite
from ._lazy_njit import njit
from ._small_lp import small_lp_max


def slip_stopping_share(phi, v_free, A_tt, xp=np):
    """The share α ∈ [0, 1] of a contact's kinetic friction φ = (f_1, f_2, τ_n) [N, N, N m]
    (contact frame: entries 1–3 of the wrench (f_n, f_1, f_2, τ_n, τ_1, τ_2), conjugate to
    entries 1–3 of the twist (v_n, v_1, v_2, ω_n, ω_1, ω_2)) that the step takes: at most
    the share that stops the slip, never reverses it.

    v_free (3,) is the contact's tangential twist (v_1, v_2, ω_n) at the step's end with every
    wrench applied except this friction, A_tt (3, 3) the block of eq. 15's A = J M⁻¹ Jᵀ Δt
    that maps it onto that twist. With α φ the twist is v_free + α A_tt φ, and the kinetic
    energy changes by Δt (α φᵀv_free + ½ α² φᵀA_tt φ): least, and the slip along φ stopped,
    at α* = −φᵀv_free / φᵀA_tt φ. Eq. 32's friction μ_d ε' d_l is the full friction of a
    slip that lasts the step; where it would stop the slip sooner, the full friction
    reversed it and added energy: a tumbling box dropped on μ = 0.8 gained 22 % of its
    energy in one impact step (its 3-vertex patch could not hold the QP's torque, the
    correction put μ_d f_n where the QP needed 0.6 of that, and the consistency passes
    raised f_n with it). So α = clip(α*, 0, 1); 0 where φ pushes along the slip, 1 where
    φ is zero. `xp`: NumPy or jax.numpy (the engines share it)."""
    if xp is np:                       # the host loop's scalar: plain floats (4× faster)
        push, stiff = float(phi @ v_free), float(phi @ (A_tt @ phi))
        return min(max(-push / stiff, 0.0), 1.0) if stiff > 0.0 else 1.0
    push = phi @ v_free
    stiff = phi @ (A_tt @ phi)
    return xp.where(stiff > 0.0, xp.clip(-push / xp.where(stiff > 0.0, stiff, 1.0), 0.0, 1.0),
                    1.0)


@njit(cache=True)
def _normal_rows(r: np.ndarray) -> np.ndarray:
    """Eq. 34's rows: (Σ ε, Σ r_2 ε, −Σ r_1 ε) = (f_n, tau_1, tau_2)."""
    L = r.shape[0]
    A = np.empty((3, L))
    for l in range(L):
        A[0, l] = 1.0
        A[1, l] = r[l, 1]
        A[2, l] = -r[l, 0]
    return A


@njit(cache=True)
def _normal_part(wrench: np.ndarray) -> np.ndarray:
    """(f_n, tau_1, tau_2) of a wrench: eq. 34's right-hand side."""
    out = np.empty(3)
    out[0], out[1], out[2] = wrench[0], wrench[4], wrench[5]
    return out


@njit(cache=True)
def _inv_or_zero(x: float, s: float) -> float:
    return (1.0 / x) if abs(x) > 1e-6 * s else 0.0


@njit(cache=True)
def kinetic_correction(wrench: np.ndarray, r: np.ndarray, slip_dir: np.ndarray,
                       mu_d: float) -> np.ndarray:
    """Kinetic friction replacing a wrench static friction cannot hold (eq. 32–34).

    Each vertex l carries ε'_l (n + μ_d d_l), ε' ≥ 0, where d_l (L, 2) is the unit friction
    direction (opposite the slip at the vertex; zero where it does not slip). ε' keeps
    (f_n, tau_1, tau_2) of `wrench` (eq. 34) and maximises eq. 33's alignment of the friction
    components with those of `wrench`; a component whose magnitude is below 1e-6 of its
    scale gets weight 0 there instead of the paper's division by a near-zero number.
    Returns the corrected wrench (f_n, f_1, f_2, tau_n, tau_1, tau_2) [N, N m]; all NaN
    when an input is not finite.
    """
    ok, w, A, b, tnl = _kinetic_lp(wrench, r, slip_dir, mu_d)
    if not ok:
        out = np.empty(6)
        for i in range(6):
            out[i] = np.nan
        return out
    return _kinetic_wrench(small_lp_max(w, A, b), r, slip_dir, tnl, mu_d)


@njit(cache=True)
def _kinetic_lp(wrench: np.ndarray, r: np.ndarray, slip_dir: np.ndarray, mu_d: float):
    """`kinetic_correction` up to its LP: (ok, w, A, b, tnl) with eq. 33's weights w, eq.
    34's rows A and right-hand side b, and the normal torque arm per unit friction of each
    vertex tnl; ok is False when an input is not finite."""
    L = r.shape[0]
    tnl = np.empty(L)
    w = np.empty(L)
    if not (_finite(wrench) and _finite(r) and _finite(slip_dir) and np.isfinite(mu_d)):
        return False, w, np.empty((3, L)), np.empty(3), tnl
    fn, f1, f2, tn = wrench[0], wrench[1], wrench[2], wrench[3]
    R = 1e-300
    for l in range(L):
        R = max(R, np.hypot(r[l, 0], r[l, 1]))
    scale_f = max(abs(fn), abs(f1), abs(f2), 1e-300)
    i1, i2, i3 = _inv_or_zero(f1, scale_f), _inv_or_zero(f2, scale_f), \
        _inv_or_zero(tn, scale_f * R)
    for l in range(L):
        tnl[l] = r[l, 0] * slip_dir[l, 1] - r[l, 1] * slip_dir[l, 0]
        w[l] = mu_d * (slip_dir[l, 0] * i1 + slip_dir[l, 1] * i2 + tnl[l] * i3)   # eq. 33
    return True, w, _normal_rows(r), _normal_part(wrench), tnl


@njit(cache=True)
def _kinetic_wrench(eps: np.ndarray, r: np.ndarray, slip_dir: np.ndarray, tnl: np.ndarray,
                    mu_d: float) -> np.ndarray:
    """The wrench of the vertex forces ε'_l (n + μ_d d_l) (eq. 32)."""
    out = np.zeros(6)
    for l in range(r.shape[0]):
        e = eps[l]
        out[0] += e
        out[1] += mu_d * e * slip_dir[l, 0]
        out[2] += mu_d * e * slip_dir[l, 1]
        out[3] += mu_d * e * tnl[l]
        out[4] += e * r[l, 1]
        out[5] -= e * r[l, 0]
    return out


def kinetic_correction_host(wrench: np.ndarray, r: np.ndarray, slip_dir: np.ndarray,
                            mu_d: float) -> np.ndarray:
    """`kinetic_correction` called from Python: the same numbers, with its three steps (the
    LP's set-up, `small_lp_max`, the wrench) called one after the other from here, so that
    `small_lp_max` and the NNLS inside it are compiled once and not again inside a second
    kernel (first-run compile time). Arrays float64, C order."""
    mu_d = float(mu_d)
    ok, w, A, b, tnl = _kinetic_lp(wrench, r, slip_dir, mu_d)
    if not ok:
        return np.full(6, np.nan)
    return _kinetic_wrench(small_lp_max(w, A, b), r, slip_dir, tnl, mu_d)
