"""3-D rigid bodies with volume-based contact and a pyramidal friction constraint
(SPEC §7; Wakisaka & Sugihara).

Time stepping (documented choice): the contact wrenches are computed once per step from the
state at the step's start — eq. 13–15 discretise the dynamics over the whole step Δt by
explicit Euler — and held constant through the stages of the chosen Runge–Kutta method
(``rk_gill`` by default, the paper's integrator; any tableau of
``stickslip.integrate.FIXED_STEP_METHODS``). Gravity, applied forces and the gyroscopic term
are re-evaluated at every stage; bodies in contact advance position and orientation with the
post-step velocity (what eq. 13–15 assume). Quaternions are renormalised after every step.
The per-step work runs in numba kernels (`_volume`, `_contact_qp`, `_qp`, `_friction`,
`_dynamics`); this module orchestrates them and calls the user's force callbacks.

A run samples on the grid of ``stickslip.integrate.step_grid`` (last sample exactly t_end),
continues from a previous Results (``initial=``, ``t0``), and stops with a stickslip error
rather than return a wrong answer: bodies starting inside each other or the ground
(`ModelError`), a step that would carry a body past a contact (tunnelling), and a run whose
energy grows beyond what it was given or turns non-finite (`SimulationError`). With a
`restitution`, eq. 3's target is split into a velocity part e·v_in and a position-only part
k h (see `SpatialModel` and docs/spatial.md).
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass
from typing import Callable, Mapping, NamedTuple

import numpy as np

from .._rules import check_friction_pair
from .._validation import (
    check_finite,
    check_nonnegative,
    check_positive,
    keyword_alias,
    warn_renamed,
)
from ..errors import ModelError, PainleveError, ParameterError, SimulationError
from ..integrate import FIXED_STEP_METHODS, check_time_arguments, step_grid
from ..results import Results
from ._contact_qp import contact_qp
from ._dynamics import finish_step, rigid_body_rates, stage_state
from ._friction import (
    check_pyramid_sides,
    kinetic_correction_host,
    previous_kinetic_host,
    previous_static_host,
    static_lp_feasible,
)
from ._qp import cone_qp
from ._shapes import Polyhedron, Sphere, cross3
from ._volume import (
    ContactGeometry,
    contact_geometry,
    ground_contact_geometry,
    intersect,
    pair_contact_geometry,
)

__all__ = ["SpatialModel", "Model", "BodyState", "ContactRecord"]

# how deep one step may carry a body into a contact it was not in, as a fraction of its
# height (ground) or of the thinner body's smallest width (two bodies); deeper, the contact
# volume no longer describes the contact (the ground's depth h is measured to the body's top
# once it is under; two bodies' face normals stop summing to the contact normal) and a fast
# body tunnels (a 0.1 m box at 100 m/s with Δt = 1 ms passed the ground)
MAX_STEP_PENETRATION_GROUND = 0.9
MAX_STEP_PENETRATION_BODIES = 0.5
# with a restitution, contacts approaching slower than the speed gravity gives in this many
# steps (0.1 m/s at Δt = 1 ms) do not bounce
RESTING_SPEED_STEPS = 10.0


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
    shape: Polyhedron
    state: np.ndarray          # (13,): p, q, v, w


@dataclass
class ContactRecord:
    """One active contact at one step: its geometry, the QP's wrench and the final wrench
    (on body B at p_g, world frame), and whether static friction held."""

    pair: int
    geometry: ContactGeometry
    wrench_qp: np.ndarray      # (6,) f, tau from eq. 16
    wrench: np.ndarray         # (6,) after the friction check / correction
    stick: bool


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4) ordered (w, x, y, z)."""
    q = np.asarray(q, dtype=float)
    rows = [_matrix_rows(*row) for row in q.reshape(-1, 4).tolist()]
    return np.array(rows).reshape(q.shape[:-1] + (3, 3))


def _matrix_rows(w: float, x: float, y: float, z: float) -> list:
    # plain floats: ~10x cheaper than NumPy for the few bodies of a model
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]


def _check_scalar(owner: str, name: str, value, *, positive: bool = False,
                  nonnegative: bool = False) -> float:
    """`value` as a float; a `ParameterError` naming ``owner.name`` for a string, a bool, an
    array, NaN/inf or a value of the wrong sign (the rules of `stickslip._validation`)."""
    if isinstance(value, (str, bytes, bool, np.bool_)) or np.ndim(value) != 0:
        raise ParameterError(f"`{owner}.{name}` must be a number; got {value!r}. Pass a "
                             "float.")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"`{owner}.{name}` must be a number; got {value!r}.") from None
    if positive:
        check_positive(owner, name, v)
    elif nonnegative:
        check_nonnegative(owner, name, v)
    else:
        check_finite(owner, name, v)
    return v


def _vec(owner: str, name: str, value, n: int) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"`{owner}.{name}` must be {n} finite numbers; got "
                             f"{value!r}.") from None
    if arr.shape != (n,) or not np.all(np.isfinite(arr)):
        raise ParameterError(f"`{owner}.{name}` must be {n} finite numbers; got {value!r}.")
    return arr


def _check_restitution(owner: str, value) -> float | None:
    if value is None:
        return None
    e = _check_scalar(owner, "restitution", value, nonnegative=True)
    if e > 1:
        raise ParameterError(f"`{owner}.restitution` must be in [0, 1]; got restitution={e!r}. "
                             "A rebound faster than the impact would create energy.")
    return e


class SpatialModel:
    """Rigid convex bodies, a ground plane and gravity, with volume-based contact
    (SPEC §7; Wakisaka & Sugihara). ``ss.spatial.Model`` is the same class (the older name;
    ``SpatialModel`` keeps it apart from the planar ``Model``).

    Parameters
    ----------
    gravity: gravitational acceleration (3,) [m/s^2].
    k: penetration compensation gain k_i [1/s] (eq. 3); paper: 1000.
    lam: relaxation coefficient λ [-] of eq. 10 (paper: 0.001). Here it is made
        dimensionless and acts on the normal force only: the QP's regulariser is
        λ·s_n·n nᵀ with s_n = nᵀ(AᵀQA)_ff n (see docs/spatial.md for why: the paper gives no
        units, λ = 0.001 in SI units lets a kilogram box sink, and regularising the friction
        components or the tilting torques makes a loaded box creep and rock). The resting
        penetration is about λ g Δt / k.
    P: sides of the pyramid inscribed in the friction cone (>= 3); paper: 8.
    eps_v: threshold ε_v of the normalisation in eq. 2 and 32; paper: 1e-12.
    mu_s, mu_k: static and kinetic friction coefficients between bodies, mu_s >= mu_k >= 0
        (the ground's come from `add_ground`); `mu_d` is the old spelling of mu_k
        (deprecated: it warns, as does the attribute ``model.mu_d``).
    kinetic_iterations: at most this many consistency passes after a kinetic correction
        (0 = the paper's single pass; they stop when the wrench changes by < 1e-10): the
        slipping contacts' friction is fixed and eq. 16 re-solved for their normal parts (f_n, τ_1, τ_2), then eq. 32–34 applied again. Without it the normal
        pressure computed for a sticking contact stays in place after the friction drops,
        and a pushed box rocks.
    patch: the contact polygon S: "projection" (default; the contact volume projected onto
        the contact plane) or "section" (the plane's section of the volume).
    restitution: None (default: the paper's eq. 3, v⁺ = k h, whose rebound depends on how
        deep the impact step happened to penetrate: anywhere from 0 to ~100 % of the impact
        speed when k = 1/Δt) or a coefficient of restitution e in [0, 1] between bodies (the
        ground's comes from `add_ground`). With e, eq. 3's target becomes
        v⁺_n = e·max(0, −v⁻_n) (v⁻_n: the relative normal velocity at p_g at the step's
        start) and the penetration k h is removed by a position-only correction (the same
        QP with the free motion removed, its velocity not kept), so an impact rebounds at
        e times its speed (to λ: about (1 + e)·λ of it). Tested for e = 0…1 at 1–20 m/s.

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
        self.gravity = _vec("Model", "gravity", gravity, 3)
        self.k = _check_scalar("Model", "k", k, positive=True)
        self.lam = _check_scalar("Model", "lam", lam, positive=True)
        self.P = check_pyramid_sides(P)
        self.eps_v = _check_scalar("Model", "eps_v", eps_v, positive=True)
        mu_k = keyword_alias("Model", "mu_k", mu_k, "mu_d", mu_d, deprecated=True)
        self.mu_s, self.mu_k = _check_mu("Model", mu_s, 0.3 if mu_k is None else mu_k)
        if patch not in ("projection", "section"):
            raise ParameterError(f"`Model.patch` must be 'projection' or 'section'; got "
                                 f"{patch!r}.")
        self.patch = patch
        if isinstance(kinetic_iterations, (bool, str)) or not isinstance(
                kinetic_iterations, (int, np.integer)) or kinetic_iterations < 0:
            raise ParameterError(f"`Model.kinetic_iterations` must be an integer >= 0; got "
                                 f"{kinetic_iterations!r}.")
        self.kinetic_iterations = int(kinetic_iterations)
        self.restitution = _check_restitution("Model", restitution)
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
                 velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0)) -> "SpatialModel":
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
        mass = _check_scalar(owner, "mass", mass, positive=True)
        if inertia is None and shape is None:
            raise ParameterError(f"`{owner}.inertia` is needed for a body without a shape: "
                                 "pass its 3×3 tensor or 3 principal moments [kg m^2].")
        if inertia is None and isinstance(shape, Sphere):
            inertia = shape.inertia(mass)
        if inertia is None:
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
        q = _vec(owner, "orientation", orientation, 4)
        if np.linalg.norm(q) < 1e-12:
            raise ParameterError(f"`{owner}.orientation` must be a non-zero quaternion (w, x, "
                                 "y, z); got zeros.")
        state = np.concatenate([_vec(owner, "position", position, 3), q / np.linalg.norm(q),
                                _vec(owner, "velocity", velocity, 3),
                                _vec(owner, "angular_velocity", angular_velocity, 3)])
        self.bodies.append(_Body(name, mass, inertia, shape, state))
        return self

    def add(self, element):
        """Add a joint (`RevoluteJoint`, `PrismaticJoint`, `SphericalJoint`, `FixedJoint`,
        `FreeJoint`), a `JointDriver`, a load (`PointForce`, `BodyTorque`), a
        `SpringDamper` or a `ContactPair`; returns the element. A model with elements runs
        on the link-system route (see `simulate`). Names are checked when the model freezes
        (`link_system`), all problems at once."""
        from ._elements import (AbstractJoint, BodyTorque, ContactPair, JointDriver,
                                PointForce, SpringDamper)

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
                   ) -> "SpatialModel":
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
        mu_s, mu_k = _check_mu("ground", mu_s, mu_k)
        self.ground = {"mu_s": mu_s, "mu_d": mu_k,
                       "height": _check_scalar("ground", "height", height),
                       "restitution": _check_restitution("ground", restitution)}
        return self

    def _reject_overlaps(self, X: np.ndarray, *, where: str = "simulate") -> None:
        """Raise `ModelError` when bodies start interpenetrating (each other or the ground) by
        more than 1e-6 of the smaller body's volume. Checked when a run starts (not at
        `add_body`: the model may be built in any order, and `contact_geometries` of
        overlapping placements is a legitimate query). Rejected, not warned: the run's
        result would be wrong from its first step. Eq. 3 would push them apart at k·depth
        (tens of m/s for centimetres at k = 1000), and coincident bodies have no contact
        normal (eq. 2 sums to zero) and pass through each other. A resting contact
        (penetration λ g Δt / k ≈ 1e-8 m) is far below the threshold."""
        if len(self.bodies) == 0:
            return
        R = quat_to_matrix(X[:, 3:7])
        verts = [X[i, :3] + b.shape.vertices @ R[i].T for i, b in enumerate(self.bodies)]
        for j, body in enumerate(self.bodies):
            tol = 1e-6 * body.shape.volume
            if self.ground is not None:
                h = self.ground["height"]
                depth = h - verts[j][:, 2].min()
                if depth > 0:
                    vol = intersect([verts[j][f] for f in body.shape.faces],
                                    (np.array([[0.0, 0.0, 1.0]]), np.array([h])),
                                    2.0 * body.shape.radius)
                    v = 0.0 if vol is None else vol.volume
                    if v > tol:
                        raise ModelError(
                            f"body {body.name!r} starts {depth:.4g} m inside the ground "
                            f"(overlap volume {v:.3g} m^3, {v / body.shape.volume:.2%} of the "
                            f"body; checked at `{where}`): eq. 3 would launch it at about "
                            f"k·depth = {self.k * depth:.3g} m/s. Raise its position z by "
                            f"{depth:.4g} m (to rest on the ground: its lowest point at "
                            f"z = {h}).")
            for i in range(j):
                other = self.bodies[i]
                gap = np.linalg.norm(X[i, :3] - X[j, :3])
                if gap >= body.shape.radius + other.shape.radius:
                    continue
                nw = other.shape.normals @ R[i].T
                vol = intersect([verts[j][f] for f in body.shape.faces],
                                (nw, other.shape.offsets + nw @ X[i, :3]),
                                2.0 * max(body.shape.radius, other.shape.radius))
                v = 0.0 if vol is None else vol.volume
                if v > 1e-6 * min(body.shape.volume, other.shape.volume):
                    u = X[j, :3] - X[i, :3]
                    u = u / gap if gap > 1e-12 else np.array([0.0, 0.0, 1.0])
                    proj = np.concatenate(vol.faces) @ u
                    raise ModelError(
                        f"bodies {other.name!r} and {body.name!r} start overlapping (overlap "
                        f"volume {v:.3g} m^3{', coincident centres' if gap <= 1e-12 else ''}; "
                        f"checked at `{where}`): eq. 3 would push them apart at tens of m/s "
                        "(or, coincident, see no contact at all). Move them apart: e.g. "
                        f"{body.name!r} by {np.ptp(proj):.4g} m along "
                        f"{np.round(u, 4).tolist()}.")

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
        name = lambda i: "ground" if i < 0 else self.bodies[i].name   # noqa: E731
        return [f"{name(a)}-{name(b)}" for a, b, _, _ in self._pairs()]

    # --- contact detection and geometry ----------------------------------------------------
    def contact_geometries(self, X: np.ndarray) -> list[tuple[int, ContactGeometry]]:
        """Active contacts of state `X`: (pair index, geometry) (SPEC §7 steps 1–3)."""
        R = quat_to_matrix(X[:, 3:7])
        verts = [X[i, :3] + b.shape.vertices @ R[i].T for i, b in enumerate(self.bodies)]

        def planes(i):
            nw = self.bodies[i].shape.normals @ R[i].T
            return nw, self.bodies[i].shape.offsets + nw @ X[i, :3]

        out = []
        for k, (a, bj, _, _) in enumerate(self._pairs()):
            body = self.bodies[bj]
            vb = verts[bj]
            scale = 2.0 * body.shape.radius
            if a < 0:
                h = self.ground["height"]
                if vb[:, 2].min() >= h:
                    continue
                if self.patch == "projection":
                    geo = ground_contact_geometry(body.shape, vb, h, scale)
                    if geo is not None:
                        out.append((k, geo))
                    continue
                vol = intersect([vb[f] for f in body.shape.faces],
                                (np.array([[0.0, 0.0, 1.0]]), np.array([h])), scale)
                if vol is not None:
                    vol.origin = 1 - vol.origin          # the ground is A, the body B
            else:
                bod_a = self.bodies[a]
                if np.linalg.norm(X[a, :3] - X[bj, :3]) >= bod_a.shape.radius + body.shape.radius:
                    continue
                scale = max(scale, 2.0 * bod_a.shape.radius)
                if self.patch == "projection":
                    geo = pair_contact_geometry(verts[a], bod_a.shape, planes(a), verts[bj],
                                                body.shape, planes(bj), scale, self.eps_v)
                    if geo is not None:
                        out.append((k, geo))
                    continue
                vol = intersect([verts[a][f] for f in bod_a.shape.faces], planes(bj), scale)
            if vol is None:
                continue
            geo = contact_geometry(vol, scale, self.eps_v, self.patch)
            if geo is not None:
                out.append((k, geo))
        return out

    # --- forces ------------------------------------------------------------------------------
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
        return self._contact_step(X, F_app, T_app, dt, friction, lp_solver)[:3]

    def _contact_step(self, X, F_app, T_app, dt, friction, lp_solver):
        """`contact_wrenches` plus the position-only pseudo-velocity (n, 6) that removes the
        penetration of contacts with a restitution (zeros otherwise)."""
        nb = len(self.bodies)
        Fc, Tc = np.zeros((nb, 3)), np.zeros((nb, 3))
        pseudo = np.zeros((nb, 6))
        geos = self.contact_geometries(X)
        if not geos:
            return Fc, Tc, [], pseudo
        pairs = self._pairs_e()
        m = len(geos)
        L_max = max(len(g.edge_offsets) for _, g in geos)
        edge_normals, edge_offsets = np.zeros((m, L_max, 3)), np.zeros((m, L_max))
        for i, (_, g) in enumerate(geos):
            edge_normals[i, :len(g.edge_offsets)] = g.edge_normals
            edge_offsets[i, :len(g.edge_offsets)] = g.edge_offsets
        mass, inertia, inv_i = self._mass_arrays()
        # each contact's Q, c per unit area of its polygon (the mean of eq. 4's error over S,
        # not its integral): with the integral, a contact of 1e-16 m^3 has almost no weight,
        # and the QP used it as a free actuator for its neighbours' targets (random hulls
        # gained up to 280 J in a second; see docs/spatial.md). One contact: same optimum.
        area = [g.Q[0, 0] for _, g in geos]
        es = [pairs[k][4] for k, _ in geos]
        # eq. 3's target per contact as k·nᵀc (per unit area): the paper's k h n, or, with a
        # restitution e, e·v_in n uniform over S (∫_S Jᵀn dA = Q[:, :3] n) with the
        # penetration left to the position-only solve below
        split = any(e is not None for e in es)
        if not split:
            ncs = np.array([self.k * g.nc / a for (_, g), a in zip(geos, area)])
        else:
            v_rest = RESTING_SPEED_STEPS * float(np.linalg.norm(self.gravity)) * dt
            ncs = np.array([self.k * g.nc / a if e is None
                            else _rebound(e, -_normal_velocity(X, pairs[k][0], pairs[k][1], g),
                                          v_rest) * (g.Q[:, :3] @ g.normal) / a
                            for (k, g), a, e in zip(geos, area, es)])
        Hq, grad, rows, A, bvec, Q, cn = contact_qp(
            X, F_app, T_app, mass, inertia, inv_i, self.gravity, float(dt), 1.0, self.lam,
            np.array([pairs[k][0] for k, _ in geos]), np.array([pairs[k][1] for k, _ in geos]),
            np.array([g.normal for _, g in geos]), np.array([g.centroid for _, g in geos]),
            np.array([g.Q / a for (_, g), a in zip(geos, area)]), ncs,
            np.array([len(g.edge_offsets) for _, g in geos]), edge_normals, edge_offsets)
        f = cone_qp(Hq, grad, rows)
        bases = [np.stack([g.normal, g.e1, g.e2]) for _, g in geos]
        ws = [np.concatenate([bases[i] @ f[6 * i:6 * i + 3], bases[i] @ f[6 * i + 3:6 * i + 6]])
              for i in range(m)]                             # (f_n, f_1, f_2, τ_n, τ_1, τ_2)
        dirs_cache: list = []

        def slip_directions(i):
            """Unit friction directions at S's vertices: opposite the slip the step would
            have with only the normal parts of the QP's wrenches (eq. 32's norm(v_l))."""
            if not dirs_cache:
                f_normal = f.copy()
                for j, (_, gj) in enumerate(geos):
                    fj, tj = f[6 * j:6 * j + 3], f[6 * j + 3:6 * j + 6]
                    f_normal[6 * j:6 * j + 3] = (fj @ gj.normal) * gj.normal
                    f_normal[6 * j + 3:6 * j + 6] = tj - (tj @ gj.normal) * gj.normal
                v_trial = A @ f_normal + bvec
                for j, (_, gj) in enumerate(geos):
                    vl = v_trial[6 * j:6 * j + 3] + cross3(v_trial[6 * j + 3:6 * j + 6],
                                                           gj.polygon - gj.centroid)
                    vl2 = np.column_stack([vl @ gj.e1, vl @ gj.e2])
                    speed = np.sqrt((vl2 ** 2).sum(axis=1))
                    dirs_cache.append(np.where(speed[:, None] > self.eps_v,
                                               -vl2 / np.maximum(speed, 1e-300)[:, None], 0.0))
            return dirs_cache[i]
        w_qp = [w.copy() for w in ws]

        def judge(ws, slipping=()):
            out_w, out_s = [], []
            for i, (k, g) in enumerate(geos):
                mu_s, mu_k = pairs[k][2], pairs[k][3]
                w = ws[i]
                if friction == "pyramid":
                    stick = (i not in slipping
                             and static_lp_feasible(w, g.r, mu_s, self.P, solver=lp_solver))
                    if not stick:
                        w = kinetic_correction_host(w, g.r, slip_directions(i), mu_k)  # eq. 32–34
                else:
                    stick = i not in slipping and previous_static_host(w, g.r, mu_s)
                    if not stick:
                        w = previous_kinetic_host(w, g.r, mu_k)
                out_w.append(w)
                out_s.append(stick)
            return out_w, out_s

        ws, sticks = judge(ws)
        Hn = None
        for _ in range(self.kinetic_iterations if not all(sticks) else 0):
            # consistency pass: with the slipping contacts' friction fixed, re-solve eq. 16
            # for their normal parts (f_n, τ_1, τ_2), then correct again
            f0 = np.zeros(6 * m)
            cols = []
            for i, (k, g) in enumerate(geos):
                if sticks[i]:
                    cols += [6 * i + j for j in range(6)]
                    continue
                n, e1, e2 = bases[i]
                f0[6 * i:6 * i + 3] = ws[i][1] * e1 + ws[i][2] * e2
                f0[6 * i + 3:6 * i + 6] = ws[i][3] * n
                cols.append((i, n, e1, e2))
            Z = np.zeros((6 * m, sum(1 if isinstance(c, int) else 3 for c in cols)))
            j = 0
            for c in cols:
                if isinstance(c, int):
                    Z[c, j] = 1.0
                    j += 1
                else:
                    i, n, e1, e2 = c
                    Z[6 * i:6 * i + 3, j] = n
                    Z[6 * i + 3:6 * i + 6, j + 1] = e1
                    Z[6 * i + 3:6 * i + 6, j + 2] = e2
                    j += 3
            if Hn is None:
                # slipping contacts: only the normal part of eq. 4's error (n·v_k − k h_k)
                Qs = Q.copy()
                for i, (k, g) in enumerate(geos):
                    if not sticks[i]:
                        Qs[6 * i:6 * i + 6, 6 * i:6 * i + 6] = g.Qn / area[i]
                AQs = A.T @ Qs
                Hn = AQs @ A
                Hn += Hq - (A.T @ Q) @ A                                 # the same λ terms
                gn = AQs @ bvec - A.T @ cn
            y = cone_qp(Z.T @ Hn @ Z, Z.T @ (Hn @ f0 + gn), rows @ Z)
            f = f0 + Z @ y
            ws = [np.concatenate([bases[i] @ f[6 * i:6 * i + 3], bases[i] @ f[6 * i + 3:6 * i + 6]])
                  for i in range(m)]
            previous = ws
            ws, sticks = judge(ws, {i for i in range(m) if not sticks[i]})
            change = max(np.abs(a - b).max() for a, b in zip(ws, previous))
            if change <= 1e-10 * max(np.abs(w).max() for w in ws):
                break
        records = []
        for i, (k, g) in enumerate(geos):
            a, b = pairs[k][0], pairs[k][1]
            basis = bases[i]
            fq = np.concatenate([basis.T @ w_qp[i][:3], basis.T @ w_qp[i][3:]])
            fw, tw = basis.T @ ws[i][:3], basis.T @ ws[i][3:]
            records.append(ContactRecord(k, g, fq, np.concatenate([fw, tw]), bool(sticks[i])))
            # force on B (+) and on A (−) at p_g, moved to the centres of mass (eq. 11)
            for body, sign in ((b, 1.0), (a, -1.0)):
                if body < 0:
                    continue
                Fc[body] += sign * fw
                Tc[body] += sign * (tw + cross3(g.centroid - X[body, :3], fw))
        if split:
            pseudo = self._position_correction(X, geos, area, es, pairs, Q, rows, A, dt)
        return Fc, Tc, records, pseudo

    def _position_correction(self, X, geos, area, es, pairs, Q, rows, A, dt):
        """Pseudo-velocities (n, 6) [m/s, rad/s] that remove the penetration of contacts with
        a restitution in one step: the QP (16) with the free motion removed (b = 0) and the
        target k h n of eq. 3 at those contacts (0 at the others), same constraints (25).
        Positions advance with them; velocities do not keep them (a split of eq. 3 into
        its velocity part, e·v_in, and its position part, k h)."""
        cpen = np.concatenate([np.zeros(6) if e is None else self.k * g.nc / a
                               for (_, g), a, e in zip(geos, area, es)])
        # without eq. 10's λ term: with it only (1 − λ) of the depth would go per step, and
        # a resting body would settle ~g Δt² / λ deep (7e-6 m for a box, not 1e-8 m)
        Hp = A.T @ Q @ A
        Hp[np.diag_indices_from(Hp)] *= 1.0 + 1e-9
        f = cone_qp(Hp, -(A.T @ cpen), rows)
        nb = len(self.bodies)
        Fp, Tp = np.zeros((nb, 3)), np.zeros((nb, 3))
        for i, (k, g) in enumerate(geos):
            fw, tw = f[6 * i:6 * i + 3], f[6 * i + 3:6 * i + 6]
            for body, sign in ((pairs[k][1], 1.0), (pairs[k][0], -1.0)):
                if body >= 0:
                    Fp[body] += sign * fw
                    Tp[body] += sign * (tw + cross3(g.centroid - X[body, :3], fw))
        mass, _, inv_i = self._mass_arrays()
        R = quat_to_matrix(X[:, 3:7])
        pseudo = np.zeros((nb, 6))
        pseudo[:, :3] = Fp / mass[:, None] * dt
        for b in range(nb):
            pseudo[b, 3:] = R[b] @ (inv_i[b] @ (R[b].T @ Tp[b])) * dt
        return pseudo

    # --- simulation -----------------------------------------------------------------------
    def _applied(self, forces, t: float, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        nb = len(self.bodies)
        F, T = np.zeros((nb, 3)), np.zeros((nb, 3))
        if forces is None:
            return F, T
        states = self.body_states(X)
        if callable(forces):
            out = forces(t, states)
        else:
            out = {name: fn(t, states) for name, fn in forces.items()}
        index = {b.name: i for i, b in enumerate(self.bodies)}
        if type(out) is not dict and not isinstance(out, Mapping):
            raise ParameterError("`simulate.forces` (one callable) must return {body: (force, "
                                 f"torque)}}; it returned {type(out).__name__} at t={t:g} s.")
        for name, wrench in out.items():
            if name not in index:
                raise ModelError(f"`forces` names body {name!r}, which is not in the model; "
                                 f"bodies are {list(index)}.")
            try:
                fvec, tvec = wrench
                F[index[name]] += fvec
                T[index[name]] += tvec
            except (TypeError, ValueError):
                raise ParameterError(f"`simulate.forces` for body {name!r} must return (force "
                                     f"(3,) [N], torque (3,) [N m]); got {wrench!r} at "
                                     f"t={t:g} s.") from None
        # a non-finite wrench is reported by the divergence guard after the step (body, time)
        return F, T

    def simulate(self, t_end: float, *, dt: float = 1e-3, method: str | None = None,
                 forces: Mapping[str, Callable] | Callable | None = None,
                 friction: str = "pyramid", dt_out: float | None = None,
                 lp_solver: str = "nnls", initial=None, t0: float | None = None,
                 contact_update: str = "step", contact: str | None = None,
                 **options) -> Results:
        """Simulate from `t0` to `t_end` [s] with fixed step `dt` [s].

        Three routes. **Volume contact** (SPEC §7 step 6; free polyhedral bodies, the ground,
        no elements): host-side, documented below. **Volume contact with joints**
        (``contact="volume"`` on a model with elements; no contact pairs or restitution):
        the link system's constrained dynamics with the volume contact of its polyhedral
        bodies on the ground (`stickslip.spatial._volume_links`, one jitted run; ``method``
        default ``"rk_gill"``; `options` ``baumgarte``, ``contact_bodies``, ``max_polygon``;
        channels: the link system's states, ``<joint>.angle`` and
        ``ground-<body>.active … .stick``). **Link system** (any model with joints,
        drivers, loads, spring–dampers or contact pairs, a Sphere or shapeless body, or
        ``contact="point"``): the model frozen by `link_system` and run by ``ss.simulate``
        (``method`` default ``"rk4"``; `forces`, `friction`, `lp_solver` and
        `contact_update` belong to the volume route and are rejected here; `options` go to
        `link_system` (``delta``, ``zeta``, ``baumgarte``, ``formulation``) and to
        ``ss.simulate``). Its channels: the bodies' states, ``<joint>.angle`` /
        ``.position``, ``.rate``, reactions ``.fx`` … ``.tz`` (on body j, about the joint
        point), ``.friction``, ``.normal``, ``.slip``, contacts ``<pair>.k.gap/.fn/.ft``,
        ``energy`` and the constraint residuals.

        Parameters
        ----------
        t_end: end time [s]; the last sample is exactly `t_end` (as in ``ss.simulate``).
            When `dt` does not divide ``t_end - t0`` the last step is shorter (the rule of
            ``stickslip.integrate.step_grid``).
        method: "rk_gill" (the paper's), "rk4" or "euler".
        forces: applied wrenches at the centres of mass, world frame:
            ``{body: fn(t, states) -> (force (3,) [N], torque (3,) [N m])}`` or one
            ``fn(t, states) -> {body: (force, torque)}``; `states` maps names to `BodyState`.
            `t` is the simulation time (it starts at `t0`, not 0, in a continued run).
        friction: "pyramid" (proposed: LP of eq. 28–31, correction eq. 32–34) or
            "previous" (friction force and normal torque limited separately).
        dt_out: sampling interval of the results [s], a multiple of dt (default dt). When
            ``t_end - t0`` is not a multiple of it, the last interval is shorter and the last
            sample is still `t_end`.
        lp_solver: "nnls" (compiled NNLS feasibility, default) or "highs" (SciPy/HiGHS LP).
        initial: where to start: None (the bodies' states from `add_body`), a previous
            `Results` of this model (continues from its ``final_state`` at its last time,
            which becomes the default `t0`), or an (n_bodies, 13) state array.
        t0: start time [s] (default 0, or the end of `initial` when that is a Results).
        contact_update: "step" (default; contact wrench once per step) or "stage" (at every
            Runge–Kutta stage; kept for study, see docs/spatial.md).

        Returns
        -------
        Results with ``<body>.x/.y/.z/.qw/.qx/.qy/.qz/.vx/.vy/.vz/.wx/.wy/.wz`` and per
        contact ``<A>-<B>.active/.volume/.nx/.ny/.nz/.px/.py/.pz/.fx/.fy/.fz/.tx/.ty/.tz/
        .fn/.stick`` (force and torque on B at the volume's centroid p_g, world frame;
        stick = 1 when static friction held); ``final_state`` is the state at ``t[-1]``.

        Raises
        ------
        ParameterError: a bad argument (the message names it and the fix); a bad `t_end`,
            `dt`, `dt_out` or `t0` on either route before anything is built (the core's
            ``stickslip.integrate.check_time_arguments``, naming
            ``SpatialModel.simulate.<argument>``).
        ModelError: no bodies, or bodies that start overlapping (names, volume, fix).
        SimulationError: a step would carry a body past a contact (tunnelling: names the
            body, the time and a step that works), or the run diverges (non-finite values or
            energy growing beyond everything the run was given: names the time, the body and
            the last sane state).
        """
        if contact not in (None, "volume", "point"):
            raise ParameterError(f"`simulate.contact` must be 'volume' or 'point'; got "
                                 f"{contact!r}.")
        # the core's step and span check, on both routes, before anything is built
        times = check_time_arguments("SpatialModel.simulate", t_end, dt, dt_out, t0,
                                     initial=initial,
                                     fixed_step=method is None or method in FIXED_STEP_METHODS)
        if contact == "point" or (contact is None and self.uses_link_route()):
            return self._simulate_link(t_end, dt, method, forces, friction, dt_out,
                                       lp_solver, initial, t0, contact_update, options)
        if contact == "volume" and self.elements:       # the link system's volume contact
            from ._volume_links import simulate_model
            return simulate_model(self, times.t_end, times.dt, method, forces, friction,
                                  dt_out, lp_solver, initial, t0, contact_update, options)
        if options:
            raise ParameterError(f"`simulate` got unknown options {sorted(options)} for the "
                                 "volume route.")
        return self._simulate(times.t_end, times.dt, "rk_gill" if method is None else method,
                              forces, friction, dt_out, lp_solver, initial, t0, contact_update)

    def _simulate_link(self, t_end, dt, method, forces, friction, dt_out, lp_solver,
                       initial, t0, contact_update, options) -> Results:
        from .. import integrate

        for label, value, default in (("forces", forces, None), ("friction", friction,
                                      "pyramid"), ("lp_solver", lp_solver, "nnls"),
                                      ("contact_update", contact_update, "step")):
            if value != default:
                raise ParameterError(f"`simulate.{label}` belongs to the volume route; this "
                                     "model runs as a link system. Use PointForce/BodyTorque "
                                     "elements for loads.")
        build = {k: options.pop(k) for k in ("delta", "zeta", "baumgarte", "formulation")
                 if k in options}
        system = self.link_system(**build)
        if initial is not None and not isinstance(initial, Results):
            X = np.asarray(initial, dtype=float)
            if X.shape == (len(self.bodies), 13):
                initial = np.concatenate([X.reshape(-1), np.asarray(system.s0),
                                          np.asarray(system.revolute_angles(X)),
                                          np.zeros(1 if system.layout.contacts else 0)])
        if t0 is not None:
            options["t0"] = t0
        if initial is not None:
            options["initial"] = initial
        res = integrate.simulate(system, t_end, dt=dt, method=method or "rk4",
                                 dt_out=dt_out, **options)
        if "contact.unsolved_time" in res.names:
            unsolved = res["contact.unsolved_time"]
            hit = np.flatnonzero(unsolved > unsolved[0])
            if hit.size:
                k = int(hit[0])
                raise PainleveError(
                    f"the point contacts' λ-problem had no solution the solver could certify "
                    f"before t={res.t[k]:.6g} s (contacts: "
                    f"{[c[0] for c in system.layout.contacts]}; SPEC §6: the Painlevé "
                    "paradox, or no convergence). Lower μ, raise delta, or use a smaller dt.",
                    time=float(res.t[k]), contacts=tuple(c[0] for c in system.layout.contacts),
                    reason="no solution (inconsistency)")
        return res

    def _simulate(self, t_end, dt, method, forces, friction, dt_out, lp_solver, initial, t0,
                  contact_update) -> Results:
        if not self.bodies:
            raise ModelError("the model has no bodies. Add one with `model.add_body(...)`.")
        t0, X = self._start(initial, t0)   # t_end and dt: checked and cleaned by simulate
        if not isinstance(method, str) or method not in FIXED_STEP_METHODS:
            raise ParameterError(f"`simulate.method` must be one of "
                                 f"{sorted(FIXED_STEP_METHODS)}; got {method!r}.")
        if friction not in ("pyramid", "previous"):
            raise ParameterError(f"`simulate.friction` must be 'pyramid' or 'previous'; got "
                                 f"{friction!r}.")
        if lp_solver not in ("nnls", "highs"):
            raise ParameterError(f"`simulate.lp_solver` must be 'nnls' or 'highs'; got "
                                 f"{lp_solver!r}.")
        if contact_update not in ("stage", "step"):
            raise ParameterError(f"`simulate.contact_update` must be 'stage' or 'step'; got "
                                 f"{contact_update!r}.")
        if forces is not None and not callable(forces) and not isinstance(forces, Mapping):
            raise ParameterError("`simulate.forces` must be a mapping {body: fn(t, states)} or "
                                 f"one callable fn(t, states) -> {{body: (force, torque)}}; got "
                                 f"{type(forces).__name__}.")
        if isinstance(forces, Mapping):
            for name, fn in forces.items():
                if not callable(fn):
                    raise ParameterError(f"`simulate.forces[{name!r}]` must be a callable "
                                         f"fn(t, states) -> (force, torque); got {fn!r}.")
        per_stage = contact_update == "stage"
        if per_stage and any(p[4] is not None for p in self._pairs_e()):
            raise ParameterError("`simulate.contact_update='stage'` does not support a "
                                 "restitution (its position correction needs the once-per-step "
                                 "contact); use contact_update='step'.")
        grid = step_grid(t0, t_end, dt, dt_out, owner="SpatialModel.simulate")
        hs, steps_out = _step_sizes(grid)
        n_steps = len(hs)
        tab = FIXED_STEP_METHODS[method]
        pairs_ab = [(a, b) for a, b, _, _ in self._pairs()]
        pair_index = {ab: k for k, ab in enumerate(pairs_ab)}
        nb = len(self.bodies)
        pairs = self.pair_names()
        n_out = len(steps_out)
        body_ch = np.full((n_out + 1, nb, 13), np.nan)
        contact_ch = np.zeros((n_out + 1, len(pairs), 16))
        contact_ch[..., 2:8] = np.nan
        body_ch[0] = X
        a_rows = [np.array(row, dtype=float) for row in tab.a]
        b_row = np.array(tab.b, dtype=float)
        mass, inertia, inv_i = self._mass_arrays()
        K = np.zeros((len(tab.c), nb, 13))
        in_contact = np.zeros(nb, dtype=np.bool_)
        guard = _EnergyGuard(self, X, t0, dt)
        start = _time.perf_counter()
        records: list[ContactRecord] = []
        o = 0
        for step in range(n_steps):
            t = t0 + step * dt          # the short last step (if any) starts at a whole step
            h = hs[step]
            pseudo = np.zeros((nb, 6))
            for s, (ci, row) in enumerate(zip(tab.c, a_rows)):
                Xi = X if s == 0 else stage_state(X, K, row, s, h)
                F, T = self._applied(forces, t + ci * h, Xi)
                if s == 0:
                    F0, T0 = F, T
                if s == 0 or per_stage:
                    Fc, Tc, recs, ps = self._contact_step(Xi, F, T, h, friction, lp_solver)
                    if s == 0:
                        records, pseudo = recs, ps
                        self._check_swept(X, t, h, {rec.pair for rec in records},
                                          pair_index)
                K[s] = rigid_body_rates(Xi, F + Fc, T + Tc, mass, inertia, inv_i, self.gravity)
            in_contact[:] = False
            if not per_stage:
                # bodies in contact: positions advance with the post-step velocity, the
                # update eq. 13–15 assume (see the module docstring)
                for rec in records:
                    for j in pairs_ab[rec.pair]:
                        if j >= 0:
                            in_contact[j] = True
            X_prev = X
            X = finish_step(X, K, b_row, h, in_contact, pseudo)
            guard.check(X_prev, X, F0, T0, t, h)
            if step + 1 == steps_out[o]:
                o += 1
                body_ch[o] = X
                contact_ch[o, :, 2:8] = np.nan
                for rec in records:
                    g = rec.geometry
                    contact_ch[o, rec.pair] = np.concatenate([
                        [1.0, g.volume], g.normal, g.centroid, rec.wrench,
                        [rec.wrench[:3] @ g.normal, float(rec.stick)]])
        wall = _time.perf_counter() - start
        t_axis = grid.times()
        channels, units = {}, {}
        suffix = ["x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"]
        unit = ["m"] * 3 + [""] * 4 + ["m/s"] * 3 + ["rad/s"] * 3
        for i, b in enumerate(self.bodies):
            for j, (s, u) in enumerate(zip(suffix, unit)):
                channels[f"{b.name}.{s}"] = body_ch[:, i, j]
                units[f"{b.name}.{s}"] = u
        csuffix = ["active", "volume", "nx", "ny", "nz", "px", "py", "pz", "fx", "fy", "fz",
                   "tx", "ty", "tz", "fn", "stick"]
        cunit = ["", "m^3", "", "", "", "m", "m", "m", "N", "N", "N", "N m", "N m", "N m", "N",
                 ""]
        for k, name in enumerate(pairs):
            for j, (s, u) in enumerate(zip(csuffix, cunit)):
                channels[f"{name}.{s}"] = contact_ch[:, k, j]
                units[f"{name}.{s}"] = u
        meta = {"system": "SpatialModel", "method": method, "dt": dt, "dt_out": grid.dt_out,
                "t0": t0, "t_end": t_end, "steps": n_steps,
                "friction": friction, "lp_solver": lp_solver, "wall_time": wall,
                "parameters": {"k": self.k, "lam": self.lam, "P": self.P, "eps_v": self.eps_v,
                               "gravity": self.gravity.tolist(), "restitution": self.restitution,
                               "ground": self.ground, "mu_s": self.mu_s, "mu_k": self.mu_k},
                "bodies": [b.name for b in self.bodies], "contacts": pairs}
        return Results(t_axis, channels, units=units, meta=meta, final_state=X)

    def _start(self, initial, t0) -> tuple[float, np.ndarray]:
        """(t0, X0) from `initial` (None, a Results of this model, or a state array) and
        `t0`; bodies starting inside each other or the ground are rejected (except when
        continuing a Results, whose state this model produced)."""
        nb = len(self.bodies)
        check_overlap = True
        if isinstance(initial, Results):
            if initial.final_state is None or initial.batch_shape:
                raise ParameterError("`simulate.initial` Results carry no single final state "
                                     "to continue from; pass the Results of one "
                                     "`SpatialModel.simulate` run.")
            bodies = initial.meta.get("bodies")
            if bodies is not None and list(bodies) != [b.name for b in self.bodies]:
                raise ParameterError(f"`simulate.initial` comes from a model with bodies "
                                     f"{list(bodies)}; this model has "
                                     f"{[b.name for b in self.bodies]}. Continue with the "
                                     "model that produced it.")
            X = initial.final_state
            t0 = float(initial.t[-1]) if t0 is None else t0
            check_overlap = False
        elif initial is None:
            X = self.initial_state()
        else:
            try:
                X = np.array(initial, dtype=float)
            except (TypeError, ValueError):
                raise ParameterError(f"`simulate.initial` must be a Results or an ({nb}, 13) "
                                     f"state array; got {type(initial).__name__}.") from None
        X = np.array(X, dtype=float).reshape(-1, 13) if np.size(X) == 13 * nb else \
            np.asarray(X, dtype=float)
        if X.shape != (nb, 13):
            raise ParameterError(f"`simulate.initial` must be an ({nb}, 13) state array (position, "
                                 f"quaternion, velocity, angular velocity per body); got shape "
                                 f"{X.shape}.")
        if not np.all(np.isfinite(X)):
            raise ParameterError("`simulate.initial` state must be finite; got "
                                 f"{X.tolist()}.")
        qn = np.linalg.norm(X[:, 3:7], axis=1)
        if np.any(qn < 1e-12):
            raise ParameterError("`simulate.initial` has a zero quaternion (columns 3:7) for "
                                 f"body {self.bodies[int(np.argmin(qn))].name!r}; pass unit "
                                 "quaternions (w, x, y, z).")
        X = X.copy()
        X[:, 3:7] /= qn[:, None]
        t0 = 0.0 if t0 is None else _check_scalar("simulate", "t0", t0)
        if check_overlap:
            self._reject_overlaps(X)
        return t0, X

    def _check_swept(self, X: np.ndarray, t: float, dt: float, active=(),
                     pair_index=None) -> None:
        """Stop before a step that would carry a body past a contact (tunnelling). Against
        the ground: each vertex's height at the step's end, from its velocity (v + ω × r) and
        gravity; between bodies: the closing speed of two bodies whose bounding spheres meet
        within the step. A step may go at most MAX_STEP_PENETRATION of the body's thinnest
        width deep; the contact volume of eq. 1–9 no longer describes a deeper step (a 0.1 m
        box at 100 m/s with Δt = 1 ms passed through the ground). Pairs in contact at the
        previous step (`active`, pair indices) are left to the contact force."""
        R = None
        if pair_index is None:
            pair_index = {(a, b): k for k, (a, b, _, _) in enumerate(self._pairs())}
        for j, body in enumerate(self.bodies):
            v, w = X[j, 7:10], X[j, 10:13]
            width = body.shape.min_width
            if self.ground is not None and pair_index[(-1, j)] not in active \
                    and v[2] - np.linalg.norm(w) * body.shape.radius < 0:
                if R is None:
                    R = quat_to_matrix(X[:, 3:7])
                r = body.shape.vertices @ R[j].T
                z = X[j, 2] + r[:, 2]
                vz = v[2] + (w[0] * r[:, 1] - w[1] * r[:, 0])
                z_end = z + dt * vz + 0.5 * min(self.gravity[2], 0.0) * dt * dt
                h = self.ground["height"]
                depth = h - z_end.min()
                height = np.ptp(z)
                if depth > MAX_STEP_PENETRATION_GROUND * height and depth > h - z.min():
                    speed = max(-vz.min(), 1e-300)
                    _tunnel(body.name, "the ground", t, dt, depth, height, speed,
                            MAX_STEP_PENETRATION_GROUND, X[j])
            for i in range(j):
                if pair_index[(i, j)] in active:
                    continue
                other = self.bodies[i]
                d = X[j, :3] - X[i, :3]
                u = X[j, 7:10] - X[i, 7:10]
                reach = body.shape.radius + other.shape.radius
                s = 0.0 if u @ u == 0 else min(max(-(d @ u) / (u @ u), 0.0), dt)
                if np.linalg.norm(d + s * u) >= reach:
                    continue
                dist = np.linalg.norm(d)
                closing = (max(0.0, -(d @ u) / dist) if dist > 0 else np.linalg.norm(u)) \
                    + np.linalg.norm(w) * body.shape.radius \
                    + np.linalg.norm(X[i, 10:13]) * other.shape.radius
                thin = min(width, other.shape.min_width)
                if closing * dt > MAX_STEP_PENETRATION_BODIES * thin:
                    _tunnel(body.name, f"body {other.name!r}", t, dt, closing * dt, thin,
                            closing, MAX_STEP_PENETRATION_BODIES, X[j])


def _tunnel(name, what, t, dt, depth, width, speed, fraction, state):
    """Raise the tunnelling `SimulationError` (body, time, a step that works)."""
    ok = 0.5 * fraction * width / speed
    unit = 10.0 ** np.floor(np.log10(ok))
    ok = float(np.floor(ok / unit) * unit)              # one digit, rounded down
    raise SimulationError(
        f"body {name!r} would move {depth:.3g} m into {what} in the step from t={t:.6g} s "
        f"(closing at {speed:.3g} m/s; the body is {width:.3g} m thick there): the step "
        f"dt={dt:g} s jumps past the contact (tunnelling). Use dt <= {ok:g} s (a step then "
        f"moves it at most {0.5 * fraction:g} of that thickness), or slow the body.",
        time=t, state={name: np.asarray(state).tolist()})


def _step_sizes(grid) -> tuple[list[float], np.ndarray]:
    """Step sizes of a run on `grid` (``stickslip.integrate.step_grid``: the output-grid rule
    of ``ss.simulate``, the last sample exactly t_end, a shorter final step when dt does not
    divide the span) and the step counts after which a sample is taken."""
    hs: list[float] = []
    out = []
    for o in range(grid.n_out):
        hs += [grid.dt] * (grid.n_sub if o < grid.n_out - 1 else grid.n_last)
        if o == grid.n_out - 1 and grid.h_last > 0:
            hs.append(grid.h_last)
        out.append(len(hs))
    return hs, np.array(out)


class _EnergyGuard:
    """Stops a run whose mechanical energy grows beyond everything it was given (a finite
    divergence: NaN and inf are caught too). Gain = E(t) − E(t0) − W_applied, with E the
    kinetic plus gravitational energy and W the work of the applied wrenches (the step's
    wrench times the mean of its start and end velocities, × Δt). The budget: the kinetic energy at t0, the applied work taken in
    absolute value, and m|g| times the body's radius plus the height it has fallen so far;
    contacts only dissipate (eq. 3 with an overlap can give back a fraction of the impact
    energy), so a gain above twice the budget is a divergence."""

    PERIOD = 0.01   # [s] energy balance at least this often (NaN/inf: every step)

    def __init__(self, model, X, t0, dt):
        self.model = model
        self.mass, self.inertia, _ = model._mass_arrays()
        self.g = model.gravity
        self.E0 = self.energy(X)
        self.K0 = self.kinetic(X).sum()
        self.work = 0.0
        self.work_abs = 0.0
        self.h0 = X[:, :3] @ self.g
        self.fallen = np.zeros(len(X))
        self.radius = np.array([b.shape.radius for b in model.bodies])
        self.steps = 0
        self.every = max(1, int(self.PERIOD / dt))
        self.last_sane = (X, t0)          # the last state that passed the energy check

    def kinetic(self, X):
        R = quat_to_matrix(X[:, 3:7])
        wb = np.einsum("nji,nj->ni", R, X[:, 10:13])
        rot = 0.5 * np.einsum("ni,nij,nj->n", wb, self.inertia, wb)
        return 0.5 * self.mass * (X[:, 7:10] ** 2).sum(axis=1) + rot

    def energy(self, X):
        return float((self.kinetic(X) - self.mass * (X[:, :3] @ self.g)).sum())

    def check(self, X_prev, X, F, T, t, dt):
        """After each step: NaN/inf at once; the work of the applied wrenches accumulated; the
        energy balance every `every` steps, 10 ms of simulated time (it costs a rotation per
        body)."""
        if not np.isfinite(X.sum()):
            names = [b.name for b in self.model.bodies]
            i = int(np.argmax(~np.all(np.isfinite(X), axis=1)))
            raise SimulationError(
                f"the spatial simulation produced non-finite values for body {names[i]!r} at "
                f"t={t + dt:.6g} s; the last sane state (t={t:.6g} s) is in the error's "
                f"`state`: {names[i]}={np.round(X_prev[i], 6).tolist()}. Reduce dt or check "
                "the applied forces (a force callable returning NaN/inf) and masses.", time=t,
                state={n: X_prev[i].tolist() for i, n in enumerate(names)})
        # two flat dot products: this runs every step (NumPy reductions cost ~10 % of a step)
        V = X_prev[:, 7:13] + X[:, 7:13]
        power = 0.5 * (float(F.ravel() @ V[:, :3].ravel()) + float(T.ravel() @ V[:, 3:].ravel()))
        self.work += dt * power
        self.work_abs += dt * abs(power)
        self.steps += 1
        if self.steps % self.every:
            return
        self.fallen = np.maximum(self.fallen, X[:, :3] @ self.g - self.h0)
        gain = self.energy(X) - self.E0 - self.work
        budget = self.K0 + self.work_abs + float(
            (self.mass * np.linalg.norm(self.g) * self.radius).sum()
            + (self.mass * self.fallen).sum()) + 1e-12
        if gain > 2.0 * budget:
            names = [b.name for b in self.model.bodies]
            Xs, ts = self.last_sane
            i = int(np.argmax(self.kinetic(X) - self.kinetic(Xs)))
            raise SimulationError(
                f"the spatial simulation diverged by t={t + dt:.6g} s: the energy grew by "
                f"{gain:.3g} J, more than twice all the energy the run was given "
                f"({budget:.3g} J), fastest for body {names[i]!r}; its last sane state "
                f"(t={ts:.6g} s) is {np.round(Xs[i], 6).tolist()} (all bodies in the "
                "error's `state`). Reduce dt (or use method='rk_gill'/'rk4' instead of "
                "'euler') or check the applied forces.", time=ts,
                state={n: Xs[i].tolist() for i, n in enumerate(names)})
        self.last_sane = (X, t + dt)


def _rebound(e: float, v_in: float, v_rest: float) -> float:
    """Target separation speed e·v_in of a contact approaching at v_in; 0 (plastic) below
    v_rest, the speed gravity gives in RESTING_SPEED_STEPS steps: a body resting on a contact
    approaches it at g Δt every step, and bouncing that back made it hop ever higher (the
    hop lasts about one step, and the position correction returns the depth it sank)."""
    return e * v_in if v_in > v_rest else 0.0


def _normal_velocity(X: np.ndarray, a: int, b: int, g: ContactGeometry) -> float:
    """n·(v_B − v_A) at the volume's centroid p_g (negative while B approaches A)."""
    v = np.zeros(3)
    for body, sign in ((b, 1.0), (a, -1.0)):
        if body >= 0:
            v += sign * (X[body, 7:10] + cross3(X[body, 10:13], g.centroid - X[body, :3]))
    return float(v @ g.normal)


def _check_mu(owner: str, mu_s, mu_k) -> tuple[float, float]:
    """(μ_s, μ_k) as floats: numbers (not arrays, strings, bools), then the shared pair
    validator (finite, >= 0, plausible, μ_k <= μ_s)."""
    mu_s = _check_scalar(owner, "mu_s", mu_s)
    mu_k = _check_scalar(owner, "mu_k", mu_k)
    return check_friction_pair(owner, mu_s, mu_k)


Model = SpatialModel
