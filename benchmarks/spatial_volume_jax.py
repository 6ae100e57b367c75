"""Benchmark of the pure-JAX volume contact (SPEC §7, `stickslip.spatial._volume_jax`) against
today's numba host loop (`SpatialModel.simulate`), in the same process:

1. The first call (issue 20): trace (``jax.jit(...).lower``) and XLA compile of a one-box run,
   cold (the persistent compile cache is off in this script), wall and CPU time, the size of
   the traced program (StableHLO characters), and the run time of the compiled program —
   for the Table 1 load (sticks) and a push past the limit (slides). ``--before PATH``
   measures the same in a subprocess on another source tree (``PATH/src``, e.g. a
   ``git worktree`` of the previous commit) for a before/after table.
2. Table 1 of Wakisaka & Sugihara: the box on the ground under a horizontal force (2 N) and a
   normal-axis torque (0.1 N m) at the centre of the bottom face, 5 s at Δt = 1 ms with
   Runge–Kutta–Gill (sticks). JAX vs numba run time (numba kernels compiled and cached
   before timing). Paper (C, i7-4790S): 1.34 s.
3. The box-under-force protocol: a 1 kg cube of side 0.1 m, μ_s = 0.5 (μ_d = 0.3), a
   horizontal force F_x ∈ {0, 0.25, …, 5} N and a vertical torque T_z ∈ {0, 0.015, …, 0.3}
   N m at the centre of the bottom face, 21 × 21 = 441 trials of 1 s from rest, as one
   `vmap`; a trial holds if the box moves < 1 mm and turns < 0.01 rad. Breakaway vs theory:
   4.905 N (pure force, μ_s m g), 0.1877 N m (pure torque, uniform square patch) and
   0.3468 N m (pure torque, four corners). ``--skip-grid`` leaves it out.

    python benchmarks/spatial_volume_jax.py [--repeats 3] [--t-end 5.0] [--grid-t 1.0]
        [--skip-grid] [--before PATH] [--out benchmarks/results/spatial_volume_jax.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

# cold compiles: stickslip's persistent compile cache off (set before stickslip is imported)
os.environ["STICKSLIP_JAX_CACHE"] = "0"

import numpy as np

import jax
import jax.numpy as jnp

from stickslip.figures._spatial_fig8 import box_model
from stickslip.integrate import step_grid
from stickslip.spatial._model import quat_to_matrix
from stickslip.spatial._volume_jax import BodyLoad, VolumeContactSystem

try:                                       # a tree from before issue 20 has no options
    from stickslip.spatial._volume_jax import compiler_options
except ImportError:                        # pragma: no cover
    def compiler_options():
        return {}

ARM = np.array([0.0, 0.0, -0.05])       # centre of the bottom face, body frame [m]
SIDE, MASS, G, MU_S = 0.1, 1.0, 9.81, 0.5


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


LOADS = {"sticks": (2.0, 0.1), "slides": (6.0, 0.05)}     # (F_x [N], T_z [N m]), Table 1 first


def first_call(repeats: int, t_end: float, max_polygon) -> dict:
    """Trace and compile (wall, CPU) of a fresh one-box run per load, its StableHLO size and
    its run time (best of `repeats`)."""
    model = box_model()
    x0 = model.simulate(0.05, dt=1e-3).final_state        # settled (untimed; numba warm)
    out = {}
    for name, (fx, tz) in LOADS.items():
        system = VolumeContactSystem.from_model(model, max_polygon=max_polygon)
        grid = step_grid(0.0, t_end, 1e-3, 0.01)
        load = BodyLoad(jnp.asarray([[fx, 0.0, 0.0]]), jnp.asarray([[0.0, 0.0, tz]]),
                        jnp.asarray([ARM]))
        args = (jnp.asarray(x0), load, system.params())
        options = compiler_options()
        row = {"load": _load()}
        wall, cpu = time.perf_counter(), time.process_time()
        lowered = jax.jit(system.run_function(grid)).lower(*args)
        row["trace"] = time.perf_counter() - wall
        row["trace_cpu"] = time.process_time() - cpu
        row["hlo_chars"] = len(lowered.as_text())
        wall, cpu = time.perf_counter(), time.process_time()
        run = lowered.compile(compiler_options=options)
        row["compile"] = time.perf_counter() - wall
        row["compile_cpu"] = time.process_time() - cpu
        jax.block_until_ready(run(*args))
        runs = []
        for _ in range(repeats):
            wall = time.perf_counter()
            jax.block_until_ready(run(*args))
            runs.append(time.perf_counter() - wall)
        row["run"] = min(runs)
        row["options"] = options
        out[name] = row
    return out


def first_call_elsewhere(path: Path, repeats: int, t_end: float, max_polygon) -> dict:
    """`first_call` on the source tree at `path` (``path/src``), in a subprocess."""
    env = dict(os.environ, PYTHONPATH=str(Path(path) / "src"), STICKSLIP_JAX_CACHE="0")
    cmd = [sys.executable, __file__, "--first-call-json", "--repeats", str(repeats),
           "--t-end", str(t_end), "--max-polygon", str(max_polygon or 0)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def table1(repeats: int, t_end: float, max_polygon) -> dict:
    model = box_model()
    x0 = model.simulate(0.05, dt=1e-3).final_state        # settled (untimed; numba warm)
    F, tq = np.array([2.0, 0.0, 0.0]), np.array([0.0, 0.0, 0.1])
    forces = {"box": lambda t, s: (F, tq + np.cross(quat_to_matrix(s["box"].orientation) @ ARM,
                                                    F))}
    system = VolumeContactSystem.from_model(model, max_polygon=max_polygon)
    grid = step_grid(0.0, t_end, 1e-3, 0.01)
    load = BodyLoad(jnp.asarray([F]), jnp.asarray([tq]), jnp.asarray([ARM]))
    params = system.params()
    X0 = jnp.asarray(x0)
    out = {"load_start": _load()}
    run = jax.jit(system.run_function(grid)).lower(X0, load, params).compile(
        compiler_options=compiler_options())
    jax.block_until_ready(run(X0, load, params))
    numba_t, jax_t = [], []
    for _ in range(repeats):                                # alternating, same load
        t = time.perf_counter()
        ref = model.simulate(t_end, dt=1e-3, method="rk_gill", forces=forces, dt_out=0.01,
                             initial=x0)
        numba_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        Xs, recs = jax.block_until_ready(run(X0, load, params))
        jax_t.append(time.perf_counter() - t)
    Xs = np.asarray(Xs)
    out.update(numba=numba_t, jax=jax_t, load_end=_load(),
               dx=float(np.abs(Xs[:, 0, :3] - np.column_stack(
                   [ref["box.x"], ref["box.y"], ref["box.z"]])).max()),
               stick=float(np.asarray(recs)[1:, 0, 15].mean()),
               drift=float(np.hypot(Xs[-1, 0, 0] - x0[0, 0], Xs[-1, 0, 1] - x0[0, 1])))
    return out


def grid441(t_end: float, max_polygon) -> dict:
    model = box_model()
    x0 = model.simulate(0.05, dt=1e-3).final_state
    system = VolumeContactSystem.from_model(model, max_polygon=max_polygon)
    forces = np.arange(21) * 0.25
    torques = np.arange(21) * 0.015
    Fg, Tg = np.meshgrid(forces, torques, indexing="ij")
    n = Fg.size
    load = BodyLoad(jnp.asarray(np.stack([Fg.ravel(), 0 * Fg.ravel(), 0 * Fg.ravel()], 1)[:, None]),
                    jnp.asarray(np.stack([0 * Tg.ravel(), 0 * Tg.ravel(), Tg.ravel()], 1)[:, None]),
                    jnp.asarray(np.broadcast_to(ARM, (n, 1, 3))))
    grid = step_grid(0.0, t_end, 1e-3, t_end / 10)
    fn = jax.jit(jax.vmap(system.run_function(grid), in_axes=(None, 0, None)))
    X0, params = jnp.asarray(x0), system.params()
    out = {"load_start": _load()}
    t = time.perf_counter()
    run = fn.lower(X0, load, params).compile(compiler_options=compiler_options())
    out["compile"] = time.perf_counter() - t
    t = time.perf_counter()
    Xs, _ = jax.block_until_ready(run(X0, load, params))
    out["run"] = time.perf_counter() - t
    out["load_end"] = _load()
    Xs = np.asarray(Xs)[:, :, 0]                          # (trial, sample, 13)
    moved = np.hypot(Xs[:, :, 0] - x0[0, 0], Xs[:, :, 1] - x0[0, 1]).max(axis=1)
    dots = np.abs(np.einsum("tsk,k->ts", Xs[:, :, 3:7], x0[0, 3:7]))
    turned = (2 * np.arccos(np.clip(dots, -1, 1))).max(axis=1)
    holds = ((moved < 1e-3) & (turned < 0.01)).reshape(21, 21)
    out["holds"] = holds
    out["finite"] = bool(np.all(np.isfinite(Xs)))

    def breakaway(values, held):
        """(last value held, first value that slid) along one axis from 0."""
        slid = np.nonzero(~held)[0]
        if len(slid) == 0:
            return float(values[-1]), float("nan")
        i = slid[0]
        return (float(values[i - 1]) if i > 0 else float("nan")), float(values[i])

    out["force"] = breakaway(forces, holds[:, 0])
    out["torque"] = breakaway(torques, holds[0, :])
    return out


def _gap(bracket, theory) -> str:
    """The held/slid bracket's midpoint minus the theory, or a bound when nothing slid."""
    lo, hi = bracket
    if np.isnan(hi):
        return f"held at every grid value: breakaway > {lo:g}, so ≥ {lo - theory:+.4f}"
    return f"{0.5 * (lo + hi) - theory:+.4f}"


def _first_call_lines(now: dict, before: dict | None, before_path) -> list[str]:
    head = ("| load | tree | load avg. | trace [s] (CPU) | compile [s] (CPU) | trace + compile "
            "[s] | StableHLO [kchar] | run [s] |")
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    for name in LOADS:
        for tree, rows in (("before", before), ("now", now)):
            if rows is None:
                continue
            r = rows[name]
            lines.append(f"| {name} | {tree} | {r['load']} | {r['trace']:.2f} "
                         f"({r['trace_cpu']:.2f}) | {r['compile']:.2f} ({r['compile_cpu']:.2f})"
                         f" | {r['trace'] + r['compile']:.2f} | {r['hlo_chars'] / 1e3:.0f} | "
                         f"{r['run']:.3f} |")
    lines += ["", f"Compiler options now: `{now['sticks']['options']}`"
              + (f"; before: the tree at `{before_path}`, its defaults." if before else ".")]
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--t-end", type=float, default=5.0)
    parser.add_argument("--grid-t", type=float, default=1.0)
    parser.add_argument("--max-polygon", type=int, default=10,
                        help="contact-polygon buffer (a box showed at most 9 corners over "
                             "30000 random poses; 0 = the bound that cannot overflow, 20)")
    parser.add_argument("--skip-grid", action="store_true", help="leave out the 441 grid")
    parser.add_argument("--before", type=Path, default=None,
                        help="a source tree (its src/) to measure the first call of as well")
    parser.add_argument("--first-call-json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).parent / "results" / "spatial_volume_jax.md")
    args = parser.parse_args(argv)
    mp = args.max_polygon or None
    if args.first_call_json:                       # the subprocess of --before
        print(json.dumps(first_call(args.repeats, args.t_end, mp)))
        return
    from _report import write_report

    before = (first_call_elsewhere(args.before, args.repeats, args.t_end, mp)
              if args.before else None)
    now = first_call(args.repeats, args.t_end, mp)
    t1 = table1(args.repeats, args.t_end, mp)
    nb, jx = statistics.mean(t1["numba"]), statistics.mean(t1["jax"])
    command = (f"python benchmarks/spatial_volume_jax.py --repeats {args.repeats} --t-end "
               f"{args.t_end:g} --grid-t {args.grid_t:g} --max-polygon {args.max_polygon}"
               + (" --skip-grid" if args.skip_grid else "")
               + (" --before <previous commit's tree>" if args.before else ""))
    lines = ["# JAX volume contact vs numba host loop (SPEC §7)", "",
             f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
             f"Python {platform.python_version()}, JAX {jax.__version__} "
             f"({jax.default_backend()}: {jax.devices()[0].device_kind}; "
             f"float64). Command: `{command}` (contact-polygon buffer {mp or 'bound, 20'}; an "
             "overflow would turn the run to NaN). Compiles are cold (persistent cache off).",
             "", f"## First call of a one-box run, {args.t_end:g} s at Δt = 1 ms (rk_gill)", "",
             "Trace = `jax.jit(run).lower(...)`, compile = `.compile(...)`, each timed on the "
             "wall clock and as this process's CPU time (the machine is shared: the CPU time is "
             "the steadier figure); run = the compiled run, best of "
             f"{args.repeats}. Loads: sticks = Table 1 (2 N + 0.1 N m at the bottom face), "
             "slides = 6 N + 0.05 N m.", ""]
    lines += _first_call_lines(now, before, args.before)
    lines += ["", f"## Table 1 box, {args.t_end:g} s at Δt = 1 ms (rk_gill, 2 N + 0.1 N m at "
              "the bottom face; paper's C: 1.34 s)", "",
              f"Load average (1, 5, 15 min): {t1['load_start']} at start, {t1['load_end']} at "
              "end.", "", "| | numba `SpatialModel.simulate` | JAX `run_volume` (one jitted "
              "scan) | JAX / numba |", "|---|---|---|---|",
              f"| run [s] (mean of {args.repeats}, alternating) | {nb:.3f} | {jx:.3f} | "
              f"{jx / nb:.2f} |",
              f"| runs [s] | {', '.join(f'{v:.3f}' for v in t1['numba'])} | "
              f"{', '.join(f'{v:.3f}' for v in t1['jax'])} | |",
              f"| per step [ms] | {nb / args.t_end:.3f} | {jx / args.t_end:.3f} | |", "",
              f"Agreement: max |position JAX − numba| over the run = {t1['dx']:.2e} m; stick "
              f"fraction {t1['stick']:.3f}; final drift {t1['drift']:.2e} m."]
    if not args.skip_grid:
        lines += [""] + _grid_lines(grid441(args.grid_t, mp), args.grid_t)
    write_report(lines, args.out)


def _grid_lines(g: dict, grid_t: float) -> list[str]:
    lines = [f"## Box-under-force grid: 441 trials × {grid_t:g} s, one `vmap`", "",
             f"Load average: {g['load_start']} at start, {g['load_end']} at end.", "",
             "| compile [s] | run [s] (441 trials) | per trial [ms] | all finite |",
             "|---|---|---|---|",
             f"| {g['compile']:.1f} | {g['run']:.1f} | {1e3 * g['run'] / 441:.1f} | "
             f"{g['finite']} |", "",
             "| breakaway | last held | first slid | midpoint − theory |", "|---|---|---|---|",
             f"| pure force [N] (theory μ_s m g = 4.905) | {g['force'][0]:g} | "
             f"{g['force'][1]:g} | {_gap(g['force'], 4.905)} |",
             f"| pure torque [N m] vs uniform patch 0.1877 | {g['torque'][0]:g} | "
             f"{g['torque'][1]:g} | {_gap(g['torque'], 0.1877)} |",
             f"| pure torque [N m] vs four corners 0.3468 | {g['torque'][0]:g} | "
             f"{g['torque'][1]:g} | {_gap(g['torque'], 0.3468)} |", "",
             "Held region (rows F_x = 0 … 5 N, columns T_z = 0 … 0.3 N m; # holds):", "",
             "```"]
    for i in range(21):
        lines.append(f"{0.25 * i:5.2f} " + "".join("#" if h else "." for h in g["holds"][i]))
    lines.append("```")
    return lines


if __name__ == "__main__":
    main()
