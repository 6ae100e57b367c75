"""The law interface every friction and contact model implements (DESIGN.md, "Laws").

A *law* turns an input — a sliding velocity for friction, a gap for contact — into a force,
possibly carrying a small internal state (Kikuuwe's proxy ``a`` or ``e``, LuGre's bristle
``z``). Laws are immutable ``equinox.Module`` objects, so they are JAX pytrees: stack many for
``vmap``, differentiate through their parameters, pass them into ``jit``.

Contract for a new law (one class in one file, plus a re-export and a conformance entry):

* ``n_states`` (class variable): rows of internal state; ``state_names`` names them.
* ``parameter_rules`` (class variable): ``{field: Rule}`` — the shared validation dialect
  of :mod:`stickslip._parameters` (a plain ``"positive" | "nonnegative" | "finite"`` string
  is accepted too, with its hint in ``parameter_help``); concrete values are checked at
  construction (traced values are skipped) and a bad one raises
  :class:`~stickslip.errors.ParameterError` naming the law, the field and the fix. A
  quantity shared with other elements uses the shared rule (``FRICTION_LEVEL``,
  ``FRICTION_COEFFICIENT``…). Extra cross-field checks go in the final class's
  ``__check_init__``.
* ``force_and_rate(...)``: pure ``jax.numpy``; returns ``(force, state_rate)``.
  The force is the one **the law applies to the body** whose input it was given: friction
  opposes the sliding velocity, contact pushes the body out of the wall (≥ 0 along the
  gap's normal for the non-adhesive laws).
  The state has shape ``(n_states, *input.shape)`` and its rate has the same shape.
* ``linear_modes(mass, ...)``: eigenvalues [1/s] of the law coupled to a point mass in each
  of its regimes; :func:`stickslip.simulate` uses them to reject fixed steps that are too
  large for the stiffness.
* ``example()`` (classmethod): a representative instance, used by the conformance suite.
"""

from __future__ import annotations

import abc
import dataclasses
from typing import Any, ClassVar

import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from .._parameter_arrays import as_parameter
from .._parameters import AbstractParametrised
from .._repr import parameter_repr
from ..errors import ParameterError

__all__ = ["AbstractLaw", "AbstractFrictionLaw", "AbstractContactLaw", "as_parameter"]


class AbstractLaw(AbstractParametrised):
    """Base of all laws; see the module docstring for the contract."""

    n_states: ClassVar[int]
    state_names: ClassVar[tuple[str, ...]]

    def __repr__(self) -> str:
        return parameter_repr(self)

    def replace(self, **changes: Any) -> "AbstractLaw":
        """A copy with some parameters changed, validated again (laws are immutable).

        Parameters are named as in the constructor; an alias (``mu_k`` for
        ``CoulombODE.mu``) changes its field, an old spelling (``mus``) too, with a
        ``DeprecationWarning``.

        >>> import stickslip as ss
        >>> ss.laws.LuGre().replace(mu_s=0.5).mu_s.item()
        0.5
        """
        fields: dict[str, Any] = {}
        for name, value in changes.items():
            field = self.field_name(name)
            if field in fields:
                spellings = sorted(n for n in changes if self.field_name(n, warn=False) == field)
                raise ParameterError(f"`{type(self).__name__}.replace` got {spellings}, two "
                                     f"spellings of `{field}`. Pass only {field}=.")
            fields[field] = value
        return dataclasses.replace(self, **fields)

    @classmethod
    @abc.abstractmethod
    def example(cls) -> "AbstractLaw":
        """A representative instance (used by the conformance suite and the docs)."""

    def initial_state(self, input_shape: tuple[int, ...] = ()) -> jnp.ndarray:
        """Zero internal state for an input of shape `input_shape` (() for 1-D, (2,) for planar)."""
        return jnp.zeros((self.n_states, *input_shape))

    def linear_modes(self, mass: ArrayLike, normal_force: ArrayLike = 1.0
                     ) -> list[tuple[str, np.ndarray]]:
        """Eigenvalues [1/s] of this law coupled to a point mass `mass` [kg], per regime.

        Returns a list of ``(regime label, complex eigenvalues)``. The default is empty
        (unknown); laws with stiff internal dynamics override it.
        """
        return []

    def state_bounds(self, normal_force: ArrayLike = 1.0) -> dict[str, tuple[Any, str]]:
        """Bounds the law's states never leave in an exact solution, per state name:
        ``{name: (bound, why)}`` with |state| ≤ bound (the bound [state's unit], a number or
        an array broadcasting with `normal_force`) and `why` a sentence saying where it comes
        from and what breaks it. The divergence guard stops a run whose samples pass one
        (`stickslip.integrate.check_divergence`): a step too large for a mode the step check
        at the start cannot see stays finite and bounded, and only this shows it. The
        default is none."""
        return {}


class AbstractFrictionLaw(AbstractLaw):
    """A friction law: sliding velocity and normal force in, friction force out."""

    @abc.abstractmethod
    def force_and_rate(self, state: jnp.ndarray, velocity: jnp.ndarray,
                       normal_force: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
        """Friction force on the body and the rate of the law's state.

        Parameters
        ----------
        state : Array
            shape ``(n_states, *velocity.shape)``.
        velocity : Array
            sliding velocity of the body relative to the surface [m/s] (or [rad/s]);
            a scalar, or a vector for planar sliding.
        normal_force : Array
            normal force pressing the surfaces together [N] (laws with a fixed
            level ignore it).
        """

    @abc.abstractmethod
    def level(self, normal_force: ArrayLike) -> jnp.ndarray:
        """The static friction level: the largest |force| the law holds while stuck [N]."""


class AbstractContactLaw(AbstractLaw):
    """A contact law: gap (and its rate) in, normal contact force out."""

    @abc.abstractmethod
    def force_and_rate(self, state: jnp.ndarray, gap: jnp.ndarray,
                       gap_rate: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
        """Normal contact force on the body (along the gap's normal) and the state rate.

        Parameters
        ----------
        state : Array
            shape ``(n_states,)`` (per contact).
        gap : Array
            signed distance to the wall [m]; negative means penetration (SPEC §3: the wall
            occupies p ≤ 0).
        gap_rate : Array
            its time derivative [m/s].
        """

    def potential(self, gap: jnp.ndarray) -> jnp.ndarray | None:
        """Elastic energy [J] stored in the contact at `gap` when its force derives from a
        potential (penalty springs), else None (the default). Hosts use it to report an
        energy for the divergence guard (`AbstractSystem.passive_energy`)."""
        return None

    @abc.abstractmethod
    def resting_state(self, load: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
        """``(gap, state)`` at static equilibrium under a steady pressing `load` [N] ≥ 0,
        so a host can start a body resting on the surface instead of dropping it."""
