"""`Model`: build a planar mechanism, then analyse it (SPEC §9).

A builder in the style of sympy.physics.mechanics: ``add_body`` and ``add`` record the
mechanism (``add`` returns the element bound to the model's bodies, a new immutable
object); :meth:`Model.system` freezes it into an immutable :class:`PlanarSystem`; the
analyses are the pure functions of :mod:`._analyses` and the methods here are thin
wrappers that never write into the bodies. Every analysis first validates the whole
model, collecting every problem and raising one :class:`~stickslip.errors.ModelError` with
one line per problem.

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

from typing import Any

from numpy.typing import ArrayLike

from ..results import Results
from . import _analyses as analyses
from ._builder import Builder

__all__ = ["Model"]


class Model(Builder):
    """A planar mechanism: ground, bodies, joints, drivers and force elements (SPEC §9).

    Parameters
    ----------
    gravity
        (g_x, g_y) [m/s²], default (0, −9.81).
    name
        a label for the Results metadata.

    Attributes
    ----------
    ground
        the fixed frame (pose (0, 0, 0)); pass it as a body of any element.
    bodies, constraints, forces, frictions, stops
        what was added, in order (the bound elements ``add`` returned).

    Notes
    -----
    Building (``add_body``, ``add``, ``replace``, ``validate``, ``system``) is in
    :class:`~._builder.Builder`; the analyses below wrap the pure functions of
    :mod:`._analyses` on ``self.system()``.
    """

    def _repr_html_(self) -> str:
        """Jupyter's view: the element table (:func:`stickslip._html.planar_model_html`)."""
        from .._html import planar_model_html

        return planar_model_html(self)

    def _phi(self, q, t=0.0):
        """Φ(q, t) on the host (for checks)."""
        return analyses._phi(self.system(), q, t)

    # --- analyses (thin wrappers of the pure functions in _analyses.py) -------------------
    def dof(self) -> int:
        """Degrees of freedom n_c − n_h (SPEC §9): coordinates minus kinematic constraint
        equations (drivers not counted). The rank of Φ_q at the bodies' poses is checked
        row by row (joints first, then drivers); a row that adds no rank is redundant (or
        contradicts the others) and is named in the ModelError. At a singular configuration
        independent constraints can look redundant: start near an assembled pose."""
        return analyses.dof(self.system())

    def assemble(self, t: float = 0.0, tol: float = 1e-10, max_iterations: int = 50,
                 drivers: bool = True) -> Results:
        """Close the constraints from the bodies' rough poses (Newton–Raphson, least-norm
        steps, SPEC §9) and make the velocities consistent. Returns one sample with every
        pose and velocity; the bodies are not changed (``final_state`` holds [q; q̇]).
        `drivers`: include the driving constraints (default) or close the joints only.
        Raises ModelError naming the constraint that will not close."""
        return analyses.assemble(self.system(), t, tol, max_iterations, drivers)

    def kinematics(self, times: ArrayLike, tol: float = 1e-12) -> Results:
        """Kinematic analysis of a fully driven model (SPEC §9): at each time, positions by
        Newton–Raphson on Φ(q, t) = 0 (from the previous solution), velocities from
        Φ_q q̇ = ν and accelerations from Φ_q q̈ = γ, in one compiled scan.

        Returns Results with ``<body>.x/.y/.phi``, rates ``…d``, accelerations ``…dd`` and
        ``constraint.position`` (max |Φ|). Raises ModelError (drivers ≠ DOF, redundant
        constraints, no assembly) or SimulationError (a lock-up, named, with its time).
        """
        return analyses.kinematics(self.system(), times, tol)

    def inverse_dynamics(self, times: ArrayLike, tol: float = 1e-12) -> Results:
        """Inverse dynamics of a fully driven model (SPEC §9): the motion from
        :meth:`kinematics`, then λ from Φ_qᵀ λ = Q^A − M q̈: every joint's reaction
        ``<joint>.Fx``, ``.Fy`` [N], ``.T`` [N·m] (on body i, in the joint frame, about
        point_i), every driver's ``<driver>.effort``, every force element's
        ``<element>.force`` and ``energy``."""
        return analyses.inverse_dynamics(self.system(), times, tol)

    def equilibrium(self, t: float = 0.0, tol: float = 1e-10,
                    max_iterations: int = 100) -> Results:
        """Static equilibrium (SPEC §9): q̇ = q̈ = 0 under gravity, springs and the loads at
        time `t`, by Newton–Raphson on [Q^A(q) − Φ_qᵀ λ; Φ(q, t)] = 0 from the assembled
        poses (the nearest equilibrium, stable or not: start near the one you want).
        Returns one sample with the poses, reactions and efforts."""
        return analyses.equilibrium(self.system(), t, tol, max_iterations)

    def simulate(self, t_end: float, *args: Any, dt: float | None = None,
                 method: str = "rk4", dt_out: float | None = None, t0: float | None = None,
                 initial: Any = None, output: Any = None, guard: Any = None,
                 steps: Any = None, progress: bool | None = None,
                 baumgarte: tuple[float, float] | None = None,
                 projection: bool | None = None, max_drift: float = 1e-3,
                 contact_formulation: str | None = None, **options: Any) -> Results:
        """Forward dynamics: the index-reduced DAE (SPEC §9, eq. 3-5) with constraint
        stabilisation, on the core integrators; the initial poses are assembled and the
        velocities made consistent first (unless ``initial=`` continues a run).

        Every model runs through the one frozen :class:`PlanarSystem` (:mod:`._simulate`):
        its frictional contacts are the system's ``pairs`` and its λ-stage.

        Parameters
        ----------
        t_end : float
            End time [s].
        dt : float, optional
            Step [s] (required for rk4, rk_gill, euler).
        method : str, optional
            Any of :data:`stickslip.integrate.METHODS`. A model with impact stops runs the
            event route (``"events"``, also under ``"rk4"``) or ``"moreau_jean"`` (exact
            time stepping at the velocity level: joint friction with CoulombODE laws as
            set-valued Coulomb, stops with their restitution; ``planar._mj_step``); a model
            with frictional contacts also runs ``"moreau_jean"`` (``restitution=`` sets
            the contacts' Newton's e, default e(ζ) of the first contact), with any joint
            friction and impact stops in the same impulse problem per step. On the ODE
            methods a model with frictional contacts may hold contact-law stops; joint
            friction or impact stops there are refused by name (use ``"moreau_jean"``).
        dt_out : float, optional
            Output interval [s]. (``dt``, ``method``, ``dt_out`` given positionally after
            `t_end` still work, with a DeprecationWarning, as in :func:`stickslip.simulate`.)
        t0, initial, output, guard, steps, progress : optional
            The core's options (:func:`stickslip.simulate`: start time, a state or a Results
            to continue, ``ss.Output``, ``ss.Guard``, ``ss.Steps``, a progress bar),
            forwarded unchanged; ``Steps(projection=...)`` is refused (pass `projection`
            here: it also sets the Baumgarte gains).
        baumgarte : tuple of float, optional
            (α, β) [1/s]: Φ̈ + 2αΦ̇ + β²Φ = 0. Default (0, 0) with projection
            (inside the Runge–Kutta stages the terms only add error: measured 14× larger
            energy drift on the slider–crank at α = β = 10), (10, 10) without.
        projection : bool, optional
            After every fixed step, project q and q̇ back onto the constraint
            manifold. Default: on for the fixed-step methods, off for the adaptive ones.
        max_drift : float, optional
            Largest constraint residual max|Φ| [m, rad] accepted; beyond it the run
            went through a lock-up and a SimulationError names the time and constraints
            (not checked with frictional contacts, whose runs project the joints).
        contact_formulation : str, optional
            For models with frictional contacts (PointLineContact,
            ClearanceSlider): ``"kikuuwe"`` (default; SPEC §6's exact limit law),
            ``"anitescu"`` or ``"nakaoka"``; adds channels ``<contact>.gap/.fn/.ft``, and a
            λ-problem without a solution, or with several, raises ``ss.PainleveError``.
            ``painleve_check=`` (contacts only) sets how uniqueness is proven at each
            evaluation: ``"auto"`` (default: a monotonicity bound, else enumeration for at
            most 16 mode combinations — two planar contacts), ``"full"`` (enumeration
            whenever the bound fails: slow for four-corner sliders) or ``"none"``; a
            λ-problem with no solution is always detected.
        **options
            Passed to :func:`stickslip.simulate` (``rtol``, ``atol``, ``stream_to``,
            ``theta``, …); with frictional contacts also ``painleve_check=`` and
            ``restitution=`` (above).

        Returns
        -------
        Results
            Every body's pose, rates and accelerations, joint reactions,
            driver efforts, force-element values, ``energy`` [J], the drift
            ``constraint.position`` and ``constraint.velocity``, and ``meta`` entries
            ``constraint_drift``, ``velocity_drift``, ``energy_drift``. Stops without a contact
            law add ``<stop>.gap`` channels and ``meta["impacts"]``.

        Raises
        ------
        ParameterError
            Naming ``planar.Model.simulate.<argument>`` for a bad `t_end`, `dt` or
            `dt_out` (not finite, not positive, `t_end` not after `t0`, `dt_out` not a whole
            multiple of `dt` for a fixed-step method) before anything is built — the check
            of :func:`stickslip.integrate.check_time_arguments`, with or without stops and
            frictional contacts.
        """
        from ._simulate import positionals, simulate_model

        dt, method, dt_out = positionals(args, dt, method, dt_out)
        core = {"t0": t0, "initial": initial, "output": output, "guard": guard,
                "steps": steps, "progress": progress}
        options = {**{k: v for k, v in core.items() if v is not None}, **options}
        return simulate_model(self, t_end, dt, method, dt_out, baumgarte=baumgarte,
                              projection=projection, max_drift=max_drift,
                              contact_formulation=contact_formulation, options=options)

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
