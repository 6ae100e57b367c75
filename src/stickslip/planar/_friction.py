"""Joint friction in planar mechanisms (SPEC §9 9-2, SPEC §8).

A friction acts along one joint's free relative coordinate, the joint's ``slide(qi, qj)``:

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
Jacobian (its linear step by :func:`newton_solve`, no LAPACK), for a fixed number of
iterations (``NEWTON_ITERATIONS``) in a ``lax.fori_loop``
(traced once), started from f = 0 (piecewise-affine for ``CoulombODE``: exact after two or
three). The joint reactions are linear in λ, so the reactions seen along the loop are an
affine map of f computed once. Each iteration evaluates the normal forces N(reaction) and
∂N/∂reaction by one ``vmap`` per group of like frictions (same element class: the joint
type decides the formula), then the laws by one ``vmap`` per group of like laws (same law
class and structure, whatever the joint), their force and ∂force/∂N by one forward-mode
tangent (a law sees the reaction only through N); ∂g/∂f follows by the chain rule. The loop
runs one pass more than it has Newton steps, and that pass's laws — at the last iterate —
give the friction force, the normal force and the law's state rate returned (so force and
rate are consistent, and the laws are traced once, inside the loop); the residual reported
is ``r`` at that iterate. Tests check ``|r(f)|`` at round-off.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import equinox as eqx
import jax.numpy as jnp

from .._rules import Rule
from .._validation import keyword_alias, warn_renamed
from ..errors import ParameterError
from ..laws import CoulombODE, LuGre
from ..laws import AbstractFrictionLaw
from ..nonsmooth import safe_norm
from ._base import AbstractElement, evolve, host_array
from ._body import cross2, rotation
from ._constraint_base import AbstractConstraint
from ._dynamics import eliminate_solve
from ._friction_slot import SLIDER_LENGTH, SLOT_RULES

__all__ = [
    "NEWTON_ITERATIONS",
    "AbstractJointFriction",
    "JointFriction",
    "LuGreFriction",
    "newton_solve",
    "stored_energy",
]

NEWTON_ITERATIONS = 5
_TUTORIAL_K1 = math.sqrt(1e5)       # LuGreFriction's default bristle damping [N·s/m]


def newton_solve(A, b):
    """x of ``A x = b`` for the loop's Newton matrix ``A = I − ∂g/∂f`` (n_f × n_f; neither
    symmetric nor definite): :func:`~._dynamics.eliminate_solve` with partial pivoting
    (pure JAX: a handful of operations to compile, where ``jnp.linalg.solve`` brings
    LAPACK's LU, its pivot permutation loop and two triangular solves). A singular A meets
    a zero pivot and gives inf/NaN, which the loop rejects (see ``PlanarSystem.dynamics``)."""
    return eliminate_solve(A, b, pivoting=True)


class AbstractJointFriction(AbstractElement):
    """A friction acting along one joint's ``slide`` (see the module docstring).

    ``name`` prefixes its channels: ``<name>.friction`` (force [N] or torque [N·m] on
    body j), the law's states ``<name>.<state>`` and ``<name>.normal`` (the normal force
    the law sees [N], ``a·N`` [N·m] for a revolute joint).
    """

    prefix: ClassVar[str] = "friction"
    reports_force: ClassVar[bool] = False       # also write ``<name>.force``
    joint: eqx.AbstractVar[Any]
    law: eqx.AbstractVar[AbstractFrictionLaw]
    viscous: eqx.AbstractVar[Any]
    preload: eqx.AbstractVar[Any]
    slider_length: eqx.AbstractVar[Any]
    parameter_rules: ClassVar[dict[str, Rule]] = {**SLOT_RULES,
                                                  "slider_length": SLIDER_LENGTH}

    def describe(self) -> str:
        return (f"{type(self).__name__} {self.name!r} on joint "
                f"{getattr(self.joint, 'name', None)!r}")

    @property
    def rotational(self) -> bool:
        return type(self.joint).slide_unit == "rad"

    @property
    def unit(self) -> str:
        return "N·m" if self.rotational else "N"

    @property
    def lever(self):
        return self.joint.pin_radius if self.rotational else 1.0

    # traced side ---------------------------------------------------------------------------
    def slide(self, qi, qj):
        """The joint's free relative coordinate s(q) (friction acts along it)."""
        return self.joint.slide(qi, qj)

    def slide_jacobians(self, qi, qj):
        """(∂s/∂q_i, ∂s/∂q_j), each (3,)."""
        return self.joint.slide_jacobians(qi, qj)

    def normal(self, force, torque, angle, d_ij):
        """Normal force the law sees from the joint's reaction on body i (ground frame
        ``force``, ``torque`` about point_i, joint-frame ``angle``, ``d_ij`` from point_i
        to point_j)."""
        if self.rotational:
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

    joint: Any
    law: AbstractFrictionLaw
    name: str | None = eqx.field(static=True)
    viscous: Any
    preload: Any
    slider_length: Any

    def __init__(self, joint):
        self.joint, self.law, self.name = joint, joint.friction, joint.name
        self.viscous, self.preload = joint.viscous, joint.preload
        self.slider_length = joint.slider_length


class LuGreFriction(AbstractJointFriction):
    """The LuGre friction composite of SPEC §8 (MotionSolve's tutorial element), on a
    translational or revolute joint, added in one line::

        lugre = model.add(ss.planar.LuGreFriction(joint, mu_s=0.3, mu_k=0.2))

    It brings its bristle state (channel ``<name>.z`` [m]), its force (``<name>.friction``
    [N], and ``<name>.force``) and the normal force it sees (``<name>.normal``).

    Parameters (defaults are the tutorial's)
    ----------
    joint: a TranslationalJoint (or RevoluteJoint with ``pin_radius``) of the same model.
    vs: Stribeck velocity [m/s] (1e-3).   mu_s: static coefficient μ_s [-] (0.3).
    mu_k: kinetic coefficient μ_k [-], ≤ mu_s (0.2).   k0: bristle stiffness [N/m] (1e5).
    k1: bristle damping [N·s/m] (√1e5).   k2: viscous coefficient [N·s/m] (0.4).
    mus, mud: the old spellings of mu_s and mu_k (deprecated: they warn, in the constructor,
    in :meth:`Model.replace` and as attributes).

    Change parameters between run segments with :meth:`Model.replace` (the compiled run is
    reused, and ``simulate(..., initial=previous)`` continues from the exact state).
    """

    prefix: ClassVar[str] = "lugre"
    reports_force: ClassVar[bool] = True
    parameters: ClassVar[tuple[str, ...]] = ("vs", "mu_s", "mu_k", "k0", "k1", "k2")
    joint: Any
    law: LuGre
    name: str | None = eqx.field(static=True)
    viscous: Any
    preload: Any
    slider_length: Any

    def __init__(self, joint, vs=1e-3, mu_s=None, mu_k=None, k0=1e5, k1=_TUTORIAL_K1,
                 k2=0.4, *, name: str | None = None, mus=None, mud=None):
        self.name = name
        mu_s = keyword_alias(self.owner, "mu_s", mu_s, "mus", mus, deprecated=True)
        mu_k = keyword_alias(self.owner, "mu_k", mu_k, "mud", mud, deprecated=True)
        self.joint = joint
        self.viscous, self.preload, self.slider_length = host_array(0.0), host_array(0.0), None
        _check_joint(self.owner, joint)         # before the law's message names the joint
        self.law = self._make_law({"vs": vs, "mu_s": 0.3 if mu_s is None else mu_s,
                                   "mu_k": 0.2 if mu_k is None else mu_k,
                                   "k0": k0, "k1": k1, "k2": k2})

    def __check_init__(self) -> None:
        _check_joint(self.owner, self.joint)
        if not isinstance(self.law, LuGre):
            raise ParameterError(f"`{self.owner}.law` must be a stickslip.laws.LuGre; got "
                                 f"{type(self.law).__name__}. Change its parameters with "
                                 "Model.replace or LuGreFriction.replaced.")

    @classmethod
    def example(cls) -> LuGreFriction:
        """The tutorial's LuGre friction (μ_s = 0.3, μ_k = 0.2) on
        :meth:`TranslationalJoint.example` without its own friction law."""
        from ._joints import TranslationalJoint

        joint = evolve(TranslationalJoint.example(), friction=None)
        return cls(joint, mu_s=0.3, mu_k=0.2)

    def _make_law(self, values):
        try:
            return LuGre(**values)
        except ParameterError as exc:
            joint = getattr(self.joint, "owner", "?")
            raise ParameterError(f"`{self.owner}` (LuGre friction on joint {joint!r}): "
                                 f"{exc}") from None

    def replaced(self, **changes) -> LuGreFriction:
        """A copy with parameters changed (validated again); used by :meth:`Model.replace`."""
        renamed = {}
        for key, value in changes.items():
            new = LuGre.field_name(key, warn=False)
            if new != key:                          # old spellings (mus, mud) warn
                warn_renamed(f"`Model.replace({self.owner!r}, {key}=...)`", f"`{new}=...`")
            if new in renamed:
                raise ParameterError(f"`{self.owner}`: `replace` got two spellings of "
                                     f"`{new}`. Pass only {new}=.")
            renamed[new] = value
        changes = renamed
        unknown = set(changes) - set(self.parameters)
        if unknown:
            raise ParameterError(f"`{self.owner}` has no parameter(s) {sorted(unknown)}; "
                                 f"its parameters are {list(self.parameters)}.")
        values = {p: getattr(self.law, p) for p in self.parameters}
        values.update(changes)
        return evolve(self, law=self._make_law(values))

    vs = property(lambda self: float(self.law.vs))
    mu_s = property(lambda self: float(self.law.mu_s))
    mu_k = property(lambda self: float(self.law.mu_k))
    mus = property(lambda self: _renamed(self, "mus", "mu_s"))      # deprecated: warns
    mud = property(lambda self: _renamed(self, "mud", "mu_k"))      # deprecated: warns
    k0 = property(lambda self: float(self.law.k0))
    k1 = property(lambda self: float(self.law.k1))
    k2 = property(lambda self: float(self.law.k2))

    def __repr__(self) -> str:
        return (f"LuGreFriction({self.name!r} on {getattr(self.joint, 'name', None)!r}; "
                f"{self.parameter_text()})")


def _check_joint(owner: str, joint) -> None:
    """A LuGre friction's joint: a revolute (with a pin radius) or translational joint."""
    if not (isinstance(joint, AbstractConstraint) and joint.supports_friction):
        raise ParameterError(f"`{owner}.joint`: LuGre friction is defined for "
                             f"RevoluteJoint and TranslationalJoint only; "
                             f"{getattr(joint, 'owner', type(joint).__name__)!r} is a "
                             f"{type(joint).__name__}, which has none.")
    if joint.slide_unit == "rad" and joint.pin_radius is None:
        raise ParameterError(f"`{owner}.joint`: revolute joint {joint.owner!r} needs "
                             "a `pin_radius` for friction.")


def _renamed(element, old, new):
    warn_renamed(f"`{type(element).__name__}.{old}`", f"`{type(element).__name__}.{new}`")
    return getattr(element, new)


def stored_energy(law, state):
    """Energy held in a friction law's internal spring [J]: ½K·a² for CoulombODE's proxy,
    ½k0·z² for LuGre's bristles, 0 otherwise."""
    if isinstance(law, CoulombODE):
        return 0.5 * law.K * state[0] ** 2
    if isinstance(law, LuGre):
        return 0.5 * law.k0 * state[0] ** 2
    return jnp.zeros(())
