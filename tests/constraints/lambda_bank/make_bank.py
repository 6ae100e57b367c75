"""Write the bank of stored λ-problem instances (SPEC §6) — run once, not by the suite.

    .venv/bin/python tests/constraints/lambda_bank/make_bank.py

Each instance is the λ-problem (blocks, A, b) that one of stickslip's own models solves at a
chosen state (:mod:`capture`), or a random well-posed one with a stated seed. For the
piecewise-linear ones (planar contacts, ℝ₊ and [−F, F] rows) :mod:`solution_set` decides,
by linear programs over every mode combination, whether the solution is unique, several
(Painlevé) or absent, for the seed's law (``"kikuuwe"``) and Anitescu's (``"anitescu"``).
Spatial cones get "unique" where the monotonicity bound λ_min(A) > μ_max‖A_T‖_F holds
(the bilateral rows eliminated first), else "unknown". Then ``siconos_solve.py`` runs under
the system Python (Siconos 4.4, ``/usr/bin/python3``) and adds Siconos' solution and
residual to each file. Files: ``instances/<name>.json`` (format in ``__init__.py``).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from capture import captured
from solution_set import solution_set

OUT = HERE / "instances"
G = 9.81


# --- planar models (stickslip.planar) ------------------------------------------------------
def _planar(model, t=0.0, x=None):
    from stickslip.planar import _stage_lambda as host
    from stickslip.planar._contact_simulate import contact_system

    system = contact_system(model)
    return captured(host, system, t, system.initial_state() if x is None else x)


def _box2d(phi=0.0, mu=0.5, xd=0.0, phid=0.0, corners=2):
    """A 1 kg box 0.2 m × 0.1 m on the floor, its bottom corners (or one) as point contacts;
    tilted by φ about the corner (−a, −h) that stays on the floor."""
    import stickslip as ss

    a, h = 0.1, 0.05
    m = ss.planar.Model(gravity=(0.0, -G), name="box2d")
    c, s = math.cos(phi), math.sin(phi)
    # the centre so that the corner (−a, −h) sits at the origin
    x0, y0 = a * c - h * s, a * s + h * c
    body = m.add_body("box", mass=1.0, inertia=(0.2 ** 2 + 0.1 ** 2) / 12, x=x0, y=y0,
                      phi=phi, xd=xd, phid=phid)
    for k, px in enumerate((-a, a)[:corners]):
        m.add(ss.planar.PointLineContact(m.ground, body, point_j=(px, -h), mu=mu,
                                         delta=1e-3, name=f"corner{k + 1}"))
    return m


def _rod_on_wall(mu, theta=math.pi / 3, l=0.5, fall=0.0):
    """A uniform 1 kg rod (half-length l) leaning on a wall at x = 0 (its free side +x) with
    its lower end on the floor, at θ from the floor; at rest, or falling at θ̇ = −`fall`
    [rad/s] with both ends sliding (the floor end away from the wall, the other down it)."""
    import stickslip as ss

    m = ss.planar.Model(gravity=(0.0, -G), name="rod_on_wall")
    rate = -fall
    body = m.add_body("rod", mass=1.0, inertia=l * l / 3, x=l * math.cos(theta),
                      y=l * math.sin(theta), phi=math.pi - theta,
                      xd=-l * math.sin(theta) * rate, yd=l * math.cos(theta) * rate,
                      phid=-rate)
    # the body axis (φ = π − θ) points from the floor end (−l) to the wall end (+l)
    m.add(ss.planar.PointLineContact(m.ground, body, point_j=(-l, 0.0), mu=mu, delta=1e-2,
                                     name="floor"))
    m.add(ss.planar.PointLineContact(m.ground, body, point_j=(l, 0.0),
                                     line_point_i=(0.0, 0.0), line_axis_i=(0.0, -1.0), mu=mu,
                                     delta=1e-2, name="wall"))
    return m


def planar_instances():
    from stickslip.planar._contact_examples import block_on_incline, painleve_rod

    out = []
    for name, theta, mu, v0, words in [
            ("incline_stick", 20.0, 0.5, 0.0, "below the friction angle (tan θ < μ), at rest"),
            ("incline_breakaway", math.degrees(math.atan(0.5)), 0.5, 0.0,
             "exactly at the friction angle (tan θ = μ), at rest: stick = slide"),
            ("incline_slide", 35.0, 0.4, 0.0, "above the friction angle, at rest"),
            ("incline_sliding", 30.0, 0.3, 0.5, "sliding down at 0.5 m/s, μ < tan θ")]:
        out.append((name, f"planar block_on_incline(θ={theta:.4f}°, μ={mu}, v0={v0}): {words}",
                    _planar(block_on_incline(math.radians(theta), mu, v0=v0))))
    out.append(("box2d_flat", ("planar 1 kg box 0.2×0.1 m resting flat on two corners, μ=0.5 "
                "(statically indeterminate: λ_t1 − λ_t2 free)"), _planar(_box2d())))
    out.append(("box2d_sliding", "planar box on two corners sliding at 1 m/s, μ=0.5",
                _planar(_box2d(xd=1.0))))
    out.append(("box2d_tilted_corner", "planar box tilted 20° on one corner, at rest, μ=0.5",
                _planar(_box2d(phi=math.radians(20.0), corners=1))))
    out.append(("box2d_tilted_corner_mu0", ("planar box tilted 20° on one corner, at rest, "
                "frictionless (μ=0)"), _planar(_box2d(phi=math.radians(20.0), mu=0.0,
                                                       corners=1))))
    rod = {"theta": math.radians(45.0), "V": -0.5, "u": 0.08, "delta": 0.01}
    for mu, words in [(0.3, "one solution"), (1.6, ("one solution: below the window, which "
                      "opens where sticking becomes admissible")),
                      (2.5, ("inside the Painlevé window: several solutions "
                       "(tests/constraints/test_planar_contacts.py)"))]:
        out.append((f"painleve_rod_mu{mu}", (f"planar painleve_rod(μ={mu}, θ=45°, V=−0.5, "
                    f"u=0.08, δ=0.01): {words}"), _planar(painleve_rod(mu, **rod))))
    for mu in (0.3, 2.0):
        out.append((f"rod_on_wall_mu{mu}", (f"planar rod leaning at 60° on a wall and the "
                    f"floor, at rest, μ={mu} at both"), _planar(_rod_on_wall(mu))))
    return out


def slider_instances():
    """The clearance slider: centred (every corner apart), then run states where corners
    touch the guide (the first touch, and the states with the most corners touching)."""
    from stickslip.planar._contact_examples import clearance_slider_crank
    from stickslip.planar._contact_simulate import contact_system

    model = clearance_slider_crank(delta=1e-3)
    out = [("slider_centred", ("planar clearance_slider_crank(μ=0.01, δ=1e-3) at t=0: the "
            "slider centred, all four corners apart"), _planar(model))]
    system = contact_system(model)
    res = model.simulate(0.06, dt=2.5e-4, dt_out=1e-3)
    normals = np.array([res[n] for n in res.names if n.startswith("guide.fn")])
    touching = np.sum(normals > 1e-9, axis=0)
    first = int(np.argmax(touching > 0))
    most = np.flatnonzero(touching == touching.max())
    picks = sorted({first, int(most[0]), int(most[len(most) // 2])})
    for k in picks:
        x = np.array([res[n][k] if n in res.names else 0.0 for n in system.state_names])
        out.append((f"slider_t{res.t[k]:.3f}", (f"planar clearance_slider_crank(μ=0.01, "
                    f"δ=1e-3, ω=20 rad/s) at t={res.t[k]:.3f} s of a run (dt=2.5e-4), "
                    f"{int(touching[k])} corner(s) touching the guide"),
                    _planar(model, res.t[k], x)))
    return out


# --- 3-D models (stickslip.spatial) --------------------------------------------------------
def _cube(angle_y=0.0, angle_x=0.0, velocity=(0.0, 0.0, 0.0), spin=(0.0, 0.0, 0.0), **loads):
    """The 1 kg cube of side 0.1 m of tests/constraints/test_point_contacts.py, μ = 0.5,
    rotated about y then x, its lowest point on the ground."""
    import stickslip as ss
    from stickslip.spatial import _point_contacts as host

    side = 0.1
    qy = np.array([math.cos(angle_y / 2), 0.0, math.sin(angle_y / 2), 0.0])
    qx = np.array([math.cos(angle_x / 2), math.sin(angle_x / 2), 0.0, 0.0])
    w1, x1, y1, z1 = qx
    w2, x2, y2, z2 = qy
    q = np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                  w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])
    R = _rotation(q)
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1)
                        for sz in (-1, 1)]) * side / 2
    z0 = -np.min(corners @ R.T[:, 2])
    model = ss.spatial.Model(gravity=(0.0, 0.0, -G))
    model.add_body("box", mass=1.0, inertia=None, shape=ss.spatial.Box(side, side, side),
                   position=(0.0, 0.0, z0), orientation=tuple(q), velocity=velocity,
                   angular_velocity=spin)
    model.add_ground(mu_s=0.5, mu_k=0.5)
    system = ss.spatial.PointContacts.from_model(model, **loads)
    return captured(host, system, 0.0, system.initial_state())


def _rotation(q):
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def spatial_instances():
    from stickslip.spatial import _link_dynamics as link_host
    from stickslip.spatial._examples_contact import gripper

    bottom = {"force_point": (0.0, 0.0, -0.05)}
    out = [("box3d_flat_rest", ("3-D 1 kg cube (side 0.1 m, 8 vertex contacts, 4 on the "
            "ground) resting flat, μ=0.5: statically indeterminate"), _cube())]
    for name, fx, words in [("below", 4.0, "below breakaway (μ m g = 4.905 N)"),
                            ("at", 0.5 * G, "exactly at breakaway, F = μ m g"),
                            ("above", 6.0, "above breakaway")]:
        out.append((f"box3d_push_{name}", (f"3-D cube at rest pushed by F_x = {fx:.4g} N at "
                    f"the centre of its bottom face, {words}"),
                    _cube(force=(fx, 0.0, 0.0), **bottom)))
    out.append(("box3d_push_twist", ("3-D cube at rest pushed by (2, 1, 0) N with a torque "
                "0.4 N·m about z at its bottom face (the 'slides and turns' load)"),
                _cube(force=(2.0, 1.0, 0.0), torque=(0.0, 0.0, 0.4), **bottom)))
    out.append(("box3d_tilted_edge", ("3-D cube tilted 30° about y, resting on an edge (2 "
                "vertices on the ground), at rest"), _cube(angle_y=math.radians(30.0))))
    out.append(("box3d_tilted_corner", ("3-D cube tilted 30° about y and 20° about x, on one "
                "vertex, at rest"), _cube(angle_y=math.radians(30.0),
                                         angle_x=math.radians(20.0))))
    out.append(("box3d_sliding_spinning", ("3-D cube flat on the ground sliding at 1 m/s "
                "along x and spinning at 3 rad/s about z"),
                _cube(velocity=(1.0, 0.0, 0.0), spin=(0.0, 0.0, 3.0))))
    for grip, words in [(10.0, "held (2 μ G = 10 N > m g = 4.9 N)"),
                        (4.5, "too weak a grip (2 μ G = 4.5 N < m g): it slips")]:
        model = gripper(grip)
        system = model.link_system()
        out.append((f"gripper_grip{grip:g}", (f"3-D spatial gripper(grip={grip} N): two finger "
                    f"plates on prismatic joints squeeze a 0.5 kg box, μ=0.5, at rest; {words}"),
                    captured(link_host, system, 0.0, system.initial_state())))
    return out


# --- Painlevé-prone: sliding rods, and two-contact bodies chosen by their solution set ----
def _two_contact_body(rng, in_range):
    """One planar rigid body (m = 1 kg, J = 0.02 kg m²) touching at two random points with
    random normals, μ ∈ [0.5, 3]: A = J M⁻¹ Jᵀ of rank 3; b = A x with x ~ 50 N(0, 1) (in
    A's range: the frictionless and Anitescu problems are solvable) if `in_range`, else
    b ~ 50 N(0, 1)."""
    mu = float(rng.uniform(0.5, 3.0))
    rows = []
    for _ in range(2):
        p = rng.normal(size=2) * 0.5
        a = rng.uniform(0.0, 2.0 * np.pi)
        n = np.array([np.cos(a), np.sin(a)])
        t = np.array([n[1], -n[0]])
        for d in (t, n):
            rows.append([d[0], d[1], p[0] * d[1] - p[1] * d[0]])
    J = np.array(rows)
    A = J @ np.diag([1.0, 1.0, 1.0 / 0.02]) @ J.T
    blocks = [{"kind": "planar_contact", "size": 2, "mu": mu} for _ in range(2)]
    x = rng.normal(size=4) * 50.0
    return blocks, A, (A @ x if in_range else x)


def painleve_instances():
    out = []
    for mu in (0.5, 2.0):
        out.append((f"rod_on_wall_falling_mu{mu}", ("planar rod leaning at 60° on a wall and "
                    f"the floor, falling at 1 rad/s (both ends sliding), μ={mu} at both"),
                    _planar(_rod_on_wall(mu, fall=1.0))))
    for seed, want in ((21, "none"), (22, "several"), (23, "several")):
        rng = np.random.default_rng(seed)
        for draw in range(1, 2000):
            blocks, A, b = _two_contact_body(rng, in_range=want != "none")
            if solution_set(blocks, A, b)["status"] != want:
                continue
            frictionless = [dict(blk, mu=0.0) for blk in blocks]
            if solution_set(frictionless, A, b)["status"] == "unique":
                break
        else:
            raise RuntimeError(f"no draw of default_rng({seed}) has {want!r} solutions")
        out.append((f"random_seed{seed}", (f"random Painlevé-prone: one planar body on two "
                    f"contacts (make_bank._two_contact_body), the first of the draws of "
                    f"numpy default_rng({seed}) whose λ-problem has {want!r} solutions while "
                    f"its frictionless version (μ = 0) has one: draw "
                    f"{draw}"), (blocks, A, b)))
    return out


# --- random well-posed instances -----------------------------------------------------------
def _random(seed, kinds, rank_extra=2, singular_rank=None, mu_max=1.0, ridge=1e-2):
    rng = np.random.default_rng(seed)
    blocks = []
    for kind in kinds:
        if kind.startswith("bilateral"):
            blocks.append({"kind": "bilateral", "size": int(kind[9:] or 1)})
        elif kind == "unilateral":
            blocks.append({"kind": "unilateral", "size": 1})
        elif kind == "coulomb":
            blocks.append({"kind": "coulomb", "size": 1, "bound": float(rng.uniform(0.5, 5))})
        else:
            blocks.append({"kind": kind, "size": 2 if kind == "planar_contact" else 3,
                           "mu": float(rng.uniform(0.0, mu_max))})
    m = sum(blk["size"] for blk in blocks)
    cols = singular_rank if singular_rank else m + rank_extra
    J = rng.normal(size=(m, cols))
    A = J @ J.T / cols + (0.0 if singular_rank else ridge) * np.eye(m)
    b = rng.normal(size=m) * 10.0
    if singular_rank:                              # b in A's range: solutions can exist
        b = A @ rng.normal(size=m) * 10.0
    return blocks, A, b


def random_instances():
    p = "planar_contact"
    s = "spatial_contact"
    # structures shared with the models' instances (one body on two contacts; the clearance
    # slider's 7 joint rows and 4 corners; 2 spatial cones): each structure compiles once
    specs = [
        (11, ["bilateral7", p, p, p, p], {}, "4 planar contacts + 7 bilateral rows, regular A"),
        (12, ["bilateral7", p, p, p, p], {"mu_max": 2.0}, ("4 planar contacts + 7 bilateral "
         "rows, regular A, μ ≤ 2")),
        (13, [p, p], {}, "2 planar contacts, regular A"),
        (14, [p, p, "unilateral", "coulomb"], {}, ("2 planar contacts, a unilateral row and "
         "a [−F, F] row")),
        (15, [p, p], {"singular_rank": 3}, ("2 planar contacts, A of rank 3 (b in its "
         "range): statically indeterminate")),
        (16, [s, s], {"mu_max": 0.1, "ridge": 2.0}, "2 spatial contacts, μ ≤ 0.1, A + 2I"),
        (17, [s, s], {}, "2 spatial contacts, μ ≤ 1"),
        (18, [s, s], {"mu_max": 0.1, "ridge": 2.0, "rank_extra": 0},
         "2 spatial contacts, μ ≤ 0.1, square J, A + 2I"),
    ]
    out = []
    for seed, kinds, opts, words in specs:
        out.append((f"random_seed{seed}", (f"random: {words}; numpy default_rng({seed}) in "
                    "make_bank._random (A = J Jᵀ/cols + ridge·I, b ~ 10 N(0, 1))"),
                    _random(seed, kinds, **opts)))
    return out


# --- uniqueness, and writing -----------------------------------------------------------------
def _reduced(blocks, A, b):
    """A and b on the contact rows after the bilateral rows' Schur complement."""
    offsets = np.cumsum([0] + [blk["size"] for blk in blocks])
    bil = np.concatenate([np.arange(o, o + blk["size"]) for blk, o in zip(blocks, offsets)
                          if blk["kind"] == "bilateral"] or [np.zeros(0, int)]).astype(int)
    con = np.setdiff1d(np.arange(len(b)), bil)
    if not bil.size:
        return A, b, con
    X = np.linalg.solve(A[np.ix_(bil, bil)], np.column_stack([A[np.ix_(bil, con)], b[bil]]))
    return (A[np.ix_(con, con)] - A[np.ix_(con, bil)] @ X[:, :-1],
            b[con] - A[np.ix_(con, bil)] @ X[:, -1], con)


def _spatial_uniqueness(blocks, A, b, formulation):
    A_r, _, _con = _reduced(blocks, A, b)
    contacts = [blk for blk in blocks if blk["kind"] == "spatial_contact"]
    smallest = float(np.linalg.eigvalsh(0.5 * (A_r + A_r.T))[0])
    if formulation == "anitescu":
        # monotone: w unique; λ unique where A_r is regular
        regular = smallest > 1e-9 * float(np.max(np.abs(A_r)))
        return {"status": "unique", "w_unique": True, "lam_unique": regular,
                "how": "Anitescu's law is monotone (a convex QP's KKT): w unique; λ unique "
                       "iff A (bilateral rows eliminated) is regular"}
    tangential = [3 * k + j for k in range(len(contacts)) for j in (0, 1)]
    mu_max = max(blk["mu"] for blk in contacts)
    bound = mu_max * float(np.sqrt(np.sum(A_r[tangential] ** 2)))
    if smallest > bound:
        return {"status": "unique", "w_unique": True, "lam_unique": True,
                "how": f"monotonicity bound λ_min(A)={smallest:.4g} > μ_max‖A_T‖_F="
                       f"{bound:.4g}"}
    return {"status": "unknown", "w_unique": None, "lam_unique": None,
            "how": f"no certificate (λ_min(A)={smallest:.3g} ≤ μ_max‖A_T‖_F={bound:.3g})"}


def uniqueness(blocks, A, b):
    out = {}
    for formulation in ("kikuuwe", "anitescu"):
        if any(blk["kind"] == "spatial_contact" for blk in blocks):
            out[formulation] = _spatial_uniqueness(blocks, A, b, formulation)
        else:
            rec = solution_set(blocks, A, b, formulation)
            rec["how"] = (f"solution_set.py: {rec['combinations']} mode combinations as "
                          f"linear programs, {rec['feasible_combinations']} feasible")
            out[formulation] = rec
    return out


def write(name, source, problem, seed=None):
    blocks, A, b = problem
    A = 0.5 * (A + A.T)                            # round-off asymmetry of J M⁻¹ Jᵀ
    record = {"name": name, "source": source, "seed": seed,
              "contact_dimension": 3 if any(blk["kind"] == "spatial_contact"
                                            for blk in blocks) else 2,
              "row_order": "stickslip's: (t, n) per planar contact, (t1, t2, n) per "
                           "spatial contact; w = A λ − b",
              "blocks": blocks, "A": A.tolist(), "b": b.tolist(),
              "solution_set": uniqueness(blocks, A, b), "siconos": {}}
    (OUT / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")
    print(f"{name}: m={len(b)}, "
          + ", ".join(f"{f}: {r['status']}" for f, r in record["solution_set"].items()),
          flush=True)


def main(argv):
    OUT.mkdir(exist_ok=True)
    groups = {"planar": planar_instances, "slider": slider_instances,
              "spatial": spatial_instances,
              "random": random_instances, "painleve": painleve_instances}
    siconos = "--no-siconos" not in argv
    argv = [a for a in argv if a != "--no-siconos"]
    for group in (argv or list(groups)):
        for name, source, problem in groups[group]():
            seed = (int(name.removeprefix("random_seed")) if name.startswith("random_seed")
                    else None)
            write(name, source, problem, seed)
    # Siconos' solutions, under the system Python (python3-siconos is not in the venv)
    if siconos:
        subprocess.run(["/usr/bin/python3", str(HERE / "siconos_solve.py"), str(OUT)], check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
