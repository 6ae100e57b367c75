"""Constraint rows and contact frames of the spatial link-system engine, one pure function
per joint type and per contact type (evaluated by one ``vmap`` per group of like elements).

Poses are (r, R): centre of mass [m] and rotation matrix, world frame; twists (v, ω), world
frame. A joint's rows Φ(pose_i, pose_j) (see :mod:`._elements` for the rows of each type)
give, by forward-mode differentiation (SPEC §9 in 3-D; the planar host does the same):

* J — the rows' velocity Jacobian, ``Φ̇ = J [v_i; ω_i; v_j; ω_j]``, from the derivative of
  Φ(r + δr, (I + [δθ×]) R) at δ = 0 (12 tangents);
* Φ̇ and J̇ν — the first and second derivatives of Φ along the pose curve
  s ↦ (r + s v, exp(s[ω×]) R) at s = 0 (one nested ``jvp``): the second is exactly J̇ν
  because the twist is constant along that curve; time-dependent rows (drivers) add
  t + s to the curve, so γ = −d²Φ/ds² also carries the driver's −s̈_d.

That is :func:`row_terms` (drivers, and the reference in the tests). The joints' own rows
take :func:`joint_terms`: J written out (:func:`joint_jacobian`) and the same two
derivatives by the product rule (ė = ω × e for a body-fixed vector), which compiles to a
few fused loops instead of dozens of small products — the stage runs about twice as fast
(benchmarks/results/spatial_links.md).

A contact's frame (gap ψ [m], rows t₁, t₂, n of E, the arms from each body's centre of mass
to its contact point) gives the rows [e, arm × e] on body b and their negative on body a,
and J̇ν = d/dt (E (u_b − u_a)) at fixed twists (one ``jvp``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ._rigid import skew, vex

__all__ = ["CONTACT_FRAMES", "JOINT_ROWS", "contact_terms", "coordinate_jacobian", "dot3",
           "driver_terms", "joint_coordinate", "joint_jacobian", "joint_rows", "joint_terms",
           "mm", "mtv", "mv", "row_terms", "row_values", "tangent_basis"]


# Products of 3-vectors and 3×3 matrices written out elementwise: under ``vmap`` a ``@`` of
# such small operands is one batched library call per product (a separate step of the
# compiled program each, ~40 per evaluation of a 6-body system), where these fuse with their
# neighbours into a few loops. Same values up to the order of the three-term sums.
def mv(R, v):
    """R v for R (..., 3, 3), v (..., 3)."""
    return R[..., :, 0] * v[..., 0, None] + R[..., :, 1] * v[..., 1, None] + \
        R[..., :, 2] * v[..., 2, None]


def mtv(R, v):
    """Rᵀ v for R (..., 3, 3), v (..., 3)."""
    return R[..., 0, :] * v[..., 0, None] + R[..., 1, :] * v[..., 1, None] + \
        R[..., 2, :] * v[..., 2, None]


def mm(A, B):
    """A B for A, B (..., 3, 3)."""
    return A[..., :, 0, None] * B[..., 0, None, :] + A[..., :, 1, None] * B[..., 1, None, :] \
        + A[..., :, 2, None] * B[..., 2, None, :]


def dot3(a, b):
    """a · b for a, b (..., 3)."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]


def _points(ri, Ri, rj, Rj, a):
    return rj + mv(Rj, a["s_j"]) - ri - mv(Ri, a["s_i"])


def _rotation_lock(Ri, Rj, a):
    # E = R_i C R_jᵀ with C = R_i0ᵀ R_j0: E = I at the initial pose; vex(E) ≈ the relative
    # rotation vector (3 rows, regular near E = I)
    return vex(mm(mm(Ri, a["C"]), jnp.swapaxes(Rj, -1, -2)))


def _revolute(ri, Ri, rj, Rj, a):
    axis_j = mv(Rj, a["frame_j"][:, 0])
    return jnp.concatenate([_points(ri, Ri, rj, Rj, a),
                            jnp.stack([dot3(mv(Ri, a["frame_i"][:, 1]), axis_j),
                                       dot3(mv(Ri, a["frame_i"][:, 2]), axis_j)])])


def _prismatic(ri, Ri, rj, Rj, a):
    d = _points(ri, Ri, rj, Rj, a)
    return jnp.concatenate([jnp.stack([dot3(mv(Ri, a["frame_i"][:, 1]), d),
                                       dot3(mv(Ri, a["frame_i"][:, 2]), d)]),
                            _rotation_lock(Ri, Rj, a)])


def _spherical(ri, Ri, rj, Rj, a):
    return _points(ri, Ri, rj, Rj, a)


def _fixed(ri, Ri, rj, Rj, a):
    return jnp.concatenate([_points(ri, Ri, rj, Rj, a), _rotation_lock(Ri, Rj, a)])


def _lock_rows(Ri, Rj, a):
    """∂vex(E)/∂(ω_i, ω_j) for E = R_i C R_jᵀ: Ė = [ω_i×]E − E[ω_j×] gives
    vex(Ė) = ½(tr E·I − E) ω_i − ½(tr E·I − Eᵀ) ω_j."""
    E = mm(mm(Ri, a["C"]), Rj.T)
    tr = jnp.trace(E) * jnp.eye(3)
    return 0.5 * (tr - E), -0.5 * (tr - E.T)


def _point_rows(ri, Ri, rj, Rj, a):
    """∂d/∂(v_i, ω_i, v_j, ω_j) of d = r_j + R_j s_j − r_i − R_i s_i: (3, 12)."""
    ai, aj = mv(Ri, a["s_i"]), mv(Rj, a["s_j"])
    eye = jnp.eye(3)
    return jnp.concatenate([-eye, skew(ai), eye, -skew(aj)], axis=1)


def joint_jacobian(kind, ri, Ri, rj, Rj, a):
    """The rows' velocity Jacobian J (k, 12) over [v_i, ω_i, v_j, ω_j], written out (the
    module docstring's derivative; a test checks it against finite differences)."""
    zero = jnp.zeros((1, 3))
    if kind == "SphericalJoint":
        return _point_rows(ri, Ri, rj, Rj, a)
    if kind == "FixedJoint":
        Li, Lj = _lock_rows(Ri, Rj, a)
        z3 = jnp.zeros((3, 3))
        return jnp.concatenate([_point_rows(ri, Ri, rj, Rj, a),
                                jnp.concatenate([z3, Li, z3, Lj], axis=1)])
    e1, e2 = mv(Ri, a["frame_i"][:, 1]), mv(Ri, a["frame_i"][:, 2])
    if kind == "RevoluteJoint":
        u_j = mv(Rj, a["frame_j"][:, 0])
        rows = [jnp.concatenate([zero[0], jnp.cross(e, u_j), zero[0], -jnp.cross(e, u_j)])
                for e in (e1, e2)]
        return jnp.concatenate([_point_rows(ri, Ri, rj, Rj, a), jnp.stack(rows)])
    # prismatic: e_k·d, then the rotation lock
    ai, aj = mv(Ri, a["s_i"]), mv(Rj, a["s_j"])
    d = _points(ri, Ri, rj, Rj, a)
    rows = [jnp.concatenate([-e, jnp.cross(e, d) - jnp.cross(ai, e), e, jnp.cross(aj, e)])
            for e in (e1, e2)]
    Li, Lj = _lock_rows(Ri, Rj, a)
    z3 = jnp.zeros((3, 3))
    return jnp.concatenate([jnp.stack(rows), jnp.concatenate([z3, Li, z3, Lj], axis=1)])


JOINT_ROWS = {"RevoluteJoint": _revolute, "PrismaticJoint": _prismatic,
              "SphericalJoint": _spherical, "FixedJoint": _fixed}


def joint_rows(kind):
    return JOINT_ROWS[kind]


def joint_coordinate(kind, ri, Ri, rj, Rj, a):
    """The joint's coordinate: the angle of j about the axis relative to i [rad] (revolute,
    in (−π, π]) or the slide along the axis [m] (prismatic)."""
    u = mv(Ri, a["frame_i"][:, 0])
    if kind == "RevoluteJoint":
        ai, aj = mv(Ri, a["frame_i"][:, 1]), mv(Rj, a["frame_j"][:, 1])
        return jnp.arctan2(dot3(u, jnp.cross(ai, aj)), dot3(ai, aj))
    return dot3(u, _points(ri, Ri, rj, Rj, a))


def driver_row(kind, ri, Ri, rj, Rj, a, target):
    """A position driver's row: sin(θ − θ_d) for a revolute joint (no wrap at ±π: the
    row is u·(c × a_j) with c the reference direction turned by θ_d), s − s_d for a
    prismatic joint."""
    if kind == "RevoluteJoint":
        u = mv(Ri, a["frame_i"][:, 0])
        ai, aj = mv(Ri, a["frame_i"][:, 1]), mv(Rj, a["frame_j"][:, 1])
        c = jnp.cos(target) * ai + jnp.sin(target) * jnp.cross(u, ai)
        return dot3(u, jnp.cross(c, aj))
    return joint_coordinate(kind, ri, Ri, rj, Rj, a) - target


def driver_terms(kind, mode, ri, Ri, vi, wi, rj, Rj, vj, wj, a, target):
    """(Φ, J (1, 12), Φ̇, J̇ν + time terms) of a driver's row, written out as
    :func:`joint_terms` does (what :func:`row_terms` gets by forward mode; a test compares
    the two). `target` = (θ_d, θ̇_d, θ̈_d): the driven coordinate and its two time
    derivatives at t. `mode` ``"position"``: the row of :func:`driver_row`; ``"velocity"``:
    the coordinate's rate row W ν − θ̇_d (Φ = 0, :func:`coordinate_jacobian`).

    A revolute position row is Φ = g·a_j with g = u × c = cos θ_d (u × a_i) − sin θ_d a_i
    turning with body i (u, a_i body-i-fixed, a_j body-j-fixed), dg/dθ_d = −c, dc/dθ_d = g:

        J = [0, g × a_j, 0, a_j × g],   Φ̇ = J ν − θ̇_d c·a_j,
        Φ̈ = g̈·a_j + 2 ġ·ȧ_j + g·ä_j,   ġ = ω_i × g − θ̇_d c,   ȧ_j = ω_j × a_j,
        g̈ = ω_i × (ω_i × g) − 2 θ̇_d ω_i × c − θ̈_d c − θ̇_d² g,   ä_j = ω_j × ȧ_j

    (at fixed twists: ν̇ = 0). A prismatic coordinate s = u·d (d between the anchors) has
    s̈ = ü·d + 2 u̇·ḋ + u·d̈ with u̇ = ω_i × u; a revolute joint's rate u·(ω_j − ω_i) has
    (ω_i × u)·(ω_j − ω_i)."""
    value, rate_d, accel_d = target
    u = mv(Ri, a["frame_i"][:, 0])
    nu = jnp.concatenate([vi, wi, vj, wj])
    if kind == "RevoluteJoint" and mode == "position":
        ai, aj = mv(Ri, a["frame_i"][:, 1]), mv(Rj, a["frame_j"][:, 1])
        c = jnp.cos(value) * ai + jnp.sin(value) * jnp.cross(u, ai)
        g = jnp.cross(u, c)
        n = jnp.cross(aj, g)
        zero = jnp.zeros(3)
        J = jnp.concatenate([zero, -n, zero, n])[None]
        g1 = jnp.cross(wi, g) - rate_d * c
        aj1 = jnp.cross(wj, aj)
        g2 = (jnp.cross(wi, jnp.cross(wi, g)) - 2.0 * rate_d * jnp.cross(wi, c)
              - accel_d * c - rate_d ** 2 * g)
        second = dot3(g2, aj) + 2.0 * dot3(g1, aj1) + dot3(g, jnp.cross(wj, aj1))
        rate = jnp.sum(J[0] * nu) - rate_d * dot3(c, aj)
        return dot3(g, aj)[None], J, rate[None], second[None]
    J = coordinate_jacobian(kind, ri, Ri, rj, Rj, a)
    u1 = jnp.cross(wi, u)
    if kind == "RevoluteJoint":
        coordinate = jnp.zeros(())                       # velocity mode only
        second = dot3(u1, wj - wi)
    else:
        si, sj = mv(Ri, a["s_i"]), mv(Rj, a["s_j"])
        d = rj + sj - ri - si
        d1 = vj + jnp.cross(wj, sj) - vi - jnp.cross(wi, si)
        d2 = jnp.cross(wj, jnp.cross(wj, sj)) - jnp.cross(wi, jnp.cross(wi, si))
        coordinate = dot3(u, d)
        second = dot3(jnp.cross(wi, u1), d) + 2.0 * dot3(u1, d1) + dot3(u, d2)
    phi = coordinate - value if mode == "position" else jnp.zeros(())
    return phi[None], J, (jnp.sum(J[0] * nu) - rate_d)[None], (second - accel_d)[None]


def _perturbed(fn, ri, Ri, rj, Rj):
    """fn at the pose perturbed by ξ = (δr_i, δθ_i, δr_j, δθ_j) (first order in δθ)."""
    eye = jnp.eye(3)

    def at(xi):
        return fn(ri + xi[0:3], mm(eye + skew(xi[3:6]), Ri),
                  rj + xi[6:9], mm(eye + skew(xi[9:12]), Rj))
    return at


def coordinate_jacobian(kind, ri, Ri, rj, Rj, a):
    """∂ṡ/∂(v_i, ω_i, v_j, ω_j) of a joint's coordinate: u·(ω_j − ω_i) for a revolute joint,
    the prismatic row e·d with e = u for a prismatic one (1, 12)."""
    u = mv(Ri, a["frame_i"][:, 0])
    zero = jnp.zeros(3)
    if kind == "RevoluteJoint":
        return jnp.concatenate([zero, -u, zero, u])[None]
    ai, aj = mv(Ri, a["s_i"]), mv(Rj, a["s_j"])
    d = _points(ri, Ri, rj, Rj, a)
    return jnp.concatenate([-u, jnp.cross(u, d) - jnp.cross(ai, u), u, jnp.cross(aj, u)])[None]


def _jacobian(fn, jac, ri, Ri, rj, Rj):
    if jac is not None:
        return jac(ri, Ri, rj, Rj)
    return jax.jacfwd(_perturbed(lambda a, b, c, d: fn(a, b, c, d, 0.0), ri, Ri, rj, Rj))(
        jnp.zeros(12, ri.dtype))


def row_values(fn, ri, Ri, rj, Rj, jac=None):
    """(Φ, J (k, 12)) of rows ``fn(ri, Ri, rj, Rj, s)`` at s = 0 (no time derivatives:
    for the projection and the build's checks). `jac`: the written-out Jacobian
    ``jac(ri, Ri, rj, Rj)``, else forward mode (12 tangents)."""
    return fn(ri, Ri, rj, Rj, 0.0), _jacobian(fn, jac, ri, Ri, rj, Rj)


def row_terms(fn, ri, Ri, vi, wi, rj, Rj, vj, wj, jac=None):
    """(Φ, J (k, 12), Φ̇, J̇ν (+ the time terms)) of rows ``fn(ri, Ri, rj, Rj, s)`` where s
    is the time offset along the curve (module docstring); `jac` as in `row_values`."""
    J = _jacobian(fn, jac, ri, Ri, rj, Rj)
    Wi, Wj = skew(wi), skew(wj)

    def along(s):
        Ei = jnp.eye(3) + s * Wi + 0.5 * s * s * mm(Wi, Wi)
        Ej = jnp.eye(3) + s * Wj + 0.5 * s * s * mm(Wj, Wj)
        return fn(ri + s * vi, mm(Ei, Ri), rj + s * vj, mm(Ej, Rj), s)

    def first(s):
        return jax.jvp(along, (s,), (jnp.ones_like(s),))

    zero = jnp.zeros((), ri.dtype)
    (phi, rate), (_, second) = jax.jvp(first, (zero,), (jnp.ones_like(zero),))
    return phi, J, rate, second


def joint_terms(kind, ri, Ri, vi, wi, rj, Rj, vj, wj, a):
    """(Φ, J (k, 12), Φ̇, J̇ν) of a joint's rows, the time derivatives written out: what
    :func:`row_terms` gets by forward mode along the curve (r + s v, exp(s[ω×]) R), here
    from Ṙ = [ω×]R, R̈ = [ω×]²R at fixed twists — a body-fixed vector e rotates as
    ė = ω × e, ë = ω × (ω × e) — so the rows' first and second derivatives follow by the
    product rule (no nested tangents: a few fused loops where forward mode spawned dozens
    of small products). Mathematically the same values; a test compares the two."""
    J = joint_jacobian(kind, ri, Ri, rj, Rj, a)
    ai, aj = mv(Ri, a["s_i"]), mv(Rj, a["s_j"])
    d = rj + aj - ri - ai
    d1 = vj + jnp.cross(wj, aj) - vi - jnp.cross(wi, ai)
    d2 = jnp.cross(wj, jnp.cross(wj, aj)) - jnp.cross(wi, jnp.cross(wi, ai))
    if kind == "SphericalJoint":
        return d, J, d1, d2

    def spin(w, e):                    # (ė, ë) of a vector rotating with ω
        e1 = jnp.cross(w, e)
        return e1, jnp.cross(w, e1)

    def lock():                        # vex of E = R_i C R_jᵀ and its two derivatives
        E = mm(mm(Ri, a["C"]), Rj.T)
        Wi, Wj = skew(wi), skew(wj)
        WiE = mm(Wi, E)
        E1 = WiE - mm(E, Wj)
        E2 = mm(Wi, WiE) - 2.0 * mm(WiE, Wj) + mm(E, mm(Wj, Wj))
        return vex(E), vex(E1), vex(E2)
    if kind == "FixedJoint":
        p, p1, p2 = lock()
        return (jnp.concatenate([d, p]), J, jnp.concatenate([d1, p1]),
                jnp.concatenate([d2, p2]))
    es = [mv(Ri, a["frame_i"][:, k]) for k in (1, 2)]
    if kind == "RevoluteJoint":
        u = mv(Rj, a["frame_j"][:, 0])
        u1, u2 = spin(wj, u)
        rows, rates, seconds = [], [], []
        for e in es:
            e1, e2 = spin(wi, e)
            rows.append(dot3(e, u))
            rates.append(dot3(e1, u) + dot3(e, u1))
            seconds.append(dot3(e2, u) + 2.0 * dot3(e1, u1) + dot3(e, u2))
        return (jnp.concatenate([d, jnp.stack(rows)]), J,
                jnp.concatenate([d1, jnp.stack(rates)]),
                jnp.concatenate([d2, jnp.stack(seconds)]))
    if kind == "PrismaticJoint":
        rows, rates, seconds = [], [], []
        for e in es:
            e1, e2 = spin(wi, e)
            rows.append(dot3(e, d))
            rates.append(dot3(e1, d) + dot3(e, d1))
            seconds.append(dot3(e2, d) + 2.0 * dot3(e1, d1) + dot3(e, d2))
        p, p1, p2 = lock()
        return (jnp.concatenate([jnp.stack(rows), p]), J,
                jnp.concatenate([jnp.stack(rates), p1]),
                jnp.concatenate([jnp.stack(seconds), p2]))
    raise ValueError(f"no written-out rows for {kind}")


# --- contacts --------------------------------------------------------------------------------
def tangent_basis(n):
    """Rows (t₁, t₂, n) of an orthonormal frame with third row n (t₁ from the world axis
    least aligned with n; the cone is isotropic, so the basis' choice does not matter)."""
    helper = jnp.where(jnp.abs(n[0]) < 0.9, jnp.array([1.0, 0.0, 0.0]),
                       jnp.array([0.0, 1.0, 0.0]))
    t1 = jnp.cross(helper, n)
    t1 = t1 / jnp.sqrt(jnp.sum(t1 * t1))
    return jnp.stack([t1, jnp.cross(n, t1), n])


# the world frame's axes, put on the device from NumPy (``jnp.eye`` here compiled five tiny
# programs when the module was imported)
_WORLD = jax.device_put(np.eye(3))


def _ground_vertex(ra, Ra, rb, Rb, c):
    arm_b = mv(Rb, c["point"])
    psi = rb[2] + arm_b[2] - c["height"]
    return psi, _WORLD, jnp.zeros(3), arm_b


def _ground_sphere(ra, Ra, rb, Rb, c):
    arm_b = -c["radius_b"] * _WORLD[2]
    return rb[2] - c["radius_b"] - c["height"], _WORLD, jnp.zeros(3), arm_b


def _sphere_sphere(ra, Ra, rb, Rb, c):
    d = rb - ra
    dist = jnp.sqrt(jnp.sum(d * d) + 1e-300)
    n = d / dist
    return (dist - c["radius_a"] - c["radius_b"], tangent_basis(n), c["radius_a"] * n,
            -c["radius_b"] * n)


def _box_faces(p, half):
    """Signed distances of p (box frame) to the six face planes, and their normals."""
    normals = jnp.concatenate([jnp.eye(3), -jnp.eye(3)])
    return jnp.sum(normals * p, axis=1) - jnp.concatenate([half, half]), normals


# a vertex at (or within round-off outside) a box's edge is in it, and takes the face whose
# distance plus this fraction of the box's smallest half-size times the face normal's cosine
# toward the vertex's body is largest (`_vertex_box`)
EDGE_ROUND_OFF = 1e-9
EDGE_BAND = 0.05


def _vertex_box(ra, Ra, rb, Rb, c):
    """Vertex of body b against box a: the gap is the largest face distance (exact inside
    and in front of a face; below the true distance beside an edge), normal that face's.

    A vertex on an edge (a cube on an identical cube: every corner on the lower one's top
    rim) is as far from the side face (0) as from the top (0), and once it sank by
    round-off the side face won: the gap read 0 along a horizontal normal, nothing held the
    top cube up, and it fell through the lower one unseen. A vertex inside the box (or on
    its surface) therefore takes the face that maximises its distance plus EDGE_BAND times
    the box's smallest half-size times the cosine between its normal and the direction to
    body b's centre: of faces about as deep, the one looking toward body b (up, for a body
    stacked on it; sideways, for one beside it)."""
    P = rb + mv(Rb, c["point"])
    half = c["half_a"]
    dist, normals = _box_faces(mtv(Ra, P - ra), half)
    toward = mtv(Ra, rb - ra)
    toward = toward / jnp.sqrt(jnp.sum(toward * toward) + 1e-300)
    size = jnp.min(half)
    inside = jnp.max(dist) <= EDGE_ROUND_OFF * size
    k = jnp.where(inside, jnp.argmax(dist + EDGE_BAND * size * (normals @ toward)),
                  jnp.argmax(dist))
    n = mv(Ra, normals[k])
    return dist[k], tangent_basis(n), P - ra, P - rb


def _sphere_box(ra, Ra, rb, Rb, c):
    """Sphere b against box a: nearest point of the box to the centre (outside), or the
    nearest face (centre inside)."""
    p = mtv(Ra, rb - ra)
    half = c["half_a"]
    clamped = jnp.clip(p, -half, half)
    out = p - clamped
    out_norm = jnp.sqrt(jnp.sum(out * out) + 1e-300)
    dist, normals = _box_faces(p, half)
    k = jnp.argmax(dist)
    inside = out_norm < 1e-12
    n_local = jnp.where(inside, normals[k], out / out_norm)
    gap = jnp.where(inside, dist[k], out_norm) - c["radius_b"]
    n = mv(Ra, n_local)
    contact = rb - c["radius_b"] * n
    return gap, tangent_basis(n), contact - ra, contact - rb


CONTACT_FRAMES = {"ground-vertex": _ground_vertex, "ground-sphere": _ground_sphere,
                  "sphere-sphere": _sphere_sphere, "vertex-box": _vertex_box,
                  "sphere-box": _sphere_box}


def contact_terms(kind, ra, Ra, va, wa, rb, Rb, vb, wb, c):
    """(ψ, J (3, 12) over [v_a, ω_a, v_b, ω_b], J ν, J̇ν) of one contact (rows t₁, t₂, n)."""
    frame = CONTACT_FRAMES[kind]

    def relative(ra, Ra, rb, Rb):
        psi, E, arm_a, arm_b = frame(ra, Ra, rb, Rb, c)
        u = (vb + jnp.cross(wb, arm_b)) - (va + jnp.cross(wa, arm_a))
        Jb = jnp.concatenate([E, jnp.stack([jnp.cross(arm_b, e) for e in E])], axis=1)
        Ja = jnp.concatenate([E, jnp.stack([jnp.cross(arm_a, e) for e in E])], axis=1)
        return psi, jnp.concatenate([-Ja, Jb], axis=1), mv(E, u)

    (psi, J, u), (_, _, u_dot) = jax.jvp(relative, (ra, Ra, rb, Rb),
                                         (va, mm(skew(wa), Ra), vb, mm(skew(wb), Rb)))
    return psi, J, u, u_dot
