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
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass
from typing import Callable, Mapping, NamedTuple

import numpy as np

from ..errors import ModelError, ParameterError, SimulationError
from ..integrate import FIXED_STEP_METHODS
from ..results import Results
from ._contact_qp import contact_qp
from ._dynamics import finish_step, rigid_body_rates, stage_state
from ._friction import (
    check_pyramid_sides,
    kinetic_correction,
    previous_kinetic,
    previous_static,
    static_lp_feasible,
)
from ._qp import solve_cone_qp
from ._shapes import Polyhedron, cross3
from ._volume import (
    ContactGeometry,
    contact_geometry,
    ground_contact_geometry,
    intersect,
    pair_contact_geometry,
)

__all__ = ["Model", "BodyState", "ContactRecord"]


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
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"`{owner}.{name}` must be a number; got {value!r}.") from None
    if not np.isfinite(v):
        raise ParameterError(f"`{owner}.{name}` must be finite; got {name}={v!r}.")
    if positive and v <= 0:
        raise ParameterError(f"`{owner}.{name}` must be > 0; got {name}={v!r}. Pass a positive "
                             "value.")
    if nonnegative and v < 0:
        raise ParameterError(f"`{owner}.{name}` must be >= 0; got {name}={v!r}.")
    return v


def _vec(owner: str, name: str, value, n: int) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if arr.shape != (n,) or not np.all(np.isfinite(arr)):
        raise ParameterError(f"`{owner}.{name}` must be {n} finite numbers; got {value!r}.")
    return arr


class Model:
    """Rigid convex bodies, a ground plane and gravity, with volume-based contact
    (SPEC §7; Wakisaka & Sugihara).

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
    mu_s, mu_d: friction coefficients between bodies (the ground's come from `add_ground`).
    kinetic_iterations: at most this many consistency passes after a kinetic correction
        (0 = the paper's single pass; they stop when the wrench changes by < 1e-10): the slipping contacts' friction is fixed and eq. 16 re-solved for their
        normal parts (f_n, τ_1, τ_2), then eq. 32–34 applied again. Without it the normal
        pressure computed for a sticking contact stays in place after the friction drops,
        and a pushed box rocks.
    patch: the contact polygon S: "projection" (default; the contact volume projected onto
        the contact plane) or "section" (the plane's section of the volume).

    Examples
    --------
    >>> import stickslip as ss
    >>> model = ss.spatial.Model(gravity=(0, 0, -9.81))
    >>> _ = model.add_body("box", mass=1.0, inertia=None,
    ...                    shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    >>> _ = model.add_ground(mu_s=0.5, mu_d=0.3)
    >>> res = model.simulate(0.05, dt=1e-3)
    >>> bool(abs(res["box.x"][-1]) < 1e-12), round(float(res["ground-box.fn"][-1]), 6)
    (True, 9.81)
    """

    def __init__(self, gravity=(0.0, 0.0, -9.81), *, k: float = 1000.0, lam: float = 1e-3,
                 P: int = 8, eps_v: float = 1e-12, mu_s: float = 0.5, mu_d: float = 0.3,
                 patch: str = "projection", kinetic_iterations: int = 10):
        self.gravity = _vec("Model", "gravity", gravity, 3)
        self.k = _check_scalar("Model", "k", k, positive=True)
        self.lam = _check_scalar("Model", "lam", lam, positive=True)
        self.P = check_pyramid_sides(P)
        self.eps_v = _check_scalar("Model", "eps_v", eps_v, positive=True)
        self.mu_s, self.mu_d = _check_mu("Model", mu_s, mu_d)
        if patch not in ("projection", "section"):
            raise ParameterError(f"`Model.patch` must be 'projection' or 'section'; got "
                                 f"{patch!r}.")
        self.patch = patch
        if int(kinetic_iterations) != kinetic_iterations or kinetic_iterations < 0:
            raise ParameterError(f"`Model.kinetic_iterations` must be an integer >= 0; got "
                                 f"{kinetic_iterations!r}.")
        self.kinetic_iterations = int(kinetic_iterations)
        self.bodies: list[_Body] = []
        self.ground: dict | None = None

    # --- building ------------------------------------------------------------------------
    def add_body(self, name: str, *, mass: float, inertia=None, shape: Polyhedron,
                 position=(0.0, 0.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0),
                 velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0)) -> "Model":
        """Add a rigid body whose body-frame origin is its centre of mass.

        mass [kg] > 0; inertia [kg m^2]: a symmetric positive-definite 3×3 tensor (or its
        3 principal values) about the centre of mass in the body frame, or None for a uniform
        density; shape: a convex `Polyhedron` (`Box`, `Prism`, `ConvexHull`) in the body
        frame; position [m]; orientation: quaternion (w, x, y, z), normalised here;
        velocity [m/s] and angular velocity [rad/s] in the world frame.
        """
        owner = f"body {name!r}"
        if not isinstance(name, str) or not name or name == "ground":
            raise ModelError(f"body name must be a non-empty string other than 'ground'; got "
                             f"{name!r}.")
        if any(b.name == name for b in self.bodies):
            raise ModelError(f"a body named {name!r} already exists. Pick another name.")
        if not isinstance(shape, Polyhedron):
            raise ParameterError(f"`{owner}.shape` must be a stickslip.spatial polyhedron (Box, "
                                 f"Prism, ConvexHull); got {type(shape).__name__}.")
        mass = _check_scalar(owner, "mass", mass, positive=True)
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
        q = _vec(owner, "orientation", orientation, 4)
        if np.linalg.norm(q) < 1e-12:
            raise ParameterError(f"`{owner}.orientation` must be a non-zero quaternion (w, x, "
                                 "y, z); got zeros.")
        state = np.concatenate([_vec(owner, "position", position, 3), q / np.linalg.norm(q),
                                _vec(owner, "velocity", velocity, 3),
                                _vec(owner, "angular_velocity", angular_velocity, 3)])
        self.bodies.append(_Body(name, mass, inertia, shape, state))
        return self

    def add_ground(self, *, mu_s: float, mu_d: float, height: float = 0.0) -> "Model":
        """Add the ground: the half-space z <= `height` [m], with static and kinetic friction
        coefficients μ_s >= μ_d >= 0 against every body."""
        mu_s, mu_d = _check_mu("ground", mu_s, mu_d)
        self.ground = {"mu_s": mu_s, "mu_d": mu_d,
                       "height": _check_scalar("ground", "height", height)}
        return self

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
        """(A, B, μ_s, μ_d) per potential contact; A = -1 is the ground."""
        key = (len(self.bodies), self.ground and tuple(self.ground.values()), self.mu_s,
               self.mu_d)
        cached = getattr(self, "_pairs_cache", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        pairs = []
        if self.ground is not None:
            pairs += [(-1, j, self.ground["mu_s"], self.ground["mu_d"])
                      for j in range(len(self.bodies))]
        n = len(self.bodies)
        pairs += [(i, j, self.mu_s, self.mu_d) for i in range(n) for j in range(i + 1, n)]
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
        nb = len(self.bodies)
        Fc, Tc = np.zeros((nb, 3)), np.zeros((nb, 3))
        geos = self.contact_geometries(X)
        if not geos:
            return Fc, Tc, []
        pairs = self._pairs()
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
        Hq, grad, rows, A, bvec, Q, cn = contact_qp(
            X, F_app, T_app, mass, inertia, inv_i, self.gravity, float(dt), self.k, self.lam,
            np.array([pairs[k][0] for k, _ in geos]), np.array([pairs[k][1] for k, _ in geos]),
            np.array([g.normal for _, g in geos]), np.array([g.centroid for _, g in geos]),
            np.array([g.Q / a for (_, g), a in zip(geos, area)]),
            np.array([g.nc / a for (_, g), a in zip(geos, area)]),
            np.array([len(g.edge_offsets) for _, g in geos]), edge_normals, edge_offsets)
        f = solve_cone_qp(Hq, grad, rows)
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
                mu_s, mu_d = pairs[k][2], pairs[k][3]
                w = ws[i]
                if friction == "pyramid":
                    stick = (i not in slipping
                             and static_lp_feasible(w, g.r, mu_s, self.P, solver=lp_solver))
                    if not stick:
                        w = kinetic_correction(w, g.r, slip_directions(i), mu_d)  # eq. 32–34
                else:
                    stick = i not in slipping and previous_static(w, g.r, mu_s)
                    if not stick:
                        w = previous_kinetic(w, g.r, mu_d)
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
            y = solve_cone_qp(Z.T @ Hn @ Z, Z.T @ (Hn @ f0 + gn), rows @ Z)
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
        return Fc, Tc, records

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
        for name, wrench in out.items():
            if name not in index:
                raise ModelError(f"`forces` names body {name!r}, which is not in the model; "
                                 f"bodies are {list(index)}.")
            fvec, tvec = wrench
            F[index[name]] += np.asarray(fvec, dtype=float)
            T[index[name]] += np.asarray(tvec, dtype=float)
        return F, T

    def simulate(self, t_end: float, *, dt: float = 1e-3, method: str = "rk_gill",
                 forces: Mapping[str, Callable] | Callable | None = None,
                 friction: str = "pyramid", dt_out: float | None = None,
                 lp_solver: str = "nnls", initial: np.ndarray | None = None,
                 contact_update: str = "step") -> Results:
        """Simulate from t = 0 to `t_end` [s] with fixed step `dt` [s] (SPEC §7 step 6).

        Parameters
        ----------
        method: "rk_gill" (the paper's), "rk4" or "euler".
        forces: applied wrenches at the centres of mass, world frame:
            ``{body: fn(t, states) -> (force (3,) [N], torque (3,) [N m])}`` or one
            ``fn(t, states) -> {body: (force, torque)}``; `states` maps names to `BodyState`.
        friction: "pyramid" (proposed: LP of eq. 28–31, correction eq. 32–34) or
            "previous" (friction force and normal torque limited separately).
        dt_out: sampling interval of the results [s], a multiple of dt (default dt).
        lp_solver: "nnls" (compiled NNLS feasibility, default) or "highs" (SciPy/HiGHS LP).
        initial: (n_bodies, 13) state to start from (e.g. ``results.final_state``).

        Returns
        -------
        Results with ``<body>.x/.y/.z/.qw/.qx/.qy/.qz/.vx/.vy/.vz/.wx/.wy/.wz`` and per
        contact ``<A>-<B>.active/.volume/.nx/.ny/.nz/.px/.py/.pz/.fx/.fy/.fz/.tx/.ty/.tz/
        .fn/.stick`` (force and torque on B at the volume's centroid p_g, world frame;
        stick = 1 when static friction held).
        """
        if not self.bodies:
            raise ModelError("the model has no bodies. Add one with `model.add_body(...)`.")
        t_end = _check_scalar("simulate", "t_end", t_end, positive=True)
        dt = _check_scalar("simulate", "dt", dt, positive=True)
        if method not in FIXED_STEP_METHODS:
            raise ParameterError(f"`simulate.method` must be one of "
                                 f"{sorted(FIXED_STEP_METHODS)}; got {method!r}.")
        if friction not in ("pyramid", "previous"):
            raise ParameterError(f"`simulate.friction` must be 'pyramid' or 'previous'; got "
                                 f"{friction!r}.")
        tab = FIXED_STEP_METHODS[method]
        if contact_update not in ("stage", "step"):
            raise ParameterError(f"`simulate.contact_update` must be 'stage' or 'step'; got "
                                 f"{contact_update!r}.")
        per_stage = contact_update == "stage"
        semi_implicit = not per_stage
        pairs_ab = [(a, b) for a, b, _, _ in self._pairs()]
        n_steps = int(round(t_end / dt))
        if abs(n_steps * dt - t_end) > 1e-9 * t_end:
            raise ParameterError(f"`simulate.t_end` must be a multiple of dt; got t_end={t_end}, "
                                 f"dt={dt}. Adjust either.")
        n_sub = 1 if dt_out is None else int(round(dt_out / dt))
        if n_sub < 1 or abs(n_sub * dt - (dt_out or dt)) > 1e-9 * dt:
            raise ParameterError(f"`simulate.dt_out` must be a positive multiple of dt; got "
                                 f"dt_out={dt_out}, dt={dt}.")
        n_out = n_steps // n_sub
        X = self.initial_state() if initial is None else np.array(initial, dtype=float)
        nb = len(self.bodies)
        pairs = self.pair_names()
        body_ch = np.full((n_out + 1, nb, 13), np.nan)
        contact_ch = np.zeros((n_out + 1, len(pairs), 16))
        contact_ch[..., 2:8] = np.nan
        body_ch[0] = X
        a_rows = [np.array(row, dtype=float) for row in tab.a]
        b_row = np.array(tab.b, dtype=float)
        mass, inertia, inv_i = self._mass_arrays()
        K = np.zeros((len(tab.c), nb, 13))
        in_contact = np.zeros(nb, dtype=np.bool_)
        start = _time.perf_counter()
        records: list[ContactRecord] = []
        for step in range(n_steps):
            t = step * dt
            for s, (ci, row) in enumerate(zip(tab.c, a_rows)):
                Xi = X if s == 0 else stage_state(X, K, row, s, dt)
                F, T = self._applied(forces, t + ci * dt, Xi)
                if s == 0 or per_stage:
                    Fc, Tc, recs = self.contact_wrenches(Xi, F, T, dt, friction, lp_solver)
                    if s == 0:
                        records = recs
                K[s] = rigid_body_rates(Xi, F + Fc, T + Tc, mass, inertia, inv_i, self.gravity)
            in_contact[:] = False
            if semi_implicit:
                # bodies in contact: positions advance with the post-step velocity, the
                # update eq. 13–15 assume (see the module docstring)
                for rec in records:
                    for j in pairs_ab[rec.pair]:
                        if j >= 0:
                            in_contact[j] = True
            X = finish_step(X, K, b_row, dt, in_contact)
            if not np.all(np.isfinite(X)):
                raise SimulationError(
                    f"the spatial simulation produced non-finite values at t={t + dt:.6g} s "
                    f"(step {step + 1}). Reduce dt or check the applied forces and masses.",
                    time=t, state={b.name: body_ch[(step) // n_sub, i].tolist()
                                   for i, b in enumerate(self.bodies)})
            if (step + 1) % n_sub == 0:
                o = (step + 1) // n_sub
                body_ch[o] = X
                contact_ch[o, :, 2:8] = np.nan
                for rec in records:
                    g = rec.geometry
                    contact_ch[o, rec.pair] = np.concatenate([
                        [1.0, g.volume], g.normal, g.centroid, rec.wrench,
                        [rec.wrench[:3] @ g.normal, float(rec.stick)]])
        wall = _time.perf_counter() - start
        t_axis = np.arange(n_out + 1) * (n_sub * dt)
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
        meta = {"system": "spatial.Model", "method": method, "dt": dt, "dt_out": n_sub * dt,
                "friction": friction, "lp_solver": lp_solver, "wall_time": wall,
                "parameters": {"k": self.k, "lam": self.lam, "P": self.P, "eps_v": self.eps_v,
                               "gravity": self.gravity.tolist(),
                               "ground": self.ground, "mu_s": self.mu_s, "mu_d": self.mu_d},
                "bodies": [b.name for b in self.bodies], "contacts": pairs}
        return Results(t_axis, channels, units=units, meta=meta, final_state=X)


def _check_mu(owner: str, mu_s, mu_d) -> tuple[float, float]:
    mu_s = _check_scalar(owner, "mu_s", mu_s, nonnegative=True)
    mu_d = _check_scalar(owner, "mu_d", mu_d, nonnegative=True)
    if mu_d > mu_s:
        raise ParameterError(f"`{owner}.mu_d` must be <= `{owner}.mu_s`; got mu_d={mu_d}, "
                             f"mu_s={mu_s}. Lower mu_d or raise mu_s.")
    return mu_s, mu_d
