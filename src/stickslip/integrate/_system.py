"""The system interface: one plain ODE ``ẋ = f(t, x)`` that every integrator runs.

Contract for a system (an ``equinox.Module``; parameters that may vary in a batch are
arrays, topology and callables are static):

* ``state_names`` — the names of the state vector's components, in order; each becomes a
  channel of the :class:`~stickslip.Results`.
* ``initial_state()`` — the state at the start, a float64 vector.
* ``vector_field(t, x)`` — pure ``jax.numpy``: the time derivative of the state.
* ``outputs(t, x)`` — extra channels (forces, applied loads) as ``{name: scalar}``; pure.
* ``units`` — ``{channel: unit}`` for states and outputs.
* ``linear_modes()`` — ``[(label, eigenvalues [1/s])]`` of the stiff parts, per regime;
  :func:`stickslip.simulate` rejects fixed steps outside the method's stability region.
  The default linearises the vector field at the initial state.
* ``parameters()`` — a flat ``{name: value}`` description for the Results metadata.
* ``passive_energy(t, x)`` — optional: the energy [J] of a system *without energy inputs* (no
  applied force, driver or moving surface), or None (the default). When a system reports
  one, the divergence guard (:mod:`stickslip.integrate._guard`) stops a run whose energy
  climbs — the sign of an integration that adds energy, even while every number is finite.

Defaults of the fixed-step integrator options, declared as class variables or as static
fields of the instance (``eqx.field(static=True)``; read from the instance, never sniffed);
``simulate(..., trace_stages_once=..., projection=...)`` overrides them per run, so no
subclass is needed to change them:

* ``projects_after_step = True`` — the fixed-step integrators call ``project(t, x)`` after
  every step (e.g. to put a constrained mechanism back on its constraint manifold).
* ``trace_stages_once = True`` — the Runge–Kutta stages run in a loop, so a large vector
  field is traced and compiled once instead of once per stage (3–4× less compile time for
  big models; slightly slower per step for tiny ones).
* ``samples_in_stages = True`` — with the stages in a loop, the run's output samples
  (``outputs`` and ``passive_energy``) are computed by the same evaluation as the first stage
  of the step that starts at the sample, so the compiled program holds one copy of the
  system's dynamics instead of two (XLA merges what ``vector_field`` and ``outputs`` share).
  For a system whose ``outputs`` recompute its ``vector_field``'s work (a λ-stage), with
  ``vector_field_and_outputs(t, x) -> (ẋ, outputs)`` computing that work once (XLA does not
  merge the two inside the stage loop): the first call compiles about 40 % faster, and each
  stage also computes the outputs' own extras.
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from .._compile.traced_once import computed_where
from .._repr import module_repr
from .._validation import check_finite_matrix, is_traced

__all__ = ["AbstractSystem", "module_parameters"]


class AbstractSystem(eqx.Module):
    """Base of all systems; see the module docstring for the contract."""

    projects_after_step: ClassVar[bool] = False
    trace_stages_once: ClassVar[bool] = False
    samples_in_stages: ClassVar[bool] = False

    def __repr__(self) -> str:
        return module_repr(self)

    def vector_field_and_outputs(self, t, x, want=True):
        """``(vector_field(t, x), outputs(t, x))``, the outputs where the traced bool `want`
        holds (zeros elsewhere); a system with ``samples_in_stages`` overrides it to compute
        what the two share once, and only the outputs' own part under ``lax.cond``."""
        return self.vector_field(t, x), computed_where(want, self.outputs, t, x)

    def _repr_html_(self) -> str:
        """Jupyter's view: the parameters and states (:func:`stickslip._html.system_html`)."""
        from .._html import system_html

        return system_html(self)

    @property
    @abc.abstractmethod
    def state_names(self) -> tuple[str, ...]:
        """Names of the state vector's components."""

    @abc.abstractmethod
    def initial_state(self) -> jnp.ndarray:
        """State at the start of the run."""

    @abc.abstractmethod
    def vector_field(self, t: jnp.ndarray, x: jnp.ndarray) -> jnp.ndarray:
        """dx/dt at time t [s]."""

    def project(self, t: jnp.ndarray, x: jnp.ndarray) -> jnp.ndarray:
        """Map a state back onto the system's admissible set after a fixed step (identity
        unless the system sets ``projects_after_step``)."""
        return x

    def passive_energy(self, t: jnp.ndarray, x: jnp.ndarray) -> jnp.ndarray | None:
        """Energy [J] that the run may not gain (a system without energy inputs), or None
        (the default: no energy check)."""
        return None

    def state_bounds(self) -> dict[str, tuple[Any, str]]:
        """Bounds the states never leave in an exact solution: ``{state name: (bound, why)}``,
        |state| ≤ bound (a number, or an array over a stacked batch's members), `why` a
        sentence for the error. The divergence guard stops a run whose samples pass one
        (`check_divergence`); the bound is raised to the state's start where that is larger.
        Hosts of friction laws collect their laws' (`AbstractLaw.state_bounds`). Default:
        none."""
        return {}

    def outputs(self, t: ArrayLike, x: jnp.ndarray) -> dict[str, jnp.ndarray]:
        """Extra channels computed from (t, x); none by default."""
        return {}

    @property
    def units(self) -> dict[str, str]:
        return {}

    def linear_modes(self) -> list[tuple[str, np.ndarray]]:
        """Eigenvalues of the Jacobian of the vector field at the initial state."""
        x0 = self.initial_state()
        jac = jax.jacfwd(lambda x: self.vector_field(jnp.asarray(0.0), x))(x0)
        jac = check_finite_matrix(type(self).__name__, "vector_field Jacobian at the initial "
                                  "state", np.asarray(jac), "Check the system's parameters and "
                                  "initial state (NaN/inf, or a zero it divides by), or "
                                  "override `linear_modes`.")
        return [("linearisation at the initial state", np.linalg.eigvals(jac))]

    def replace(self, **changes: Any) -> "AbstractSystem":
        """A copy with some fields changed and validated again — e.g. to change a parameter
        between run segments: ``ss.simulate(system.replace(law=new_law), t_end,
        initial=previous_results)`` continues exactly from the previous run's last state."""
        import dataclasses

        return dataclasses.replace(self, **changes)

    def parameters(self) -> dict[str, Any]:
        """Flat description of the parameters, for the Results metadata."""
        out = {}
        for name, value in vars(self).items():
            if isinstance(value, eqx.Module):          # a law or another parameter module
                out.update(module_parameters(name, value))
            elif isinstance(value, (jax.Array, np.ndarray, float, int)) and not is_traced(value):
                arr = np.asarray(value)
                out[name] = arr.tolist()
            elif callable(value):
                out[name] = getattr(value, "__name__", type(value).__name__)
        return out


def module_parameters(prefix: str, module: eqx.Module) -> dict[str, Any]:
    """``{prefix.field: value}`` for a parameter module (e.g. a law), plus ``prefix`` = its
    class name; non-numeric fields are skipped."""
    out: dict[str, Any] = {prefix: type(module).__name__}
    for name, value in vars(module).items():
        if value is None or is_traced(value):
            continue
        try:
            out[f"{prefix}.{name}"] = np.asarray(value, dtype=float).tolist()
        except (TypeError, ValueError):
            continue
    return out
