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
its slowest member needs), RK4 at ``--dt``; and with ``method="moreau_jean"`` (time stepping
of the impulses, the same λ-solver at the velocity level: no relaxation δ) at each step of
``--moreau-jean`` (default 1e-2 and 5e-3 s), the trials ``--chunk`` at a time in one
``jax.vmap`` each. MuJoCo
(an optional dependency: ``pip install stickslip[bench]``; skipped when absent) runs a box
geom on a plane with ``opt.cone = mjCONE_ELLIPTIC``, ``--noslip`` noslip iterations and the
same loads through ``xfrc_applied`` (the force's moment about the centre of mass added to
the torque), after settling 0.2 s on its soft contact (untimed), at ``--dt`` and at each
moreau_jean step. With ``--volume`` the volume contact (SPEC §7: ``SpatialModel.simulate``
with ``add_ground``, its default numba engine, rk_gill at ``--dt``; the same box, μ and loads
as a wrench about the centre of mass) runs the same trials one after another; its pressure
patch has its own torque limit (the uniform square patch's μ m g · a (√2 + asinh 1)/6 =
0.1877 N·m, not the four corners' 0.3468 N·m). Wall times: compile (first
call − run) and run separately; the run's CPU time (``time.process_time()``, all threads)
per trial-step and per trial; the load average with them (2-core machine, shared).
``--order load`` runs the chunks in the order of :func:`schedule` (alike loads together).
The last line compares, at equal breakaway error (both boundaries those of MuJoCo at
``--dt``), the cheapest run of each simulator per trial: a larger step is cheaper if the
boundaries survive it.

    python benchmarks/spatial_box_force.py [--dt 1e-3] [--grid 21] [--noslip 10]
        [--mode loop|vmap|both|none] [--chunk 441] [--order grid|load]
        [--moreau-jean 1e-2 5e-3] [--no-mujoco] [--volume]
        [--out benchmarks/results/spatial_box_force.md]
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import write_report

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


def _batch(F, T):
    """One stacked ``PointContacts`` whose members carry the loads (F_x, T_z): the box
    stacked once (``ss.stack_systems``), its leaves repeated, the loads set as arrays — what
    ``stack_systems`` of one system per load gives, without building and stacking each
    (21 boxes, 10 steps: a ``simulate_batch`` call 12.4 → 8.5 ms CPU). The box is built and
    stacked once per process (:func:`_one_box_stack`), as a user sweeping loads would: only
    the loads change between chunks (63 boxes: 7.8 → 1 ms CPU a chunk, 2026-11-26)."""
    import equinox as eqx

    many = jax_tree_repeat(_one_box_stack(), F.size)
    zero = np.zeros(F.size)
    return eqx.tree_at(lambda s: (s.force, s.torque), many,
                       (np.stack([F, zero, zero], axis=1)[:, None, :],
                        np.stack([zero, zero, T], axis=1)[:, None, :]))


@functools.lru_cache(maxsize=1)
def _one_box_stack():
    """The unloaded box as a one-member stack (``ss.stack_systems``), built once."""
    import stickslip as ss

    return ss.stack_systems([stickslip_box()])


def jax_tree_repeat(stacked, n):
    """The array leaves of a one-member stack repeated to `n` members."""
    import equinox as eqx
    import jax

    dynamic, static = eqx.partition(stacked, eqx.is_array)
    return eqx.combine(jax.tree.map(lambda a: np.repeat(np.asarray(a), n, axis=0), dynamic),
                       static)


def schedule(F, T, order):
    """The trials' order for the chunks: ``"grid"`` (as listed) or ``"load"`` (ascending
    F_x/4.905 N + T_z/0.3468 N·m, the load's share of the two pure limits; from the loads
    alone): a ``vmap`` runs as long as its slowest member, so alike loads share a chunk."""
    if order == "grid":
        return np.arange(F.size)
    return np.argsort(F / F_THEORY + T / T_THEORY, kind="stable")


def run_stickslip_vmap(F, T, dt, chunk, method="rk4", order="grid"):
    """(held, compile s, run s, run CPU s): the trials `chunk` at a time in the order of
    :func:`schedule`, each chunk one ``jax.vmap`` (``ss.simulate_batch`` of :func:`_batch`;
    the last chunk padded to the same size, so one compile serves all); compile = first
    call − second call of the first chunk."""
    import stickslip as ss

    n = F.size
    chunk = min(chunk, n)
    idx = schedule(F, T, order)
    idx = np.concatenate([idx, np.repeat(idx[-1:], -n % chunk)])
    parts = [idx[i:i + chunk] for i in range(0, idx.size, chunk)]

    def batch(part):
        return ss.simulate_batch(_batch(F[part], T[part]), T_END, method=method, dt=dt,
                                 dt_out=T_END / 10)

    start = time.perf_counter()
    batch(parts[0])
    first = time.perf_counter() - start
    start, cpu = time.perf_counter(), time.process_time()
    verdicts = [_final(batch(part)) for part in parts]
    run, cpu = time.perf_counter() - start, time.process_time() - cpu
    held = np.zeros(n, dtype=bool)
    held[idx] = np.concatenate(verdicts)
    return held, first - run / len(parts), run, cpu


def run_stickslip_loop(F, T, dt):
    """(held, compile s, run s, run CPU s): one trial after another through one compiled
    program (the loads are traced data); compile = the first trial's first call − its second
    call."""
    systems = _systems(F, T)
    start = time.perf_counter()
    systems[0].simulate(T_END, dt=dt, dt_out=T_END / 10)
    first = time.perf_counter() - start
    held = np.zeros(len(systems), dtype=bool)
    start, cpu = time.perf_counter(), time.process_time()
    for k, system in enumerate(systems):
        held[k] = _final(system.simulate(T_END, dt=dt, dt_out=T_END / 10), -1)
    run, cpu = time.perf_counter() - start, time.process_time() - cpu
    return held, first - run / len(systems), run, cpu


def per_step(dt, force_x, method="rk4"):
    """(ms per step after compile, best of 3; compile s; final x) of one box under F_x."""
    box = stickslip_box(force=(force_x, 0.0, 0.0))
    dt_out = max(0.01, dt)                  # a whole multiple of the step
    start = time.perf_counter()
    box.simulate(T_END, dt=dt, dt_out=dt_out, method=method)
    first = time.perf_counter() - start
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        res = box.simulate(T_END, dt=dt, dt_out=dt_out, method=method)
        best = min(best, time.perf_counter() - start)
    steps = round(T_END / dt)
    return best / steps * 1e3, first - best, float(res["box.x"][-1])


# --- the volume route -----------------------------------------------------------------------

def volume_box(force_x, torque_z):
    """The protocol's box on the volume contact (SPEC §7; ``SpatialModel.simulate``, default
    numba engine), μ_s = μ_k = 0.5: (model, forces) with the load at the centre of the bottom
    face as a wrench about the centre of mass."""
    import stickslip as ss

    model = ss.spatial.SpatialModel(gravity=(0.0, 0.0, -G))
    model.add_body("box", mass=MASS, inertia=None, shape=ss.spatial.Box(SIDE, SIDE, SIDE),
                   position=(0.0, 0.0, SIDE / 2))
    model.add_ground(mu_s=MU, mu_k=MU)
    F = np.array([force_x, 0.0, 0.0])
    T = np.cross([0.0, 0.0, -SIDE / 2], F) + np.array([0.0, 0.0, torque_z])
    return model, {"box": lambda t, s: (F, T)}


def run_volume(F, T, dt):
    """(held, first call − run per trial [s], run wall [s], run CPU [s]): the trials one
    after another through ``SpatialModel.simulate`` (numba: no compile, its kernels come from
    numba's cache at the first call)."""
    def one(f, t):
        model, forces = volume_box(f, t)
        return model.simulate(T_END, dt=dt, forces=forces, dt_out=T_END / 10)

    start = time.perf_counter()
    one(F[0], T[0])
    first = time.perf_counter() - start
    held = np.zeros(F.size, dtype=bool)
    start, cpu = time.perf_counter(), time.process_time()
    for k, (f, t) in enumerate(zip(F, T)):
        held[k] = _final(one(f, t), -1)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return held, first - wall / F.size, wall, cpu


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
    """(held, model compile s, run s, version, run CPU s) or None when mujoco is not
    installed. The trials one after another on one core (MuJoCo's own loop)."""
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
    start, cpu = time.perf_counter(), time.process_time()
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
    return (held, compile_s, time.perf_counter() - start, mujoco.__version__,
            time.process_time() - cpu)


# --- report ----------------------------------------------------------------------------------

def _errors(held, fs, ts, grid):
    H = held.reshape(grid, grid)                        # [F index, T index]
    bf, bt = boundary(fs, H[:, 0]), boundary(ts, H[0, :])
    return bf, bf - F_THEORY, bt, bt - T_THEORY


def _torque_axis(ext, dt, method):
    """Held or not on the continued torque axis (F_x = 0, torques `ext`), untimed."""
    import stickslip as ss

    systems = _systems(np.zeros(ext.size), ext)
    if method == "rk4":
        return np.array([_final(system.simulate(T_END, dt=dt, dt_out=T_END / 10), -1)
                         for system in systems])
    return _final(ss.simulate_batch(_batch(np.zeros(ext.size), ext), T_END, method=method,
                                    dt=dt, dt_out=T_END / 10))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dt", type=float, default=1e-3,
                        help="step of RK4 and of the first MuJoCo row [s]")
    parser.add_argument("--grid", type=int, default=21, help="loads per axis")
    parser.add_argument("--noslip", type=int, default=10, help="MuJoCo noslip iterations")
    parser.add_argument("--no-mujoco", action="store_true")
    parser.add_argument("--mode", choices=("loop", "vmap", "both", "none"), default="both",
                        help="stickslip RK4 trials one after another, in one vmap, both, or "
                             "none (moreau_jean rows only)")
    parser.add_argument("--chunk", type=int, default=441,
                        help="trials per vmap (default: all in one)")
    parser.add_argument("--order", choices=("grid", "load"), default="grid",
                        help="the trials' order for the chunks (schedule())")
    parser.add_argument("--moreau-jean", type=float, nargs="*", default=[1e-2, 5e-3],
                        metavar="H", help="steps of the moreau_jean rows [s] (none: skip)")
    parser.add_argument("--volume", action="store_true",
                        help="also the volume route (SpatialModel.simulate, numba) at --dt")
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).parent / "results" / "spatial_box_force.md")
    args = parser.parse_args(argv)
    # stickslip before JAX's first program: its import sets the CPU runtime's thread pool
    # (PJRT_NPROC), which JAX reads when that program makes the CPU client
    import jax

    import stickslip  # noqa: F401

    jax.config.update("jax_enable_x64", True)
    F, T, fs, ts = loads(args.grid)
    n = F.size
    steps_mj = list(args.moreau_jean)
    lines = [(f"# Box under force: stickslip point contacts vs MuJoCo ({n} trials of "
             f"{T_END:g} s; RK4 and MuJoCo at dt = {args.dt:g} s, moreau_jean and MuJoCo at "
             f"h = {', '.join(f'{h:g}' for h in steps_mj) or '-'} s)"), "",
             (f"Machine: {platform.machine()}, {os.cpu_count()} cores, JAX {jax.__version__} on "
             f"{jax.default_backend()}; float64. Command: `python benchmarks/spatial_box_force.py"
             f"{' '.join([''] + (argv if argv is not None else sys.argv[1:]))}`."), ""]

    cases = ([("RK4", "rk4", args.dt)] if args.mode != "none" else []) + \
        [("moreau_jean", "moreau_jean", h) for h in steps_mj]
    lines += [("One box (8 corner contacts), `PointContacts.simulate(1.0, dt, dt_out=max(0.01, dt), "
              "method)`, best of 3 after compile:"), "",
              "| method | step [s] | case | ms per step | note | load |",
              "|---|---|---|---|---|---|"]
    for label, method, dt in cases:
        load = _load()
        ms_hold, compile_one, x_hold = per_step(dt, 3.0, method)
        ms_slide, _, x_slide = per_step(dt, 6.0, method)
        lines += [(f"| {label} | {dt:g} | F_x = 3 N (holds) | {ms_hold:.3f} | x(1 s) = "
                  f"{x_hold:.2e} m; compile {compile_one:.1f} s | {load} |"),
                  (f"| {label} | {dt:g} | F_x = 6 N (slides) | {ms_slide:.3f} | x(1 s) = "
                  f"{x_slide:.6f} m, closed form {0.5 * (6.0 - F_THEORY) / MASS:.6f} m | |")]
    lines += [""]

    rows = []          # (name, held, compile s, run s, run CPU s, load, step, method)
    order = "" if args.order == "grid" else ", sorted by load"
    for mode in (["loop", "vmap"] if args.mode == "both" else
                 [] if args.mode == "none" else [args.mode]):
        load = _load()
        if mode == "loop":
            held, comp, wall, cpu = run_stickslip_loop(F, T, args.dt)
            label = "one compiled program, trial after trial"
        else:
            held, comp, wall, cpu = run_stickslip_vmap(F, T, args.dt, args.chunk,
                                                       order=args.order)
            label = _vmap_label(args.chunk, n) + order
        rows.append((f"stickslip PointContacts (RK4; {label})", held, comp, wall, cpu, load,
                     args.dt, "rk4"))
    for h in steps_mj:
        load = _load()
        held, comp, wall, cpu = run_stickslip_vmap(F, T, h, args.chunk, "moreau_jean",
                                                   args.order)
        rows.append(((f"stickslip PointContacts (moreau_jean; {_vmap_label(args.chunk, n)}"
                     f"{order})"), held, comp, wall, cpu, load, h, "moreau_jean"))
    if args.volume:
        load = _load()
        held, comp, wall, cpu = run_volume(F, T, args.dt)
        rows.append((("stickslip volume contact (SpatialModel.simulate, numba, rk_gill; trial "
                     "after trial)"), held, comp, wall, cpu, load, args.dt, "volume"))
    mujoco = {}
    if not args.no_mujoco:
        for dt in dict.fromkeys([args.dt] + steps_mj):
            load = _load()
            mj = run_mujoco(F, T, dt, args.noslip)
            if mj is None:
                break
            held_mj, compile_mj, run_mj, version, cpu_mj = mj
            mujoco[dt] = held_mj
            rows.append(((f"MuJoCo {version} (elliptic, noslip {args.noslip}; trial after "
                         "trial, one core; compile: the model)"), held_mj, compile_mj, run_mj,
                         cpu_mj, load, dt, "mujoco"))
    # the pure-torque limit 0.3468 N·m lies beyond the grid's 0.3 N·m: the torque axis
    # continued (F_x = 0, same step), untimed, to find that boundary too
    ext = np.arange(1, 11) * (ts[1] - ts[0]) + ts[-1]
    axis = np.concatenate([ts, ext])
    torque = {}
    for _, held, _, _, _, _, dt, method in rows:
        if (method, dt) in torque:
            continue
        if method == "mujoco":
            held_t = run_mujoco(np.zeros(ext.size), ext, dt, args.noslip)[0]
        elif method == "volume":
            held_t = run_volume(np.zeros(ext.size), ext, dt)[0]
        else:
            held_t = _torque_axis(ext, dt, method)
        torque[(method, dt)] = boundary(axis, np.concatenate(
            [held.reshape(args.grid, args.grid)[0, :], held_t]))
    ref = mujoco.get(args.dt)
    lines += [(f"All {n} trials (load average before each run: 1, 5, 15 min). CPU: "
              "`time.process_time()` of the run (every thread of the process); per trial: "
              "the run's CPU over the trials. T_z boundary on the torque axis continued to "
              f"{ext[-1]:g} N·m (F_x = 0, untimed; the grid stops at {ts[-1]:g} N·m). "
              "Same verdict: holds/slides as MuJoCo's at the same step, and at "
              f"{args.dt:g} s:"), "",
              ("| simulator | step [s] | compile [s] | run [s] | run CPU [s] | per trial-step "
              "CPU [µs] | per trial CPU [ms] | held | F_x boundary [N] (error) | T_z boundary "
              "[N·m] (error) | same verdict | load |"),
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    keeps = {}
    for name, held, comp, wall, cpu, load, dt, method in rows:
        bf, ef = _errors(held, fs, ts, args.grid)[:2]
        bt = torque[(method, dt)]
        per = cpu / (n * round(T_END / dt)) * 1e6
        same = "-" if not mujoco else "{} / {}".format(
            f"{int(np.sum(held == mujoco[dt]))}" if dt in mujoco else "-",
            f"{int(np.sum(held == ref))}" if ref is not None else "-")
        lines.append(f"| {name} | {dt:g} | {comp:.2f} | {wall:.2f} | {cpu:.2f} | {per:.2f} | "
                     f"{cpu / n * 1e3:.3f} | {int(held.sum())}/{n} | {bf:.4f} ({ef:+.4f}) | "
                     f"{bt:.4f} ({bt - T_THEORY:+.4f}) | {same} | {load} |")
        keeps[name, dt] = (method, bf, bt, cpu / n * 1e3)
    lines += ["", (f"Theory: {F_THEORY:.4f} N (μ m g), {T_THEORY:.4f} N·m (μ m g r, four "
              f"corners). Grid steps {fs[1] - fs[0]:g} N and {ts[1] - ts[0]:g} N·m: a boundary "
              "found exactly is still up to half a step from the theory.")]
    if not mujoco and not args.no_mujoco:
        lines += ["", ("MuJoCo is not installed (`pip install stickslip[bench]`): its row is "
                  "skipped.")]
    lines += _equal_error(keeps, mujoco, args.dt)
    write_report(lines, args.out)


def _vmap_label(chunk, n):
    return f"vmap over {chunk} trials at a time" if chunk < n else "all trials in one vmap"


def _equal_error(keeps, mujoco, dt_ref):
    """The issue's comparison: the cheapest run (CPU per trial) of each simulator whose
    two boundaries equal MuJoCo's at the finest step `dt_ref`."""
    if dt_ref not in mujoco:
        return []
    bf0, bt0 = next((bf, bt) for (_, dt), (method, bf, bt, _) in keeps.items()
                    if method == "mujoco" and dt == dt_ref)
    best = {}
    for (_, dt), (method, bf, bt, per_trial) in keeps.items():
        if bf == bf0 and bt == bt0 and (method not in best or per_trial < best[method][0]):
            best[method] = (per_trial, dt)
    text = ", ".join(f"{m} {v[0]:.3f} ms at {v[1]:g} s" for m, v in best.items())
    out = ["", (f"**At equal breakaway error** (both boundaries those of MuJoCo at {dt_ref:g} s: "
           f"{bf0:.4f} N, {bt0:.4f} N·m), the cheapest run of each, CPU per trial: {text}.")]
    if "mujoco" in best and "moreau_jean" in best:
        ratio = best["mujoco"][0] / best["moreau_jean"][0]
        out[-1] += (f" stickslip (moreau_jean) / MuJoCo: {1 / ratio:.2f} "
                    f"({'faster' if ratio > 1 else 'slower'} than MuJoCo).")
    return out


if __name__ == "__main__":
    main()
