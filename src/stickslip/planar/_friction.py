"""Joint friction in planar mechanisms (SPEC §9 9-2, SPEC §8).

A friction acts along one joint's free relative coordinate ``s(q)``:

* revolute joint: ``s = φ_j − φ_i`` [rad]; the law sees the normal force ``a·N`` with
  ``a`` the pin radius [m] and ``N = √(F_x² + F_y²)`` the pin reaction, so its torque level
  is ``a·μ·N`` (SPEC §9);
* translational joint: ``s = u_iᵀ d_ij`` [m] (slide of point_j along the axis); the law sees
  the normal reaction ``|F_n|`` — or, when a ``slider_length`` L is given, the two edge loads
  of a slider of length L centred at point_j, ``N = |F_n/2 + T/L| + |F_n/2 − T/L|`` with T
  the reaction moment about point_j (SPEC §9 9-2).

The friction force ``f`` (on body j along ``s``, −f on body i) enters the equations of
motion as the generalised force ``f·∂s/∂q``; a viscous term ``−c·ṡ`` and a ``preload`` added
to N are optional.

**The algebraic loop.** The multipliers λ (hence N) depend on f, and with a
load-dependent law (``CoulombODE(mu=...)``, ``LuGre``) f depends on N. Since λ is affine
in f (λ = S⁻¹(Φ_q M⁻¹(Q + Wᵀf) − γ), S the Schur complement), the loop is the small
nonlinear system ``r(f) = f − g(f) = 0`` in the n_f friction forces, with g the laws
evaluated at the normal forces of λ(f). It is solved by Newton's method with the exact
Jacobian (forward-mode, n_f columns), started from the frictionless reactions, for a fixed
number of iterations (piecewise-affine for ``CoulombODE``: exact after two or three). The
law's state rate is evaluated at the converged normal force, so force and rate are
consistent. Tests check ``|r(f)|`` at round-off.
"""

from __future__ import annotations

import math
from typing import ClassVar

import jax.numpy as jnp

from ..errors import ParameterError
from ..laws import CoulombODE, LuGre
from ..laws._base import AbstractFrictionLaw
from ..nonsmooth import safe_norm
from ._body import cross2, rotation

__all__ = ["AbstractJointFriction", "JointFriction", "LuGreFriction", "NEWTON_ITERATIONS"]

NEWTON_ITERATIONS = 4


def _nonneg(owner, name, value, unit):
    v = float(value)
    if not (math.isfinite(v) and v >= 0):
        raise ParameterError(f"`{owner}.{name}` must be a finite number >= 0 [{unit}]; got "
                             f"{name}={value!r}.")
    return v


def _joint_kind(joint) -> str:
    from ._elements import RevoluteJoint, TranslationalJoint

    if isinstance(joint, RevoluteJoint):
        return "revolute"
    if isinstance(joint, TranslationalJoint):
        return "translational"
    return ""


def check_friction_slot(joint, law, pin_radius, viscous, preload, slider_length):
    """Validate a joint's friction arguments (host side); raise naming joint and parameter."""
    owner = joint.owner
    kind = _joint_kind(joint)
    if law is None:
        if pin_radius is not None and kind != "revolute":
            raise ParameterError(f"`{owner}.pin_radius` only applies to a revolute joint.")
        return
    if not isinstance(law, AbstractFrictionLaw):
        raise ParameterError(f"`{owner}.friction` must be a friction law from stickslip.laws "
                             f"(CoulombODE, LuGre, TanhCoulomb, ...); got "
                             f"{type(law).__name__}.")
    if not kind:
        raise ParameterError(f"`{owner}.friction`: joint friction is defined for RevoluteJoint "
                             f"and TranslationalJoint only; {type(joint).__name__} has none.")
    if kind == "revolute":
        if pin_radius is None:
            raise ParameterError(f"`{owner}.pin_radius` is required with friction on a "
                                 "revolute joint: the torque level is pin_radius·μ·N [m].")
        r = float(pin_radius)
        if not (math.isfinite(r) and r > 0):
            raise ParameterError(f"`{owner}.pin_radius` must be a finite number > 0 [m]; got "
                                 f"pin_radius={pin_radius!r}.")
    elif pin_radius is not None:
        raise ParameterError(f"`{owner}.pin_radius` only applies to a revolute joint.")
    if slider_length is not None:
        if kind != "translational":
            raise ParameterError(f"`{owner}.slider_length` only applies to a translational "
                                 "joint.")
        L = float(slider_length)
        if not (math.isfinite(L) and L > 0):
            raise ParameterError(f"`{owner}.slider_length` must be a finite number > 0 [m]; "
                                 f"got slider_length={slider_length!r}.")
    _nonneg(owner, "viscous", viscous, "N·s/m or N·m·s/rad")
    _nonneg(owner, "preload", preload, "N")


class AbstractJointFriction:
    """A friction acting on one joint's relative coordinate (see the module docstring).

    ``name`` prefixes its channels: ``<name>.friction`` (force [N] or torque [N·m] on
    body j), the law's states ``<name>.<state>`` and ``<name>.normal`` (the normal force
    the law sees [N], ``a·N`` [N·m] for a revolute joint).
    """

    prefix: ClassVar[str] = "friction"
    joint = None
    law: AbstractFrictionLaw
    name: str | None
    viscous: float = 0.0
    preload: float = 0.0
    slider_length: float | None = None

    @property
    def owner(self) -> str:
        return self.name or type(self).__name__

    def bind(self) -> None:
        """Nothing to resolve: the joint carries the bodies."""

    def describe(self) -> str:
        return (f"{type(self).__name__} {self.name!r} on joint "
                f"{getattr(self.joint, 'name', None)!r}")

    @property
    def kind(self) -> str:
        return _joint_kind(self.joint)

    @property
    def lever(self) -> float:
        return float(self.joint.pin_radius) if self.kind == "revolute" else 1.0

    # traced side ---------------------------------------------------------------------------
    def slide(self, qi, qj):
        """The joint's free relative coordinate s(q) (friction acts along it)."""
        if self.kind == "revolute":
            return qj[2] - qi[2]
        u = rotation(qi[2]) @ jnp.asarray(self.joint.axis_i)
        return u @ self.joint._d(qi, qj)

    def normal(self, force, torque, angle, d_ij):
        """Normal force the law sees from the joint's reaction on body i (ground frame
        ``force``, ``torque`` about point_i, joint-frame ``angle``, ``d_ij`` from point_i
        to point_j)."""
        if self.kind == "revolute":
            n = safe_norm(force)
        else:
            local = rotation(angle).T @ force               # joint frame: x' along the axis
            fn = local[1]
            if self.slider_length is None:
                n = jnp.abs(fn)
            else:
                moment = torque - cross2(d_ij, force)       # about point_j
                half = 0.5 * fn
                n = (jnp.abs(half + moment / self.slider_length)
                     + jnp.abs(half - moment / self.slider_length))
        return self.lever * (n + self.preload)


class JointFriction(AbstractJointFriction):
    """The friction given in a joint's ``friction=`` slot (named after the joint)."""

    @property
    def law(self):
        return self.joint.friction

    def __init__(self, joint):
        self.joint = joint
        self.name = joint.name
        self.viscous = joint.viscous
        self.preload = joint.preload
        self.slider_length = getattr(joint, "slider_length", None)


class LuGreFriction(AbstractJointFriction):
    """The LuGre friction composite of SPEC §8 (MotionSolve's tutorial element), on a
    translational or revolute joint, added in one line::

        lugre = model.add(ss.planar.LuGreFriction(joint, mus=0.3, mud=0.2))

    It brings its bristle state (channel ``<name>.z`` [m]), its force (``<name>.friction``
    [N], and ``<name>.force``) and the normal force it sees (``<name>.normal``).

    Parameters (defaults are the tutorial's)
    ----------
    joint: a TranslationalJoint (or RevoluteJoint with ``pin_radius``) of the same model.
    vs: Stribeck velocity [m/s] (1e-3).   mus: static coefficient μ_s [-] (0.3).
    mud: dynamic coefficient μ_d [-], ≤ mus (0.2).   k0: bristle stiffness [N/m] (1e5).
    k1: bristle damping [N·s/m] (√1e5).   k2: viscous coefficient [N·s/m] (0.4).

    Change parameters between run segments with :meth:`Model.replace` (the compiled run is
    reused, and ``simulate(..., initial=previous)`` continues from the exact state).
    """

    prefix: ClassVar[str] = "lugre"
    parameters: ClassVar[tuple[str, ...]] = ("vs", "mus", "mud", "k0", "k1", "k2")

    def __init__(self, joint, vs=1e-3, mus=0.3, mud=0.2, k0=1e5, k1=math.sqrt(1e5), k2=0.4,
                 *, name: str | None = None):
        self.name = name
        self.joint = joint
        if not _joint_kind(joint):
            raise ParameterError(f"`{self.owner}.joint`: LuGre friction is defined for "
                                 f"RevoluteJoint and TranslationalJoint only; "
                                 f"{getattr(joint, 'owner', type(joint).__name__)!r} is a "
                                 f"{type(joint).__name__}, which has none.")
        if self.kind == "revolute" and getattr(joint, "pin_radius", None) is None:
            raise ParameterError(f"`{self.owner}.joint`: revolute joint {joint.owner!r} needs "
                                 "a `pin_radius` for friction.")
        self.law = self._make_law(dict(vs=vs, mus=mus, mud=mud, k0=k0, k1=k1, k2=k2))

    def _make_law(self, values):
        try:
            return LuGre(**values)
        except ParameterError as exc:
            joint = getattr(self.joint, "owner", "?")
            raise ParameterError(f"`{self.owner}` (LuGre friction on joint {joint!r}): "
                                 f"{exc}") from None

    def set(self, **changes) -> None:
        """Change parameters (validated again); used by :meth:`Model.replace`."""
        unknown = set(changes) - set(self.parameters)
        if unknown:
            raise ParameterError(f"`{self.owner}` has no parameter(s) {sorted(unknown)}; "
                                 f"its parameters are {list(self.parameters)}.")
        values = {p: getattr(self.law, p) for p in self.parameters}
        values.update(changes)
        self.law = self._make_law(values)

    def __getattr__(self, item):
        if item in LuGreFriction.parameters:
            return float(getattr(self.__dict__["law"], item))
        raise AttributeError(item)

    def __repr__(self) -> str:
        return f"LuGreFriction({self.name!r} on {getattr(self.joint, 'name', None)!r})"


def stored_energy(law, state):
    """Energy held in a friction law's internal spring [J]: ½K·a² for CoulombODE's proxy,
    ½k0·z² for LuGre's bristles, 0 otherwise."""
    if isinstance(law, CoulombODE):
        return 0.5 * law.K * state[0] ** 2
    if isinstance(law, LuGre):
        return 0.5 * law.k0 * state[0] ** 2
    return jnp.zeros(())
