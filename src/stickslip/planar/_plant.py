"""Planar mechanisms as closed-loop plants: joint actuators whose effort the controller sets.

* :class:`JointActuator` — a force element of :mod:`stickslip.planar` that applies an effort
  ``tau`` along one joint's free coordinate (a torque [N·m] on a revolute joint, a force [N]
  on a translational one): the generalised force ``tau·∂s/∂q`` with ``s = joint.slide``
  (SPEC §9). Its ``tau`` is a traced field, so a plant can set it every sample without
  recompiling.
* :class:`MechanismPlant` — a frozen :class:`~stickslip.planar.PlanarSystem` with a tuple of
  such actuators: the input u is the vector of efforts (one per actuator), the measurement
  the vector of their joints' coordinates ``s_k(q)``. It is what
  :func:`~stickslip.control.simulate_closed_loop` runs for a multi-joint arm.

Layering (DESIGN.md): the planar host sits above :mod:`stickslip.control`, so the plant for a
mechanism lives here and builds on ``control.AbstractPlant``; ``control`` never imports a
host.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from ..errors import ModelError, ParameterError
from ..control import AbstractPlant
from ._constraint_base import AbstractConstraint
from ._forces import AbstractForceElement
from ._model import Model
from ._system import PlanarSystem

__all__ = ["JointActuator", "MechanismPlant"]


class JointActuator(AbstractForceElement):
    """An actuator on a joint: effort ``tau`` along the joint's free coordinate s (SPEC §9).

    On a :class:`~stickslip.planar.RevoluteJoint` s = φ_j − φ_i and ``tau`` is a torque
    [N·m] on body j (−tau on body i); on a :class:`~stickslip.planar.TranslationalJoint`
    s is the slide along the axis and ``tau`` a force [N]. The generalised force is
    ``tau·(∂s/∂q_i, ∂s/∂q_j)``; it is reported as ``<name>.force``.

    Parameters
    ----------
    joint
        the joint, as returned by ``model.add`` (a joint with a ``slide``: revolute or
        translational).
    tau : float, optional
        the effort [N·m or N] (default 0). A closed loop sets it every sample
        (:class:`MechanismPlant`); a constant value acts in an open-loop
        ``model.simulate``.
    name : str, optional
        channel prefix (default ``actuator1``, …).

    Examples
    --------
    >>> import stickslip as ss
    >>> m = ss.planar.Model(gravity=(0.0, 0.0))
    >>> link = m.add_body("link", mass=1.0, inertia=0.01, x=0.1)
    >>> pin = m.add(ss.planar.RevoluteJoint(m.ground, link, point_j=(-0.1, 0.0)))
    >>> motor = m.add(ss.planar.JointActuator(pin, name="motor"))
    >>> motor.unit
    'N·m'
    """

    prefix: ClassVar[str] = "actuator"
    joint: Any
    tau: Any
    name: str | None = eqx.field(static=True)

    def __init__(self, joint, tau: float = 0.0, *, name: str | None = None):
        self.name = name
        if not (isinstance(joint, AbstractConstraint) and joint.slide_unit is not None
                and not joint.is_driver):
            raise ParameterError(
                f"`{self.owner}.joint` must be a joint with one free coordinate (RevoluteJoint "
                f"or TranslationalJoint, as returned by model.add); got "
                f"{type(joint).__name__}.")
        self.joint = joint
        try:
            value = float(tau)
        except (TypeError, ValueError):
            value = float("nan")
        if not np.isfinite(value):
            raise ParameterError(f"`{self.owner}.tau` must be a finite effort "
                                 f"[{joint.slide_unit == 'rad' and 'N·m' or 'N'}]; got "
                                 f"tau={tau!r}.")
        self.tau = jnp.asarray(value)

    @property
    def unit(self) -> str:  # type: ignore[override]
        return "N·m" if self.joint.slide_unit == "rad" else "N"

    def bodies(self) -> tuple:
        return (self.joint.body_i, self.joint.body_j)

    def bind(self, body_i, body_j, *, name):
        joint = self.joint
        if joint.body_i is not body_i or joint.body_j is not body_j:
            raise ParameterError(f"joint {joint.name!r} is not bound to this model's bodies; "
                                 "pass the joint that model.add returned.")
        return _evolve(self, name=name)

    def slide(self, qi, qj):
        """The joint coordinate s the actuator drives [rad or m]."""
        return self.joint.slide(qi, qj)

    def generalized_force(self, qs, qds, t):
        ds_i, ds_j = self.joint.slide_jacobians(qs[0], qs[1])
        return [self.tau * ds_i, self.tau * ds_j], self.tau


def _evolve(module, **changes):
    """A copy of an element with fields replaced, static ones (the name) included — the
    planar elements' copy rule (``Model.add`` binds by copying, never by editing)."""
    new = object.__new__(type(module))
    for f in dataclasses.fields(module):
        object.__setattr__(new, f.name, changes.get(f.name, getattr(module, f.name)))
    return new


class MechanismPlant(AbstractPlant):
    """A planar mechanism driven by :class:`JointActuator` efforts (a multi-input plant).

    Build it with :meth:`from_model`. State: the mechanism's ``[q; q̇; s]``. Input u: the
    efforts of the actuators, in order (shape ``(n_inputs,)``). Measured: their joints'
    coordinates ``s_k(q)`` [rad or m] (relative joint angles for revolute joints).
    ``input_names`` are the actuators' names; :func:`simulate_closed_loop` names its per-input
    channels ``<name>.u``, ``<name>.p_d``, ``<name>.measured`` (and ``<name>.proxy`` for
    PSMC).

    The mechanism's core capabilities carry over: its Runge–Kutta stages run in a loop
    (``trace_stages_once``) and, built with ``projection=True`` (the default, as
    ``Model.simulate`` does for fixed steps), every step is projected back onto the
    constraints.
    """

    system: PlanarSystem
    actuators: tuple[int, ...] = eqx.field(static=True)

    trace_stages_once: ClassVar[bool] = True

    def __check_init__(self):
        if not isinstance(self.system, PlanarSystem):
            raise ParameterError(f"`MechanismPlant.system` must be a planar system "
                                 f"(model.system()); got {type(self.system).__name__}.")
        forces = self.system.forces
        bad = [k for k in self.actuators
               if not (0 <= k < len(forces) and isinstance(forces[k], JointActuator))]
        if not self.actuators or bad:
            raise ParameterError("`MechanismPlant.actuators` must list the indices of "
                                 "JointActuator elements among the system's forces; got "
                                 f"{self.actuators}.")

    @classmethod
    def from_model(cls, model: Model, actuators=None, *, projection: bool = True,
                   assemble: bool = True) -> MechanismPlant:
        """The plant of `model`, driven by `actuators` (JointActuator elements or their names;
        default: every JointActuator of the model, in the order they were added).

        projection: project [q; q̇] onto the constraints after every fixed step (Baumgarte
            gains 0), as ``Model.simulate`` does by default; False: Baumgarte (10, 10).
        assemble: close the constraints from the bodies' poses first (``model.assemble``).

        Raises ModelError when the model has no actuator, names one it does not hold, or
        has elements its vector field leaves out: stops without a contact law (handled by
        ``Model.simulate``'s event detection) and frictional contacts (its λ-problem route).
        """
        problems = [f"stop {s.name!r} has no contact law (events); give it law=ss.laws."
                    "UnilateralODE(...) to use it in a closed loop" for s in model.stops
                    if s.law is None]
        problems += [f"frictional contact {getattr(c, 'name', c)!r} needs the λ-problem route "
                     "of Model.simulate, which a closed loop does not run"
                     for c in model.frictional_contacts]
        if problems:
            raise ModelError(f"planar model {model.name!r} cannot be a MechanismPlant: "
                             + "; ".join(problems) + ".")
        forces = list(model.forces)
        if actuators is None:
            index = [k for k, f in enumerate(forces) if isinstance(f, JointActuator)]
            if not index:
                raise ModelError(f"planar model {model.name!r} has no JointActuator; add one "
                                 "per driven joint: model.add(ss.planar.JointActuator(joint))."
                                 )
        else:
            index = []
            for a in actuators:
                name = a if isinstance(a, str) else getattr(a, "name", None)
                k = next((k for k, f in enumerate(forces) if isinstance(f, JointActuator)
                          and f.name == name), None)
                if k is None:
                    known = [f.name for f in forces if isinstance(f, JointActuator)]
                    raise ModelError(f"`MechanismPlant.actuators`: {name!r} is no "
                                     f"JointActuator of model {model.name!r} (its actuators: "
                                     f"{known}).")
                index.append(k)
        baumgarte = (0.0, 0.0) if projection else (10.0, 10.0)
        system = model.system(baumgarte, projection=bool(projection))
        if assemble:
            start = model.assemble()
            n = system.layout.n_coordinates
            x = np.asarray(start.final_state)
            system = system.with_state(x[:n], x[n:2 * n])
        return cls(system, tuple(index))

    # --- the plant contract ----------------------------------------------------------------
    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(self.system.forces[k].name for k in self.actuators)

    @property
    def input_units(self) -> tuple[str, ...]:
        return tuple(self.system.forces[k].unit for k in self.actuators)

    @property
    def measured_units(self) -> tuple[str, ...]:
        return tuple(self.system.forces[k].joint.slide_unit for k in self.actuators)

    @property
    def projects_after_step(self) -> bool:  # type: ignore[override]
        return self.system.projection

    def with_efforts(self, u) -> PlanarSystem:
        """The mechanism with the actuators' efforts set to `u` (shape (n_inputs,))."""
        u = jnp.reshape(jnp.asarray(u, dtype=float), (len(self.actuators),))
        return eqx.tree_at(lambda s: tuple(s.forces[k].tau for k in self.actuators),
                           self.system, tuple(u[i] for i in range(len(self.actuators))))

    def controlled_field(self, t, x, u):
        return self.with_efforts(u).vector_field(t, x)

    def measure(self, t, x):
        n = self.system.layout.n_coordinates
        poses = jnp.concatenate([jnp.zeros((1, 3), dtype=x.dtype), x[:n].reshape(-1, 3)])
        slot = self.system.layout.slot
        values = []
        for k in self.actuators:
            f = self.system.forces[k]
            values.append(f.slide(poses[slot(f.joint.body_i)], poses[slot(f.joint.body_j)]))
        return jnp.stack(values)

    def vector_field(self, t, x):
        return self.system.vector_field(t, x)

    def controlled_outputs(self, t, x, u):
        return self.with_efforts(u).outputs(t, x)

    def outputs(self, t, x):
        return self.system.outputs(t, x)

    def project(self, t, x):
        return self.system.project(t, x)

    @property
    def state_names(self):
        return self.system.state_names

    @property
    def units(self):
        return self.system.units

    def initial_state(self):
        return self.system.initial_state()

    def linear_modes(self):
        return self.system.linear_modes()

    def parameters(self) -> dict[str, Any]:
        return {**self.system.parameters(), "actuators": list(self.input_names)}
