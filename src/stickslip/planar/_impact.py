"""Unilateral stops (SPEC §9 9-1): one or two gap functions g(q) ≥ 0 [m or rad].

* :class:`PointLineStop` — a body point against a ground line (point ``line_point``,
  unit ``normal`` pointing to the free side): g = nᵀ(r_iᴾ − p₀);
* :class:`TranslationalStop` — a translational joint's travel limits on its slide
  s = u_iᵀ d_ij: g = s − lower and g = upper − s;
* :class:`RevoluteStop` — a revolute joint's angle limits on θ = φ_j − φ_i.

Joint stops limit the joint's own ``slide(qi, qj)`` (written once, on the joint).

Two ways to handle them, so users can compare:

**Events** (``law=None``, the default): :meth:`Model.simulate` runs the core's event route
(``method="events"``: DOP853 steps projected onto the joints, the smallest gap as the guard,
the impact time located to round-off inside the step) and applies the momentum-balance
impulse through the constraint matrix (SPEC §9 9-1) — see :mod:`stickslip.planar._events`
and :mod:`stickslip.planar._event_stops`.

**Contact law** (``law=ss.laws.UnilateralODE(...)``): the stop becomes a force
``f = law(g, ġ)`` along g_q with the law's state (no events), integrated like any other
element — see SPEC §3 for how α and β set the restitution.
"""

from __future__ import annotations

from typing import Any, ClassVar

import equinox as eqx
import jax
import jax.core  # jax.core.Tracer below (a submodule: named for static checkers)
import jax.numpy as jnp
import numpy as np

from .._rules import Rule
from ..errors import ParameterError
from ..laws import AbstractContactLaw
from ._base import AbstractElement, evolve, parameter_array, unit_direction
from ._body import global_point, rotation
from ._constraint_base import POINT, AbstractConstraint

__all__ = ["AbstractStop", "PointLineStop", "RevoluteStop", "TranslationalStop"]


RESTITUTION = Rule("finite", "Pass the coefficient of restitution e in [0, 1] (0: the "
                   "stop holds, 1: elastic).", scalar=True, range=(0.0, 1.0))
"""The rule of a stop's restitution: one number in [0, 1] (events)."""

LINE_POINT = Rule("finite", "Pass a point (x, y) of the line in metres.", shape=(2,), unit="m")
NORMAL = Rule("direction", "Pass the line's normal (nx, ny) towards the free side, e.g. "
              "normal=(0, 1).", shape=(2,))


def _concrete_number(value) -> float | None:
    """`value` as a finite float when it is one concrete number, else None (traced, an
    array, NaN, a string: the rules report those)."""
    if value is None or isinstance(value, (str, bytes, jax.core.Tracer)):
        return None
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    return float(arr) if arr.ndim == 0 and np.isfinite(arr) else None


def _check_law(owner, law):
    if law is not None and not isinstance(law, AbstractContactLaw):
        raise ParameterError(f"`{owner}.law` must be a contact law from stickslip.laws (e.g. "
                             f"UnilateralODE) or None for events; got {type(law).__name__}.")
    return law


class AbstractStop(AbstractElement):
    """A unilateral stop (see the module docstring): ``n_gaps`` rows of g(q) ≥ 0.
    ``on_joint`` (class variable): it limits a joint's slide (bound to the joint) rather
    than acting on bodies."""

    prefix: ClassVar[str] = "stop"
    on_joint: ClassVar[bool] = False
    unit: ClassVar[str] = "m"
    law: eqx.AbstractVar[AbstractContactLaw | None]
    restitution: eqx.AbstractVar[Any]

    @property
    def n_gaps(self) -> int:
        return 1

    def __check_init__(self) -> None:
        _check_law(self.owner, self.law)

    def describe(self) -> str:
        return f"{type(self).__name__} {self.name!r}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}: {self.parameter_text()})"

    def gaps(self, pose):
        """g(q) (shape (n_gaps,)); `pose(body)` gives a body's traced pose."""
        raise NotImplementedError


class PointLineStop(AbstractStop):
    """A body point against a line: g = nᵀ(r_iᴾ − p₀) ≥ 0 [m].

    body, point: the body and its point (body frame [m] or a named point).
    line_point, normal: a point of the line and its normal towards the free side, in the
    ground frame — or in the frame of ``line_body`` when one is given (a line moving with
    another body of the mechanism: a paddle, a cup).  restitution: e in [0, 1] (events).
    law: a contact law instead of events.
    """

    prefix: ClassVar[str] = "stop"
    body: Any = eqx.field(static=True)
    point: Any
    line_body: Any = eqx.field(static=True)
    line_point: Any
    normal: Any
    restitution: Any
    law: AbstractContactLaw | None
    name: str | None = eqx.field(static=True)
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "point": POINT, "line_point": LINE_POINT, "normal": NORMAL,
        "restitution": RESTITUTION}

    def __init__(self, body, point=(0.0, 0.0), *, line_point=(0.0, 0.0), normal=(0.0, 1.0),
                 line_body=None, restitution: float = 1.0, law=None,
                 name: str | None = None):
        self.name = name
        self.body, self.point, self.line_body = body, point, line_body
        self.normal = unit_direction(normal)
        self.line_point = parameter_array(line_point)
        self.restitution = parameter_array(restitution)
        self.law = law

    @classmethod
    def example(cls) -> PointLineStop:
        """A point of body ``"link"`` above a tilted ground line, restitution 0.5."""
        return cls("link", (0.0, -0.05), line_point=(0.0, -0.5), normal=(0.1, 1.0),
                   restitution=0.5)

    def bodies(self) -> tuple:
        return (self.body,) if self.line_body is None else (self.body, self.line_body)

    def bind(self, body, line_body=None, *, name):
        point = jnp.asarray(body.resolve_point(self.owner, "point", self.point))
        line_body = line_body if line_body is not None and not line_body.is_ground else None
        return evolve(self, body=body, line_body=line_body, point=point, name=name)

    def gaps(self, pose):
        r = global_point(pose(self.body), self.point)
        if self.line_body is None:
            p0, n = self.line_point, self.normal
        else:
            line_pose = pose(self.line_body)
            p0 = global_point(line_pose, self.line_point)
            n = rotation(line_pose[2]) @ self.normal
        return jnp.atleast_1d(n @ (r - p0))


class _AbstractJointStop(AbstractStop):
    """Limits lower ≤ s ≤ upper on a joint's slide s (rows: s − lower, upper − s)."""

    on_joint: ClassVar[bool] = True
    slide_unit: ClassVar[str]
    joint_type: ClassVar[str]

    def _setup(self, joint, lower, upper, restitution, law, name):
        self.name = name
        self.joint = joint
        self.lower, self.upper = parameter_array(lower), parameter_array(upper)
        self.restitution = parameter_array(restitution)
        self.law = law

    def __check_init__(self) -> None:
        joint = self.joint
        if not (isinstance(joint, AbstractConstraint) and joint.slide_unit == self.slide_unit):
            raise ParameterError(f"`{self.owner}.joint` must be a {self.joint_type}; got "
                                 f"{type(joint).__name__}.")
        if self.lower is None and self.upper is None:
            raise ParameterError(f"`{self.owner}` needs `lower`, `upper` or both "
                                 f"[{self.slide_unit}].")
        lower, upper = _concrete_number(self.lower), _concrete_number(self.upper)
        if lower is not None and upper is not None and not lower < upper:
            raise ParameterError(f"`{self.owner}`: lower={lower} must be < upper={upper}.")

    @property
    def unit(self) -> str:  # type: ignore[override]
        return self.slide_unit

    @property
    def n_gaps(self) -> int:
        return int(self.lower is not None) + int(self.upper is not None)

    def bodies(self) -> tuple:
        return ()

    def bind(self, joint, *, name):
        return evolve(self, joint=joint, name=name)

    def gaps(self, pose):
        c = self.joint
        s = c.slide(pose(c.body_i), pose(c.body_j))
        rows = []
        if self.lower is not None:
            rows.append(s - self.lower)
        if self.upper is not None:
            rows.append(self.upper - s)
        return jnp.stack(rows)


class TranslationalStop(_AbstractJointStop):
    """Travel limits of a translational joint: lower ≤ s ≤ upper [m], s = u_iᵀ d_ij the
    slide of point_j along the axis (0 where the joint was added with coincident points)."""

    prefix: ClassVar[str] = "travel_stop"
    slide_unit: ClassVar[str] = "m"
    joint_type: ClassVar[str] = "TranslationalJoint"
    joint: Any
    lower: Any
    upper: Any
    restitution: Any
    law: AbstractContactLaw | None
    name: str | None = eqx.field(static=True)
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "lower": Rule("finite", "Pass the lower travel limit in metres (or None).",
                      scalar=True, unit="m"),
        "upper": Rule("finite", "Pass the upper travel limit in metres (or None).",
                      scalar=True, unit="m"),
        "restitution": RESTITUTION}

    def __init__(self, joint, *, lower: float | None = None, upper: float | None = None,
                 restitution: float = 1.0, law=None, name: str | None = None):
        self._setup(joint, lower, upper, restitution, law, name)

    @classmethod
    def example(cls) -> TranslationalStop:
        """Travel limits −0.1 m ≤ s ≤ 0.2 m on :meth:`TranslationalJoint.example`."""
        from ._joints import TranslationalJoint

        return cls(TranslationalJoint.example(), lower=-0.1, upper=0.2, restitution=0.3)


class RevoluteStop(_AbstractJointStop):
    """Angle limits of a revolute joint: lower ≤ φ_j − φ_i ≤ upper [rad]."""

    prefix: ClassVar[str] = "angle_stop"
    slide_unit: ClassVar[str] = "rad"
    joint_type: ClassVar[str] = "RevoluteJoint"
    joint: Any
    lower: Any
    upper: Any
    restitution: Any
    law: AbstractContactLaw | None
    name: str | None = eqx.field(static=True)
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "lower": Rule("finite", "Pass the lower angle limit in radians (or None).",
                      scalar=True, unit="rad"),
        "upper": Rule("finite", "Pass the upper angle limit in radians (or None).",
                      scalar=True, unit="rad"),
        "restitution": RESTITUTION}

    def __init__(self, joint, *, lower: float | None = None, upper: float | None = None,
                 restitution: float = 1.0, law=None, name: str | None = None):
        self._setup(joint, lower, upper, restitution, law, name)

    @classmethod
    def example(cls) -> RevoluteStop:
        """Angle limits −1 rad ≤ θ ≤ 1.5 rad on :meth:`RevoluteJoint.example`, with a
        contact law instead of events."""
        from ..laws import UnilateralODE
        from ._joints import RevoluteJoint

        return cls(RevoluteJoint.example(), lower=-1.0, upper=1.5,
                   law=UnilateralODE.example())
