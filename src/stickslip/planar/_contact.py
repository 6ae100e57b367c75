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

import equinox as eqx
import jax
import jax.core  # jax.core.Tracer below (a submodule: named for static checkers)
import jax.numpy as jnp
import numpy as np

from .._rules import FRICTION_COEFFICIENT, Rule
from .._validation import keyword_alias
from ..laws import friction_curve
from ._base import AbstractElement, evolve, host_array, parameter_array, unit_direction
from ._constraint_base import POINT, _name
from ._contact_pairs import gap_and_sliding

__all__ = ["STATIC_SPEED", "AbstractFrictionalContact", "ClearanceSlider", "PointLineContact"]


STATIC_SPEED = 1e-3
"""Default Stribeck velocity of the contacts [m/s]: below this sliding speed a contact counts
as sticking and gets its static coefficient."""


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
    """(μ, μ_s, v_stribeck) as stored: μ (kinetic, also spelled mu_k; default 0), μ_s
    (default μ), v_stribeck (default STATIC_SPEED); checked by the element's rules."""
    mu = keyword_alias(owner, "mu", mu, "mu_k", mu_k)
    mu = 0.0 if mu is None else mu
    v_stribeck = STATIC_SPEED if v_stribeck is None else v_stribeck
    if mu_s is not None:
        FRICTION_COEFFICIENT.check_plausible(owner, "mu_s", _plain(mu_s))
    return (parameter_array(mu), parameter_array(mu if mu_s is None else mu_s),
            parameter_array(v_stribeck))


def _plain(value: Any) -> Any:
    """One concrete number as a float (for the plausibility check); else unchanged."""
    try:
        return float(value) if np.ndim(value) == 0 and not isinstance(
            value, (str, bytes, jax.core.Tracer)) else value
    except (TypeError, ValueError):
        return value


def _host(value) -> np.ndarray:
    return np.asarray(value, dtype=float)


class AbstractFrictionalContact(AbstractElement):
    """A frictional unilateral contact element of :class:`~stickslip.planar.Model`.

    Contract: ``pairs()`` returns the point–line pairs as tuples ``(body_i, body_j, point_j,
    line_point_i, line_axis_i)`` (NumPy geometry, bodies resolved once bound by
    ``Model.add``); ``pair_geometry()`` the same geometry as stacked (n_pairs, 2) arrays,
    traced where the element's fields are; ``mu``, ``mu_s``, ``v_stribeck``, ``delta``,
    ``zeta`` are the friction coefficients and the relaxation parameters (0-d arrays);
    channels are ``<name>.gap``, ``<name>.fn``, ``<name>.ft`` (suffixed ``.1``, ``.2``… per
    pair when an element has several). The frozen model stacks every contact's pairs into
    one :class:`~._contact_pairs.PairGeometry` (:meth:`Builder.system`).
    """

    prefix: ClassVar[str] = "contact"
    friction_pairs: ClassVar[tuple[tuple[str, str], ...]] = (("mu_s", "mu"),)
    parameter_aliases: ClassVar[dict[str, str]] = {"mu_k": "mu"}
    n_pairs: ClassVar[int] = 1
    body_i: eqx.AbstractVar[Any]
    body_j: eqx.AbstractVar[Any]
    mu: eqx.AbstractVar[Any]
    mu_s: eqx.AbstractVar[Any]
    v_stribeck: eqx.AbstractVar[Any]
    delta: eqx.AbstractVar[Any]
    zeta: eqx.AbstractVar[Any]

    def __check_init__(self) -> None:
        _name(type(self).__name__, self.name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}: {self.parameter_text()})"

    def body_refs(self) -> list[tuple[str, Any]]:
        return [("body_i", self.body_i), ("body_j", self.body_j)]

    def bodies(self) -> tuple:
        return (self.body_i, self.body_j)

    def bind(self, body_i, body_j, *, name: str):
        """The element bound to the model's bodies under `name` (a new module)."""
        return evolve(self, body_i=body_i, body_j=body_j, name=name)

    def pair_geometry(self, xp=jnp):
        """(point_j, line_point_i, line_axis_i), each (n_pairs, 2), computed with `xp`
        (``jnp``: traced with the fields; ``np``: host NumPy)."""
        raise NotImplementedError

    def pairs(self) -> list[tuple]:
        point, line_point, axis = self.pair_geometry(np)
        return [(self.body_i, self.body_j, point[k], line_point[k], axis[k])
                for k in range(self.n_pairs)]

    def relaxation_terms(self, qi, qj, qdi, qdj):
        """This contact's pairs at poses qi (body i), qj (body j) and rates qdi, qdj (SPEC §6):
        the gaps ψ [m], the sliding velocities v_t [m/s], the friction bound μ(v_t) of
        ``ss.laws.friction_curve`` (μ_s sticking → μ sliding) and the relaxation's target
        −(2ζ/δ) ψ̇ − ψ/δ² [m/s²] of the normal rows (without J̇ q̇). Pure and traced."""
        point, line_point, axis = self.pair_geometry(jnp)
        psi, vt, rate = jax.vmap(gap_and_sliding, in_axes=(None, None, None, None, 0, 0, 0))(
            qi, qj, qdi, qdj, point, line_point, axis)
        bound = friction_curve(vt, self.mu, self.mu_s, self.v_stribeck)
        target = -(2.0 * self.zeta / self.delta) * rate - psi / self.delta ** 2
        return psi, vt, bound, target

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
        the element's name (a non-empty string without '.', as for joints; default
        ``contact1``, ``contact2``… in the order added); channels ``<name>.gap`` [m],
        ``<name>.fn`` [N] (normal force, >= 0) and ``<name>.ft`` [N] (friction force on
        body j along t).

    Notes
    -----
    An immutable ``equinox`` module like every planar element: ``Model.add`` returns a new,
    bound one (``evolve`` changes a parameter, checked as the constructor checks it). In the
    frozen model its parameters are traced arrays: a μ sweep under ``vmap`` compiles once.

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
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_j: Any
    line_point_i: Any
    line_axis_i: Any
    mu: Any
    mu_s: Any
    v_stribeck: Any
    delta: Any
    zeta: Any
    name: str | None = eqx.field(static=True)

    def __init__(self, body_i, body_j, *, point_j=(0.0, 0.0), line_point_i=(0.0, 0.0),
                 line_axis_i=(1.0, 0.0), mu: float | None = None, delta: float = 1e-3,
                 zeta: float = 1.0, name: str | None = None, mu_s: float | None = None,
                 v_stribeck: float | None = None, mu_k: float | None = None):
        self.name = _name("PointLineContact", name)     # the joints' rule: no '.', not ''
        self.body_i, self.body_j = body_i, body_j
        self.point_j = parameter_array(point_j)
        self.line_point_i = parameter_array(line_point_i)
        self.line_axis_i = unit_direction(line_axis_i)
        self.mu, self.mu_s, self.v_stribeck = _friction(name or "PointLineContact", mu, mu_k,
                                                        mu_s, v_stribeck)
        self.delta, self.zeta = parameter_array(delta), parameter_array(zeta)

    @classmethod
    def example(cls) -> PointLineContact:
        """A point of body ``"link"`` on a tilted ground line, μ = 0.3, μ_s = 0.4."""
        return cls("ground", "link", point_j=(0.0, -0.05), line_point_i=(0.0, 0.0),
                   line_axis_i=(1.0, 0.1), mu=0.3, mu_s=0.4)

    def bind(self, body_i, body_j, *, name: str):
        point = body_j.resolve_point(self.owner, "point_j", self.point_j)
        return evolve(self, body_i=body_i, body_j=body_j, name=name,
                      point_j=host_array(point))

    def pair_geometry(self, xp=jnp):
        if xp is np:
            return (_host(self.point_j)[None], _host(self.line_point_i)[None],
                    _host(self.line_axis_i)[None])
        return self.point_j[None], self.line_point_i[None], self.line_axis_i[None]


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
        the bodies (`guide` may be ``model.ground``); stored as ``body_i``, ``body_j``.
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
        string without '.'; default ``slider1``… in the order added).

    Notes
    -----
    A slider that would start with a corner through a wall — shifted across the channel, or
    turned further than its clearance allows — is refused before the run with the depth and
    the move, or the angle it may have (as for :class:`PointLineContact`).
    """

    prefix: ClassVar[str] = "slider"
    n_pairs: ClassVar[int] = 4
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "half_length": _half_size("half_length"), "half_height": _half_size("half_height"),
        "clearance": _half_size("the clearance c"), "guide_point": _POINT,
        "guide_axis": _AXIS, **_FRICTION_RULES}
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    half_length: Any
    half_height: Any
    clearance: Any
    guide_point: Any
    guide_axis: Any
    mu: Any
    mu_s: Any
    v_stribeck: Any
    delta: Any
    zeta: Any
    name: str | None = eqx.field(static=True)

    def __init__(self, guide, slider, *, half_length: float, half_height: float,
                 clearance: float, mu: float | None = None, delta: float = 1e-3,
                 zeta: float = 1.0,
                 guide_point=(0.0, 0.0), guide_axis=(1.0, 0.0), name: str | None = None,
                 mu_s: float | None = None, v_stribeck: float | None = None,
                 mu_k: float | None = None):
        self.name = _name("ClearanceSlider", name)      # the joints' rule: no '.', not ''
        self.body_i, self.body_j = guide, slider
        self.half_length, self.half_height = (parameter_array(half_length),
                                              parameter_array(half_height))
        self.clearance = parameter_array(clearance)
        self.guide_point = parameter_array(guide_point)
        self.guide_axis = unit_direction(guide_axis)
        self.mu, self.mu_s, self.v_stribeck = _friction(name or "ClearanceSlider", mu, mu_k,
                                                        mu_s, v_stribeck)
        self.delta, self.zeta = parameter_array(delta), parameter_array(zeta)

    @classmethod
    def example(cls) -> ClearanceSlider:
        """A 0.1 m × 0.04 m slider (body ``"link"``) in a ground guide with 1 mm
        clearance, μ = 0.2."""
        return cls("ground", "link", half_length=0.05, half_height=0.02, clearance=1e-3,
                   mu=0.2)

    def pair_geometry(self, xp=jnp):
        """The four corners against the walls: corners (±L, H) on the upper wall with axis
        −t (normal −n), (±L, −H) on the lower wall with axis t (normal +n)."""
        host = xp is np
        get = _host if host else jnp.asarray
        t, centre = get(self.guide_axis), get(self.guide_point)
        L, H = get(self.half_length), get(self.half_height)
        wall = H + get(self.clearance)
        n = xp.stack([-t[1], t[0]])
        upper, lower = centre + wall * n, centre - wall * n
        point = xp.stack([xp.stack([L, H]), xp.stack([-L, H]), xp.stack([L, -H]),
                          xp.stack([-L, -H])])
        line_point = xp.stack([upper, upper, lower, lower])
        axis = xp.stack([-t, -t, t, t])
        return point, line_point, axis
