"""Force elements: springs, dampers, actuators, point forces and torques (SPEC §9).

Contract for a force element (an immutable ``equinox`` module, see :mod:`._base`):

* ``bodies()``: the bodies it acts on (one or two); ``bind(*bodies, name=)`` the element
  bound to resolved bodies (returns a new element).
* ``generalized_force(qs, qds, t)``: pure ``jax.numpy``; the generalised forces Q on those
  bodies (one 3-vector [Fx, Fy, n] per body, in the ground frame, torque about the centre of
  mass), and the scalar reported as ``<name>.force``.
* ``potential(qs)``: stored energy [J] (conservative part), for the energy channel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Literal, overload

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._rules import Rule
from ..errors import ParameterError
from ._base import AbstractElement, evolve, parameter_array
from ._body import global_point
from ._constraint_base import POINT

__all__ = [
    "AbstractForceElement",
    "BodyTorque",
    "ConstantLoad",
    "PointForce",
    "RotationalSpringDamper",
    "TranslationalSpringDamper",
]




@overload
def _callable(owner: str, name: str, fn: Any, signature: str, shapes: Any,
              optional: Literal[False]) -> Callable: ...
@overload
def _callable(owner: str, name: str, fn: Any, signature: str, shapes: Any,
              optional: bool = True) -> Callable | None: ...
def _callable(owner: str, name: str, fn: Any, signature: str, shapes: Any,
              optional: bool = True) -> Callable | None:
    """A user callable, checked to run inside jit (traced once with zero arguments of
    `shapes`: a Python `if` on them is reported now, by name); None for None where
    `optional`."""
    from .._validation import check_traceable

    if fn is None and optional:
        return None
    if not callable(fn):
        raise ParameterError(f"`{owner}.{name}` must be a callable {signature} written with "
                             f"jax.numpy{', or None' if optional else ''}; got "
                             f"{type(fn).__name__}.")
    check_traceable(owner, name, fn, tuple(np.zeros(s) for s in shapes),
                    signature=signature.removeprefix("of (").split(")")[0])
    return fn


class ConstantLoad(eqx.Module):
    """A load that does not change in time: ``ConstantLoad(value)(t, q, qd) == value``.

    ``PointForce(body, (Fx, Fy))`` and ``BodyTorque(body, n)`` wrap a constant in it. Its
    `value` [N or N·m] is traced data, as an equinox module's arrays are wherever an
    element holds a callable: a model built again with another value runs the program
    compiled for the first (a user's own ``eqx.Module`` callable behaves the same)."""

    value: jnp.ndarray

    def __call__(self, t, q, qd):
        return self.value


def _constant(owner: str, name: str, value: Any, shape: tuple, what: str) -> ConstantLoad:
    """`value` as a ConstantLoad of `shape`, or a ParameterError naming the parameter."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        array = None
    if array is None or array.shape != shape or not np.all(np.isfinite(array)):
        raise ParameterError(f"`{owner}.{name}` must be a callable of (t, q, qd) written with "
                             f"jax.numpy, or a constant {what}; got {value!r}.")
    return ConstantLoad(jnp.asarray(array))


def _scalar(kind: str, unit: str, what: str) -> Rule:
    return Rule(kind, f"Pass {what} as one number [{unit}].", scalar=True, unit=unit)


def _example_force(t, q, qd):
    return jnp.stack([jnp.sin(t), -2.0 + 0.0 * q[0]])


def _example_torque(t, q, qd):
    return 0.5 * jnp.cos(t) + 0.0 * q[2]


class AbstractForceElement(AbstractElement):
    """Base of force elements; see the module docstring."""

    prefix: ClassVar[str] = "force"
    unit: ClassVar[str] = "N"

    def bodies(self) -> tuple:
        raise NotImplementedError

    def bind(self, *bodies, name: str):
        """The element on resolved bodies (body points resolved, named)."""
        raise NotImplementedError

    def generalized_force(self, qs, qds, t):
        raise NotImplementedError

    def potential(self, qs):
        return jnp.asarray(0.0)

    def describe(self) -> str:
        names = ", ".join(repr(getattr(b, "name", b)) for b in self.bodies())
        return f"{type(self).__name__} {self.name!r} on {names}"

    def __repr__(self) -> str:
        names = " – ".join(str(getattr(b, "name", b)) for b in self.bodies())
        values = self.parameter_text()
        return (f"{type(self).__name__}({self.name!r}: {names}"
                + (f"; {values})" if values else ")"))


class TranslationalSpringDamper(AbstractForceElement):
    """Spring–damper–actuator between point_i of body i and point_j of body j.

    Tension f = k (l − l0) + c l̇ + F(l, l̇, t) [N] (SPEC §9), with l the distance between the
    points [m]; a positive f pulls the points together. ``stiffness`` k [N/m],
    ``damping`` c [N·s/m], ``free_length`` l0 [m], ``actuator`` F a ``jax.numpy`` callable
    of (l, l̇, t) or None. Reported as ``<name>.force`` = f.
    """

    prefix: ClassVar[str] = "spring"
    config_fields: ClassVar[tuple[str, ...]] = ("actuator",)
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    stiffness: Any
    damping: Any
    free_length: Any
    actuator: Callable | None = eqx.field(static=True)
    name: str | None = eqx.field(static=True)
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "point_i": POINT, "point_j": POINT,
        "stiffness": _scalar("nonnegative", "N/m", "a stiffness k >= 0"),
        "damping": _scalar("nonnegative", "N·s/m", "a damping c >= 0"),
        "free_length": _scalar("nonnegative", "m", "a free length l0 >= 0")}

    def __init__(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 stiffness: float = 0.0, damping: float = 0.0, free_length: float = 0.0,
                 actuator: Callable | None = None, name: str | None = None):
        self.name = name
        self.body_i, self.body_j, self.point_i, self.point_j = body_i, body_j, point_i, point_j
        self.stiffness = parameter_array(stiffness)
        self.damping = parameter_array(damping)
        self.free_length = parameter_array(free_length)
        self.actuator = _callable(self.owner, "actuator", actuator, "of (l, ld, t)",
                                  ((), (), ()))

    @classmethod
    def example(cls) -> TranslationalSpringDamper:
        """A spring–damper (k = 50 N/m, c = 2 N·s/m, l0 = 0.3 m) from the ground to
        body ``"link"``."""
        return cls("ground", "link", (0.1, 0.0), (0.0, 0.1), stiffness=50.0, damping=2.0,
                   free_length=0.3)

    def bodies(self):
        return (self.body_i, self.body_j)

    def bind(self, body_i, body_j, *, name):
        return evolve(self, body_i=body_i, body_j=body_j, name=name,
                      point_i=jnp.asarray(body_i.resolve_point(self.owner, "point_i",
                                                               self.point_i)),
                      point_j=jnp.asarray(body_j.resolve_point(self.owner, "point_j",
                                                               self.point_j)))

    def _length(self, qs):
        d = global_point(qs[1], self.point_j) - global_point(qs[0], self.point_i)
        return jnp.sqrt(d @ d)

    def generalized_force(self, qs, qds, t):
        length, grad = jax.value_and_grad(self._length)(qs)
        rate = sum(g @ qd for g, qd in zip(grad, qds))
        f = self.stiffness * (length - self.free_length) + self.damping * rate
        if self.actuator is not None:
            f = f + self.actuator(length, rate, t)
        return [-f * g for g in grad], f

    def potential(self, qs):
        return 0.5 * self.stiffness * (self._length(qs) - self.free_length) ** 2


class RotationalSpringDamper(AbstractForceElement):
    """Rotational spring–damper–actuator between bodies i and j.

    Torque n = k (θ − θ0) + c θ̇ + N(θ, θ̇, t) [N·m] with θ = φ_j − φ_i (SPEC §9); it acts as
    −n on body j and +n on body i. ``stiffness`` k [N·m/rad], ``damping`` c [N·m·s/rad],
    ``free_angle`` θ0 [rad], ``actuator`` N a callable of (θ, θ̇, t) or None.
    """

    prefix: ClassVar[str] = "torsion_spring"
    unit: ClassVar[str] = "N·m"
    config_fields: ClassVar[tuple[str, ...]] = ("actuator",)
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    stiffness: Any
    damping: Any
    free_angle: Any
    actuator: Callable | None = eqx.field(static=True)
    name: str | None = eqx.field(static=True)

    parameter_rules: ClassVar[dict[str, Rule]] = {
        "stiffness": _scalar("nonnegative", "N·m/rad", "a stiffness k >= 0"),
        "damping": _scalar("nonnegative", "N·m·s/rad", "a damping c >= 0"),
        "free_angle": _scalar("finite", "rad", "the free angle θ0")}

    def __init__(self, body_i, body_j, *, stiffness: float = 0.0, damping: float = 0.0,
                 free_angle: float = 0.0, actuator: Callable | None = None,
                 name: str | None = None):
        self.name = name
        self.body_i, self.body_j = body_i, body_j
        self.stiffness = parameter_array(stiffness)
        self.damping = parameter_array(damping)
        self.free_angle = parameter_array(free_angle)
        self.actuator = _callable(self.owner, "actuator", actuator, "of (theta, thetad, t)",
                                  ((), (), ()))

    @classmethod
    def example(cls) -> RotationalSpringDamper:
        """A torsion spring–damper (k = 5 N·m/rad, c = 0.1 N·m·s/rad, θ0 = 0.2 rad)."""
        return cls("ground", "link", stiffness=5.0, damping=0.1, free_angle=0.2)

    def bodies(self):
        return (self.body_i, self.body_j)

    def bind(self, body_i, body_j, *, name):
        return evolve(self, body_i=body_i, body_j=body_j, name=name)

    def generalized_force(self, qs, qds, t):
        theta = qs[1][2] - qs[0][2]
        rate = qds[1][2] - qds[0][2]
        n = self.stiffness * (theta - self.free_angle) + self.damping * rate
        if self.actuator is not None:
            n = n + self.actuator(theta, rate, t)
        e = jnp.array([0.0, 0.0, 1.0])
        return [n * e, -n * e], n

    def potential(self, qs):
        return 0.5 * self.stiffness * (qs[1][2] - qs[0][2] - self.free_angle) ** 2


class PointForce(AbstractForceElement):
    """A force (Fx, Fy) [N] in the ground frame at a body point.

    ``force``: a ``jax.numpy`` callable of (t, q, qd) returning two numbers, where q = (x, y,
    φ) and qd are the body's pose and velocity, or a constant (Fx, Fy) (held as a
    :class:`ConstantLoad`: traced, so another value needs no new compile). Reported as
    ``<name>.force`` = |F|.
    """

    prefix: ClassVar[str] = "point_force"
    config_fields: ClassVar[tuple[str, ...]] = ("force",)
    body: Any = eqx.field(static=True)
    point: Any
    # not static: a callable module's arrays (a ConstantLoad's value) are traced data
    force: Callable
    name: str | None = eqx.field(static=True)
    parameter_rules: ClassVar[dict[str, Rule]] = {"point": POINT}

    @classmethod
    def example(cls) -> PointForce:
        """A force (sin t, −2) N at a point of body ``"link"``."""
        return cls("link", _example_force, point=(0.1, 0.2))

    def __init__(self, body, force: Callable, point=(0.0, 0.0), *, name: str | None = None):
        self.name = name
        self.body, self.point = body, point
        if force is None:
            raise ParameterError(f"`{self.owner}.force` is required: a callable of (t, q, qd) "
                                 "returning (Fx, Fy) [N].")
        if not callable(force):
            force = _constant(self.owner, "force", force, (2,), "force (Fx, Fy) [N]")
        self.force = _callable(self.owner, "force", force, "of (t, q, qd)", ((), (3,), (3,)),
                               optional=False)

    def bodies(self):
        return (self.body,)

    def bind(self, body, *, name):
        return evolve(self, body=body, name=name,
                      point=jnp.asarray(body.resolve_point(self.owner, "point", self.point)))

    def generalized_force(self, qs, qds, t):
        f = jnp.asarray(self.force(t, qs[0], qds[0]), dtype=float).reshape(2)
        arm = global_point(qs[0], self.point) - qs[0][:2]
        n = arm[0] * f[1] - arm[1] * f[0]
        return [jnp.stack([f[0], f[1], n])], jnp.sqrt(f @ f)


class BodyTorque(AbstractForceElement):
    """A torque n [N·m] on a body: ``torque`` a ``jax.numpy`` callable of (t, q, qd) (the
    body's pose and velocity), or a constant number (a :class:`ConstantLoad`: traced, so
    another value needs no new compile). Reported as ``<name>.force`` = n."""

    prefix: ClassVar[str] = "torque"
    unit: ClassVar[str] = "N·m"
    config_fields: ClassVar[tuple[str, ...]] = ("torque",)
    body: Any = eqx.field(static=True)
    torque: Callable     # not static: see PointForce.force
    name: str | None = eqx.field(static=True)

    @classmethod
    def example(cls) -> BodyTorque:
        """A torque 0.5·cos t N·m on body ``"link"``."""
        return cls("link", _example_torque)

    def __init__(self, body, torque: Callable, *, name: str | None = None):
        self.name = name
        self.body = body
        if torque is not None and not callable(torque):
            torque = _constant(self.owner, "torque", torque, (), "torque [N·m]")
        self.torque = _callable(self.owner, "torque", torque,
                                "of (t, q, qd) returning a torque [N·m]", ((), (3,), (3,)),
                                optional=False)

    def bodies(self):
        return (self.body,)

    def bind(self, body, *, name):
        return evolve(self, body=body, name=name)

    def generalized_force(self, qs, qds, t):
        n = jnp.asarray(self.torque(t, qs[0], qds[0]), dtype=float).reshape(())
        return [jnp.stack([jnp.zeros(()), jnp.zeros(()), n])], n
