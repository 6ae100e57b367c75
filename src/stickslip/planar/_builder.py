"""The builder half of :class:`~stickslip.planar.Model`: record bodies and elements, bind
them to the model's bodies (``add`` returns a new immutable element), collect problems,
and freeze everything into an immutable :class:`PlanarSystem` (:meth:`Builder.system`).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..constraints import check_formulation, check_uniqueness
from ..errors import ModelError, ParameterError
from ._base import evolve
from ._body import Body, Ground
from ._constraint_base import AbstractConstraint
from ._contact import AbstractFrictionalContact
from ._contact_pairs import stack_contacts
from ._forces import AbstractForceElement
from ._friction import AbstractJointFriction, LuGreFriction
from ._impact import AbstractStop, PointLineStop
from ._layout import Layout
from ._system import PlanarSystem, joint_frictions

__all__ = ["Builder"]


class Builder:
    """Records a planar mechanism and freezes it (the building half of ``Model``; see
    :class:`~stickslip.planar.Model` for the parameters and attributes)."""

    def __init__(self, gravity: Sequence[float] = (0.0, -9.81), name: str = "mechanism"):
        try:
            g = np.asarray(gravity, dtype=float)
        except (TypeError, ValueError):
            g = np.full(3, np.nan)
        if g.shape != (2,) or not np.all(np.isfinite(g)):
            raise ParameterError(f"`Model.gravity` must be two finite numbers (g_x, g_y) "
                                 f"[m/s²]; got {gravity!r}. Pass e.g. gravity=(0, -9.81).")
        if not isinstance(name, str) or not name:
            raise ParameterError(f"`Model.name` must be a non-empty string; got {name!r}.")
        self.gravity, self.name, self.ground = g, name, Ground()
        self.bodies: list[Body] = []
        self.constraints: list[AbstractConstraint] = []
        self.forces: list[AbstractForceElement] = []
        self.frictions: list[AbstractJointFriction] = []
        self.stops: list[AbstractStop] = []
        # PointLineContact, ClearanceSlider (SPEC §6), bound
        self.frictional_contacts: list[AbstractFrictionalContact] = []
        self._problems: list[str] = []
        self._aliases: dict[int, tuple[list, int]] = {}   # id(user's element) → its slot
        self._layout: Layout | None = None

    def __repr__(self) -> str:
        return (f"Model({self.name!r}: {len(self.bodies)} bodies, {len(self.joints)} joints, "
                f"{len(self.drivers)} drivers, {len(self.forces)} force elements)")

    # --- building ---------------------------------------------------------------------------
    def add_body(self, name: str, mass: float, inertia: float, x: float = 0.0, y: float = 0.0,
                 phi: float = 0.0, *, xd: float = 0.0, yd: float = 0.0, phid: float = 0.0,
                 points: dict[str, Sequence[float]] | None = None) -> Body:
        """Add a rigid body and return it (see :class:`Body` for the parameters: mass m [kg]
        > 0, centroidal inertia J [kg·m²] > 0, a rough initial pose and velocities, named
        body-fixed points). Raises ParameterError for bad values or a duplicate name."""
        if any(b.name == name for b in self.bodies) or name == "ground":
            raise ParameterError(f"a body named {name!r} is already in the model; give each "
                                 "body a unique name ('ground' is reserved).")
        body = Body(name, mass, inertia, x, y, phi, xd, yd, phid, points)
        self.bodies.append(body)
        self._layout = None
        return body

    def add(self, element):
        """Add a joint, driver, force element, friction, stop or frictional contact; return
        it bound to this model's bodies (a new object: use the returned one, or the
        element's name).

        Its reference constants (a translational joint's relative angle, a gear's phase, an
        absolute constraint's value) are taken from the bodies' poses now, so its bodies
        must be in the model already: a body that is not (a misspelled name, a body of
        another model, one not added yet) raises ModelError here, naming the known bodies.
        Other problems (an unknown point, a duplicate name) are collected and raised by the
        next analysis, all at once — except for a frictional contact, whose unknown body,
        duplicate name or unknown point raises ParameterError here
        (:func:`._contact_simulate.add_frictional_contact`).
        """
        if isinstance(element, AbstractFrictionalContact):     # frictional contacts (SPEC §6)
            from ._contact_simulate import add_frictional_contact
            return add_frictional_contact(self, element)
        kinds = ((AbstractConstraint, self.constraints), (AbstractForceElement, self.forces),
                 (AbstractStop, self.stops), (AbstractJointFriction, self.frictions))
        # the list of `element`'s class (which one is not expressible statically)
        group: list[Any] | None = next((g for cls, g in kinds if isinstance(element, cls)), None)
        if group is None:
            raise ParameterError(f"`Model.add` takes a joint, driver or force element from "
                                 f"stickslip.planar; got {type(element).__name__}.")
        kind = type(element).__name__
        name = element.name
        if name is None:
            name = f"{element.prefix}{sum(type(e) is type(element) for e in group) + 1}"
        for field, ref in self._body_refs(element):
            if self._resolve_body(ref) is None:
                raise ModelError(self._unknown_body(kind, name, field, ref))
        if any(e.name == name for e in self._all_elements()):
            self._problems.append(f"{kind} name {name!r} is used twice; pass a unique "
                                  "`name=`.")
        bound = self._bind(element, kind, name)
        group.append(bound if bound is not None else evolve(element, name=name))
        for obj in (element, group[-1]):
            self._aliases[id(obj)] = (group, len(group) - 1)
        self._layout = None
        return group[-1]

    def _bind(self, element, kind, name):
        """The element bound to resolved bodies/joint, or None (problems recorded)."""
        if isinstance(element, AbstractJointFriction) or (isinstance(element, AbstractStop)
                                                          and element.on_joint):
            joint = self._find(element.joint, self.constraints)
            if joint is None:
                self._problems.append(f"{kind} {name!r}: its joint "
                                      f"{getattr(element.joint, 'name', element.joint)!r} is "
                                      "not in this model; add the joint first.")
                return None
            return evolve(element, joint=joint, name=name)
        bodies = [self._resolve_body(ref) for _, ref in self._body_refs(element)]
        if len(bodies) == 2 and bodies[0] is bodies[1]:
            assert bodies[0] is not None, "Builder.add resolves every body before _bind"
            self._problems.append(f"{kind} {name!r} connects body {bodies[0].name!r} to "
                                  "itself; pass two different bodies (or model.ground).")
            return None
        try:
            return element.bind(*bodies, name=name)
        except ParameterError as exc:
            self._problems.append(f"{kind} {name!r}: {exc}")
            return None

    @staticmethod
    def _body_refs(element) -> list[tuple[str, object]]:
        """(field, body or body name) of each body `element` attaches to (none for an
        element on a joint)."""
        if isinstance(element, AbstractJointFriction) or (isinstance(element, AbstractStop)
                                                          and element.on_joint):
            return []
        if isinstance(element, AbstractConstraint):
            return [("body_i", element.body_i), ("body_j", element.body_j)]
        if isinstance(element, PointLineStop):
            return [("body", element.body)] + ([("line_body", element.line_body)]
                                               if element.line_body is not None else [])
        return [(f"bodies[{k}]", b) for k, b in enumerate(element.bodies())]

    def _unknown_body(self, kind, name, field, ref) -> str:
        known = [b.name for b in self.bodies]
        where = f"model {self.name!r} (its bodies: {known})"
        if isinstance(ref, str):
            close = difflib.get_close_matches(ref, [*known, "ground"], n=1)
            what = f"{ref!r}, the name of no body of {where}." + (
                f" Did you mean {close[0]!r}?" if close else "")
        elif isinstance(ref, (Body, Ground)):
            what = f"body {ref.name!r} of another model, not of {where}."
        else:
            what = f"a {type(ref).__name__}, not a body of {where}."
        return (f"{kind} {name!r}: `{field}` is {what} Add each body with model.add_body "
                "before the elements that join it, and pass the body, its name or "
                "model.ground.")

    def _find(self, ref, group):
        if isinstance(ref, str):
            return next((e for e in group if e.name == ref), None)
        slot = self._aliases.get(id(ref))
        return slot[0][slot[1]] if slot is not None and slot[0] is group else None

    def _resolve_body(self, ref):
        if ref is self.ground or (isinstance(ref, str) and ref == "ground"):
            return self.ground
        return next((b for b in self.bodies
                     if b is ref or (isinstance(ref, str) and b.name == ref)), None)

    def _all_elements(self):
        return [*self.constraints, *self.forces, *self.frictions, *self.stops]

    @property
    def joints(self) -> list[AbstractConstraint]:
        return [c for c in self.constraints if not c.is_driver]

    @property
    def drivers(self) -> list[AbstractConstraint]:
        return [c for c in self.constraints if c.is_driver]

    def element(self, name: str):
        """The body, joint, driver or force element called `name`."""
        for e in [*self.bodies, *self._all_elements()]:
            if e.name == name:
                return e
        raise KeyError(f"no body or element named {name!r} in this model.")

    def replace(self, element, **changes) -> None:
        """Change the parameters of a friction element (a :class:`LuGreFriction`, or a
        joint's ``friction=`` law), validated again: the model holds the new element (the
        old one is not modified). The compiled run is kept (law parameters are traced), so
        ``model.simulate(..., initial=previous)`` continues the same run with the new values.

        ``element``: the element or its name.
        """
        slot = self._aliases.get(id(element))
        if isinstance(element, str):
            current = self.element(element)
            slot = self._aliases[id(current)]
        elif slot is None:
            raise ParameterError(f"`Model.replace`: {element!r} is not in this model.")
        group, k = slot
        current = group[k]
        if isinstance(current, LuGreFriction):
            new = current.replaced(**changes)
        elif isinstance(current, AbstractConstraint) and current.supports_friction \
                and current.friction is not None:
            try:
                new = evolve(current, friction=current.friction.replace(**changes))
            except (ParameterError, TypeError) as exc:
                raise ParameterError(f"`{current.owner}.friction`: {exc}") from None
        else:
            raise ParameterError(f"`Model.replace` changes friction parameters; "
                                 f"{getattr(current, 'name', current)!r} has no friction.")
        group[k] = new
        self._aliases[id(new)] = slot

    # --- freezing ---------------------------------------------------------------------------
    def validate(self) -> None:
        """Raise one ModelError listing every problem found in the model's description."""
        problems = list(self._problems)
        if not self.bodies:
            problems.append("the model has no bodies; add one with model.add_body(name, "
                            "mass=, inertia=).")
        if problems:
            raise ModelError(f"planar model {self.name!r} has {len(problems)} problem(s):\n  - "
                             + "\n  - ".join(problems))

    @property
    def layout(self) -> Layout:
        """The static topology (rebuilt when elements are added, kept by `replace`)."""
        self.validate()
        if self._layout is None:
            self._layout = Layout(self.name, self.bodies, self.constraints, self.forces,
                                  joint_frictions(self.constraints) + self.frictions,
                                  [s for s in self.stops if s.law is not None])
        return self._layout

    def system(self, baumgarte: tuple[float, float] = (10.0, 10.0),
               q0: np.ndarray | None = None, qd0: np.ndarray | None = None,
               projection: bool = False, *, contact_formulation: str = "kikuuwe",
               painleve_check: str = "auto", fallback: bool = True,
               restitution: float | None = None) -> PlanarSystem:
        """The mechanism frozen into an immutable :class:`PlanarSystem` (an ODE for
        :func:`stickslip.simulate`, and the argument of every analysis).

        baumgarte: (α, β) [1/s] of the stabilisation Φ̈ + 2αΦ̇ + β²Φ = 0.
        q0, qd0: the initial configuration (default: the bodies' poses and velocities).
        projection: the system's ``projection`` field: the fixed-step integrators put it back
            on the constraint manifold after every step.
        contact_formulation, painleve_check, fallback, restitution: the frictional contacts'
            λ-stage (SPEC §6; see :meth:`Model.simulate`): its formulation, how uniqueness of
            the λ-problem's solution is checked, whether the enumeration takes over where the
            active set fails, and Newton's e of ``method="moreau_jean"`` (default e(ζ) of the
            first contact). Their pairs are stacked into the system's ``pairs``
            (:func:`~._contact_pairs.stack_contacts`; None without contacts).
        """
        layout = self.layout
        pairs = None
        if self.frictional_contacts:
            pairs = stack_contacts(self.frictional_contacts, self.bodies,
                                   formulation=check_formulation(contact_formulation),
                                   certify=check_uniqueness(painleve_check,
                                                            "painleve_check"),
                                   fallback=fallback, restitution=restitution)
        try:
            alpha, beta = (float(v) for v in baumgarte)
        except (TypeError, ValueError):
            alpha = beta = float("nan")
        if not (alpha >= 0 and beta >= 0 and math.isfinite(alpha) and math.isfinite(beta)):
            raise ParameterError(f"`baumgarte` gains must be two finite numbers >= 0 [1/s]; "
                                 f"got {baumgarte!r}.")
        masses = np.array([[b.mass, b.mass, b.inertia] for b in self.bodies]).reshape(-1)
        return PlanarSystem(masses=masses, gravity=self.gravity,
                   q0=self._q() if q0 is None else q0, qd0=self._qd() if qd0 is None else qd0,
                   alpha=alpha, beta=beta, constraints=tuple(self.constraints),
                   forces=tuple(self.forces),
                   frictions=tuple(joint_frictions(self.constraints) + self.frictions),
                   contacts=tuple(s for s in self.stops if s.law is not None),
                   stops=tuple(s for s in self.stops if s.law is None), pairs=pairs,
                   layout=layout, projection=bool(projection))

    def _q(self):
        return np.concatenate([b.pose for b in self.bodies]) if self.bodies else np.zeros(0)

    def _qd(self):
        return np.concatenate([b.velocity for b in self.bodies]) if self.bodies else np.zeros(0)
