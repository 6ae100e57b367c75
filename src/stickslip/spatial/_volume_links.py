"""Volume contact (SPEC §7, seed 002) for the bodies of a jointed link system: the paper's own
setting, where the contact QP's A and b come from the *constrained* dynamics.

For a body that is part of a jointed system, eq. 11 is the link system's
M ν̇ = Q + Φ_qᵀλ + Jᵀf̂ with the joint rows Φ_q ν̇ = c. Eliminating λ (Schur complement
S = Φ_q M⁻¹ Φ_qᵀ) gives ν̇ = ν̇_free + W Jᵀ f̂ with

    W = M⁻¹ − M⁻¹Φ_qᵀ S⁻¹ Φ_q M⁻¹        (the joint-projected inverse mass)
    ν̇_free = the accelerations the joints allow without contact (LinkSystem's ν̇, f̂ = 0),

so eq. 13–15 read A = J W Jᵀ Δt and b = J(ν + Δt ν̇_free): the free-body inverse mass and
free motion of `_volume_jax` are replaced by W's diagonal block and ν̇_free of the body.

Per step (a compiled run of `run_volume_links`, one program per structure), from the state at
the step's start:

1. the link system's stages without contact (`LinkSystem.dynamics`): ν̇_free, the kept joint
   and driver rows Φ_q, and M⁻¹ → W;
2. for each ground-touching body in turn, the volume contact wrench of `_volume_jax` (geometry,
   QP (16) with (25), static LP, kinetic correction) with ``motion=(W_bb, ν_b + Δt ν̇_free,b)``;
   the bodies are taken one after another and each later body's free motion includes the
   wrenches found before it (one Gauss–Seidel pass: ν_free += W Σ Jᵀ f̂ Δt) — exact for one
   contacting body; for several on one chain the coupled QP is approximated (not solved
   jointly);
3. the link system integrated with the wrench as an applied load (a `PointForce` at the
   centre of mass and a `BodyTorque` per contact body, added at build time with value zero
   and set per step) held through the Runge–Kutta stages; the bodies of every chain that has a
   body in contact advance position and orientation with the post-step velocity
   (semi-implicit Euler): the orientation by the exponential map as in `_volume_jax`, the
   centre of mass of a body with a joint by the rigid motion of its post-step twist
   (:func:`screw_position`, the SE(3) exponential; the free-body rule r + Δt v⁺ for a body
   without one); then `LinkSystem.project` (unit quaternions, Φ = 0, Φ̇ = 0, revolute
   angles).

A model with no joints gives the `_volume_jax.run_volume` trajectory to round-off.

Wrench directions the joints carry (A singular there) are indeterminate in eq. 16; the
`motion=` path of `_volume_jax_contact.body_contact` gives them eq. 10's λ (least norm), so the
joints carry them. A statically indeterminate body (a box pinned to an arm and resting flat)
gets one of its admissible wrenches, not a unique one.

Not covered: body–body volume contact, restitution, ``patch="section"``, point contacts
(`ContactPair`) in the same model, a jointly solved QP for several contact bodies of one chain
(one Gauss–Seidel pass instead), and the joint friction's dependence on the contact force
within a step (W is the frictionless projection; joint friction still acts in the stages).

Why the screw motion (formerly a known issue): with r + Δt v⁺ for every body of a chain,
a box on a revolute arm (tests/spatial/test_volume_links.py ``arm_model``) sliding under a
large push (4 N m) slid for ~57 ms, then hopped — contact lost and regained in a 3-step
cycle (f_n ≈ 0, 22, 10 N). The straight line along the *end-of-step* velocity of a chain
turning at ω about the shoulder leaves each body ½(Δt ω)² r inside its circle (joint gaps of
8–12 nm per step at ω ≈ 0.3 rad/s); `project`'s mass-weighted Newton step closes them, and its
minimum-norm correction also turns the box about the free elbow axis, lifting it by 7–11 nm
per step, growing as ω². The contact's steady penetration is ~11 nm (k Δt = 1, λ's share);
once the lift passed it the box left the ground for a step. Both scale as Δt², hence the
onset independent of Δt; a prismatic rail has no ω, hence no hop. The rigid motion of the
post-step twist keeps co-rotating bodies on their circles: the gap is gone, `project` moves
nothing, and the box slides with the normal force of the moment balance about the elbow
(m g ℓ_c + τ_elbow + m ω² r_c h_c)/ℓ_far (centre of pressure at the far edge, λ's least-norm
choice) to 2e-4.
"""

from __future__ import annotations

import copy

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import ModelError, ParameterError
from ..integrate import (
    FIXED_STEP_METHODS,
    call_with_system,
    check_divergence,
    check_run_memory,
    initial_state_of,
    step_grid,
)
from ._link_build import consistent_initial
from ._model_touch import placed_in_touch
from ._volume_jax import (
    CONTACT_FIELDS,
    VolumeContactSystem,
    VolumeParams,
    runge_kutta,
    semi_implicit_pose,
)
from ._volume_jax_contact import body_contact
from ._volume_jax_route import CHUNK

__all__ = ["VolumeLinkSystem", "run_volume_links", "constrained_motion", "screw_position"]


def screw_position(X, Xn, h):
    """Centres of mass (n_b, 3) of bodies advanced over h by the rigid motion of their
    post-step twist: the screw exp(h ξ⁺) of ξ⁺ = (ω⁺, v⁺ at the step's end r_e) applied to
    the start pose, r⁺ = r + V(hω⁺) (h v⁺ − hω⁺ × (r_e − r)) with
    V(θ) = I + (1 − cos|θ|)/|θ|² [θ×] + (|θ| − sin|θ|)/|θ|³ [θ×]² (the SE(3) exponential).
    X: the step's start, Xn: its end (n_b, 13). Bodies of a chain turning together about a
    joint stay on their circles, so the joints stay closed; ω⁺ = 0 gives r + h v⁺."""
    w = h * Xn[:, 10:13]
    u = h * Xn[:, 7:10] - jnp.cross(w, Xn[:, :3] - X[:, :3])
    t2 = jnp.sum(w * w, axis=1)
    small = t2 < 1e-4                                     # |θ| < 1e-2: the series
    ts = jnp.sqrt(jnp.where(small, 1.0, t2))
    c1 = jnp.where(small, 0.5 - t2 / 24.0 + t2 * t2 / 720.0, (1.0 - jnp.cos(ts)) / ts ** 2)
    c2 = jnp.where(small, 1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0,
                   (ts - jnp.sin(ts)) / ts ** 3)
    wu = jnp.cross(w, u)
    return X[:, :3] + u + c1[:, None] * wu + c2[:, None] * jnp.cross(w, wu)


def constrained_motion(link, t, x):
    """(W, ν_free rate, ν) of a `LinkSystem` at (t, x) without contact forces: the
    joint-projected inverse mass W = M⁻¹ − M⁻¹Φ_qᵀ S⁻¹ Φ_q M⁻¹ (6 n_b, 6 n_b), S = Φ_q M⁻¹
    Φ_qᵀ over the kept joint and driver rows, the accelerations ν̇_free (6 n_b,) and the
    velocities ν (6 n_b,), world frame, (v, ω) per body about its centre of mass."""
    X, s = link._split(x)
    n_b = link.layout.n_bodies
    d = link.dynamics(t, X, s)
    Minv_rot, _ = link.inverse_inertias(X)
    Minv = jnp.zeros((6 * n_b, 6 * n_b), X.dtype)
    for b in range(n_b):
        Minv = Minv.at[6 * b:6 * b + 3, 6 * b:6 * b + 3].set(jnp.eye(3) / link.masses[b])
        Minv = Minv.at[6 * b + 3:6 * b + 6, 6 * b + 3:6 * b + 6].set(Minv_rot[b])
    phi_q = d["rows"].dense()
    if phi_q.shape[0]:
        MJt = Minv @ phi_q.T
        S = phi_q @ MJt
        W = Minv - MJt @ jnp.linalg.solve(S, MJt.T)
        W = 0.5 * (W + W.T)
    else:
        W = Minv
    return W, d["nud"], X[:, 7:13].reshape(-1)


class VolumeLinkSystem:
    """A `SpatialModel` with joints (a link system without point contacts) whose bodies touch
    the ground by volume contact (SPEC §7, module docstring).

    Parameters
    ----------
    model: a `SpatialModel` with a ground (patch "projection", no restitution, no
        `ContactPair`); its joints, drivers, loads and springs make the link system.
    contact_bodies: names of the bodies that touch the ground by volume contact (default:
        every body with a polyhedral shape not welded to the ground).
    baumgarte: (α, β) [1/s] of the joints' stabilisation (`SpatialModel.link_system`).
    max_polygon: the contact polygon's buffer size (`VolumeContactSystem`).

    The model is not changed: the link system is built from a copy without the ground and
    with a zero `PointForce` and `BodyTorque` per contact body (the held contact wrench).
    """

    def __init__(self, model, *, contact_bodies=None, baumgarte=(10.0, 10.0),
                 max_polygon=None):
        from ._elements import BodyTorque, ContactPair, FixedJoint, PointForce
        from ._shapes import Polyhedron

        problems = []
        if model.ground is None:
            problems.append("the volume contact needs a ground; add one with "
                            "`model.add_ground(mu_s=..., mu_d=...)`.")
        if model.patch != "projection":
            problems.append(f"only patch='projection' is supported; got {model.patch!r}.")
        if model.restitution is not None or (model.ground or {}).get("restitution") is not None:
            problems.append("restitution is not supported by the volume contact of a link "
                            "system; remove it.")
        if any(isinstance(e, ContactPair) for e in model.elements):
            problems.append("ContactPair (point contacts) cannot be mixed with the volume "
                            "contact here; remove them.")
        names = [b.name for b in model.bodies]
        welded = {e.body_j if e.body_i == "ground" else e.body_i for e in model.elements
                  if isinstance(e, FixedJoint) and "ground" in (e.body_i, e.body_j)}
        if contact_bodies is None:
            contact_bodies = [b.name for b in model.bodies
                              if isinstance(b.shape, Polyhedron) and b.name not in welded]
        contact_bodies = list(contact_bodies)
        for name in contact_bodies:
            if name not in names:
                problems.append(f"contact body {name!r} is not in the model (bodies: {names}).")
            elif not isinstance(model.bodies[names.index(name)].shape, Polyhedron):
                problems.append(f"contact body {name!r} needs a convex polyhedral shape (Box, "
                                "Prism, ConvexHull).")
        if not contact_bodies:
            problems.append("no body touches the ground by volume contact; give a body a "
                            "polyhedral shape or pass contact_bodies=.")
        if problems:
            raise ModelError("the volume link system has problems:\n  " + "\n  ".join(problems))

        bare = copy.copy(model)
        bare.ground = None
        bare.elements = list(model.elements)
        for name in contact_bodies:
            bare.elements.append(PointForce(name, force=(0.0, 0.0, 0.0),
                                            name=f"ground-{name}.contact"))
            bare.elements.append(BodyTorque(name, torque=(0.0, 0.0, 0.0),
                                            name=f"ground-{name}.contact"))
        self.link = bare.link_system(baumgarte=baumgarte)
        layout = self.link.layout
        self.names = list(contact_bodies)
        self.index = np.array([names.index(n) for n in contact_bodies], dtype=int)
        shaped = [model.bodies[i] for i in self.index]
        if model.ground is None:
            raise ModelError("volume contacts beside a link system need the ground "
                             "(SpatialModel.add_ground(...)) for their friction and height.")
        self.volume = VolumeContactSystem(
            contact_bodies, [b.mass for b in shaped], [b.inertia for b in shaped],
            [b.shape for b in shaped], gravity=model.gravity, k=model.k, lam=model.lam,
            P=model.P, eps_v=model.eps_v, mu_s=model.ground["mu_s"],
            mu_d=model.ground["mu_d"], height=model.ground["height"],
            kinetic_iterations=model.kinetic_iterations, max_polygon=max_polygon)
        # chains: bodies joined by joints (the ground excluded) move together (step 3)
        n_b = layout.n_bodies
        chain = np.eye(n_b, dtype=bool)
        for (_, kind, i, j) in layout.joints:
            if kind != "FreeJoint" and i < n_b and j < n_b:
                chain[i, j] = chain[j, i] = True
        for _ in range(n_b):
            chain = (chain.astype(int) @ chain.astype(int)) > 0
        self.chain = chain[:, self.index]                 # (n_b, n_c)
        self.mechanism = chain                            # (n_b, n_b): joined by joints
        # bodies of a chain with a joint to the ground
        to_ground = np.zeros(n_b, dtype=bool)
        for (_, kind, i, j) in layout.joints:
            if kind != "FreeJoint" and (i >= n_b) != (j >= n_b):
                to_ground[min(i, j)] = True
        self.grounded = chain @ to_ground > 0
        # bodies with a joint (to another body or the ground): the screw update (step 3)
        self.jointed = np.zeros(n_b, dtype=bool)
        for (_, kind, i, j) in layout.joints:
            if kind != "FreeJoint":
                self.jointed[[b for b in (i, j) if b < n_b]] = True
        # the run's default start (host side, not read by the traced run: not in the key):
        # contact bodies placed exactly on the ground start in contact (`_placed_on_the_ground`)
        self.unplaced = np.array(initial_state_of(self.link), dtype=float)
        self.start = _placed_on_the_ground(model, self)

    def params(self, **changes) -> VolumeParams:
        """The volume contact's traced parameters (k, λ, μ_s, μ_d, …) with `changes`."""
        return self.volume.params(**changes)

    def with_drivers(self, **values):
        """The link system with constant driver values (effort [N or N·m], …) by driver name
        (default name ``"<joint>.driver"``); pass it as ``link=`` to reuse the compiled run."""
        link = self.link
        slots = {name: slot for (name, _, _, fn, slot) in link.layout.drivers if fn is None}
        unknown = sorted(set(values) - set(slots))
        if unknown:
            raise ParameterError(f"`with_drivers` got unknown driver names {unknown}; the "
                                 f"constant drivers are {sorted(slots)}.")
        dv = np.asarray(link.driver_values, dtype=float).copy()
        for name, v in values.items():
            dv[slots[name]] = float(v)
        return eqx.tree_at(lambda s: s.driver_values, link, jnp.asarray(dv))

    # --- the pure functions ------------------------------------------------------------
    def _loaded(self, link, Fc, Tc):
        n_c = len(self.names)
        fv = link.force_values.at[-n_c:].set(Fc)
        tv = link.torque_values.at[-n_c:].set(Tc)
        return eqx.tree_at(lambda s: (s.force_values, s.torque_values), link, (fv, tv))

    def contact(self, link, t, x, h, params):
        """Contact forces Fc, torques Tc (n_c, 3) on the contact bodies' centres of mass
        (world), whether each is in contact (n_c,), and the records (n_c, 16) for one step of
        size h from (t, x) (steps 1–2 of the module docstring)."""
        n_c = len(self.names)
        zero = jnp.zeros((n_c, 3))
        free = self._loaded(link, zero, zero)
        W, nud, nu = constrained_motion(free, t, x)
        X, _ = link._split(x)
        u_free = nu + h * nud
        out = []
        for k, b in enumerate(self.index):
            blk = slice(6 * b, 6 * b + 6)
            motion = (W[blk, blk], u_free[blk])
            Fc, Tc, active, rec = body_contact(
                self.volume.tables[k], X[b], zero[k], zero[k], params.mass[k],
                params.inertia[k], params.inv_inertia[k], params, h, self.volume.P,
                self.volume.eps_v, self.volume.kinetic_iterations, motion=motion)[:4]
            if k + 1 < n_c:                         # Gauss–Seidel pass (module docstring)
                G = jnp.zeros_like(u_free).at[6 * b:6 * b + 3].set(Fc).at[
                    6 * b + 3:6 * b + 6].set(Tc)
                u_free = u_free + h * (W @ jnp.where(jnp.isfinite(G), G, 0.0))
            out.append((Fc, Tc, active, rec))
        return tuple(jnp.stack(z) for z in zip(*out))

    def step(self, link, t, x, h, params, tableau):
        """One step of size h (module docstring). Returns (x⁺, records (n_c, 16))."""
        Fc, Tc, active, record = self.contact(link, t, x, h, params)
        loaded = self._loaded(link, Fc, Tc)
        c = jnp.asarray(tableau.c)
        xn = runge_kutta(lambda i, xi: loaded.vector_field(t + c[i] * h, xi), x, h, tableau)
        n_b = link.layout.n_bodies
        X, _ = link._split(x)
        Xn = xn[:13 * n_b].reshape(n_b, 13)
        moving_chain = jnp.any(jnp.asarray(self.chain) & active[None, :], axis=1)  # (n_b,)
        p_semi, q_semi = semi_implicit_pose(X, Xn, h)
        p_semi = jnp.where(jnp.asarray(self.jointed)[:, None], screw_position(X, Xn, h), p_semi)
        Xn = Xn.at[:, :3].set(jnp.where(moving_chain[:, None], p_semi, Xn[:, :3]))
        Xn = Xn.at[:, 3:7].set(jnp.where(moving_chain[:, None], q_semi, Xn[:, 3:7]))
        xn = jnp.concatenate([Xn.reshape(-1), xn[13 * n_b:]])
        return loaded.project(t + h, xn), record

    def __stickslip_key__(self):
        """What the traced run reads from this object (the program store's key across
        processes, :mod:`stickslip.integrate._fingerprint`; the link system is an argument
        of the run and fingerprinted as one): the contact bodies, their chains, the shape
        tables and the contact's static settings. An attribute that `step` or `contact`
        comes to read must be added here: a key that misses it would hand a later system
        the program compiled for another (its value baked in as a constant)."""
        v = self.volume
        return (len(self.names), self.index, self.chain, self.jointed, v.tables, v.P,
                v.eps_v, v.kinetic_iterations)

    def run_function(self, method: str = "rk_gill"):
        """The pure run of one chunk of samples, ``f(carry, link, params, grid, o0) ->
        (carry, states (CHUNK, n_x), records (CHUNK, n_c, 16))``: a ``lax.scan`` over the
        samples o0 … o0 + CHUNK − 1, each a loop over its steps (none past the run's last
        sample). ``carry = (t, x, records)``; ``grid = (dt, n_sub, n_out, n_last, h_last)``
        traced (the run's step pattern: :func:`stickslip.integrate.step_grid`), so a new
        `t_end`, `dt` or `t0` reuses the compiled run, as on the free bodies' JAX route
        (:mod:`._volume_jax_route`)."""
        tableau = FIXED_STEP_METHODS[method]

        def f(carry, link, params, grid, o0):
            dt, n_sub, n_out, n_last, h_last = grid

            def sample(c, o):
                last = o == n_out - 1
                count = jnp.where(o < n_out - 1, n_sub,
                                  jnp.where(last, n_last + (h_last > 0), 0))

                def one(i, c):
                    h = jnp.where(last & (i == n_last), h_last, dt)
                    t, x, _ = c
                    xn, rec = self.step(link, t, x, h, params, tableau)
                    return t + h, xn, rec

                c = lax.fori_loop(0, count, one, c)
                return c, c[1:]

            carry, (xs, recs) = lax.scan(sample, carry, o0 + jnp.arange(CHUNK))
            return carry, xs, recs

        return f


def _links_chunk(pair, carry, params, grid, o0, *, method):
    """One chunk of a volume link system's run (the program store's kernel): `pair` is
    ``(VolumeLinkSystem, LinkSystem)``, split by the store into its static part and the
    link system's arrays."""
    system, link = pair
    return system.run_function(method)(carry, link, params, grid, o0)


def run_volume_links(system: VolumeLinkSystem, t_end: float, *, dt: float = 1e-3,
                     dt_out: float | None = None, method: str = "rk_gill", link=None,
                     params: VolumeParams | None = None, initial=None, t0: float = 0.0):
    """Simulate a `VolumeLinkSystem` from `t0` to `t_end` [s] with step `dt` [s] and return a
    `stickslip.Results` with the link system's states (``<body>.x`` …, ``<joint>.angle``)
    and ``ground-<body>.active … .stick`` (CONTACT_FIELDS).

    One compiled run per structure (contact bodies, shapes, the link system's structure,
    method), called once per CHUNK samples and kept across processes by stickslip's program
    store (`stickslip.integrate.call_with_system`): a new system of the same structure, a new
    `t_end`, `dt`, `t0`, load, driver value or parameter reuses it.

    link: the `LinkSystem` to run (default ``system.link``; e.g. ``system.with_drivers(...)``
    — the same compiled run); params: the volume contact's `VolumeParams`; initial: a state
    vector (default the system's start: the link system's initial state, joint-consistent,
    with contact bodies placed exactly on the ground started in contact, `system.start`).

    Raises `SimulationError` at the first sample whose state is not finite (the core's
    divergence guard, :func:`stickslip.integrate.check_divergence`), after the chunk that
    holds it (no later chunk is run)."""
    from ..results import Results

    if method not in FIXED_STEP_METHODS:
        raise ParameterError(f"`run_volume_links.method` must be one of "
                             f"{sorted(FIXED_STEP_METHODS)}; got {method!r}.")
    link = system.link if link is None else link
    params = system.params() if params is None else params
    if initial is None:
        # the system's start (placed on the ground) for its own link system or one with other
        # driver values (the same poses); another link system's own initial state otherwise
        x0 = np.asarray(initial_state_of(link), dtype=float)
        x0 = system.start if np.array_equal(x0, system.unplaced) else x0
    else:
        x0 = jnp.asarray(initial, dtype=float)
    grid = step_grid(t0, t_end, dt, dt_out, owner="run_volume_links")
    state_names = link.layout.state_names()
    n_c = len(system.names)
    check_run_memory("run_volume_links", samples=grid.n_out + 1,
                     channels=len(state_names) + 16 * n_c, span=t_end - t0, dt=dt,
                     every_step=dt_out is None)
    traced_grid = (np.float64(grid.dt), np.int64(grid.n_sub), np.int64(grid.n_out),
                   np.int64(grid.n_last), np.float64(grid.h_last))
    rec0 = np.zeros((n_c, 16))
    rec0[:, 2:8] = np.nan
    carry = (np.float64(t0), x0, rec0)
    xs, recs = [], []
    for o0 in range(0, grid.n_out, CHUNK):
        carry, xc, rc = call_with_system(_links_chunk, (system, link), carry, params,
                                         traced_grid, np.int64(o0), method=method)
        xs.append(np.asarray(xc))
        recs.append(np.asarray(rc))
        if not np.all(np.isfinite(xs[-1])):     # diverged: stop here, the guard says where
            break
    xs = np.concatenate([np.asarray(x0)[None], *xs])[:grid.n_out + 1]
    recs = np.concatenate([rec0[None], *recs])[:grid.n_out + 1]
    times = grid.times()
    check_divergence("the volume link system", state_names, times[:len(xs)], xs)
    channels = {name: xs[:, k] for k, name in enumerate(state_names)}
    for i, name in enumerate(system.names):
        for j, field in enumerate(CONTACT_FIELDS):
            channels[f"ground-{name}.{field}"] = recs[:, i, j]
    units = {k: v for k, v in link.layout.units().items() if k in channels}
    meta = {"system": "VolumeLinkSystem", "method": method, "dt": dt, "dt_out": grid.dt_out,
            "t0": t0, "t_end": t_end, "steps": grid.n_steps, "contact_bodies": system.names}
    return Results(times, channels, units=units, meta=meta, final_state=xs[-1])


def simulate_model(model, t_end, dt, method, forces, friction, dt_out, lp_solver, initial, t0,
                   contact_update, options):
    """``SpatialModel.simulate(contact="volume")`` on a model with joints, drivers, loads or
    springs: the volume contact of SPEC §7 with the link system's constrained dynamics, one
    jitted run (module docstring). `options`: ``baumgarte``, ``contact_bodies``,
    ``max_polygon``; the volume route's host-side arguments are refused by name."""
    from ..results import Results

    for label, value, default in (("forces", forces, None), ("friction", friction, "pyramid"),
                                  ("lp_solver", lp_solver, "nnls"),
                                  ("contact_update", contact_update, "step")):
        if value != default:
            raise ParameterError(f"`simulate.{label}` is not taken by contact='volume' on a "
                                 "model with joints; use PointForce/BodyTorque elements for "
                                 "loads.")
    build = {k: options.pop(k) for k in ("baumgarte", "contact_bodies", "max_polygon")
             if k in options}
    if options:
        raise ParameterError(f"`simulate` got unknown options {sorted(options)} for "
                             "contact='volume' with joints (it takes baumgarte, "
                             "contact_bodies, max_polygon).")
    system = VolumeLinkSystem(model, **build)
    if isinstance(initial, Results):
        t0 = float(initial.t[-1]) if t0 is None else t0
        initial = initial.final_state
    elif initial is not None:
        # checked and made consistent with the joints as the link route does
        # (`_link_build.consistent_initial`)
        X = np.asarray(initial, dtype=float)
        n_b, start = len(model.bodies), 0.0 if t0 is None else float(t0)
        if X.shape == (n_b, 13) and np.all(np.isfinite(X)):
            X = consistent_initial(system.link, X, start)
            initial = np.concatenate([X.reshape(-1), np.asarray(system.link.s0),
                                      np.asarray(system.link.revolute_angles(X))])
        elif X.ndim == 1 and X.size >= 13 * n_b and np.all(np.isfinite(X)):
            initial = X.copy()
            initial[:13 * n_b] = consistent_initial(
                system.link, X[:13 * n_b].reshape(n_b, 13), start).reshape(-1)
    return run_volume_links(system, t_end, dt=dt, dt_out=dt_out,
                            method="rk_gill" if method is None else method,
                            initial=initial, t0=0.0 if t0 is None else t0)


def _placed_on_the_ground(model, system: VolumeLinkSystem) -> np.ndarray:
    """The link system's initial state with each contact body placed exactly on the ground
    started in contact, as on the volume route (`_model_touch.placed_in_touch`): lowered to
    TOUCH_DEPTH into it, together with the bodies joined to it (a translation keeps their
    joints). A mechanism with a joint to the ground is not moved off it."""
    x0 = system.unplaced.copy()
    n_b = len(model.bodies)
    X = x0[:13 * n_b].reshape(n_b, 13)
    movable = np.zeros(n_b, dtype=bool)
    movable[system.index] = ~system.grounded[system.index]
    drop = X[:, 2] - placed_in_touch(model, X, bodies=False, movable=movable)[:, 2]
    drop = np.max(np.where(system.mechanism, drop[None, :], 0.0), axis=1)
    x0[2:13 * n_b:13] -= drop
    return x0
