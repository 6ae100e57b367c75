"""The base of joints and drivers — :class:`AbstractConstraint`, the contract of a
kinematic or driving constraint Φ(q, t) = 0 (SPEC §9) — and the host-side argument checks
they share.

Contract for a constraint element (one final class, a re-export, an entry in the tests'
list — the conformance suites in tests/planar/test_element_conformance.py and
tests/test_every_element_conformance.py then check it):

* ``n_equations`` (class variable): rows it adds to Φ.  ``is_driver``: a driving constraint
  (its multiplier is reported as ``<name>.effort``) or a kinematic one (reported as the
  reaction ``<name>.Fx``, ``<name>.Fy``, ``<name>.T``).
* ``residual(qi, qj, t)``: pure ``jax.numpy``; Φ of this element for the poses
  ``qi`` = (x_i, y_i, φ_i) of body i and ``qj`` of body j (the ground's pose is (0, 0, 0)).
  Φ_q, ν and γ come from JAX's forward-mode derivatives of this one function.
  Or, for an element with hand-written derivatives (:class:`AbstractHandConstraint`), one
  ``kinematic_terms(qi, qj, qdi, qdj, t)`` → (Φ, Φ_qi, Φ_qj, Φ_t, γ) (SPEC §9) instead:
  ``residual``, ``jacobians``, ``time_derivative`` and ``gamma`` are then read from it, so
  each formula is written once.
* ``slide(qi, qj)`` (joints with ``slide_unit``): the joint's one free relative coordinate —
  what joint friction acts along and what joint stops limit. Written once, here (or, with
  its hand-written gradient, as ``slide_terms(qi, qj)`` → (s, ∂s/∂q_i, ∂s/∂q_j)).
* ``_frozen(pose_i, pose_j)``: reference constants (a translational joint's relative angle,
  a gear's phase) from the poses at :meth:`Model.add` time.
* ``parameter_rules`` (class variable): ``{field: Rule}``, checked in ``__check_init__`` at
  construction and by :func:`~._base.evolve` (:data:`POINT`, :data:`AXIS`,
  :func:`length_rule`, :func:`angle_rule`); ``example()`` a valid unbound instance.
* ``point_i`` and ``frame_i`` (angle of the joint frame in body i): where and in which frame
  the reaction on body i is reported (SPEC §9: F = −Cᵀ Aᵀ Φ_rᵀ λ, T = (s'ᵀ Bᵀ Φ_rᵀ − Φ_φᵀ) λ).

Elements are immutable ``equinox`` modules (see :mod:`._base`): their array fields are the
traced parameters, bodies and names are static. The families: ``_joints`` (revolute,
translational, coupler, gear), ``_absolute_constraints`` (a body fixed to the ground in
x, y, φ or distance), ``_drivers`` (prescribed motions, with ``_motions``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._rules import Rule, copied
from .._validation import check_finite, check_scalar
from ..errors import ParameterError
from ._base import AbstractElement, evolve, host_array
from ._body import global_point
from ._motions import _ConstantSpeed

__all__ = ["AXIS", "POINT", "AbstractConstraint", "AbstractHandConstraint", "angle_rule",
           "length_rule"]


POINT = Rule("finite", shape=(2,), unit="m", named=True,
             hint="Pass (x', y') in the body frame [m] or the name of a body point.")
"""The rule of a body point: two finite numbers [m] in the body frame, or a point's name."""

AXIS = Rule("direction", shape=(2,), hint="Pass a non-zero direction (ux, uy) in body i's "
            "frame, e.g. axis_i=(1, 0).")
"""The rule of a direction in a body frame (normalised by the constructor)."""


def length_rule(what: str, *, kind: str = "positive", optional: bool = True) -> Rule:
    """The rule of a length [m] (one number): `what` it is, for the hint."""
    return Rule(kind, f"Pass {what} as one number in metres.", scalar=True, unit="m",
                optional=optional)


def angle_rule(what: str) -> Rule:
    """The rule of an angle [rad] (one finite number)."""
    return Rule("finite", f"Pass {what} as one number in radians.", scalar=True, unit="rad")


def _time_function(owner: str, name: str, fn) -> Callable:
    from .._validation import check_time_function

    if not callable(fn):
        check_scalar(owner, name, fn, f"Pass {name} as a callable of t or one number.")
        check_finite(owner, name, fn, f"Pass {name} as a callable of t or one finite number.")
        return _ConstantSpeed(0.0, float(fn))
    check_time_function(owner, name, fn, ())        # traces it too (no Python `if` on t)
    return fn


def _name(owner: str, name):
    if name is not None and (not isinstance(name, str) or not name or "." in name):
        raise ParameterError(f"`{owner}.name` must be a non-empty string without '.'; got "
                             f"{name!r}.")
    return name


class AbstractConstraint(AbstractElement):
    """Base of joints and drivers; see the module docstring for the contract."""

    n_equations: ClassVar[int]
    is_driver: ClassVar[bool] = False
    prefix: ClassVar[str] = "joint"
    supports_friction: ClassVar[bool] = False     # takes friction= and LuGreFriction
    slide_unit: ClassVar[str | None] = None       # "rad" or "m" when it has a slide(qi, qj)
    effort_unit: ClassVar[str] = "N"

    body_i: eqx.AbstractVar[Any]
    body_j: eqx.AbstractVar[Any]
    point_i: eqx.AbstractVar[Any]
    point_j: eqx.AbstractVar[Any]

    def __check_init__(self) -> None:
        _name(type(self).__name__, self.name)

    # host side -----------------------------------------------------------------------
    def bodies(self) -> tuple:
        return (self.body_i, self.body_j)

    @property
    def frame_i(self):
        """Angle of the joint frame in body i [rad] (where reactions are reported)."""
        return 0.0

    def bind(self, body_i, body_j, name: str):
        """The element bound to resolved bodies: points as arrays, reference constants from
        the current poses, its name (raises ParameterError for an unknown point)."""
        point_i = body_i.resolve_point(self.owner, "point_i", self.point_i)
        point_j = body_j.resolve_point(self.owner, "point_j", self.point_j)
        bound = copied(self, body_i=body_i, body_j=body_j, point_i=host_array(point_i),
                       point_j=host_array(point_j), name=name)       # checked below
        # poses as NumPy: the reference constants are host arithmetic, not small compiles
        frozen = bound._frozen(np.asarray(body_i.pose, dtype=float),
                               np.asarray(body_j.pose, dtype=float))
        return evolve(bound, **{k: host_array(v) for k, v in frozen.items()})

    def _frozen(self, pose_i, pose_j) -> dict:
        """Reference constants from the poses at `Model.add` time (default: none)."""
        return {}

    def describe(self) -> str:
        return (f"{type(self).__name__} {self.name!r} between "
                f"{getattr(self.body_i, 'name', self.body_i)!r} and "
                f"{getattr(self.body_j, 'name', self.body_j)!r}")

    def __repr__(self) -> str:
        bodies = [getattr(b, "name", b) for b in (self.body_i, self.body_j) if b is not None]
        values = self.parameter_text()
        return (f"{type(self).__name__}({self.name!r}: {' – '.join(map(str, bodies))}"
                + (f"; {values})" if values else ")"))

    # traced side ---------------------------------------------------------------------
    def residual(self, qi: jnp.ndarray, qj: jnp.ndarray, t: jnp.ndarray) -> jnp.ndarray:
        raise NotImplementedError

    def slide(self, qi: jnp.ndarray, qj: jnp.ndarray) -> jnp.ndarray:
        raise NotImplementedError(f"{type(self).__name__} has no slide coordinate.")

    # derivatives of `residual` (local: 3 + 3 coordinates and t) by forward-mode autodiff;
    # AbstractHandConstraint reads them from one hand-written `kinematic_terms` instead.
    def jacobians(self, qi, qj, t):
        """(∂Φ/∂q_i, ∂Φ/∂q_j), each (n_equations × 3)."""
        return jax.jacfwd(self.residual, argnums=(0, 1))(qi, qj, t)

    def time_derivative(self, qi, qj, t):
        """Φ_t (n_equations,)."""
        return jax.jvp(lambda s: self.residual(qi, qj, s), (t,), (jnp.ones_like(t),))[1]

    def gamma(self, qi, qj, qdi, qdj, t):
        """γ = −(Φ_q q̇)_q q̇ − 2Φ_qt q̇ − Φ_tt = −d²/ds² Φ(q + s q̇, t + s) at s = 0."""
        def along(s):
            return self.residual(qi + s * qdi, qj + s * qdj, t + s)

        def rate(s):
            return jax.jvp(along, (s,), (jnp.ones_like(s),))[1]

        zero = jnp.zeros_like(t)
        return -jax.jvp(rate, (zero,), (jnp.ones_like(zero),))[1]

    def kinematic_terms(self, qi, qj, qdi, qdj, t):
        """(Φ, ∂Φ/∂q_i, ∂Φ/∂q_j, Φ_t, γ) in one call — what the equations of motion need
        per step (SPEC §9)."""
        Ji, Jj = self.jacobians(qi, qj, t)
        return (self.residual(qi, qj, t), Ji, Jj, self.time_derivative(qi, qj, t),
                self.gamma(qi, qj, qdi, qdj, t))

    def slide_jacobians(self, qi, qj):
        """(∂s/∂q_i, ∂s/∂q_j) of the joint's ``slide``, each (3,)."""
        return jax.jacfwd(self.slide, argnums=(0, 1))(qi, qj)

    def _d(self, qi, qj):
        """d_ij = r_jᴾ − r_iᴾ in the ground frame."""
        return global_point(qj, self.point_j) - global_point(qi, self.point_i)


class AbstractHandConstraint(AbstractConstraint):
    """A constraint whose derivatives are written by hand, once (issue 23 item 4).

    A subclass writes ``kinematic_terms(qi, qj, qdi, qdj, t)`` → (Φ, Φ_qi, Φ_qj, Φ_t, γ)
    (SPEC §9: γ = −(Φ_q q̇)_q q̇ − 2Φ_qt q̇ − Φ_tt), sharing its rotations and arms between
    the terms, and — with a ``slide_unit`` — ``slide_terms(qi, qj)`` → (s, ∂s/∂q_i,
    ∂s/∂q_j). The separate methods are read from them: under ``jit`` the terms a caller
    does not use are dead code (velocities are zero for the position-level ones). The
    forward-mode forms of :class:`AbstractConstraint` (``AbstractConstraint.jacobians(self,
    …)``) stay available as the reference the tests hold the hand forms to.
    """

    def kinematic_terms(self, qi, qj, qdi, qdj, t):
        raise NotImplementedError(f"{type(self).__name__} must write kinematic_terms.")

    def _at_rest(self, qi, qj, t):
        """The terms at zero velocities: the position-level ones (Φ, Φ_qi, Φ_qj, Φ_t)."""
        zero = jnp.zeros_like(qi)
        return self.kinematic_terms(qi, qj, zero, zero, t)

    def residual(self, qi, qj, t):
        return self._at_rest(qi, qj, t)[0]

    def jacobians(self, qi, qj, t):
        return self._at_rest(qi, qj, t)[1:3]

    def time_derivative(self, qi, qj, t):
        return self._at_rest(qi, qj, t)[3]

    def gamma(self, qi, qj, qdi, qdj, t):
        return self.kinematic_terms(qi, qj, qdi, qdj, t)[4]

    def slide_terms(self, qi, qj):
        """(s, ∂s/∂q_i, ∂s/∂q_j): the slide and its gradient, written once."""
        raise NotImplementedError(f"{type(self).__name__} has no slide coordinate.")

    def slide(self, qi, qj):
        return self.slide_terms(qi, qj)[0]

    def slide_jacobians(self, qi, qj):
        return self.slide_terms(qi, qj)[1:]
