"""The traced side of a planar mechanism: :class:`PlanarSystem`, the frozen model whose
stage functions give Φ, Φ_q, ν, γ, the index-reduced DAE and the channels (SPEC §9).

:class:`PlanarSystem` is an immutable :class:`~stickslip.systems.AbstractSystem` with state
x = [q; q̇; s], q = [x_1, y_1, φ_1, …, x_nb, y_nb, φ_nb] and s the friction and contact
laws' states. It holds the bound elements as pytree fields (their arrays traced) and the
topology in the static :class:`~._layout.Layout`. Its vector field solves the index-reduced
DAE (SPEC §9, eq. 3-5)

    [[M, Φ_qᵀ], [Φ_q, 0]] [q̈; λ] = [Q^A; γ − 2α Φ̇ − β² Φ]

(Baumgarte stabilisation, gains α, β [1/s]) with :func:`~._dynamics.schur_solve`, the one
solver shared with the projection and the impulses. Φ, Φ_q, ν = −Φ_t and
γ = −(Φ_q q̇)_q q̇ − 2Φ_qt q̇ − Φ_tt come from one grouped call of each constraint's
``kinematic_terms`` (hand-written for revolute and translational joints; forward-mode
derivatives of Φ otherwise: γ = −d²/ds² Φ(q + s q̇, t + s) at s = 0). Like elements
(constraints, frictions) are evaluated by one ``vmap`` per group; the joint reactions of all
joints at once from the rows' generalised forces −Φ_qᵀλ.

The work is done by stage functions ``f(system, …)``, one module per stage: the
constraints (``_stage_constraints``: Φ, Φ_q, ν, γ), the applied forces (``_stage_forces``),
joint friction (``_stage_friction``), the constraint solve (``_stage_solve``), the λ-stage
of the frictional contacts (``_stage_lambda``: SPEC §6's λ-problem over the joints' rows
and the contact pairs, one block group) and what is reported (``_stage_outputs``:
reactions, channels). The methods of :class:`PlanarSystem` of the same names call them.

A model with frictional contacts (:class:`~._contact.PointLineContact`,
:class:`~._contact.ClearanceSlider`) is the same class: its ``pairs`` field holds their
stacked per-pair arrays (:class:`~._contact_pairs.PairGeometry`; geometry, μ, δ, ζ traced,
body indices static), its state gains the two Painlevé counters and its vector field,
outputs and Moreau–Jean step take the λ-stage (:mod:`._stage_lambda`, :mod:`._contact_step`).
"""

from __future__ import annotations

from typing import Any, ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .._parameter_arrays import as_parameter
from ..integrate import AbstractTimeSteppingHost
from ..systems import AbstractSystem
from . import (
    _contact_step,
    _mj_step,
    _stage_constraints,
    _stage_forces,
    _stage_friction,
    _stage_lambda,
    _stage_outputs,
    _stage_solve,
)
from ._contact_pairs import PairGeometry
from ._dynamics import Dynamics
from ._friction import JointFriction
from ._layout import Layout
from ._modes import mechanism_modes

__all__ = ["Layout", "PlanarSystem", "ProjectedPlanarSystem"]


class PlanarSystem(AbstractSystem, AbstractTimeSteppingHost):
    """A planar mechanism as an ODE on [q; q̇; s] (built by :meth:`Model.system`).

    Fields: the diagonal of M (``masses``), ``gravity``, the initial ``q0``, ``qd0``, the
    Baumgarte gains ``alpha``, ``beta`` (arrays, traced), the bound elements
    (``constraints``, ``forces``, ``frictions``, ``contacts``: their arrays traced) and
    the static ``layout``; ``stops``, the rigid stops (``law=None``), which only
    ``method="moreau_jean"`` represents (:mod:`._mj_step`; the ODE methods integrate the
    mechanism without them, :meth:`Model.simulate` runs them as events); ``pairs``, the
    frictional contacts' stacked pairs (None: none; module docstring). Its Runge–Kutta
    stages run in a loop (``trace_stages_once``): the vector field holds Φ_q and γ by
    automatic differentiation and is costly to compile once per stage.
    """

    trace_stages_once: ClassVar[bool] = True

    masses: jnp.ndarray = eqx.field(converter=as_parameter)      # diagonal of M
    gravity: jnp.ndarray = eqx.field(converter=as_parameter)     # [m/s²]
    q0: jnp.ndarray = eqx.field(converter=as_parameter)
    qd0: jnp.ndarray = eqx.field(converter=as_parameter)
    alpha: jnp.ndarray = eqx.field(converter=as_parameter)       # Baumgarte [1/s]
    beta: jnp.ndarray = eqx.field(converter=as_parameter)        # Baumgarte [1/s]
    constraints: tuple = ()
    forces: tuple = ()
    frictions: tuple = ()
    contacts: tuple = ()
    stops: tuple = ()
    pairs: PairGeometry | None = None
    layout: Layout = eqx.field(static=True, default=None)
    # after every fixed step, put [q; q̇] back on Φ = 0, Φ_q q̇ = ν (:meth:`project`): a
    # static field the core's step rule reads through ``projects_after_step``
    projection: bool = eqx.field(static=True, default=False)

    @property
    def projects_after_step(self) -> bool:
        return self.projection

    @property
    def samples_in_stages(self) -> bool:
        """Output samples from the first stage (:meth:`vector_field_and_outputs`) only with
        two or more joint frictions, whose reaction ↔ friction Newton loop is then compiled
        once instead of twice (CPU, fresh processes, load 1.2): slider–crank with 4
        frictions first call 3.09 → 2.72 s, run 0.129 → 0.140 s; the LuGre sliding block
        2.21 → 1.67 s, run 0.087 → 0.107 s. Without friction the dynamics are cheap and the
        first call gains nothing (four-bar 1.59 → 1.57 s, run 0.053 → 0.064 s)."""
        return self.pairs is None and len(self.frictions) >= 2

    # --- coordinates ----------------------------------------------------------------------
    def _pose(self, q, body):
        if body.is_ground:
            return jnp.zeros(3, dtype=q.dtype)
        k = self.layout.index[id(body)]
        return q[3 * k: 3 * k + 3]

    def with_state(self, q0, qd0) -> PlanarSystem:
        """The same mechanism starting from (q0, q̇0)."""
        return eqx.tree_at(lambda s: (s.q0, s.qd0), self, (as_parameter(q0),
                                                           as_parameter(qd0)))

    # --- constraints (_stage_constraints) ---------------------------------------------------
    def phi(self, q, t):
        """Φ(q, t): all constraint rows (kinematic and driving), shape (n_rows,)."""
        return _stage_constraints.phi(self, q, t)

    def phi_q(self, q, t):
        """Φ_q (n_rows × n_c), assembled from each element's local Jacobians."""
        return _stage_constraints.phi_q(self, q, t)

    def nu(self, q, t):
        """ν = −Φ_t, the right-hand side of the velocity equation Φ_q q̇ = ν."""
        return _stage_constraints.nu(self, q, t)

    def phi_rate_and_gamma(self, q, qd, t, J=None):
        """(Φ̇, γ) with Φ̇ = Φ_q q̇ + Φ_t and γ = −(Φ_q q̇)_q q̇ − 2Φ_qt q̇ − Φ_tt (SPEC §9)."""
        return _stage_constraints.phi_rate_and_gamma(self, q, qd, t, J)

    def kinematics_terms(self, q, t, qd=None):
        """(Φ, Φ_q, ν, γ) from one grouped evaluation of every constraint's
        ``kinematic_terms`` (γ is for the rates `qd`; zeros when not given)."""
        return _stage_constraints.kinematics_terms(self, q, t, qd)

    # --- forces (_stage_forces) -------------------------------------------------------------
    def element_force(self, f, q, qd, t):
        """The generalised force Q (n_c,) of one force element `f` and its reported value."""
        return _stage_forces.element_force(self, f, q, qd, t)

    def applied(self, q, qd, t):
        """Q^A (gravity, force elements) and the force elements' reported values."""
        return _stage_forces.applied(self, q, qd, t)

    def energy(self, q, qd, s=None):
        """Kinetic + gravitational + spring energy [J] (+ energy stored in the friction
        laws' springs when their states `s` are given)."""
        return _stage_forces.energy(self, q, qd, s)

    # --- the constrained equations (_stage_solve; see _dynamics.py) ---------------------------
    def equations(self, t, q, qd, s=None, stabilise=True):
        """(ConstrainedEquations, Φ, Φ̇, contact-law forces, their state rates): M q̈ = Q − Jᵀλ,
        J q̈ = γ − 2αΦ̇ − β²Φ with the contact-law stops' forces in Q."""
        return _stage_solve.equations(self, t, q, qd, s, stabilise)

    def dynamics(self, t, q, qd, s=None, stabilise=True, *, cholesky=False) -> Dynamics:
        """Accelerations, multipliers, friction and contact forces at one instant (SPEC §9,
        eq. 3-5); with joint friction, the reaction ↔ friction loop solved by Newton's
        method (see :func:`._stage_solve.dynamics`)."""
        return _stage_solve.dynamics(self, t, q, qd, s, stabilise, cholesky=cholesky)

    def accelerations(self, t, q, qd, stabilise=True, s=None):
        """(q̈, λ, Φ, Φ̇): a shorthand of :meth:`dynamics`."""
        return _stage_solve.accelerations(self, t, q, qd, stabilise, s)

    # --- joint friction (_stage_friction; see _friction.py) ---------------------------------
    def slide_jacobian(self, q):
        """∂s/∂q of the frictions' relative coordinates s_k(q) (each joint's ``slide``),
        shape (n_f × n_c), in the order of ``frictions``."""
        return _stage_friction.slide_jacobian(self, q)

    def friction_normals(self, q, J, lam):
        """Normal force each friction law sees at the multipliers `lam` (order of
        ``frictions``)."""
        return _stage_friction.friction_normals(self, q, J, lam)

    # --- stops (_stage_forces) ----------------------------------------------------------------
    def gaps(self, q, stops):
        """Stacked gap rows g(q) of `stops` (empty stops: shape (0,))."""
        return _stage_forces.gaps(self, q, stops)

    def contact_terms(self, q, qd, s):
        """(Q of the contact-law stops, their forces, their law state rates)."""
        return _stage_forces.contact_terms(self, q, qd, s)

    def project(self, t, x):
        """Project [q; q̇] back onto Φ = 0 and Φ_q q̇ = ν: one mass-weighted Newton step
        for each (see :func:`._stage_solve.project`); the Painlevé counters unchanged."""
        if self.pairs is not None:
            return _stage_lambda.project(self, t, x,
                                         lambda t, y: _stage_solve.project(self, t, y))
        return _stage_solve.project(self, t, x)

    # --- AbstractSystem ---------------------------------------------------------------------
    @property
    def state_names(self):
        names = self.layout.state_names()
        if self.pairs is None:
            return names
        return tuple(names) + ("painleve.none", "painleve.several")

    @property
    def units(self):
        out = self.layout.units()
        if self.pairs is not None:
            out = dict(out)
            for gap, fn, ft in self.pairs.names:
                out.update({gap: "m", fn: "N", ft: "N"})
            out.update({"painleve.none": "s", "painleve.several": "s",
                        "painleve.status": "-"})
        return out

    def initial_state(self):
        parts = [self.q0, self.qd0, jnp.zeros(self.layout.n_law_states)]
        if self.pairs is not None:
            parts.append(jnp.zeros(2))                 # the Painlevé counters
        return jnp.concatenate(parts)

    def vector_field(self, t, x):
        if self.pairs is not None:
            return _stage_lambda.vector_field(self, t, x)
        n = self.layout.n_coordinates
        q, qd, s = x[:n], x[n:2 * n], x[2 * n:]
        d = self.dynamics(t, q, qd, s)
        return jnp.concatenate([qd, d.qdd, d.s_rate])

    def outputs(self, t, x):
        if self.pairs is not None:
            return _stage_lambda.outputs(self, t, x)
        return _stage_outputs.outputs(self, t, x)

    def contact_dynamics(self, t, q, qd, checked: bool = True, s=None) -> dict:
        """The λ-stage at one instant of a model with frictional contacts (q̈, the joints'
        multipliers, each pair's ``fn``, ``ft``, ``gap`` and the λ-problem's ``status``):
        :func:`._stage_lambda.dynamics`."""
        return _stage_lambda.dynamics(self, t, q, qd, checked, s)

    def vector_field_and_outputs(self, t, x, want=True):
        """(ẋ, outputs) from one evaluation of the dynamics (``samples_in_stages``): the
        outputs' own part only where the traced bool `want` holds."""
        return _stage_outputs.vector_field_and_outputs(self, t, x, want)

    # --- method="moreau_jean" (stickslip.integrate._moreau_jean; module ._mj_step) ---------
    def route_refusal(self, method):
        """``moreau_jean`` needs CoulombODE joint frictions and rigid stops
        (:func:`._mj_step.route_refusal`), and with frictional contacts the exact Coulomb
        law (``contact_formulation="kikuuwe"``) and a restitution; the ODE methods accept
        every plain mechanism and refuse joint friction and impact stops next to frictional
        contacts (:func:`._stage_lambda.ode_refusal`)."""
        if self.pairs is None:
            return _mj_step.route_refusal(self, method)
        if method != "moreau_jean":
            return _stage_lambda.ode_refusal(self, method)
        refusal = _mj_step.route_refusal(self, method)
        if refusal is not None:
            return refusal
        if self.pairs.formulation != "kikuuwe":
            return (f"its contact_formulation is {self.pairs.formulation!r}; the "
                    "time-stepping step solves the exact Coulomb law: build it with "
                    "contact_formulation='kikuuwe'")
        if self.pairs.restitution is None:
            return ("its contacts have no `restitution`; build it with planar.Model.system "
                    "or Model.simulate, or set restitution= (Newton's e in [0, 1])")
        return None

    def moreau_jean_step(self, t, x, h, theta):
        """One step with joint friction, rigid stops and the contact pairs:
        :func:`._mj_step.moreau_jean_step` (:func:`._contact_step.moreau_jean_step` with
        frictional contacts)."""
        if self.pairs is not None:
            return _contact_step.moreau_jean_step(self, t, x, h, theta)
        return _mj_step.moreau_jean_step(self, t, x, h, theta)

    def moreau_jean_outputs(self, t, x, forces):
        """The ODE route's channels and ``<stop>.gap/.force`` (and the contacts'
        ``gap/fn/ft``, ``painleve.status``): :func:`._mj_step.moreau_jean_outputs`,
        :func:`._contact_step.moreau_jean_outputs`."""
        if self.pairs is not None:
            return _contact_step.moreau_jean_outputs(self, t, x, forces)
        return _mj_step.moreau_jean_outputs(self, t, x, forces)

    def contact_rows(self, qm, v):
        """The contact pairs' rows of the step (:func:`._contact_step.contact_rows`)."""
        return _contact_step.contact_rows(self, qm, v)

    # --- what is reported (_stage_outputs) ----------------------------------------------------
    def reactions(self, q, J, lam):
        """Reaction of every kinematic joint on its body i in the joint's frame (SPEC §9):
        {constraint index: (Fx, Fy, T)}."""
        return _stage_outputs.reactions(self, q, J, lam)

    def channels(self, t, q, qd, qdd, lam, include_state=True, J=None,
                 s=None) -> dict[str, Any]:
        """Every named channel at one instant: poses, rates, accelerations, reactions (in
        each joint's frame on body i, SPEC §9), driver efforts, force-element values,
        energy."""
        return _stage_outputs.channels(self, t, q, qd, qdd, lam, include_state, J, s)

    def linear_modes(self):
        """The stiff modes a fixed step must resolve, element by element (Baumgarte
        stabilisation, force elements, joint-friction and contact laws): see
        :mod:`._modes`. With frictional contacts, their relaxation's modes (as before the
        contacts joined this class: the mechanism's are not linearised there)."""
        if self.pairs is not None:
            return self.pairs.linear_modes()
        return mechanism_modes(self)

    def _non_finite_forces(self) -> str:
        """Which force elements give NaN/inf at the initial state (host-side diagnosis)."""
        t = jnp.asarray(0.0)
        bad = []
        for f in self.forces:
            bodies = f.bodies()
            gen, value = f.generalized_force([self._pose(self.q0, b) for b in bodies],
                                             [self._pose(self.qd0, b) for b in bodies], t)
            if not all(np.all(np.isfinite(np.asarray(g))) for g in [*gen, value]):
                bad.append(f"{type(f).__name__} {f.name!r}")
        return (f"force element(s) {', '.join(bad)} return NaN/inf there" if bad else
                "a friction or contact law returns NaN/inf there")

    def parameters(self) -> dict[str, Any]:
        out = {"bodies": [b.name for b in self.layout.bodies],
               "constraints": [c.name for c in self.layout.constraints],
               "forces": [f.name for f in self.layout.forces],
               "gravity": np.asarray(self.gravity).tolist(),
               "baumgarte": [float(self.alpha), float(self.beta)]}
        if self.pairs is not None:
            out.update(self.pairs.parameters())
        return out


class ProjectedPlanarSystem(PlanarSystem):
    """A :class:`PlanarSystem` with ``projection=True`` by default (kept for code that names
    the class; ``Model.system(projection=True)`` returns a plain :class:`PlanarSystem` with
    the field set)."""

    projection: bool = eqx.field(static=True, default=True)


def joint_frictions(constraints) -> list:
    """The JointFriction elements of the joints whose ``friction=`` slot is filled."""
    return [JointFriction(c) for c in constraints
            if type(c).supports_friction and c.friction is not None]
