"""`SpatialModel`: the builder of 3-D models — bodies with polyhedral or sphere shapes, the
ground, contact pairs, joints, drivers, loads and spring–dampers — and `simulate`, the one
entry that routes a model to its engine (SPEC §7; Wakisaka & Sugihara, and seed 001's point
contacts):

* free polyhedral bodies and the ground, no elements: the volume contact's host loop
  (:mod:`._volume_host`, the wrench of each step in :mod:`._volume_wrench`, numba kernels);
* a model with joints and ``contact="volume"``: the link system's volume contact, one jitted
  run (:mod:`._volume_links`);
* anything else (joints, drivers, loads, contact pairs, spheres, ``contact="point"``): the
  link system frozen by :meth:`SpatialModel.link_system` and run by ``ss.simulate``.

The routing of `simulate` is in :mod:`._model_routes`; starting overlaps are refused by
:mod:`._model_overlaps` (`ModelError` naming the bodies and the volume); the argument checks
are in :mod:`._model_rules`. With a `restitution`, eq. 3's target is split into a rebound
speed (e·v_in between bodies, its energy-consistent counterpart on the ground) and a
position-only part k h (see `SpatialModel` and docs/spatial.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .._validation import keyword_alias, warn_renamed
from ..errors import ModelError, ParameterError
from ..results import Results
from . import _volume_wrench
from ._dynamics import quat_to_matrix  # noqa: F401 (tests and examples import it from here)
from ._friction import check_pyramid_sides
from ._model_options import default_step, route_name, route_options
from ._model_overlaps import reject_overlaps
from ._model_routes import route_simulate
from ._model_rules import check_mu, check_restitution, check_scalar, check_vector
from ._shapes import Polyhedron, Sphere
from ._volume import ContactGeometry
from ._volume_wrench import ContactRecord

if TYPE_CHECKING:
    from ..integrate import Guard, Output, Steps

__all__ = ["BodyState", "ContactRecord", "Model", "SpatialModel"]


class BodyState(NamedTuple):
    """A body's state (world frame): position [m], orientation (unit quaternion w, x, y, z),
    velocity [m/s], angular velocity [rad/s]."""

    position: np.ndarray
    orientation: np.ndarray
    velocity: np.ndarray
    angular_velocity: np.ndarray


@dataclass
class _Body:
    name: str
    mass: float
    inertia: np.ndarray
    shape: Polyhedron | Sphere | None
    state: np.ndarray          # (13,): p, q, v, w


class SpatialModel:
    """Rigid convex bodies, a ground plane and gravity, with volume-based contact
    (SPEC §7; Wakisaka & Sugihara). ``ss.spatial.Model`` is the same class (the older name;
    ``SpatialModel`` keeps it apart from the planar ``Model``).

    Parameters
    ----------
    gravity
        gravitational acceleration (3,) [m/s^2].
    k : float, optional
        penetration compensation gain k_i [1/s] (eq. 3); paper: 1000.
    lam : float, optional
        relaxation coefficient λ [-] of eq. 10 (paper: 0.001). Here it is made
        dimensionless and acts on the normal force only: the QP's regulariser is
        λ·s_n·n nᵀ with s_n = nᵀ(AᵀQA)_ff n (see docs/spatial.md for why: the paper gives no
        units, λ = 0.001 in SI units lets a kilogram box sink, and regularising the friction
        components or the tilting torques makes a loaded box creep and rock). The resting
        penetration is about λ g Δt / k.
    P : int, optional
        sides of the pyramid inscribed in the friction cone (>= 3); paper: 8.
    eps_v : float, optional
        threshold ε_v of the normalisation in eq. 2 and 32; paper: 1e-12.
    mu_s, mu_k : float, optional
        static and kinetic friction coefficients between bodies, mu_s >= mu_k >= 0
        (the ground's come from `add_ground`); `mu_d` is the old spelling of mu_k
        (deprecated: it warns, as does the attribute ``model.mu_d``).
    kinetic_iterations : int, optional
        at most this many consistency passes after a kinetic correction
        (0 = the paper's single pass; they stop when the wrench changes by < 1e-10): the
        slipping contacts' friction is fixed and eq. 16 re-solved for their normal parts (f_n, τ_1, τ_2), then eq. 32–34 applied again. Without it the normal
        pressure computed for a sticking contact stays in place after the friction drops,
        and a pushed box rocks.
    patch : str, optional
        the contact polygon S: "projection" (default; the contact volume projected onto
        the contact plane) or "section" (the plane's section of the volume).
    restitution : float, optional
        None (default: the paper's eq. 3, v⁺ = k h, whose rebound depends on how
        deep the impact step happened to penetrate: anywhere from 0 to ~100 % of the impact
        speed when k = 1/Δt) or a coefficient of restitution e in [0, 1] between bodies (the
        ground's comes from `add_ground`). With e, eq. 3's target becomes
        v⁺_n = e·max(0, −v⁻_n) between bodies (v⁻_n: the relative normal velocity at p_g at
        the step's start), on the ground its energy-consistent counterpart
        (`_volume_wrench.rebound_speed`), and the penetration k h is removed by a
        position-only correction (the same QP with the free motion removed, its velocity not
        kept), so an impact keeps e² of its energy and, at speed, rebounds at e times its
        speed (to λ: about (1 + e)·λ of it). Tested for e = 0…1 at 1–50 m/s.

    Examples
    --------
    >>> import stickslip as ss
    >>> model = ss.spatial.Model(gravity=(0, 0, -9.81))
    >>> _ = model.add_body("box", mass=1.0, inertia=None,
    ...                    shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    >>> _ = model.add_ground(mu_s=0.5, mu_k=0.3)
    >>> res = model.simulate(0.05, dt=1e-3)
    >>> bool(abs(res["box.x"][-1]) < 1e-12), round(float(res["ground-box.fn"][-1]), 6)
    (True, 9.81)
    """

    def __init__(self, gravity=(0.0, 0.0, -9.81), *, k: float = 1000.0, lam: float = 1e-3,
                 P: int = 8, eps_v: float = 1e-12, mu_s: float = 0.5,
                 mu_k: float | None = None, patch: str = "projection",
                 kinetic_iterations: int = 10, restitution: float | None = None,
                 mu_d: float | None = None):
        self.gravity = check_vector("Model", "gravity", gravity, 3)
        self.k = check_scalar("Model", "k", k, positive=True)
        self.lam = check_scalar("Model", "lam", lam, positive=True)
        self.P = check_pyramid_sides(P)
        self.eps_v = check_scalar("Model", "eps_v", eps_v, positive=True)
        mu_k = keyword_alias("Model", "mu_k", mu_k, "mu_d", mu_d, deprecated=True)
        self.mu_s, self.mu_k = check_mu("Model", mu_s, 0.3 if mu_k is None else mu_k)
        if patch not in ("projection", "section"):
            raise ParameterError(f"`Model.patch` must be 'projection' or 'section'; got "
                                 f"{patch!r}.")
        self.patch = patch
        if isinstance(kinetic_iterations, (bool, str)) or not isinstance(
                kinetic_iterations, (int, np.integer)) or kinetic_iterations < 0:
            raise ParameterError(f"`Model.kinetic_iterations` must be an integer >= 0; got "
                                 f"{kinetic_iterations!r}.")
        self.kinetic_iterations = int(kinetic_iterations)
        self.restitution = check_restitution("Model", restitution)
        self.bodies: list[_Body] = []
        self.ground: dict | None = None
        self.elements: list = []

    def _repr_html_(self) -> str:
        """Jupyter's view: the element table (:func:`stickslip._html.spatial_model_html`)."""
        from .._html import spatial_model_html

        return spatial_model_html(self)

    @property
    def mu_d(self) -> float:
        """Deprecated spelling of :attr:`mu_k` (warns)."""
        warn_renamed("`SpatialModel.mu_d`", "`SpatialModel.mu_k`")
        return self.mu_k

    # --- building ------------------------------------------------------------------------
    def add_body(self, name: str, *, mass: float, inertia=None, shape: Polyhedron | Sphere | None,
                 position=(0.0, 0.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0),
                 velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0)) -> SpatialModel:
        """Add a rigid body whose body-frame origin is its centre of mass.

        mass [kg] > 0; inertia [kg m^2]: a symmetric positive-definite 3×3 tensor (or its
        3 principal values) about the centre of mass in the body frame, or None for a uniform
        density; shape: a convex `Polyhedron` (`Box`, `Prism`, `ConvexHull`) in the body
        frame — or a `Sphere`, or None for a link without contact geometry (both only on the
        link-system route, see `simulate`); position [m]; orientation: quaternion
        (w, x, y, z), normalised here; velocity [m/s] and angular velocity [rad/s] in the
        world frame. On the link-system route the initial velocities are made consistent
        with the joints (a mass-weighted projection) when the run starts.
        """
        owner = f"body {name!r}"
        if not isinstance(name, str) or not name or name == "ground":
            raise ModelError(f"body name must be a non-empty string other than 'ground'; got "
                             f"{name!r}.")
        if any(b.name == name for b in self.bodies):
            raise ModelError(f"a body named {name!r} already exists. Pick another name.")
        if shape is not None and not isinstance(shape, (Polyhedron, Sphere)):
            raise ParameterError(f"`{owner}.shape` must be a stickslip.spatial polyhedron (Box, "
                                 f"Prism, ConvexHull), a Sphere or None; got "
                                 f"{type(shape).__name__}.")
        mass = check_scalar(owner, "mass", mass, positive=True)
        if inertia is None and shape is None:
            raise ParameterError(f"`{owner}.inertia` is needed for a body without a shape: "
                                 "pass its 3×3 tensor or 3 principal moments [kg m^2].")
        if inertia is None and isinstance(shape, Sphere):
            inertia = shape.inertia(mass)
        if inertia is None:
            assert isinstance(shape, Polyhedron), "no shape and Sphere are handled above"
            if np.linalg.norm(shape.centroid) > 1e-9 * shape.radius:
                raise ParameterError(f"`{owner}.inertia` is None but the shape's centroid "
                                     f"{shape.centroid} is not the body origin; centre the "
                                     "shape or pass an inertia tensor.")
            inertia = shape.inertia(mass)
        inertia = np.asarray(inertia, dtype=float)
        if inertia.shape == (3,):
            inertia = np.diag(inertia)
        if inertia.shape != (3, 3) or not np.all(np.isfinite(inertia)):
            raise ParameterError(f"`{owner}.inertia` must be a finite 3×3 tensor or 3 principal "
                                 f"moments; got shape {inertia.shape}.")
        if not np.allclose(inertia, inertia.T, rtol=1e-9, atol=1e-12 * np.abs(inertia).max()):
            raise ParameterError(f"`{owner}.inertia` must be symmetric; got\n{inertia}.")
        eig = np.linalg.eigvalsh(inertia)
        if eig.min() <= 0:
            raise ParameterError(f"`{owner}.inertia` must be positive definite; its eigenvalues "
                                 f"are {eig}. Pass positive principal moments [kg m^2].")
        if eig[2] > (eig[0] + eig[1]) * (1.0 + 1e-9):
            raise ParameterError(
                f"`{owner}.inertia` is physically impossible: the principal moments "
                f"{eig.tolist()} break the triangle inequality I3 <= I1 + I2 "
                f"({eig[2]:.6g} > {eig[0] + eig[1]:.6g}), which every mass distribution obeys. "
                "Check the moments (inertia=None computes them for a uniform density).")
        q = check_vector(owner, "orientation", orientation, 4)
        if np.linalg.norm(q) < 1e-12:
            raise ParameterError(f"`{owner}.orientation` must be a non-zero quaternion (w, x, "
                                 "y, z); got zeros.")
        state = np.concatenate([check_vector(owner, "position", position, 3), q / np.linalg.norm(q),
                                check_vector(owner, "velocity", velocity, 3),
                                check_vector(owner, "angular_velocity", angular_velocity, 3)])
        self.bodies.append(_Body(name, mass, inertia, shape, state))
        return self

    def add(self, element):
        """Add a joint (`RevoluteJoint`, `PrismaticJoint`, `SphericalJoint`, `FixedJoint`,
        `FreeJoint`), a `JointDriver`, a load (`PointForce`, `BodyTorque`), a
        `SpringDamper` or a `ContactPair`; returns the element. A model with elements runs
        on the link-system route (see `simulate`). Names are checked when the model freezes
        (`link_system`), all problems at once."""
        from ._elements import (
            AbstractJoint,
            BodyTorque,
            ContactPair,
            JointDriver,
            PointForce,
            SpringDamper,
        )

        kinds = (AbstractJoint, JointDriver, PointForce, BodyTorque, SpringDamper, ContactPair)
        if not isinstance(element, kinds):
            raise ParameterError(f"`SpatialModel.add` takes a spatial element (a joint, "
                                 f"JointDriver, PointForce, BodyTorque, SpringDamper, "
                                 f"ContactPair); got {type(element).__name__}.")
        self.elements.append(element)
        return element

    def link_system(self, *, delta: float = 1e-3, zeta: float = 1.0,
                    baumgarte=(10.0, 10.0), formulation: str = "kikuuwe"):
        """The model frozen into a JAX `LinkSystem` (an ``ss.simulate``-able system: one
        jitted ``lax.scan`` per run, ``vmap`` over its arrays, ``grad`` through
        ``ss.integrate.trajectory``). Joints, drivers, loads, spring–dampers, joint friction
        and point contacts (every shaped body against the ground when there is one, plus
        each `ContactPair`), solved as one λ-problem (SPEC §6) with the relaxation `delta`
        [s], `zeta` [-]; `baumgarte` (α, β) [1/s] stabilise the joints. See
        :mod:`stickslip.spatial._link_system`."""
        from ._link_build import build_link_system

        return build_link_system(self, delta=delta, zeta=zeta, baumgarte=baumgarte,
                                 formulation=formulation)

    def to_system(self):
        """The `link_system` of a model on the link-system route, else None (the volume
        route runs host-side): what ``ss.sweep`` stacks to run many models in one vmap."""
        return self.link_system() if self.uses_link_route() else None

    def uses_link_route(self) -> bool:
        """True when the model needs the link-system route: it has elements, or a body whose
        shape the volume method cannot take (a Sphere, or none)."""
        return bool(self.elements) or any(not isinstance(b.shape, Polyhedron)
                                          for b in self.bodies)

    def add_ground(self, *, mu_s: float, mu_k: float | None = None, height: float = 0.0,
                   restitution: float | None = None, mu_d: float | None = None
                   ) -> SpatialModel:
        """Add the ground: the half-space z <= `height` [m], with static and kinetic friction
        coefficients `mu_s` >= `mu_k` >= 0 against every body, and a coefficient of
        restitution (None: the model's, see `SpatialModel`). `mu_d` is the old spelling of
        `mu_k` (deprecated: it warns).

        ``model.ground`` holds them as ``{"mu_s", "mu_d", "height", "restitution"}``: the
        kinetic coefficient keeps the key ``"mu_d"`` (read by the volume route)."""
        mu_k = keyword_alias("ground", "mu_k", mu_k, "mu_d", mu_d, deprecated=True)
        if mu_k is None:
            raise ParameterError("`ground.mu_k` is required; got none. Pass the kinetic "
                                 "friction coefficient, e.g. add_ground(mu_s=0.5, mu_k=0.3).")
        mu_s, mu_k = check_mu("ground", mu_s, mu_k)
        self.ground = {"mu_s": mu_s, "mu_d": mu_k,
                       "height": check_scalar("ground", "height", height),
                       "restitution": check_restitution("ground", restitution)}
        return self

    def _reject_overlaps(self, X: np.ndarray, *, where: str = "simulate") -> None:
        """Raise `ModelError` when bodies start interpenetrating (each other or the ground):
        :func:`._model_overlaps.reject_overlaps`, checked when a run starts."""
        reject_overlaps(self, X, where=where)

    # --- state helpers -------------------------------------------------------------------
    def initial_state(self) -> np.ndarray:
        """The (n_bodies, 13) state: position, quaternion (w, x, y, z), velocity, angular
        velocity per body."""
        return np.array([b.state for b in self.bodies]).reshape(-1, 13)

    def body_states(self, X: np.ndarray) -> dict[str, BodyState]:
        """The state array as ``{name: BodyState}``."""
        return {b.name: BodyState(X[i, :3], X[i, 3:7], X[i, 7:10], X[i, 10:13])
                for i, b in enumerate(self.bodies)}

    def _pairs(self) -> list[tuple[int, int, float, float]]:
        """(A, B, μ_s, μ_k) per potential contact; A = -1 is the ground."""
        return [p[:4] for p in self._pairs_e()]

    def _pairs_e(self) -> list[tuple[int, int, float, float, float | None]]:
        """(A, B, μ_s, μ_k, e) per potential contact; e = None: the paper's eq. 3."""
        key = (len(self.bodies), self.ground and tuple(self.ground.values()), self.mu_s,
               self.mu_k, self.restitution)
        cached = getattr(self, "_pairs_cache", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        pairs = []
        if self.ground is not None:
            e = self.ground.get("restitution")
            e = self.restitution if e is None else e
            pairs += [(-1, j, self.ground["mu_s"], self.ground["mu_d"], e)
                      for j in range(len(self.bodies))]
        n = len(self.bodies)
        pairs += [(i, j, self.mu_s, self.mu_k, self.restitution)
                  for i in range(n) for j in range(i + 1, n)]
        self._pairs_cache = (key, pairs)
        return pairs

    def pair_names(self) -> list[str]:
        """Channel prefix per potential contact: ``"<A>-<B>"`` (``"ground-box"``)."""
        name = lambda i: "ground" if i < 0 else self.bodies[i].name
        return [f"{name(a)}-{name(b)}" for a, b, _, _ in self._pairs()]

    # --- contact detection and geometry ----------------------------------------------------
    def contact_geometries(self, X: np.ndarray) -> list[tuple[int, ContactGeometry]]:
        """Active contacts of state `X`: (pair index, geometry) (SPEC §7 steps 1–3)."""
        return _volume_wrench.contact_geometries(self, X)

    def _mass_arrays(self):
        key = len(self.bodies)
        if getattr(self, "_mass_cache", (None,))[0] != key:
            inertia = np.array([b.inertia for b in self.bodies])
            self._mass_cache = (key, np.array([b.mass for b in self.bodies]), inertia,
                                np.linalg.inv(inertia))
        return self._mass_cache[1:]

    def contact_wrenches(self, X: np.ndarray, F_app: np.ndarray, T_app: np.ndarray,
                         dt: float, friction: str = "pyramid",
                         lp_solver: str = "nnls") -> tuple[np.ndarray, np.ndarray,
                                                           list[ContactRecord]]:
        """Contact forces and torques on every body's centre of mass (world frame) for one
        step of size `dt` from state `X` (SPEC §7 steps 1–7), and the contact records."""
        return _volume_wrench.contact_step(self, X, F_app, T_app, dt, friction,
                                           lp_solver)[:3]

    def simulate(self, t_end: float, *, dt: float | None = None, method: str | None = None,
                 dt_out: float | None = None, t0: float | None = None, initial=None,
                 output: Output | None = None, guard: Guard | None = None,
                 steps: Steps | None = None, progress: bool | None = None,
                 forces: Mapping[str, Callable] | Callable | None = None,
                 friction: str = "pyramid", lp_solver: str = "nnls",
                 contact_update: str = "step", contact: str | None = None,
                 **options) -> Results:
        """Simulate from `t0` to `t_end` [s] with fixed step `dt` [s].

        The shared keywords (``dt, method, dt_out, t0, initial, output, guard, steps,
        progress``) are ``ss.simulate``'s, keyword-only, with its defaults except `method`
        (None: the route's default, below). Three routes. **Volume contact** (SPEC §7 step 6;
        free polyhedral bodies, the ground, no elements), documented below, on one of two
        engines (`options` ``engine=``; `stickslip.spatial._model_routes` says why numba is
        still the default): the numba host loop (``"numba"``, the default) or one jitted JAX
        run (``engine="jax"``, `stickslip.spatial._volume_jax_route`; ``meta["engine"] ==
        "jax"``) for what it covers — free bodies on the ground or in free flight, body–body
        contact of any number of bodies, both patches, restitution; not
        ``lp_solver="highs"`` (refused by name); `options` ``slots=`` sizes its joint
        contact QP (default two contacts per body; a step with more active contacts stops
        by name and says how many). Same arguments,
        checks, channels and errors on both; the JAX run traces a `forces` callable when it
        can and calls it back on the host at every Runge–Kutta stage when it cannot.
        ``method`` default ``"rk_gill"``. **Volume contact with joints** (``contact="volume"``
        on a model with elements; no contact pairs or restitution): the link system's
        constrained dynamics with the volume contact of its polyhedral bodies on the ground
        (`stickslip.spatial._volume_links`, one jitted run; ``method`` default
        ``"rk_gill"``; `options` ``baumgarte``, ``contact_bodies``, ``max_polygon``;
        channels: the link system's states, ``<joint>.angle`` and ``ground-<body>.active …
        .stick``). **Link system** (any model with joints, drivers, loads, spring–dampers or
        contact pairs, a Sphere or shapeless body, or ``contact="point"``): the model frozen
        by `link_system` and run by ``ss.simulate`` (``method`` default ``"rk4"``, any method
        of ``ss.simulate``; `forces`, `friction`, `lp_solver` and `contact_update` belong to
        the volume route and are rejected here; `options` go to `link_system` (``delta``,
        ``zeta``, ``baumgarte``, ``formulation``) and to ``ss.simulate``, and `output`,
        `guard`, `steps`, `progress` to ``ss.simulate`` unchanged). Its channels: the bodies'
        states, ``<joint>.angle`` / ``.position``, ``.rate``, reactions ``.fx`` … ``.tz`` (on
        body j, about the joint point), ``.friction``, ``.normal``, ``.slip``, contacts
        ``<pair>.k.gap/.fn/.ft``, ``energy`` and the constraint residuals.

        Parameters
        ----------
        t_end : float
            end time [s]; the last sample is exactly `t_end` (as in ``ss.simulate``).
            When `dt` does not divide ``t_end - t0`` the last step is shorter (the rule of
            ``stickslip.integrate.step_grid``).
        dt : float
            step [s]. Omitting it still runs with the old default 1e-3 s, with a
            DeprecationWarning (a later release requires it); an adaptive method on the
            link route keeps None (the solver's first step).
        method : str, optional
            None: the route's default (``"rk_gill"``, the paper's, on the volume routes;
            ``"rk4"`` on the link route); ``"rk_gill"``, ``"rk4"`` or ``"euler"`` on every
            route, and any method of ``ss.simulate`` on the link route.
        dt_out : float, optional
            sampling interval of the results [s], a multiple of dt (default dt). When
            ``t_end - t0`` is not a multiple of it, the last interval is shorter and the last
            sample is still `t_end`.
        t0 : float, optional
            start time [s] (default 0, or the end of `initial` when that is a Results).
        initial
            where to start: None (the bodies' states from `add_body`), a previous
            `Results` of this model (continues from its ``final_state`` at its last time,
            which becomes the default `t0`), or an (n_bodies, 13) state array.
        output, guard, steps, progress
            ``ss.simulate``'s option objects (``ss.Output``, ``ss.Guard``, ``ss.Steps``) and
            bar, or their flat keywords in `options`: honoured on the link route; on the
            volume routes an option the route cannot honour (any guard threshold, an
            ``Output`` or ``Steps`` field, ``progress=True``) is a ParameterError naming
            the option and the route (:mod:`._model_options`).
        forces
            applied wrenches at the centres of mass, world frame:
            ``{body: fn(t, states) -> (force (3,) [N], torque (3,) [N m])}`` or one
            ``fn(t, states) -> {body: (force, torque)}``; `states` maps names to `BodyState`.
            `t` is the simulation time (it starts at `t0`, not 0, in a continued run).
        friction : str, optional
            "pyramid" (proposed: LP of eq. 28–31, correction eq. 32–34) or
            "previous" (friction force and normal torque limited separately).
        lp_solver : str, optional
            "nnls" (compiled NNLS feasibility, default) or "highs" (SciPy/HiGHS LP).
        contact_update : str, optional
            "step" (default; contact wrench once per step) or "stage" (at every
            Runge–Kutta stage; kept for study, see docs/spatial.md).

        Returns
        -------
        Results
            Results with ``<body>.x/.y/.z/.qw/.qx/.qy/.qz/.vx/.vy/.vz/.wx/.wy/.wz`` and per
            contact ``<A>-<B>.active/.volume/.nx/.ny/.nz/.px/.py/.pz/.fx/.fy/.fz/.tx/.ty/.tz/
            .fn/.stick`` (force and torque on B at the volume's centroid p_g, world frame;
            stick = 1 when static friction held); ``final_state`` is the state at ``t[-1]``.

        Raises
        ------
        ParameterError
            a bad argument (the message names it and the fix); a bad `t_end`,
            `dt`, `dt_out` or `t0` on every route before anything is built (the core's
            ``stickslip.integrate.check_time_arguments``, naming
            ``SpatialModel.simulate.<argument>``); an option the route cannot honour.
        ModelError
            no bodies, or bodies that start overlapping (names, volume, fix).
        SimulationError
            a step would carry a body past a contact (tunnelling: names the
            body, the time and a step that works), or the run diverges (non-finite values or
            energy growing beyond everything the run was given: names the time, the body and
            the last sane state).
        """
        route = route_name(self, contact, options.get("engine"))
        dt = default_step(dt, route, method)
        options = route_options(route, options, output=output, guard=guard, steps=steps,
                                progress=progress)
        return route_simulate(self, t_end, dt, method, forces, friction, dt_out, lp_solver,
                              initial, t0, contact_update, contact, options)


Model = SpatialModel
