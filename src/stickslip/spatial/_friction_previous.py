"""The previous method of Wakisaka & Sugihara (2016; SPEC §7, end of 2.4), kept for comparison:
the friction force |f_t| ≤ μ f_n and the normal torque |tau_n| ≤ the torque limit
max μ Σ_l |r_l| ε_l are tested and corrected separately. Compiled (numba):
`previous_torque_limit`, `previous_static`, `previous_kinetic`; their ``*_host`` versions
give the same numbers from Python. Non-finite input: not static, and NaN corrections.
"""

from __future__ import annotations

import numpy as np

from ._dense import dot
from ._friction_kinetic import _normal_part, _normal_rows
from ._friction_static import _finite, _is_zero
from ._lazy_njit import njit
from ._small_lp import small_lp_max


@njit(cache=True)
def previous_torque_limit(wrench: np.ndarray, r: np.ndarray, mu: float) -> float:
    """The previous method's normal-torque limit (Wakisaka & Sugihara 2016; SPEC §7 end of
    2.4): max μ Σ_l |r_l| ε_l over normal distributions ε ≥ 0 compatible with
    (f_n, tau_1, tau_2), i.e. friction at every vertex at its limit and circumferential.
    Returns the limit [N m]."""
    c, A, b = _torque_lp(wrench, r, mu)
    return dot(c, small_lp_max(c, A, b))


@njit(cache=True)
def _torque_lp(wrench: np.ndarray, r: np.ndarray, mu: float):
    """`previous_torque_limit`'s LP: the weights μ|r_l| and eq. 34's rows and right-hand
    side."""
    L = r.shape[0]
    c = np.empty(L)
    for l in range(L):
        c[l] = mu * np.hypot(r[l, 0], r[l, 1])
    return c, _normal_rows(r), _normal_part(wrench)


@njit(cache=True)
def _previous_static_force(wrench: np.ndarray, r: np.ndarray, mu_s: float) -> int:
    """`previous_static` without the torque test: 0 (not static), 1 (static) or −1 (static
    when |tau_n| is within the torque limit)."""
    if not (_finite(wrench) and _finite(r)):
        return 0
    fn = wrench[0]
    if fn <= 0:
        return 1 if _is_zero(wrench) else 0
    if not np.hypot(wrench[1], wrench[2]) <= mu_s * fn * (1 + 1e-12):
        return 0
    return -1


@njit(cache=True)
def _torque_within(wrench: np.ndarray, limit: float) -> bool:
    return abs(wrench[3]) <= limit * (1 + 1e-12)


@njit(cache=True)
def previous_static(wrench: np.ndarray, r: np.ndarray, mu_s: float) -> bool:
    """The previous method's test: |f_t| ≤ μ_s f_n and |tau_n| ≤ the torque limit,
    separately. Non-finite input: False."""
    verdict = _previous_static_force(wrench, r, mu_s)
    if verdict >= 0:
        return verdict == 1
    return _torque_within(wrench, previous_torque_limit(wrench, r, mu_s))


@njit(cache=True)
def _previous_kinetic_force(wrench: np.ndarray, r: np.ndarray,
                            mu_d: float) -> tuple[bool, np.ndarray]:
    """`previous_kinetic` up to the torque: (ok, the wrench with its friction force limited);
    all NaN and ok False when an input is not finite."""
    out = np.empty(6)
    for i in range(6):
        out[i] = wrench[i]
    if not (_finite(wrench) and _finite(r) and np.isfinite(mu_d)):
        for i in range(6):
            out[i] = np.nan
        return False, out
    ft = np.hypot(out[1], out[2])
    lim = mu_d * max(out[0], 0.0)      # a round-off negative f_n: no friction, not reversed
    if ft > lim:
        out[1] *= lim / ft
        out[2] *= lim / ft
    return True, out


@njit(cache=True)
def _clamp_torque(out: np.ndarray, limit: float) -> np.ndarray:
    out[3] = min(max(out[3], -limit), limit)
    return out


@njit(cache=True)
def previous_kinetic(wrench: np.ndarray, r: np.ndarray, mu_d: float) -> np.ndarray:
    """The previous method's kinetic correction: the friction force limited to μ_d f_n (its
    direction kept) and the normal torque to the μ_d torque limit, separately. Returns the
    corrected wrench [N, N m]; all NaN when an input is not finite."""
    ok, out = _previous_kinetic_force(wrench, r, mu_d)
    if not ok:
        return out
    return _clamp_torque(out, previous_torque_limit(out, r, mu_d))


# --- the same tests called from Python, step by step -------------------------------------
# A compiled kernel carries a compiled copy of every kernel it calls; called one after the
# other from here, small_lp_max and its NNLS are compiled once instead of again inside each
# of previous_torque_limit, previous_static and previous_kinetic (first-run compile time).
# Same numbers (tested bit for bit); arrays float64, C order.

def previous_torque_limit_host(wrench: np.ndarray, r: np.ndarray, mu: float) -> float:
    """`previous_torque_limit` from Python."""
    c, A, b = _torque_lp(wrench, r, float(mu))
    return dot(c, small_lp_max(c, A, b))


def previous_static_host(wrench: np.ndarray, r: np.ndarray, mu_s: float) -> bool:
    """`previous_static` from Python."""
    verdict = _previous_static_force(wrench, r, float(mu_s))
    if verdict >= 0:
        return verdict == 1
    return bool(_torque_within(wrench, previous_torque_limit_host(wrench, r, mu_s)))


def previous_kinetic_host(wrench: np.ndarray, r: np.ndarray, mu_d: float) -> np.ndarray:
    """`previous_kinetic` from Python."""
    ok, out = _previous_kinetic_force(wrench, r, float(mu_d))
    if not ok:
        return out
    return _clamp_torque(out, previous_torque_limit_host(out, r, mu_d))
