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

import math
from typing import Any, ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from ..errors import ParameterError
from ..laws._base import AbstractContactLaw
from ._base import AbstractElement, evolve
from ._body import global_point, rotation

__all__ = ["AbstractStop", "PointLineStop", "TranslationalStop", "RevoluteStop"]


def _restitution(owner, e):
    try:
        v = float(e)
    except (TypeError, ValueError):
        v = float("nan")
    if not (math.isfinite(v) and 0.0 <= v <= 1.0):
        raise ParameterError(f"`{owner}.restitution` must be in [0, 1]; got "
                             f"restitution={e!r}.")
    return jnp.asarray(v)


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

    def describe(self) -> str:
        return f"{type(self).__name__} {self.name!r}"

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

    def __init__(self, body, point=(0.0, 0.0), *, line_point=(0.0, 0.0), normal=(0.0, 1.0),
                 line_body=None, restitution: float = 1.0, law=None,
                 name: str | None = None):
        from ._body import _vector

        self.name = name
        self.body, self.point, self.line_body = body, point, line_body
        try:
            n = np.asarray(normal, dtype=float)
        except (TypeError, ValueError):
            n = np.full(3, np.nan)
        if n.shape != (2,) or not np.all(np.isfinite(n)) or np.linalg.norm(n) == 0:
            raise ParameterError(f"`{self.owner}.normal` must be a non-zero direction; got "
                                 f"{normal!r}.")
        self.normal = jnp.asarray(n / np.linalg.norm(n))
        self.line_point = jnp.asarray(_vector(self.owner, "line_point", line_point))
        self.restitution = _restitution(self.owner, restitution)
        self.law = _check_law(self.owner, law)

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
        from ._constraint_base import AbstractConstraint, _finite

        self.name = name
        self.joint = joint
        if not (isinstance(joint, AbstractConstraint) and joint.slide_unit == self.slide_unit):
            raise ParameterError(f"`{self.owner}.joint` must be a {self.joint_type}; got "
                                 f"{type(joint).__name__}.")
        if lower is None and upper is None:
            raise ParameterError(f"`{self.owner}` needs `lower`, `upper` or both "
                                 f"[{self.slide_unit}].")
        lower = None if lower is None else _finite(self.owner, "lower", lower, self.slide_unit)
        upper = None if upper is None else _finite(self.owner, "upper", upper, self.slide_unit)
        if lower is not None and upper is not None and not float(lower) < float(upper):
            raise ParameterError(f"`{self.owner}`: lower={float(lower)} must be < "
                                 f"upper={float(upper)}.")
        self.lower, self.upper = lower, upper
        self.restitution = _restitution(self.owner, restitution)
        self.law = _check_law(self.owner, law)

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

    def __init__(self, joint, *, lower: float | None = None, upper: float | None = None,
                 restitution: float = 1.0, law=None, name: str | None = None):
        self._setup(joint, lower, upper, restitution, law, name)


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

    def __init__(self, joint, *, lower: float | None = None, upper: float | None = None,
                 restitution: float = 1.0, law=None, name: str | None = None):
        self._setup(joint, lower, upper, restitution, law, name)
