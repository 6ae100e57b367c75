"""Benchmark of SPEC §7 (Wakisaka & Sugihara, Table 1): a box on the ground under a
horizontal force and a normal-axis torque below the static limit (stick case), 5 s at
Δt = 1 ms with Runge–Kutta–Gill, proposed (pyramidal LP) vs previous method, mean of 5 runs;
and the wall time of the Fig. 8 sweep. Writes a markdown table.

    python benchmarks/spatial_box.py [--repeats 5] [--t-end 5.0] [--out benchmarks/results/spatial_box.md]
        [--baseline-src DIR] [--rounds 2]

Paper (C, i7-4790S): proposed 1.34 s, previous 1.09 s.

With ``--baseline-src DIR`` (another checkout's ``src``, e.g. ``git -C <main> archive HEAD src
| tar -x -C /tmp/base``) the per-step table and the first-run times are measured for both trees
in the same run, alternating (each in its own process), and reported side by side.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

import numpy as np

import stickslip as ss
from stickslip.figures._spatial_fig8 import bottom_load, box_model, sweep


def run(friction: str, t_end: float) -> tuple[float, float, ss.Results]:
    model = box_model()
    x0 = model.simulate(0.05, dt=1e-3).final_state       # settled on the ground (untimed)
    load = bottom_load(2.0, 0.1)          # inside both static regions
    t0, c0 = time.perf_counter(), time.process_time()
    res = model.simulate(t_end, dt=1e-3, method="rk_gill", forces=load, friction=friction,
                         dt_out=0.01, initial=x0)
    return time.perf_counter() - t0, time.process_time() - c0, res


_FIRST_RUN = r"""
import json, time
t, c = time.perf_counter(), time.process_time()
from numba.core import event
kernels, stack = {}, []
class _Listener(event.Listener):                  # CPU seconds (the load inflates wall time)
    def on_start(self, ev):
        stack.append(time.process_time())
    def on_end(self, ev):
        t0 = stack.pop()
        fn = getattr(ev.data.get("dispatcher"), "py_func", None)
        if fn is not None and not stack:          # top-level kernels, callees included
            key = fn.__module__.rsplit(".", 1)[-1] + "." + fn.__name__
            kernels[key] = kernels.get(key, 0.0) + time.process_time() - t0
event.register("numba:compile", _Listener())
from stickslip.figures._spatial_fig8 import box_model
box_model().simulate(0.05, dt=1e-3)
print(json.dumps({"total": time.perf_counter() - t, "cpu": time.process_time() - c,
                  "kernels": kernels}))
"""

_STEPS = r"""
import json, sys
sys.path.insert(0, {bench!r})
from spatial_box import step_rows
print(json.dumps(step_rows({repeats}, {t_end})))
"""


def _env(cache_dir: str | None, src: str | None) -> dict:
    import os

    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    if src is not None:
        env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return env


def first_run_seconds(cache_dir: str | None,
                      src: str | None = None) -> tuple[float, float, dict[str, float]]:
    """Wall and CPU time of the first 0.05 s box run in a fresh process, and the compile time
    per top-level numba kernel (callees included): numba compiles the per-step kernels (cold:
    an empty cache directory) or loads them from its on-disk cache (warm). `src`: the
    ``src`` directory to import stickslip from (default: the installed one)."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _FIRST_RUN], env=_env(cache_dir, src),
                         capture_output=True, text=True, check=True)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return data["total"], data["cpu"], data["kernels"]


def _load() -> str:
    try:
        import os
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def _first_run_lines(baseline: str | None = None, rounds: int = 1) -> list[str]:
    import tempfile

    src = str(Path(__file__).resolve().parent.parent / "src")
    trees = [("this tree", src)] + ([("baseline", baseline)] if baseline else [])
    runs: dict[str, list] = {name: [] for name, _ in trees}
    lines: list[str] = ["", "First run in a fresh process (imports + numba kernels; the first "
                        "0.05 s box run of `box_model().simulate`), cold = an empty numba "
                        "cache directory, warm = the same directory again; CPU = the "
                        "process's CPU time (less sensitive to the load than wall time):", "",
                        "| round | tree | load (1 min) | cold wall [s] | cold CPU [s] | "
                        "warm wall [s] | warm CPU [s] |", "|---|---|---|---|---|---|---|"]
    for r in range(rounds):
        for name, tree in trees:
            load = _load().split()[0]
            with tempfile.TemporaryDirectory() as cache:
                cold, cold_cpu, kernels = first_run_seconds(cache, tree)
                warm, warm_cpu, _ = first_run_seconds(cache, tree)
            runs[name].append((cold, cold_cpu, warm, warm_cpu, kernels))
            lines.append(f"| {r + 1} | {name} | {load} | {cold:.1f} | {cold_cpu:.1f} | "
                         f"{warm:.1f} | {warm_cpu:.1f} |")
    for name, _ in trees:
        rs = runs[name]
        lines.append(f"| mean | {name} | | {statistics.mean(x[0] for x in rs):.1f} | "
                     f"{statistics.mean(x[1] for x in rs):.1f} | "
                     f"{statistics.mean(x[2] for x in rs):.1f} | "
                     f"{statistics.mean(x[3] for x in rs):.1f} |")
    if baseline:
        cpu = [statistics.mean(x[1] for x in runs[name]) for name, _ in trees]
        wall = [statistics.mean(x[0] for x in runs[name]) for name, _ in trees]
        lines += ["", f"Cold first run, this tree / baseline: wall {wall[0] / wall[1]:.2f}, "
                  f"CPU {cpu[0] / cpu[1]:.2f}."]
    for name, _ in trees:
        kernels = runs[name][0][4]
        lines += ["", f"| kernel compiled on the first box run ({name}, round 1; callees "
                  "included: each callee counts with the first kernel that calls it) | cold "
                  "compile CPU [s] | share |", "|---|---|---|"]
        total = sum(kernels.values()) or 1.0
        for kname, sec in sorted(kernels.items(), key=lambda kv: -kv[1]):
            lines.append(f"| {kname} | {sec:.2f} | {sec / total:.0%} |")
        lines.append(f"| total | {sum(kernels.values()):.2f} | |")
    return lines


def step_rows(repeats: int, t_end: float) -> list:
    """Per method: (name, mean wall, std wall, mean CPU, paper, stick fraction, drift)."""
    rows = []
    for friction, paper in (("pyramid", 1.34), ("previous", 1.09)):
        run(friction, 0.01)                 # this method's kernels compiled or loaded
        times, cpu = [], []
        for _ in range(repeats):
            wall, proc, res = run(friction, t_end)
            times.append(wall)
            cpu.append(proc)
        stick = float(np.mean(res["ground-box.stick"][1:]))
        drift = float(np.hypot(res["box.x"][-1], res["box.y"][-1]))
        rows.append((friction, statistics.mean(times), statistics.pstdev(times),
                     statistics.mean(cpu), paper, stick, drift))
    return rows


def _step_rows_in(src: str, repeats: int, t_end: float) -> list:
    """`step_rows` in a fresh process importing stickslip from `src` (kernels compiled or
    loaded before timing: `run` settles the box first)."""
    import json
    import subprocess
    import sys

    code = _STEPS.format(bench=str(Path(__file__).resolve().parent), repeats=repeats,
                         t_end=t_end)
    out = subprocess.run([sys.executable, "-c", code], env=_env(None, src),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--t-end", type=float, default=5.0)
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).parent / "results" / "spatial_box.md")
    parser.add_argument("--no-sweep", action="store_true")
    parser.add_argument("--baseline-src", default=None,
                        help="another checkout's src directory, measured in the same run")
    parser.add_argument("--baseline-label", default=None,
                        help="how the table names the baseline (default: its path)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="first-run measurements per tree (alternating)")
    parser.add_argument("--first-run-only", action="store_true",
                        help="only the cold/warm first-run table (printed, not written)")
    args = parser.parse_args(argv)
    if args.first_run_only:
        print("\n".join(_first_run_lines(args.baseline_src, args.rounds)))
        return
    lines = [f"# SPEC §7 box benchmark ({args.t_end:g} s at dt = 1 ms, rk_gill, mean of "
             f"{args.repeats})", "",
             f"Machine: {platform.processor() or platform.machine()}, Python "
             f"{platform.python_version()}, NumPy {np.__version__}", "",
             f"Load average at start: {_load()}", ""]
    if args.baseline_src is None:
        rows = step_rows(args.repeats, args.t_end)
        lines += ["| method | wall time [s] | std [s] | CPU time [s] | paper (C, i7-4790S) [s] | "
                  "stick fraction | final drift [m] |", "|---|---|---|---|---|---|---|"]
        for name, mean, std, proc, paper, stick, drift in rows:
            lines.append(f"| {name} | {mean:.3f} | {std:.3f} | {proc:.3f} | {paper:.2f} | "
                         f"{stick:.3f} | {drift:.2e} |")
    else:
        src = str(Path(__file__).resolve().parent.parent / "src")
        rows = _step_rows_in(src, args.repeats, args.t_end)
        base = _step_rows_in(args.baseline_src, args.repeats, args.t_end)
        label = args.baseline_label or args.baseline_src
        lines += [f"Per-step cost, this tree against the baseline ({label}), each "
                  "in its own process one after the other:", "",
                  "| method | wall [s] | std [s] | CPU [s] | baseline wall [s] | baseline CPU "
                  "[s] | CPU ratio | paper (C, i7-4790S) [s] | stick fraction | final drift "
                  "[m] |", "|---|---|---|---|---|---|---|---|---|---|"]
        for (name, mean, std, proc, paper, stick, drift), b in zip(rows, base):
            lines.append(f"| {name} | {mean:.3f} | {std:.3f} | {proc:.3f} | {b[1]:.3f} | "
                         f"{b[3]:.3f} | {proc / b[3]:.2f} | {paper:.2f} | {stick:.3f} | "
                         f"{drift:.2e} |")
    lines += _first_run_lines(args.baseline_src, args.rounds)
    if not args.no_sweep:
        import os

        t0 = time.perf_counter()
        forces, torques, serial = sweep()
        t_serial = time.perf_counter() - t0
        workers = os.cpu_count() or 1
        t0 = time.perf_counter()
        _, _, parallel = sweep(workers=workers)
        t_parallel = time.perf_counter() - t0
        same = all(np.array_equal(serial[k], parallel[k]) for k in serial)
        lines += ["", f"Fig. 8 sweep ({len(forces)}×{len(torques)} grid, 10 steps per point, "
                  f"both methods): {t_serial:.2f} s in one process, {t_parallel:.2f} s over "
                  f"{workers} processes (same maps: {same})"]
    text = "\n".join(lines) + "\n"
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
