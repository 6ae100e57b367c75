"""Benchmark of issue 20's box-under-force protocol: stickslip point contacts (SPEC §6, the
λ-problem with spatial friction cones) against MuJoCo (elliptic cone, noslip iterations).

A 1 kg cube of side 0.1 m rests on the ground, μ = 0.5. A horizontal force F_x ∈ {0, 0.25,
…, 5} N and a vertical torque T_z ∈ {0, 0.015, …, 0.3} N·m act at the centre of its bottom
face: 21 × 21 = 441 trials of 1 s. A trial *holds* when the box moves < 1 mm and turns
< 0.01 rad. The breakaway error is the distance of the held/slid boundary (the midpoint
between the last load that holds and the first that slides) from the theory on each axis:
μ m g = 4.905 N for the pure force and μ m g r = 0.3468 N·m (r = 0.05√2 m: four corners
carrying m g / 4 each) for the pure torque.

stickslip runs the 441 trials with one compile — the loads are traced data of
``PointContacts`` — both one after another through the compiled program and all at once in
one ``jax.vmap`` (``ss.simulate_batch``; under ``vmap`` every λ-solve iterates as long as
its slowest member needs), RK4 at ``--dt``. MuJoCo
(an optional dependency: ``pip install stickslip[bench]``; skipped when absent) runs a box
geom on a plane with ``opt.cone = mjCONE_ELLIPTIC``, ``--noslip`` noslip iterations and the
same loads through ``xfrc_applied`` (the force's moment about the centre of mass added to
the torque), after settling 0.2 s on its soft contact (untimed). Wall times: compile (first
call − run) and run separately; the load average with them (2-core machine, shared).

    python benchmarks/spatial_box_force.py [--dt 1e-3] [--grid 21] [--noslip 10]
        [--mode loop|vmap|both] [--chunk 441] [--no-mujoco]
        [--out benchmarks/results/spatial_box_force.md]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import write_report  # noqa: E402

MASS, SIDE, MU, G = 1.0, 0.1, 0.5, 9.81
T_END = 1.0
F_MAX, T_MAX = 5.0, 0.3
F_THEORY = MU * MASS * G                                   # 4.905 N
T_THEORY = MU * MASS * G * SIDE / 2 * math.sqrt(2.0)       # 0.3468 N·m (four corners)
MOVE, TURN = 1e-3, 0.01                                    # "holds": < 1 mm, < 0.01 rad


def loads(grid: int):
    """(F_x, T_z) of every trial, F_x varying slowest; the two axes."""
    fs, ts = np.linspace(0.0, F_MAX, grid), np.linspace(0.0, T_MAX, grid)
    F, T = np.meshgrid(fs, ts, indexing="ij")
    return F.ravel(), T.ravel(), fs, ts


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def holds(dx, dy, angle) -> np.ndarray:
    return (np.hypot(dx, dy) < MOVE) & (np.abs(angle) < TURN)


def boundary(values, held) -> float:
    """The midpoint between the last value that holds and the first that slides (inf when
    all hold, nan when none does)."""
    held = np.asarray(held)
    if held.all():
        return math.inf
    first_slide = int(np.argmax(~held))
    if first_slide == 0:
        return math.nan
    return 0.5 * (values[first_slide - 1] + values[first_slide])


def _rotation_angle(qw, qx, qy, qz):
    return 2.0 * np.arctan2(np.sqrt(qx ** 2 + qy ** 2 + qz ** 2), np.abs(qw))


# --- stickslip -------------------------------------------------------------------------------

def stickslip_box(force=(0.0, 0.0, 0.0), torque=(0.0, 0.0, 0.0)):
    import stickslip as ss

    model = ss.spatial.Model(gravity=(0.0, 0.0, -G))
    model.add_body("box", mass=MASS, inertia=None, shape=ss.spatial.Box(SIDE, SIDE, SIDE),
                   position=(0.0, 0.0, SIDE / 2))
    model.add_ground(mu_s=MU, mu_k=MU)
    return ss.spatial.PointContacts.from_model(model, force=force, torque=torque,
                                               force_point=(0.0, 0.0, -SIDE / 2))


def _final(res, index=(Ellipsis, -1)):
    dx, dy = res["box.x"][index], res["box.y"][index]
    angle = _rotation_angle(*(res[f"box.{c}"][index] for c in ("qw", "qx", "qy", "qz")))
    return holds(dx, dy, angle)


def _systems(F, T):
    base = stickslip_box()
    return [base.replace(force=np.array([[f, 0.0, 0.0]]), torque=np.array([[0.0, 0.0, t]]))
            for f, t in zip(F, T)]


def run_stickslip_vmap(F, T, dt, chunk):
    """(held, compile s, run s): the trials `chunk` at a time, each chunk one ``jax.vmap``
    (``ss.simulate_batch``; the last chunk padded to the same size, so one compile serves
    all); compile = first call − second call of the first chunk."""
    import stickslip as ss

    systems = _systems(F, T)
    n = len(systems)
    chunk = min(chunk, n)
    systems += systems[-1:] * (-n % chunk)
    chunks = [systems[i:i + chunk] for i in range(0, len(systems), chunk)]

    def batch(members):
        return ss.simulate_batch(members, T_END, dt=dt, dt_out=T_END / 10)

    start = time.perf_counter()
    batch(chunks[0])
    first = time.perf_counter() - start
    start = time.perf_counter()
    held = np.concatenate([_final(batch(members)) for members in chunks])[:n]
    run = time.perf_counter() - start
    return held, first - run / len(chunks), run


def run_stickslip_loop(F, T, dt):
    """(held, compile s, run s): one trial after another through one compiled program (the
    loads are traced data); compile = the first trial's first call − its second call."""
    systems = _systems(F, T)
    start = time.perf_counter()
    systems[0].simulate(T_END, dt=dt, dt_out=T_END / 10)
    first = time.perf_counter() - start
    held = np.zeros(len(systems), dtype=bool)
    start = time.perf_counter()
    for k, system in enumerate(systems):
        held[k] = _final(system.simulate(T_END, dt=dt, dt_out=T_END / 10), -1)
    run = time.perf_counter() - start
    return held, first - run / len(systems), run


def per_step(dt, force_x):
    """(ms per step after compile, best of 3; compile s; final x) of one box under F_x."""
    box = stickslip_box(force=(force_x, 0.0, 0.0))
    start = time.perf_counter()
    box.simulate(T_END, dt=dt, dt_out=0.01)
    first = time.perf_counter() - start
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        res = box.simulate(T_END, dt=dt, dt_out=0.01)
        best = min(best, time.perf_counter() - start)
    steps = round(T_END / dt)
    return best / steps * 1e3, first - best, float(res["box.x"][-1])


# --- MuJoCo ----------------------------------------------------------------------------------

MJCF = """
<mujoco>
  <option timestep="{dt}" gravity="0 0 -{g}" cone="elliptic" noslip_iterations="{noslip}"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" friction="{mu} 0 0"/>
    <body name="box" pos="0 0 {h}">
      <freejoint/>
      <geom type="box" size="{h} {h} {h}" mass="{m}" friction="{mu} 0 0"/>
    </body>
  </worldbody>
</mujoco>
"""


def run_mujoco(F, T, dt, noslip):
    """(held, model compile s, run s, version) or None when mujoco is not installed."""
    try:
        import mujoco
    except ImportError:
        return None
    start = time.perf_counter()
    model = mujoco.MjModel.from_xml_string(MJCF.format(dt=dt, g=G, noslip=noslip, mu=MU,
                                                       h=SIDE / 2, m=MASS))
    compile_s = time.perf_counter() - start
    model.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    model.opt.noslip_iterations = noslip
    data = mujoco.MjData(model)
    mujoco.mj_step(model, data, nstep=round(0.2 / dt))          # settle on the soft contact
    qpos0, qvel0 = data.qpos.copy(), data.qvel.copy()
    body = model.body("box").id
    steps = round(T_END / dt)
    held = np.zeros(F.size, dtype=bool)
    start = time.perf_counter()
    for k, (f, t) in enumerate(zip(F, T)):
        mujoco.mj_resetData(model, data)
        data.qpos[:], data.qvel[:] = qpos0, qvel0
        # f at the bottom-face centre r = (0, 0, −h) from the centre of mass: + r × f
        data.xfrc_applied[body] = [f, 0.0, 0.0, 0.0, -SIDE / 2 * f, t]
        mujoco.mj_step(model, data, nstep=steps)
        dx, dy = data.qpos[0] - qpos0[0], data.qpos[1] - qpos0[1]
        q0, q = qpos0[3:7], data.qpos[3:7]
        rel = np.empty(4)
        mujoco.mju_mulQuat(rel, q, np.array([q0[0], -q0[1], -q0[2], -q0[3]]))
        held[k] = holds(dx, dy, _rotation_angle(*rel))
    return held, compile_s, time.perf_counter() - start, mujoco.__version__


# --- report ----------------------------------------------------------------------------------

def _errors(held, fs, ts, grid):
    H = held.reshape(grid, grid)                        # [F index, T index]
    bf, bt = boundary(fs, H[:, 0]), boundary(ts, H[0, :])
    return bf, bf - F_THEORY, bt, bt - T_THEORY


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dt", type=float, default=1e-3, help="step of both simulators [s]")
    parser.add_argument("--grid", type=int, default=21, help="loads per axis")
    parser.add_argument("--noslip", type=int, default=10, help="MuJoCo noslip iterations")
    parser.add_argument("--no-mujoco", action="store_true")
    parser.add_argument("--mode", choices=("loop", "vmap", "both"), default="both",
                        help="stickslip trials one after another, in one vmap, or both")
    parser.add_argument("--chunk", type=int, default=441,
                        help="trials per vmap (default: all in one)")
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).parent / "results" / "spatial_box_force.md")
    args = parser.parse_args(argv)
    import jax

    jax.config.update("jax_enable_x64", True)
    F, T, fs, ts = loads(args.grid)
    n = F.size
    lines = [f"# Box under force: stickslip point contacts vs MuJoCo ({n} trials of "
             f"{T_END:g} s, dt = {args.dt:g} s)", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores, JAX {jax.__version__} on "
             f"{jax.default_backend()}; float64. Command: `python benchmarks/spatial_box_force.py"
             f"{' '.join([''] + (argv if argv is not None else sys.argv[1:]))}`.", ""]

    load_before = _load()
    ms_hold, compile_one, x_hold = per_step(args.dt, 3.0)
    ms_slide, _, x_slide = per_step(args.dt, 6.0)
    lines += ["One box (8 corner contacts), RK4, `PointContacts.simulate(1.0, dt, dt_out=0.01)`, "
              f"best of 3 after compile (load average {load_before}):", "",
              "| case | ms per step | note |", "|---|---|---|",
              f"| F_x = 3 N (holds) | {ms_hold:.3f} | x(1 s) = {x_hold:.2e} m; compile "
              f"{compile_one:.1f} s |",
              f"| F_x = 6 N (slides) | {ms_slide:.3f} | x(1 s) = {x_slide:.6f} m, closed form "
              f"{0.5 * (6.0 - F_THEORY) / MASS:.6f} m |", ""]

    rows = []
    for mode in (["loop", "vmap"] if args.mode == "both" else [args.mode]):
        load = _load()
        if mode == "loop":
            held, comp, wall = run_stickslip_loop(F, T, args.dt)
            label = "one compiled program, trial after trial"
        else:
            held, comp, wall = run_stickslip_vmap(F, T, args.dt, args.chunk)
            label = (f"vmap over {min(args.chunk, n)} trials at a time" if args.chunk < n else
                     "all trials in one vmap")
        rows.append((f"stickslip PointContacts (RK4; {label})", held, comp, wall, load))
    mj = None if args.no_mujoco else run_mujoco(F, T, args.dt, args.noslip)
    if mj is not None:
        held_mj, compile_mj, run_mj, version = mj
        rows.append((f"MuJoCo {version} (elliptic, noslip {args.noslip}; model compile)",
                     held_mj, compile_mj, run_mj, _load()))
    lines += [f"All {n} trials (load average before each run: 1, 5, 15 min):", "",
              "| simulator | compile [s] | run [s] | per trial-step [µs] | held | F_x boundary "
              "[N] (error) | T_z boundary [N·m] (error) | load |",
              "|---|---|---|---|---|---|---|---|"]
    for name, held, comp, wall, load in rows:
        bf, ef, bt, et = _errors(held, fs, ts, args.grid)
        per = wall / (n * round(T_END / args.dt)) * 1e6
        lines.append(f"| {name} | {comp:.2f} | {wall:.2f} | {per:.2f} | {int(held.sum())}/{n} "
                     f"| {bf:.4f} ({ef:+.4f}) | {bt:.4f} ({et:+.4f}) | {load} |")
    # the pure-torque limit 0.3468 N·m lies beyond the grid's 0.3 N·m: the torque axis
    # continued (F_x = 0, same step), untimed, to find that boundary too
    ext = np.arange(1, 11) * (ts[1] - ts[0]) + ts[-1]
    axis = np.concatenate([ts, ext])
    held_t = [_final(system.simulate(T_END, dt=args.dt, dt_out=T_END / 10), -1)
              for system in _systems(np.zeros(ext.size), ext)]
    bt_ss = boundary(axis, np.concatenate([rows[0][1].reshape(args.grid, args.grid)[0, :],
                                           held_t]))
    text = f"stickslip {bt_ss:.4f} N·m ({bt_ss - T_THEORY:+.4f})"
    if mj is not None:
        held_mt = run_mujoco(np.zeros(ext.size), ext, args.dt, args.noslip)[0]
        bt_mj = boundary(axis, np.concatenate([mj[0].reshape(args.grid, args.grid)[0, :],
                                               held_mt]))
        text += f", MuJoCo {bt_mj:.4f} N·m ({bt_mj - T_THEORY:+.4f})"
    lines += ["", f"The grid's torques stop at {ts[-1]:g} N·m, below the pure-torque limit "
              f"{T_THEORY:.4f} N·m (so its T_z boundary reads inf). The torque axis continued "
              f"to {ext[-1]:g} N·m (F_x = 0, untimed): boundary {text}."]
    lines += ["", f"Theory: {F_THEORY:.4f} N (μ m g), {T_THEORY:.4f} N·m (μ m g r, four "
              f"corners). Grid steps {fs[1] - fs[0]:g} N and {ts[1] - ts[0]:g} N·m: a boundary "
              "found exactly is still up to half a step from the theory."]
    if mj is None and not args.no_mujoco:
        lines += ["", "MuJoCo is not installed (`pip install stickslip[bench]`): its row is "
                  "skipped."]
    elif mj is not None:
        same = ", ".join(f"{int(np.sum(row[1] == mj[0]))}/{n} ({row[0].split('; ')[1][:-1]})"
                         for row in rows[:-1])
        lines += ["", f"Same verdict (holds/slides) as MuJoCo: {same}."]
    write_report(lines, args.out)


if __name__ == "__main__":
    main()
