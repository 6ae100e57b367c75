"""Friction constraints on a contact's 6-axis force (SPEC §7 steps 4–5; Wakisaka & Sugihara):
the public static test `static_friction_holds` with its argument checks, and
`check_pyramid_sides`.

Forces are written in the contact frame (n, e1, e2): ``f = (f_n, f_1, f_2)`` and
``tau = (tau_n, tau_1, tau_2)`` about p_g. The polygon vertices ``r`` (L, 2) are in (e1, e2).

The per-step solvers are compiled with numba (``@njit``) on float64 arrays, so that a compiled
contact kernel can call them with no Python in between; from Python they are called the same
way. They live by method and are re-exported here: the static LP of eq. 28–31
(`pyramid_matrix`, `lp_feasible`, `static_lp_feasible`: :mod:`._friction_static`), the
small LP (`small_lp_max`: :mod:`._small_lp`), the kinetic correction of eq. 32–34
(`kinetic_correction`: :mod:`._friction_kinetic`) and the previous method
(`previous_torque_limit`, `previous_static`, `previous_kinetic`:
:mod:`._friction_previous`). Non-finite input is never hidden: the feasibility tests answer
False for it and the corrections return NaN, so that the caller's finiteness check reports
it.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ._friction_kinetic import kinetic_correction
from ._friction_previous import previous_kinetic, previous_static, previous_torque_limit
from ._friction_static import lp_feasible, pyramid_matrix, static_lp_feasible
from ._small_lp import small_lp_max

__all__ = [
    "kinetic_correction",
    "lp_feasible",
    "previous_kinetic",
    "previous_static",
    "previous_torque_limit",
    "pyramid_matrix",
    "small_lp_max",
    "static_friction_holds",
    "static_lp_feasible",
]


def static_friction_holds(force, torque, footprint, mu_s: float, normal_force: float,
                          P: int = 8, *, solver: str = "nnls") -> bool:
    """Whether static friction can hold a tangential force and a normal-axis torque on a
    flat contact: the LP of eq. 28–31 alone (SPEC §7 step 4).

    Parameters
    ----------
    force
        (f_x, f_y) tangential force [N] at the footprint's origin.
    torque
        tau_z, torque about the normal (+z) [N m] at the footprint's origin.
    footprint
        (L, 2) vertices of the convex contact polygon [m], in the same frame.
    mu_s : float
        static friction coefficient μ_s [-].
    normal_force : float
        f_n > 0 [N]; its centre of pressure is the origin (tau_x = tau_y = 0).
    P : int, optional
        sides of the pyramid inscribed in the friction cone (>= 3); its first edge is along +x.
    solver : str, optional
        "nnls" (default: the compiled NNLS feasibility test, min ‖Mε − y‖ over ε ≥ 0)
        or "highs" (SciPy's HiGHS LP). They agree (tested on a grid of loads); NNLS is
        80–150× faster per call.

    Returns
    -------
    bool
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
    mu_s = _number("mu_s", mu_s)
    if not (np.isfinite(mu_s) and mu_s >= 0):
        raise ParameterError(f"`static_friction_holds.mu_s` must be >= 0; got mu_s={mu_s!r}.")
    fn = _number("normal_force", normal_force)
    if not (np.isfinite(fn) and fn > 0):
        raise ParameterError(f"`static_friction_holds.normal_force` must be > 0; got "
                             f"normal_force={normal_force!r}. Pass the normal force in N.")
    f = _array("force", force).reshape(-1)
    if f.shape != (2,):
        raise ParameterError(f"`static_friction_holds.force` must be (f_x, f_y); got shape "
                             f"{f.shape}.")
    r = _array("footprint", footprint)
    if r.ndim != 2 or r.shape[1] != 2 or len(r) < 1:
        raise ParameterError(f"`static_friction_holds.footprint` must be an (L, 2) array; got "
                             f"shape {r.shape}.")
    if not np.all(np.isfinite(f)):
        raise ParameterError(f"`static_friction_holds.force` must be finite; got {f.tolist()}.")
    if not np.all(np.isfinite(r)):
        raise ParameterError("`static_friction_holds.footprint` must be finite; got "
                             f"{r.tolist()}.")
    try:
        tau = float(torque)
    except (TypeError, ValueError):
        raise ParameterError("`static_friction_holds.torque` must be a number (tau_z [N m]); "
                             f"got {torque!r}.") from None
    if not np.isfinite(tau):
        raise ParameterError(f"`static_friction_holds.torque` must be finite; got {tau!r}.")
    if solver not in ("nnls", "highs"):
        raise ParameterError(f"`static_friction_holds.solver` must be 'nnls' or 'highs'; got "
                             f"{solver!r}.")
    wrench = np.array([fn, f[0], f[1], tau, 0.0, 0.0])
    return static_lp_feasible(wrench, r, mu_s, P, solver=solver)


def _number(name: str, value) -> float:
    if isinstance(value, (str, bytes, bool)):
        raise ParameterError(f"`static_friction_holds.{name}` must be a number; got {value!r}.")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"`static_friction_holds.{name}` must be a number; got "
                             f"{value!r}.") from None


def _array(name: str, value) -> np.ndarray:
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"`static_friction_holds.{name}` must be numbers; got "
                             f"{value!r}.") from None


def check_pyramid_sides(P) -> int:
    """P as an int >= 3, or a ParameterError."""
    if isinstance(P, bool) or not isinstance(P, (int, float, np.integer, np.floating)) \
            or not np.isfinite(P) or int(P) != P or P < 3:
        raise ParameterError(f"`P` (sides of the friction pyramid) must be an integer >= 3; got "
                             f"P={P!r}. The paper uses P=8.")
    return int(P)
