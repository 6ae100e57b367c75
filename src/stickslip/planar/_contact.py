"""Frictional unilateral contacts between planar bodies, solved by the λ-problem (SPEC §6).

Each element is a set of point–line pairs. A pair has a point P fixed on body j, and a line
fixed on body i through the point L with unit direction t (both in body i's frame); its
normal n is t turned by +90°. Per pair (SPEC §6, the seed's J_v and Ψ_p rows):

    ψ(q)   = n · (r_P − r_L)                      gap [m] (≥ 0: separated)
    v_t    = t · (ṙ_P − ṙ_i*)                     sliding velocity of P over body i [m/s]

with ṙ_i* the velocity of body i's material point under P. The rows of J are ∂ψ/∂q (normal,
a position constraint Ψ_p) and ∂v_t/∂q̇ (tangential, a velocity constraint J_v); the force
block is a :class:`~stickslip.constraints.PlanarContact` with friction coefficient μ, and the
Baumgarte-like relaxation uses δ [s] (small: how fast gaps close and sticking velocities
vanish) and ζ [-] (any: damping of the relaxed contact; ζ < 1 bounces, ζ ≥ 1 does not).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._rules import FRICTION_COEFFICIENT, Rule, RuleChecked, run_checks
from .._validation import keyword_alias
from ._constraint_base import POINT, _name

__all__ = ["STATIC_SPEED", "AbstractFrictionalContact", "ClearanceSlider", "PointLineContact"]


STATIC_SPEED = 1e-3
"""Default Stribeck velocity of the contacts [m/s]: below this sliding speed a contact counts
as sticking and gets its static coefficient."""


def _number(value: Any) -> Any:
    """One number as a float; anything else unchanged (the rules name what is wrong)."""
    try:
        return float(value) if np.ndim(value) == 0 and not isinstance(value, (str, bytes)) \
            else value
    except (TypeError, ValueError):
        return value


def _vector(value: Any) -> Any:
    """Numbers as a float NumPy array; anything else unchanged (the rules name it)."""
    if isinstance(value, (str, bytes)):
        return value
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return value


def _direction(value: Any) -> Any:
    """A finite non-zero vector divided by its norm; anything else unchanged."""
    arr = _vector(value)
    if not isinstance(arr, np.ndarray) or arr.ndim != 1 or not np.all(np.isfinite(arr)) \
            or not np.any(arr):
        return arr
    arr = arr / np.max(np.abs(arr))        # first: the norm of (1e308, 1e308) overflows
    return arr / np.linalg.norm(arr)


def _half_size(what: str) -> Rule:
    return Rule("positive", f"Pass {what} as one number in metres (> 0).", scalar=True,
                unit="m", optional=False)


_POINT = Rule("finite", "Pass two finite numbers (x, y) [m] in the body frame.", shape=(2,),
              unit="m")
_AXIS = Rule("direction", "Pass a non-zero direction (x, y) in the body frame, e.g. (1.0, "
             "0.0).", shape=(2,))
_FRICTION_RULES = {
    "mu": FRICTION_COEFFICIENT.but(scalar=True, hint="Pass a friction coefficient >= 0 "
                                   "(mu, also spelled mu_k)."),
    # no plausibility warning here: mu_s defaults to mu, which warns already (_friction
    # warns for a mu_s given explicitly)
    "mu_s": FRICTION_COEFFICIENT.but(scalar=True, plausible=None),
    "v_stribeck": Rule("positive", "Pass the Stribeck velocity in m/s (e.g. 1e-3).",
                       scalar=True, unit="m/s"),
    "delta": Rule("positive", "Pass the relaxation time δ in seconds (e.g. 1e-3).",
                  scalar=True, unit="s"),
    "zeta": Rule("nonnegative", "Pass a damping ratio ζ >= 0 (e.g. 1.0).", scalar=True),
}


def _friction(owner, mu, mu_k, mu_s, v_stribeck):
    """(μ, μ_s, v_stribeck) with their defaults: μ (kinetic, also spelled mu_k; default 0),
    μ_s (default μ), v_stribeck (default STATIC_SPEED); checked by the element's rules."""
    mu = keyword_alias(owner, "mu", mu, "mu_k", mu_k)
    mu = 0.0 if mu is None else mu
    v_stribeck = STATIC_SPEED if v_stribeck is None else v_stribeck
    if mu_s is not None:
        FRICTION_COEFFICIENT.check_plausible(owner, "mu_s", _number(mu_s))
    return _number(mu), _number(mu if mu_s is None else mu_s), _number(v_stribeck)


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    arr = np.asarray(value, dtype=float)
    return f"{float(arr):g}" if arr.ndim == 0 else "(" + ", ".join(f"{x:g}" for x in arr) + ")"


class AbstractFrictionalContact(RuleChecked):
    """A frictional unilateral contact element of :class:`~stickslip.planar.Model`.

    Contract: ``pairs()`` returns the point–line pairs as tuples ``(body_i, body_j, point_j,
    line_point_i, line_axis_i)`` (bodies resolved by :meth:`bind`); ``mu``, ``delta``,
    ``zeta`` are the friction coefficient and the relaxation parameters; channels are
    ``<name>.gap``, ``<name>.fn``, ``<name>.ft`` (suffixed ``.1``, ``.2``… per pair when an
    element has several).
    """

    prefix: ClassVar[str] = "contact"
    name: str | None = None
    # set by each subclass's __init__ (declared here for the contract; no class default)
    mu: float
    mu_s: float
    v_stribeck: float
    delta: float
    zeta: float
    friction_pairs: ClassVar[tuple[tuple[str, str], ...]] = (("mu_s", "mu"),)

    @property
    def owner(self) -> str:
        return self.name or type(self).__name__

    def parameter_owner(self) -> str:
        """Messages name the contact: its ``name``, else its class."""
        return self.owner

    def __check_init__(self) -> None:
        _name(type(self).__name__, self.name)

    def __repr__(self) -> str:
        values = ", ".join(f"{k}={_shown(getattr(self, k))}" for k in self.parameter_rules)
        return f"{type(self).__name__}({self.name!r}: {values})"

    @property
    def n_pairs(self) -> int:
        return len(self.pairs())

    def pairs(self):  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def mu_k(self) -> float:
        """The kinetic coefficient (the attribute ``mu``)."""
        return self.mu

    def body_refs(self):
        return [("body_i", self.body_i), ("body_j", self.body_j)]

    def bind(self, body_i, body_j) -> None:
        self.body_i, self.body_j = body_i, body_j

    def channel_names(self, quantity: str) -> list[str]:
        if self.n_pairs == 1:
            return [f"{self.name}.{quantity}"]
        return [f"{self.name}.{quantity}.{k + 1}" for k in range(self.n_pairs)]


class PointLineContact(AbstractFrictionalContact):
    """A point of body j against a line of body i, with Coulomb friction (SPEC §6).

    Parameters
    ----------
    body_i
        the body carrying the line (or ``model.ground`` / ``"ground"``).
    body_j
        the body carrying the point.
    point_j
        the contact point P (x', y') [m] in body j's frame (or a named point).
    line_point_i
        a point L of the line (x', y') [m] in body i's frame.
    line_axis_i
        the line's direction t in body i's frame; the free side is n = t turned
        by +90° (counter-clockwise), e.g. axis (1, 0) → the point stays above (y > 0).
    mu, mu_k : float, optional
        friction coefficient μ [-] (>= 0; default 0), the kinetic one when `mu_s` is
        given; two spellings of one parameter (``mu_k`` matches ``mu_s`` and the other
        elements; give one; stored as ``mu``, ``contact.mu_k`` reads it).
    mu_s : float, optional
        static coefficient [-] >= mu (default mu). The relaxation lets a sticking contact's
        sliding velocity decay over δ rather than vanish, so the bound is the curve
        μ + (μ_s − μ)·exp(−(|v_t|/v_stribeck)²) of its sliding speed |v_t|
        (``ss.laws.friction_curve``): μ_s while it sticks, μ once it slides.
    v_stribeck : float, optional
        the sliding speed [m/s] over which the bound falls from μ_s to μ (default
        :data:`STATIC_SPEED`, 1 mm/s).
    delta : float, optional
        relaxation time δ [s] of the Baumgarte-like relaxation (default 1e-3).
    zeta : float, optional
        relaxation damping ratio ζ [-] (default 1: no bounce).
    name : str, optional
        the element's name (a non-empty string without '.', as for joints); channels
        ``<name>.gap`` [m], ``<name>.fn`` [N] (normal force, >= 0) and ``<name>.ft`` [N]
        (friction force on body j along t).

    Notes
    -----
    A run (``Model.simulate``, ``ss.planar.moreau_jean``) that would start with the point
    inside the line is refused before it starts — a ModelError with the depth and the move
    that fixes it — as the spatial models refuse a body starting inside the ground: the
    relaxation would push it out at up to depth/δ.

    Examples
    --------
    >>> import stickslip as ss
    >>> model = ss.planar.Model(gravity=(0.0, -9.81))
    >>> block = model.add_body("block", mass=1.0, inertia=1e-3, y=0.0)
    >>> c = model.add(ss.planar.PointLineContact(model.ground, block, point_j=(0.0, 0.0),
    ...               line_point_i=(0.0, 0.0), line_axis_i=(1.0, 0.0), mu=0.5, name="floor"))
    >>> c.n_pairs
    1
    """

    prefix: ClassVar[str] = "contact"
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "point_j": POINT, "line_point_i": _POINT, "line_axis_i": _AXIS, **_FRICTION_RULES}

    def __init__(self, body_i, body_j, *, point_j=(0.0, 0.0), line_point_i=(0.0, 0.0),
                 line_axis_i=(1.0, 0.0), mu: float | None = None, delta: float = 1e-3,
                 zeta: float = 1.0, name: str | None = None, mu_s: float | None = None,
                 v_stribeck: float | None = None, mu_k: float | None = None):
        self.name = _name("PointLineContact", name)     # the joints' rule: no '.', not ''
        self.body_i, self.body_j = body_i, body_j
        self.point_j = point_j
        self.line_point_i = _vector(line_point_i)
        self.line_axis_i = _direction(line_axis_i)
        self.mu, self.mu_s, self.v_stribeck = _friction(self.owner, mu, mu_k, mu_s, v_stribeck)
        self.delta, self.zeta = _number(delta), _number(zeta)
        run_checks(self)

    @classmethod
    def example(cls) -> PointLineContact:
        """A point of body ``"link"`` on a tilted ground line, μ = 0.3, μ_s = 0.4."""
        return cls("ground", "link", point_j=(0.0, -0.05), line_point_i=(0.0, 0.0),
                   line_axis_i=(1.0, 0.1), mu=0.3, mu_s=0.4)

    def bind(self, body_i, body_j) -> None:
        super().bind(body_i, body_j)
        self.point_j = np.asarray(body_j.resolve_point(self.owner, "point_j", self.point_j))

    def pairs(self):
        return [(self.body_i, self.body_j, np.asarray(self.point_j, dtype=float),
                 self.line_point_i, self.line_axis_i)]


class ClearanceSlider(AbstractFrictionalContact):
    """A rectangular slider in a straight guide with clearance: four corner contacts (SPEC §6).

    The guide's channel runs along the x' axis of `guide` (through `guide_point`, direction
    `guide_axis`); its walls are at ±(half_height + clearance) from that axis. The slider's
    corners (±half_length, ±half_height) in its own frame touch the walls: corners 1, 2 (at
    +half_length, −half_length, upper side) against the upper wall, 3, 4 (+, −; lower side)
    against the lower wall. A centred, aligned slider has all four gaps equal to `clearance`;
    each gap stays within [0, 2·clearance] while the slider is inside.

    Parameters
    ----------
    guide, slider
        the bodies (`guide` may be ``model.ground``).
    half_length, half_height : float
        the slider's half sizes [m] (> 0).
    clearance : float
        c [m] (> 0), the gap on each side when centred.
    mu, mu_k : float, optional
        friction coefficient μ [-] at the walls (mu or mu_k).
    mu_s, v_stribeck : float, optional
        the static coefficient and its speed, as for :class:`PointLineContact`.
    delta, zeta : float, optional
        the relaxation (δ [s], ζ [-]) as for :class:`PointLineContact`.
    guide_point, guide_axis
        the channel's centre line in the guide's frame.
    name : str, optional
        channels ``<name>.gap.1`` … ``.4``, ``<name>.fn.k``, ``<name>.ft.k`` (a non-empty
        string without '.').

    Notes
    -----
    A slider that would start with a corner through a wall — shifted across the channel, or
    turned further than its clearance allows — is refused before the run with the depth and
    the move, or the angle it may have (as for :class:`PointLineContact`).
    """

    prefix: ClassVar[str] = "slider"
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "half_length": _half_size("half_length"), "half_height": _half_size("half_height"),
        "clearance": _half_size("the clearance c"), "guide_point": _POINT,
        "guide_axis": _AXIS, **_FRICTION_RULES}

    def __init__(self, guide, slider, *, half_length: float, half_height: float,
                 clearance: float, mu: float | None = None, delta: float = 1e-3,
                 zeta: float = 1.0,
                 guide_point=(0.0, 0.0), guide_axis=(1.0, 0.0), name: str | None = None,
                 mu_s: float | None = None, v_stribeck: float | None = None,
                 mu_k: float | None = None):
        self.name = _name("ClearanceSlider", name)      # the joints' rule: no '.', not ''
        self.body_i, self.body_j = guide, slider
        self.half_length, self.half_height = _number(half_length), _number(half_height)
        self.clearance = _number(clearance)
        self.guide_point = _vector(guide_point)
        self.guide_axis = _direction(guide_axis)
        self.mu, self.mu_s, self.v_stribeck = _friction(self.owner, mu, mu_k, mu_s, v_stribeck)
        self.delta, self.zeta = _number(delta), _number(zeta)
        run_checks(self)

    @classmethod
    def example(cls) -> ClearanceSlider:
        """A 0.1 m × 0.04 m slider (body ``"link"``) in a ground guide with 1 mm
        clearance, μ = 0.2."""
        return cls("ground", "link", half_length=0.05, half_height=0.02, clearance=1e-3,
                   mu=0.2)

    def pairs(self):
        t = self.guide_axis
        n = np.array([-t[1], t[0]])
        wall = self.half_height + self.clearance
        L, H = self.half_length, self.half_height
        upper = self.guide_point + wall * n
        lower = self.guide_point - wall * n
        return [(self.body_i, self.body_j, np.array([L, H]), upper, -t),   # normal −n
                (self.body_i, self.body_j, np.array([-L, H]), upper, -t),
                (self.body_i, self.body_j, np.array([L, -H]), lower, t),    # normal +n
                (self.body_i, self.body_j, np.array([-L, -H]), lower, t)]
