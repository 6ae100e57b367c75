"""Plants for closed-loop simulation: systems with an actuator input u.

A plant is a core :class:`~stickslip.systems.AbstractSystem` (so ``ss.simulate`` still runs
it open loop with u = 0) plus

* ``controlled_field(t, x, u)`` — ``ẋ`` with the actuator force/torque u applied;
* ``measure(t, x)`` — the measured position the controller sees (p [m] or q [rad]).

``vector_field(t, x)`` is ``controlled_field(t, x, 0)``.

A multi-input plant (:class:`~stickslip.planar.MechanismPlant`) names its inputs in
``input_names`` (one effort and one measured coordinate per name; u and ``measure`` then have
shape ``(n_inputs,)``); single-input plants leave it ``None`` (scalar u and measurement).
``controlled_outputs(t, x, u)`` gives the output channels with the input held (default: the
input-free ``outputs(t, x)``, right for plants whose outputs depend on the state only).
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Callable, ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .._parameters import INERTIA, INITIAL, MASS, AbstractParametrised, Rule
from .._validation import check_time_function
from ..errors import ParameterError
from .._parameter_arrays import as_parameter
from ..systems import AbstractSystem

__all__ = ["AbstractPlant", "MassPlant", "SingleLinkArm", "ActuatedSystem"]


def _no_disturbance(t):
    return jnp.zeros_like(t)


class AbstractPlant(AbstractSystem):
    """A system with an actuator input; see the module docstring for the contract."""

    input_names: ClassVar[tuple[str, ...] | None] = None

    if TYPE_CHECKING:   # a plant with input_names also names the unit of each (planar's)
        @property
        def input_units(self) -> tuple[str, ...]:
            """The unit of each input's effort (one per ``input_names``)."""
            ...

        @property
        def measured_units(self) -> tuple[str, ...]:
            """The unit of each measured coordinate (one per ``input_names``)."""
            ...

    @abc.abstractmethod
    def controlled_field(self, t, x, u) -> jnp.ndarray:
        """dx/dt with the actuator input u held."""

    @abc.abstractmethod
    def measure(self, t, x) -> jnp.ndarray:
        """The measured position fed back to the controller."""

    def vector_field(self, t, x):
        return self.controlled_field(t, x, jnp.zeros(()))

    def controlled_outputs(self, t, x, u) -> dict:
        """Output channels with the input u held (default: ``outputs(t, x)``)."""
        return self.outputs(t, x)


class MassPlant(AbstractPlant, AbstractParametrised):
    """A 1-DOF mass ``M p̈ = u + h(t)`` (SPEC §6's plant ``M p̈ = f + h``).

    M: mass [kg] > 0.  disturbance: h(t) [N], a ``jax.numpy`` callable (default none).
    p0, v0: initial position [m] and velocity [m/s].  Measured: p.
    """

    M: jnp.ndarray = eqx.field(converter=as_parameter)
    disturbance: Callable = _no_disturbance
    p0: jnp.ndarray = eqx.field(converter=as_parameter, default=0.0)
    v0: jnp.ndarray = eqx.field(converter=as_parameter, default=0.0)

    parameter_rules: ClassVar[dict[str, Rule]] = {
        "M": MASS, "p0": INITIAL.but(scalar=True), "v0": INITIAL.but(scalar=True)}

    def __check_init__(self):
        check_time_function("MassPlant", "disturbance", self.disturbance, ())

    @property
    def state_names(self):
        return ("p", "v")

    @property
    def units(self):
        return {"p": "m", "v": "m/s", "h": "N"}

    def initial_state(self):
        return jnp.stack([self.p0, self.v0])

    def controlled_field(self, t, x, u):
        return jnp.stack([x[1], (u + self.disturbance(t)) / self.M])

    def measure(self, t, x):
        return x[0]

    def outputs(self, t, x):
        return {"h": self.disturbance(t)}


class SingleLinkArm(AbstractPlant, AbstractParametrised):
    """A single link rotating about a horizontal axis under gravity:
    ``I q̈ = u − m g l_c sin q − b q̇`` (q = 0 hanging down).

    I: moment of inertia about the joint [kg·m²] > 0.  m: link mass [kg] ≥ 0.
    lc: joint-to-centre-of-mass distance [m] ≥ 0.  g: gravity [m/s²] (9.81).
    b: joint viscous damping [N·m·s/rad] ≥ 0.  q0, qd0: initial angle [rad] and rate.
    Measured: q [rad]; the input u is a torque [N·m].
    """

    I: jnp.ndarray = eqx.field(converter=as_parameter)
    m: jnp.ndarray = eqx.field(converter=as_parameter)
    lc: jnp.ndarray = eqx.field(converter=as_parameter)
    g: jnp.ndarray = eqx.field(converter=as_parameter, default=9.81)
    b: jnp.ndarray = eqx.field(converter=as_parameter, default=0.0)
    q0: jnp.ndarray = eqx.field(converter=as_parameter, default=0.0)
    qd0: jnp.ndarray = eqx.field(converter=as_parameter, default=0.0)

    parameter_rules: ClassVar[dict[str, Rule]] = {
        "I": INERTIA, "m": MASS.but(kind="nonnegative", hint="Pass the link mass in kg (>= 0)."),
        "lc": Rule("nonnegative", "Pass the joint-to-centre-of-mass distance in metres.",
                   scalar=True),
        "b": Rule("nonnegative", "Pass the joint damping in N·m·s/rad (>= 0).", scalar=True),
        "g": Rule("finite", "Pass the gravitational acceleration in m/s² (e.g. 9.81).",
                  scalar=True),
        "q0": INITIAL.but(scalar=True), "qd0": INITIAL.but(scalar=True)}

    @property
    def state_names(self):
        return ("q", "qd")

    @property
    def units(self):
        return {"q": "rad", "qd": "rad/s", "gravity": "N·m"}

    def initial_state(self):
        return jnp.stack([self.q0, self.qd0])

    def gravity_torque(self, q):
        return -self.m * self.g * self.lc * jnp.sin(q)

    def controlled_field(self, t, x, u):
        q, qd = x[0], x[1]
        return jnp.stack([qd, (u + self.gravity_torque(q) - self.b * qd) / self.I])

    def measure(self, t, x):
        return x[0]

    def outputs(self, t, x):
        return {"gravity": self.gravity_torque(x[0])}

    def linear_modes(self):
        return []


class ActuatedSystem(AbstractPlant):
    """Any core system with an actuator added on one state row.

    ``ẋ = system.vector_field(t, x) + gain·u·e_row`` where `input_row` names the velocity
    row the actuator accelerates and `gain` is 1/mass (default ``1/system.M``); the
    controller measures the state row `measured_row`. Example — a mass with Coulomb friction
    (SPEC §2, eq. 10) under control::

        block = ss.systems.FrictionMass(M=1.0, law=ss.laws.CoulombODE(F=2.0, K=1e4, beta=1e-3))
        plant = ss.control.ActuatedSystem(block)             # u acts on "v", measures "p"
    """

    system: AbstractSystem
    input_row: str = eqx.field(static=True, default="v")
    measured_row: str = eqx.field(static=True, default="p")
    gain: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)

    def __check_init__(self):
        if not isinstance(self.system, AbstractSystem):
            raise ParameterError(f"`ActuatedSystem.system` must be a stickslip system; got "
                                 f"{type(self.system).__name__}.")
        names = self.system.state_names
        for field in ("input_row", "measured_row"):
            if getattr(self, field) not in names:
                raise ParameterError(f"`ActuatedSystem.{field}` must name a state of "
                                     f"{type(self.system).__name__} {list(names)}; got "
                                     f"{getattr(self, field)!r}.")
        if self.gain is None and not hasattr(self.system, "M"):
            raise ParameterError("`ActuatedSystem.gain` is required (1/mass [1/kg]) because "
                                 f"{type(self.system).__name__} has no field M.")
        if self.gain is not None:
            Rule("finite", "Pass 1/mass in 1/kg.", scalar=True).check(
                "ActuatedSystem", "gain", self.gain)

    @property
    def state_names(self):
        return self.system.state_names

    @property
    def units(self):
        return self.system.units

    def initial_state(self):
        return self.system.initial_state()

    def _gain(self):
        if self.gain is not None:
            return self.gain
        # checked: __check_init__ refuses a system without a field M when gain is None
        return 1.0 / self.system.M  # pyright: ignore[reportAttributeAccessIssue]

    def controlled_field(self, t, x, u):
        row = self.system.state_names.index(self.input_row)
        return self.system.vector_field(t, x).at[row].add(self._gain() * u)

    def measure(self, t, x):
        return x[self.system.state_names.index(self.measured_row)]

    def project(self, t, x):
        return self.system.project(t, x)

    def outputs(self, t, x):
        return self.system.outputs(t, x)

    def linear_modes(self):
        return self.system.linear_modes()

    def parameters(self):
        return {**self.system.parameters(), "input_row": self.input_row,
                "measured_row": self.measured_row,
                "gain": None if self.gain is None else np.asarray(self.gain).tolist()}
