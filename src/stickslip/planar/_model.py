"""`Model`: build a planar mechanism, then analyse it (SPEC §9).

A builder in the style of sympy.physics.mechanics: ``add_body`` and ``add`` record the
mechanism; every analysis first validates the whole model, collecting every problem and
raising one :class:`~stickslip.errors.ModelError` with one line per problem.

Examples
--------
>>> import jax.numpy as jnp, stickslip as ss
>>> m = ss.planar.Model(gravity=(0, -9.81))
>>> crank = m.add_body("crank", mass=1.0, inertia=1e-3, x=0.05)
>>> pin = m.add(ss.planar.RevoluteJoint(m.ground, crank, point_j=(-0.05, 0)))
>>> drive = m.add(ss.planar.RotationalDriver(m.ground, crank, angle=lambda t: 2.0 * t))
>>> m.dof()
1
>>> res = m.kinematics([0.0, 0.5])
>>> round(float(res["crank.phid"][1]), 9)
2.0
"""

from __future__ import annotations

import math
import time
from typing import Any, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .. import integrate
from ..errors import ModelError, ParameterError, SimulationError
from ..integrate._fixed_step import padded_length
from ..results import Results
from ._body import Body, Ground
from ._elements import AbstractConstraint
from ._forces import AbstractForceElement
from ._friction import AbstractJointFriction, JointFriction, LuGreFriction
from ._impact import AbstractStop
from ._system import Layout, PlanarSystem, ProjectedPlanarSystem

__all__ = ["Model"]

_RANK_TOL = 1e-9


class Model:
    """A planar mechanism: ground, bodies, joints, drivers and force elements (SPEC §9).

    Parameters
    ----------
    gravity: (g_x, g_y) [m/s²], default (0, −9.81).
    name: a label for the Results metadata.

    Attributes
    ----------
    ground: the fixed frame (pose (0, 0, 0)); pass it as a body of any element.
    bodies, constraints, forces: what was added, in order.
    """

    def __init__(self, gravity: Sequence[float] = (0.0, -9.81), name: str = "mechanism"):
        g = np.asarray(gravity, dtype=float)
        if g.shape != (2,) or not np.all(np.isfinite(g)):
            raise ParameterError(f"`Model.gravity` must be two finite numbers (g_x, g_y) "
                                 f"[m/s²]; got {gravity!r}. Pass e.g. gravity=(0, -9.81).")
        self.gravity = g
        self.name = name
        self.ground = Ground()
        self.bodies: list[Body] = []
        self.constraints: list[AbstractConstraint] = []
        self.forces: list[AbstractForceElement] = []
        self.frictions: list[AbstractJointFriction] = []
        self.stops: list[AbstractStop] = []
        self._problems: list[str] = []
        self._layout: Layout | None = None
        self._compiled: dict[str, Any] = {}

    def __repr__(self) -> str:
        return (f"Model({self.name!r}: {len(self.bodies)} bodies, {len(self.joints)} joints, "
                f"{len(self.drivers)} drivers, {len(self.forces)} force elements)")

    # --- building ---------------------------------------------------------------------------
    def add_body(self, name: str, mass: float, inertia: float, x: float = 0.0, y: float = 0.0,
                 phi: float = 0.0, *, xd: float = 0.0, yd: float = 0.0, phid: float = 0.0,
                 points: dict[str, Sequence[float]] | None = None) -> Body:
        """Add a rigid body and return it.

        Parameters
        ----------
        name: unique name; its channels are ``<name>.x`` … ``<name>.phidd``.
        mass: m [kg] (> 0).   inertia: centroidal moment of inertia J [kg·m²] (> 0).
        x, y, phi: initial pose of the centre of mass [m] and rotation [rad] — a rough guess
            is enough, :meth:`assemble` closes the constraints.
        xd, yd, phid: initial velocities [m/s, rad/s].
        points: named body-fixed points ``{name: (x', y')}`` [m].

        Raises
        ------
        ParameterError: zero, negative or non-finite mass or inertia; a duplicate name.
        """
        if any(b.name == name for b in self.bodies) or name == "ground":
            raise ParameterError(f"a body named {name!r} is already in the model; give each "
                                 "body a unique name ('ground' is reserved).")
        body = Body(name, mass, inertia, x, y, phi, xd, yd, phid, points)
        self.bodies.append(body)
        self._changed()
        return body

    def add(self, element):
        """Add a joint, driver or force element and return it.

        Its reference constants (a translational joint's relative angle, a gear's phase, an
        absolute constraint's value) are taken from the bodies' poses now. Problems (a body
        not in this model, an unknown point, a duplicate name) are collected and raised by the
        next analysis, all at once.
        """
        from ._contact import AbstractFrictionalContact   # frictional contacts (issue 12)
        if isinstance(element, AbstractFrictionalContact):
            from ._contact_simulate import add_frictional_contact
            return add_frictional_contact(self, element)
        if isinstance(element, AbstractConstraint):
            group, kind = self.constraints, "driver" if element.is_driver else "joint"
        elif isinstance(element, AbstractForceElement):
            group, kind = self.forces, "force element"
        elif isinstance(element, AbstractStop):
            group, kind = self.stops, "stop"
            joint = getattr(element, "joint", None)
            if joint is not None and not any(joint is c for c in self.constraints):
                self._problems.append(f"stop {element.name or element.prefix!r}: its joint "
                                      f"{joint.name!r} is not in this model; add it first.")
        elif isinstance(element, AbstractJointFriction):
            group, kind = self.frictions, "friction element"
            if not any(element.joint is c for c in self.constraints):
                self._problems.append(
                    f"friction element {element.name or element.prefix!r}: its joint "
                    f"{getattr(element.joint, 'name', None)!r} is not in this model; add the "
                    "joint first.")
        else:
            raise ParameterError(f"`Model.add` takes a joint, driver or force element from "
                                 f"stickslip.planar; got {type(element).__name__}.")
        if element.name is None:
            count = sum(type(e) is type(element) for e in group) + 1
            element.name = f"{element.prefix}{count}"
        if any(e.name == element.name for e in self._all_elements()):
            self._problems.append(f"{kind} name {element.name!r} is used twice; pass a unique "
                                  "`name=`.")
        bodies = []
        ok = True
        for field, ref in self._body_refs(element):
            body = self._resolve_body(ref)
            if body is None:
                shown = getattr(ref, "name", ref)
                self._problems.append(
                    f"{kind} {element.name!r}: `{field}` is body {shown!r}, which is not in "
                    f"this model (bodies: {[b.name for b in self.bodies]}). Add it with "
                    f"model.add_body first, or pass model.ground.")
                ok = False
            bodies.append(body)
        if ok and len(bodies) == 2 and bodies[0] is bodies[1]:
            self._problems.append(f"{kind} {element.name!r} connects body {bodies[0].name!r} "
                                  "to itself; pass two different bodies (or model.ground).")
            ok = False
        law = getattr(element, "friction", None) if isinstance(element, AbstractConstraint) \
            else None
        if law is not None and type(element).__name__ not in ("RevoluteJoint",
                                                               "TranslationalJoint"):
            self._problems.append(f"{kind} {element.name!r}: `friction` is defined for "
                                  f"RevoluteJoint and TranslationalJoint only; "
                                  f"{type(element).__name__} has none.")
        if ok:
            try:
                element.bind(*bodies)
                if isinstance(element, AbstractConstraint):
                    element.freeze(bodies[0].pose, bodies[1].pose)
            except ParameterError as exc:
                self._problems.append(f"{kind} {element.name!r}: {exc}")
        group.append(element)
        self._changed()
        return element

    def _body_refs(self, element):
        if isinstance(element, AbstractJointFriction):
            return []
        if isinstance(element, AbstractStop):
            if not hasattr(element, "body"):
                return []
            refs = [("body", element.body)]
            if getattr(element, "line_body", None) is not None:
                refs.append(("line_body", element.line_body))
            return refs
        if isinstance(element, AbstractConstraint):
            j = element.body_j if element.body_j is not None else self.ground
            return [("body_i", element.body_i), ("body_j", j)]
        return [(f"bodies[{k}]", b) for k, b in enumerate(element.bodies())]

    def _resolve_body(self, ref):
        if ref is self.ground or (isinstance(ref, str) and ref == "ground"):
            return self.ground
        for b in self.bodies:
            if b is ref or (isinstance(ref, str) and b.name == ref):
                return b
        return None

    def _all_elements(self):
        return [*self.constraints, *self.forces, *self.frictions, *self.stops]

    def _changed(self):
        self._layout = None
        self._compiled = {}

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

    # --- validation -------------------------------------------------------------------------
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
        self.validate()
        if self._layout is None:
            frictions = [JointFriction(c) for c in self.constraints
                         if getattr(c, "friction", None) is not None]
            self._layout = Layout(self.bodies, self.constraints, self.forces,
                                  frictions + self.frictions,
                                  [s for s in self.stops if s.law is not None])
        return self._layout

    def system(self, baumgarte: tuple[float, float] = (10.0, 10.0),
               q0: np.ndarray | None = None, qd0: np.ndarray | None = None,
               projection: bool = False) -> PlanarSystem:
        """The mechanism as a :class:`PlanarSystem` (an ODE for :func:`stickslip.simulate`).

        baumgarte: (α, β) [1/s] of the stabilisation Φ̈ + 2αΦ̇ + β²Φ = 0.
        projection: return a :class:`ProjectedPlanarSystem`, which the fixed-step
            integrators put back on the constraint manifold after every step.
        """
        layout = self.layout
        alpha, beta = (float(v) for v in baumgarte)
        if not (alpha >= 0 and beta >= 0 and math.isfinite(alpha) and math.isfinite(beta)):
            raise ParameterError(f"`baumgarte` gains must be finite and >= 0 [1/s]; got "
                                 f"{baumgarte!r}.")
        masses = np.array([[b.mass, b.mass, b.inertia] for b in layout.bodies]).reshape(-1)
        q0 = self._q() if q0 is None else q0
        qd0 = self._qd() if qd0 is None else qd0
        cls = ProjectedPlanarSystem if projection else PlanarSystem
        return cls(masses=masses, gravity=self.gravity, q0=q0, qd0=qd0, alpha=alpha,
                   beta=beta, layout=layout, laws=tuple(f.law for f in layout.frictions),
                   contact_laws=tuple(c.law for c in layout.contacts))

    def replace(self, element, **changes) -> None:
        """Change the parameters of a friction element (a :class:`LuGreFriction`, or a
        joint's ``friction=`` law) in place, validated again. The model's compiled run is
        kept (law parameters are traced), so ``model.simulate(..., initial=previous)``
        continues the same run with the new values.

        ``element``: the element or its name.
        """
        if isinstance(element, str):
            element = self.element(element)
        if isinstance(element, LuGreFriction):
            element.set(**changes)
        elif getattr(element, "friction", None) is not None:
            try:
                element.friction = element.friction.replace(**changes)
            except (ParameterError, TypeError) as exc:
                raise ParameterError(f"`{element.owner}.friction`: {exc}") from None
        else:
            raise ParameterError(f"`Model.replace` changes friction parameters; "
                                 f"{getattr(element, 'name', element)!r} has no friction.")

    def _law_zeros(self):
        """Zero states of the friction and contact laws (appended to [q; q̇])."""
        return np.zeros(self.layout.n_law_states)

    def _q(self):
        return np.concatenate([b.pose for b in self.bodies]) if self.bodies else np.zeros(0)

    def _qd(self):
        return np.concatenate([b.velocity for b in self.bodies]) if self.bodies else np.zeros(0)

    def _set_q(self, q, qd=None):
        for k, b in enumerate(self.bodies):
            b.x, b.y, b.phi = (float(v) for v in q[3 * k: 3 * k + 3])
            if qd is not None:
                b.xd, b.yd, b.phid = (float(v) for v in qd[3 * k: 3 * k + 3])

    def _kernels(self):
        """Jitted Φ, Φ_q (host-side helpers for assembly, rank checks)."""
        if "phi" not in self._compiled:
            self._compiled["phi"] = jax.jit(lambda s, q, t: s.phi(q, t))
            self._compiled["phi_q"] = jax.jit(lambda s, q, t: s.phi_q(q, t))
            self._compiled["nu"] = jax.jit(lambda s, q, t: s.nu(q, t))
        return self._compiled["phi"], self._compiled["phi_q"]

    def _phi(self, q, t=0.0):
        phi, _ = self._kernels()
        return np.asarray(phi(self.system(), jnp.asarray(q), jnp.asarray(float(t))))

    def _phi_q(self, q, t=0.0):
        _, phi_q = self._kernels()
        return np.asarray(phi_q(self.system(), jnp.asarray(q), jnp.asarray(float(t))))

    # --- degrees of freedom -----------------------------------------------------------------
    def dof(self) -> int:
        """Degrees of freedom n_c − n_h (SPEC §9): coordinates minus kinematic constraint
        equations (drivers not counted).

        The rank of Φ_q at the current poses is checked row by row (joints first, then
        drivers); a row that adds no rank is redundant (or contradicts the others) and is
        named in the ModelError. Check after :meth:`assemble` when the initial poses are
        rough: at a singular configuration independent constraints can look redundant.
        """
        layout = self.layout
        n_c, n_h = layout.n_coordinates, layout.n_kinematic
        redundant = self._redundant_rows(self._q(), 0.0)
        if redundant:
            raise ModelError(
                f"planar model {self.name!r} has redundant (or contradictory) constraints: "
                + "; ".join(redundant)
                + f". Counting gives DOF = {n_c} − {n_h} = {n_c - n_h}, but these rows add "
                "nothing to the rank of Φ_q. Remove them, or replace a joint by one that "
                "removes fewer DOF (e.g. a RevoluteJoint by a RevoluteTranslationalJoint).")
        return n_c - n_h

    def _redundant_rows(self, q, t) -> list[str]:
        layout = self.layout
        if layout.n_rows == 0:
            return []
        J = self._phi_q(q, t)
        order = [r for r in range(layout.n_rows) if not layout.row_owner(r)[0].is_driver]
        order += [r for r in range(layout.n_rows) if layout.row_owner(r)[0].is_driver]
        basis: list[np.ndarray] = []
        out = []
        scale = max(1.0, float(np.max(np.abs(J))))
        for r in order:
            v = J[r].copy()
            for b in basis:
                v -= (b @ v) * b
            norm = np.linalg.norm(v)
            if norm > _RANK_TOL * scale:
                basis.append(v / norm)
            else:
                element, row = layout.row_owner(r)
                out.append(f"{element.describe()} (equation {row + 1} of "
                           f"{element.n_equations})")
        return out

    # --- assembly ---------------------------------------------------------------------------
    def assemble(self, t: float = 0.0, tol: float = 1e-10, max_iterations: int = 50,
                 drivers: bool = True) -> Results:
        """Close the constraints from the bodies' rough poses (Newton–Raphson with the
        least-norm step, SPEC §9 assembly analysis) and store the result as the bodies'
        poses. Velocities are made consistent too (Φ_q q̇ = ν, least mass-weighted change).

        Parameters
        ----------
        t: time [s] at which the drivers are evaluated.   tol: residual tolerance [m, rad].
        drivers: include the driving constraints (default) or close the joints only.

        Returns
        -------
        Results with one sample: every body's pose and velocity.

        Raises
        ------
        ModelError: the constraints cannot be closed; names the constraint with the largest
            remaining residual and its value.
        """
        layout = self.layout
        q = self._q()
        keep = np.ones(layout.n_rows, dtype=bool)
        if not drivers:
            for c, (a, z) in zip(layout.constraints, layout.rows):
                keep[a:z] = not c.is_driver
        best = None
        for _ in range(max_iterations):
            phi = self._phi(q, t)[keep]
            err = float(np.max(np.abs(phi))) if phi.size else 0.0
            if best is None or err < best[0]:
                best = (err, q.copy())
            if err < tol:
                break
            J = self._phi_q(q, t)[keep]
            step = np.linalg.lstsq(J, phi, rcond=None)[0]
            q = q - step
            if not np.all(np.isfinite(q)):
                break
        else:
            phi = self._phi(q, t)[keep]
            err = float(np.max(np.abs(phi))) if phi.size else 0.0
            if err < best[0]:
                best = (err, q.copy())
        err, q = best
        if err >= tol:
            full = self._phi(q, t)
            full = np.where(keep, full, 0.0)
            worst = int(np.argmax(np.abs(full)))
            element, row = layout.row_owner(worst)
            raise ModelError(
                f"assembly of {self.name!r} failed at t={t:g} s: {element.describe()} will not "
                f"close (equation {row + 1}, residual {full[worst]:.4g} after "
                f"{max_iterations} Newton iterations; tolerance {tol:g}). Check its points and "
                "lengths (can the loop reach?), or give the bodies a closer initial guess.")
        qd = self._consistent_velocity(q, self._qd(), t, keep)
        self._set_q(q, qd)
        return self._single_sample(t, q, qd)

    def _consistent_velocity(self, q, qd, t, keep=None):
        sys = self.system()
        J = self._phi_q(q, t)
        self._kernels()
        nu = np.asarray(self._compiled["nu"](sys, jnp.asarray(q), jnp.asarray(float(t))))
        if keep is not None:
            J, nu = J[keep], nu[keep]
        if J.shape[0] == 0:
            return qd
        minv = 1.0 / np.asarray(sys.masses)
        JM = J * minv[None, :]
        lam = np.linalg.lstsq(JM @ J.T, J @ qd - nu, rcond=None)[0]
        return qd - minv * (J.T @ lam)

    def _single_sample(self, t, q, qd):
        channels, units = {}, {}
        for k, b in enumerate(self.bodies):
            for c_idx, c in enumerate(("x", "y", "phi")):
                channels[f"{b.name}.{c}"] = np.array([q[3 * k + c_idx]])
                channels[f"{b.name}.{c}d"] = np.array([qd[3 * k + c_idx]])
        units = {k: v for k, v in self.layout.units().items() if k in channels}
        return Results(np.array([float(t)]), channels, units=units,
                       meta={"analysis": "assembly", "model": self.name},
                       final_state=np.concatenate([q, qd, self._law_zeros()]))

    # --- analyses ---------------------------------------------------------------------------
    def kinematics(self, times: Sequence[float], tol: float = 1e-12) -> Results:
        """Kinematic analysis of a fully driven model (SPEC §9): at each time, positions by
        Newton–Raphson on Φ(q, t) = 0 (from the previous solution), velocities from
        Φ_q q̇ = ν and accelerations from Φ_q q̈ = γ.

        Parameters
        ----------
        times: increasing sample times [s].   tol: Newton tolerance on |Φ| [m, rad].

        Returns
        -------
        Results with ``<body>.x/.y/.phi``, rates ``…d`` and accelerations ``…dd``, and
        ``constraint.position`` (max |Φ|).

        Raises
        ------
        ModelError: the drivers do not match the DOF; redundant constraints; no assembly.
        SimulationError: a lock-up (singular Φ_q) or a Newton failure at some time — named.
        """
        times = self._times(times)
        q, qd, qdd, lam, resid = self._kinematic_solution(times, tol)
        sys = self.system()
        channels = self._channels(sys, times, q, qd, qdd, lam, dynamics=False)
        channels["constraint.position"] = resid
        return Results(times, channels, units=sys.units,
                       meta={"analysis": "kinematics", "model": self.name,
                             "max_constraint_residual": float(np.max(resid))},
                       final_state=np.concatenate([q[-1], qd[-1], self._law_zeros()]))

    def inverse_dynamics(self, times: Sequence[float], tol: float = 1e-12) -> Results:
        """Inverse dynamics of a fully driven model (SPEC §9): the motion from
        :meth:`kinematics`, then the multipliers λ from Φ_qᵀ λ = Q^A − M q̈.

        Returns
        -------
        Results with the kinematic channels plus every joint's reaction ``<joint>.Fx``,
        ``.Fy`` [N] and ``.T`` [N·m] (on body i, in the joint frame — body i's frame turned to
        the joint axis — and about point_i), every driver's ``<driver>.effort`` (torque
        [N·m] or force [N] the driver applies to body j), every force element's
        ``<element>.force`` and ``energy``.
        """
        times = self._times(times)
        q, qd, qdd, lam, resid = self._kinematic_solution(times, tol, with_lambda=True)
        sys = self.system()
        channels = self._channels(sys, times, q, qd, qdd, lam, dynamics=True)
        channels["constraint.position"] = resid
        return Results(times, channels, units=sys.units,
                       meta={"analysis": "inverse_dynamics", "model": self.name},
                       final_state=np.concatenate([q[-1], qd[-1], self._law_zeros()]))

    def simulate(self, t_end: float, dt: float | None = None, method: str = "rk4",
                 dt_out: float | None = None, *, baumgarte: tuple[float, float] | None = None,
                 projection: bool | None = None, max_drift: float = 1e-3,
                 contact_formulation: str | None = None, **options: Any) -> Results:
        """Forward dynamics: the index-reduced DAE (SPEC §9, eq. 3-5) with constraint
        stabilisation, on the core integrators.

        The initial poses are assembled and the velocities made consistent first.

        Parameters
        ----------
        t_end: end time [s].   dt: step [s] (required for rk4, rk_gill, euler).
        method: any of :data:`stickslip.integrate.METHODS`.   dt_out: output interval [s]
            (default: every step for fixed-step methods).
        baumgarte: (α, β) [1/s]: the constraint error obeys Φ̈ + 2αΦ̇ + β²Φ = 0. Default
            (0, 0) with projection (Baumgarte terms inside the Runge–Kutta stages only add
            error then: measured 14× larger energy drift on the slider–crank at α = β = 10),
            (10, 10) without.
        projection: after every fixed step, project q and q̇ back onto the constraint
            manifold (one mass-weighted Newton step each; the core's ``projects_after_step``
            capability). Default: on for the fixed-step methods (drift at round-off level),
            off for the adaptive ones, which use Baumgarte alone.
        max_drift: largest constraint residual max|Φ| [m, rad] accepted; beyond it the run
            went through a lock-up (or a driver asked for an unreachable position) and a
            SimulationError names the time and the constraints.
        contact_formulation: for models with frictional contacts (PointLineContact,
            ClearanceSlider): ``"kikuuwe"`` (default; SPEC §6's exact limit law),
            ``"anitescu"`` or ``"nakaoka"``. Channels ``<contact>.gap/.fn/.ft`` are added;
            a λ-problem without a unique solution raises ``ss.PainleveError``.
        options: passed to :func:`stickslip.simulate` (``rtol``, ``atol``, ``t0``,
            ``initial``, ``stream_to``, ``progress``, …).

        Returns
        -------
        Results with every body's pose, rates and accelerations, joint reactions, driver
        efforts, force-element values, ``energy`` [J], and the drift ``constraint.position``
        (max |Φ|) and ``constraint.velocity`` (max |Φ̇|); ``meta["constraint_drift"]``,
        ``meta["velocity_drift"]`` and ``meta["energy_drift"]`` summarise them.

        Raises
        ------
        ModelError: an invalid model or one that cannot be assembled.
        SimulationError: the run diverged — typically a lock-up, where Φ_q loses rank; the
            message names the time and the constraints involved.
        """
        from ..integrate._tableaus import FIXED_STEP_METHODS

        if getattr(self, "frictional_contacts", None) or contact_formulation is not None:
            # frictional contacts: the λ-problem of SPEC §6 (issue 12, _contact_simulate.py)
            from ._contact_simulate import simulate_contacts
            return simulate_contacts(self, t_end, dt, method, dt_out, baumgarte=baumgarte,
                                     projection=projection,
                                     contact_formulation=contact_formulation, **options)
        self.dof()
        fixed = method in FIXED_STEP_METHODS
        projection = fixed if projection is None else bool(projection)
        if projection and not fixed:
            raise ParameterError(f"`projection=True` needs a fixed-step method (rk4, rk_gill, "
                                 f"euler); got method={method!r}. Use baumgarte= alone with "
                                 "adaptive methods.")
        if baumgarte is None:
            baumgarte = (0.0, 0.0) if projection else (10.0, 10.0)
        initial = options.get("initial")
        if initial is None:
            self.assemble(t=float(options.get("t0", 0.0)))
        sys = self.system(baumgarte, projection=projection)
        events = [s for s in self.stops if s.law is None]
        if events:
            return self._simulate_events(sys, events, t_end, dt, method, dt_out, baumgarte,
                                         options)
        start = time.perf_counter()
        try:
            res = integrate.simulate(sys, t_end, dt=dt, method=method, dt_out=dt_out, **options)
        except SimulationError as exc:
            raise self._diagnose(exc) from exc
        self._check_drift(res, float(max_drift))
        res.meta.update(model=self.name, analysis="dynamics", projection=projection,
                        baumgarte=list(baumgarte), wall_time=time.perf_counter() - start,
                        constraint_drift=float(np.max(res["constraint.position"])),
                        velocity_drift=float(np.max(res["constraint.velocity"])),
                        energy_drift=float(np.max(np.abs(res["energy"] - res["energy"][0]))))
        return res

    def _simulate_events(self, sys, stops, t_end, dt, method, dt_out, baumgarte, options):
        """Forward dynamics with impact events on the stops without a contact law
        (see :mod:`stickslip.planar._impact`)."""
        from ._impact import _kernels, simulate_events

        if method != "rk4" or dt is None:
            raise ParameterError(f"a model with event stops ({', '.join(s.owner for s in stops)}"
                                 f") runs with method='rk4' and a fixed dt; got "
                                 f"method={method!r}, dt={dt!r}.")
        unknown = set(options) - {"t0", "initial"}
        if unknown:
            raise ParameterError(f"options {sorted(unknown)} are not supported with event "
                                 "stops (only t0 and initial).")
        start = time.perf_counter()
        key = ("events", tuple(id(s) for s in stops))
        if key not in self._compiled:
            self._compiled[key] = _kernels(sys, stops)
        kernels = self._compiled[key]
        initial = options.get("initial")
        if isinstance(initial, Results):
            x0, t0 = np.asarray(initial.final_state), float(initial.t[-1])
        elif initial is not None:
            x0, t0 = np.asarray(initial, dtype=float), float(options.get("t0", 0.0))
        else:
            x0, t0 = np.asarray(sys.initial_state()), float(options.get("t0", 0.0))
        ts, xs, impacts = simulate_events(kernels, sys, stops, t0, x0, float(t_end),
                                          float(dt), dt_out)
        out = kernels["outputs"](sys, jnp.asarray(ts), jnp.asarray(xs))
        channels = {name: xs[:, k] for k, name in enumerate(sys.state_names)}
        channels.update({k: np.asarray(v) for k, v in out.items()})
        gaps = np.asarray(jax.vmap(lambda x: kernels["gaps"](sys, x))(jnp.asarray(xs)))
        row = 0
        for s in stops:
            for k in range(s.n_gaps):
                suffix = "" if s.n_gaps == 1 else f"[{k}]"
                channels[f"{s.name}.gap{suffix}"] = gaps[:, row]
                row += 1
        res = Results(ts, channels, units=sys.units,
                      meta={"model": self.name, "analysis": "dynamics", "method": "rk4",
                            "dt": float(dt), "impacts": impacts,
                            "baumgarte": list(baumgarte), "projection": True,
                            "wall_time": time.perf_counter() - start},
                      final_state=xs[-1])
        res.meta.update(constraint_drift=float(np.max(res["constraint.position"])),
                        velocity_drift=float(np.max(res["constraint.velocity"])))
        return res

    def equilibrium(self, t: float = 0.0, tol: float = 1e-10,
                    max_iterations: int = 100) -> Results:
        """Static equilibrium (SPEC §9): the configuration with q̇ = q̈ = 0 under gravity,
        springs and the loads at time `t`, by Newton–Raphson on
        [Q^A(q) − Φ_qᵀ λ; Φ(q, t)] = 0 from the current poses.

        Newton finds the equilibrium nearest the start, stable or not; start near the one
        you want. The poses are stored in the bodies. Returns one sample with the poses,
        reactions and efforts.
        """
        layout = self.layout
        sys = self.system()
        self.assemble(t=t)
        n, m = layout.n_coordinates, layout.n_rows
        zero = jnp.zeros(n)
        tt = jnp.asarray(float(t))

        @jax.jit
        def residual(z):
            q, lam = z[:n], z[n:]
            Q, _ = sys.applied(q, zero, tt)
            J = sys.phi_q(q, tt)
            return jnp.concatenate([Q - J.T @ lam, sys.phi(q, tt)])

        jac = jax.jit(jax.jacfwd(residual))
        z = np.concatenate([self._q(), np.zeros(m)])
        Q, _ = sys.applied(jnp.asarray(z[:n]), zero, tt)
        J0 = self._phi_q(z[:n], t)
        if m:
            z[n:] = np.linalg.lstsq(J0.T, np.asarray(Q), rcond=None)[0]
        scale = max(1.0, float(np.max(np.abs(sys.masses))) * float(np.linalg.norm(self.gravity)))
        for _ in range(max_iterations):
            r = np.asarray(residual(jnp.asarray(z)))
            if np.max(np.abs(r[n:]), initial=0.0) < tol and \
                    np.max(np.abs(r[:n])) < tol * scale:
                break
            step = np.linalg.lstsq(np.asarray(jac(jnp.asarray(z))), r, rcond=None)[0]
            z = z - step
        else:
            raise ModelError(f"equilibrium of {self.name!r} not found in {max_iterations} "
                             f"Newton iterations (force residual {np.max(np.abs(r[:n])):.3g}). "
                             "Start nearer an equilibrium, or add damping and run "
                             "`simulate` until it settles.")
        q = z[:n]
        self._set_q(q, np.zeros(n))
        lam = z[n:]
        channels = self._channels(sys, np.array([float(t)]), q[None], np.zeros((1, n)),
                                  np.zeros((1, n)), lam[None], dynamics=True)
        return Results(np.array([float(t)]), channels, units=sys.units,
                       meta={"analysis": "equilibrium", "model": self.name},
                       final_state=np.concatenate([q, np.zeros(n)]))

    # --- seeing it -------------------------------------------------------------------------
    def plot_trajectory(self, results: Results, bodies=None, ax=None):
        """Plot the paths of the bodies' centres of mass; returns the matplotlib axes."""
        from ._plotting import plot_trajectory

        return plot_trajectory(self, results, bodies, ax)

    def plot_coupler_curve(self, results: Results, body, point=(0.0, 0.0), ax=None):
        """Plot the path of a body-fixed point (x', y') [m] or named point."""
        from ._plotting import plot_coupler_curve

        return plot_coupler_curve(self, results, body, point, ax)

    def animate(self, results: Results, path, fps: int = 30, duration: float | None = None,
                trace: tuple | None = None):
        """Write an animation (``.gif``; ``.mp4`` with ffmpeg) of `results`; returns the
        path. ``trace=(body, point)`` draws the path of a body point."""
        from ._plotting import animate

        return animate(self, results, path, fps=fps, duration=duration, trace=trace)

    # --- internals --------------------------------------------------------------------------
    def _times(self, times):
        times = np.atleast_1d(np.asarray(times, dtype=float))
        if times.ndim != 1 or times.size == 0 or not np.all(np.isfinite(times)) \
                or np.any(np.diff(times) < 0):
            raise ParameterError("`times` must be a non-empty increasing sequence of finite "
                                 f"times [s]; got {times!r}.")
        return times

    def _check_driven(self):
        layout = self.layout
        dof = self.dof()
        n_drive = layout.n_rows - layout.n_kinematic
        if n_drive != dof:
            hint = ("add drivers (e.g. RotationalDriver) for the free coordinates"
                    if n_drive < dof else "remove drivers")
            raise ModelError(f"kinematic analysis of {self.name!r} needs as many driving "
                             f"equations as DOF: the model has DOF {dof} and {n_drive} "
                             f"driver equation(s) ({[d.name for d in self.drivers]}); {hint}. "
                             "For an under-driven model use `simulate`.")

    def _kinematic_solution(self, times, tol, with_lambda=False):
        self._check_driven()
        self.assemble(t=float(times[0]))
        sys = self.system()
        key = ("kinematics", with_lambda)
        if key not in self._compiled:
            self._compiled[key] = jax.jit(_make_kinematic_scan(with_lambda))
        n = len(times)
        q, qd, qdd, lam, resid, ok, J = self._compiled[key](
            sys, jnp.asarray(self._q()), jnp.asarray(_pad_rows(times)), jnp.asarray(tol))
        q, qd, qdd, lam = (np.asarray(a)[:n] for a in (q, qd, qdd, lam))
        resid, ok = np.asarray(resid)[:n], np.asarray(ok)[:n]
        J = np.nan_to_num(np.asarray(J)[:n])
        left, sv, _ = np.linalg.svd(J)                   # on the host: cheap, no compile
        sigma = sv[:, -1] / np.maximum(sv[:, 0], 1e-300)
        left = left[:, :, -1]
        bad = (~ok) | (sigma < _RANK_TOL) | ~np.all(np.isfinite(q), axis=1)
        if bad.any():
            k = int(np.argmax(bad))
            involved = self._rows_involved(np.asarray(left)[k])
            why = (f"Φ_q is singular (smallest normalised singular value {sigma[k]:.2g})"
                   if sigma[k] < _RANK_TOL else
                   f"Newton–Raphson did not converge (|Φ| = {resid[k]:.3g})")
            raise SimulationError(
                f"kinematic analysis of {self.name!r} failed at t={times[k]:.6g} s: {why} — "
                f"a lock-up or a driver that asks for an unreachable position. Constraints "
                f"involved: {', '.join(involved)}. Last good time: "
                f"{times[k - 1] if k else times[0]:.6g} s. Change the driver's motion or the "
                "link lengths so the mechanism does not reach a dead point.",
                time=float(times[k]))
        return q, qd, qdd, lam, resid

    def _rows_involved(self, left_vector) -> list[str]:
        layout = self.layout
        weights = np.abs(np.nan_to_num(left_vector))
        if not weights.any():
            return [d.describe() for d in self.drivers]
        names = []
        for r in np.argsort(-weights):
            if weights[r] < 0.1 * weights.max():
                break
            element, _ = layout.row_owner(int(r))
            if element.describe() not in names:
                names.append(element.describe())
        return names

    def _channels(self, sys, times, q, qd, qdd, lam, dynamics):
        fn_key = ("channels", dynamics)
        if fn_key not in self._compiled:
            def one(s, t, q, qd, qdd, lam):
                out = s.channels(t, q, qd, qdd, lam)
                if not dynamics:
                    out = {k: v for k, v in out.items()
                           if not k.endswith((".Fx", ".Fy", ".T", ".effort"))}
                return out
            self._compiled[fn_key] = jax.jit(jax.vmap(one, in_axes=(None, 0, 0, 0, 0, 0)))
        n = len(times)
        out = self._compiled[fn_key](sys, *(jnp.asarray(_pad_rows(a))
                                            for a in (times, q, qd, qdd, lam)))
        return {k: np.asarray(v)[:n] for k, v in out.items()}

    def _check_drift(self, res: Results, max_drift: float) -> None:
        drift = np.asarray(res["constraint.position"])
        if not np.any(drift > max_drift):
            return
        k = int(np.argmax(drift > max_drift))
        t = float(res.t[k])
        layout = self.layout
        q = np.concatenate([[res[f"{b.name}.{c}"][k] for c in ("x", "y", "phi")]
                            for b in layout.bodies])
        phi = np.abs(self._phi(q, t))
        names = []
        for r in np.argsort(-phi)[:4]:
            element, _ = layout.row_owner(int(r))
            if phi[r] > max_drift and element.describe() not in names:
                names.append(element.describe())
        last = float(res.t[k - 1]) if k else t
        raise SimulationError(
            f"forward dynamics of {self.name!r}: the constraints drifted to max|Φ| = "
            f"{drift[k]:.3g} (> max_drift={max_drift:g}) at t={t:.6g} s (last good sample "
            f"t={last:.6g} s) — a lock-up, or a driver asking for an unreachable position. "
            f"Constraints off: {', '.join(names)}; drivers: "
            f"{', '.join(repr(d.name) for d in self.drivers) or 'none'}. Change the driver's "
            "motion or the link "
            "lengths; for a genuinely loose tolerance raise `max_drift`.", time=t)

    def _diagnose(self, exc: SimulationError) -> SimulationError:
        """Re-raise a diverged run with the lock-up diagnosis at the last finite state."""
        state = exc.state or {}
        layout = self.layout
        names = layout.state_names()
        if not state or layout.n_rows == 0:
            return exc
        x = np.array([state.get(k, np.nan) for k in names])
        q = x[:layout.n_coordinates]
        try:
            J = self._phi_q(q, exc.time or 0.0)
            u, s, _ = np.linalg.svd(J)
            ratio = s[-1] / max(s[0], 1e-300)
            involved = self._rows_involved(u[:, -1])
            detail = (f" At the last finite state Φ_q has smallest normalised singular value "
                      f"{ratio:.2g}; constraints involved: {', '.join(involved)}.")
        except Exception:  # noqa: BLE001 - diagnosis is best effort
            detail = ""
        return SimulationError(f"{exc}{detail} A mechanism that locks up (a dead point, a "
                               "toggle position) cannot be simulated through it with rigid "
                               "constraints.", time=exc.time, state=exc.state)


def _make_kinematic_scan(with_lambda: bool):
    """A jitted scan over times: Newton on Φ(q, t) = 0, then Φ_q q̇ = ν, Φ_q q̈ = γ, and
    optionally Φ_qᵀ λ = Q^A − M q̈ (SPEC §9)."""

    def run(sys, q0, times, tol):
        def newton(q, t):
            def cond(carry):
                _, it, err = carry
                return (err > tol) & (it < 25)

            def step(carry):
                q, it, _ = carry
                J = sys.phi_q(q, t)
                q = q - jnp.linalg.solve(J, sys.phi(q, t))
                return q, it + 1, jnp.max(jnp.abs(sys.phi(q, t)))

            err0 = jnp.max(jnp.abs(sys.phi(q, t)))
            q, it, err = jax.lax.while_loop(cond, step, (q, 0, err0))
            return q, err

        def body(q_prev, t):
            q, err = newton(q_prev, t)
            J = sys.phi_q(q, t)
            qd = jnp.linalg.solve(J, sys.nu(q, t))
            _, gamma = sys.phi_rate_and_gamma(q, qd, t)
            qdd = jnp.linalg.solve(J, gamma)
            if with_lambda:
                Q, _ = sys.applied(q, qd, t)
                lam = jnp.linalg.solve(J.T, Q - sys.masses * qdd)
            else:
                lam = jnp.zeros(J.shape[0])
            ok = err <= 1e3 * tol
            return q, (q, qd, qdd, lam, err, ok, J)

        _, out = jax.lax.scan(body, q0, times)
        return out

    return run


def _pad_rows(a) -> np.ndarray:
    """`a` with its last row repeated up to `padded_length(len(a))` rows: the analyses over a
    time grid then compile once per power-of-two bucket of grid lengths, not per length."""
    a = np.asarray(a)
    extra = padded_length(len(a)) - len(a)
    return np.concatenate([a, np.repeat(a[-1:], extra, axis=0)]) if extra else a
