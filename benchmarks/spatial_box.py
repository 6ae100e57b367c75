"""Benchmark of SPEC §7 (Wakisaka & Sugihara, Table 1): a box on the ground under a
horizontal force and a normal-axis torque below the static limit (stick case), 5 s at
Δt = 1 ms with Runge–Kutta–Gill, proposed (pyramidal LP) vs previous method, mean of 5 runs;
and the wall time of the Fig. 8 sweep. Writes a markdown table.

    python benchmarks/spatial_box.py [--repeats 5] [--t-end 5.0] [--out benchmarks/results/spatial_box.md]

Paper (C, i7-4790S): proposed 1.34 s, previous 1.09 s.
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
t = time.perf_counter()
from numba.core import event
kernels, stack = {}, []
class _Listener(event.Listener):
    def on_start(self, ev):
        stack.append(time.perf_counter())
    def on_end(self, ev):
        t0 = stack.pop()
        fn = getattr(ev.data.get("dispatcher"), "py_func", None)
        if fn is not None and not stack:          # top-level kernels, callees included
            key = fn.__module__.rsplit(".", 1)[-1] + "." + fn.__name__
            kernels[key] = kernels.get(key, 0.0) + time.perf_counter() - t0
event.register("numba:compile", _Listener())
from stickslip.figures._spatial_fig8 import box_model
box_model().simulate(0.05, dt=1e-3)
print(json.dumps({"total": time.perf_counter() - t, "kernels": kernels}))
"""


def first_run_seconds(cache_dir: str | None) -> tuple[float, dict[str, float]]:
    """Wall time of the first 0.05 s box run in a fresh process, and the compile time per
    top-level numba kernel (callees included): numba compiles the per-step kernels (cold: an
    empty cache directory) or loads them from its on-disk cache (warm)."""
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run([sys.executable, "-c", _FIRST_RUN], env=env, capture_output=True,
                         text=True, check=True)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return data["total"], data["kernels"]


def _load() -> str:
    try:
        import os
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def _first_run_lines() -> list[str]:
    import tempfile

    lines: list[str] = []
    load = _load()
    with tempfile.TemporaryDirectory() as cache:
        cold, kernels = first_run_seconds(cache)
        warm, _ = first_run_seconds(cache)
    lines += ["", f"Load average before the first-run measurements: {load}", "",
              "First run in a fresh process (imports + numba kernels): "
              f"{cold:.1f} s with an empty kernel cache (compiling), {warm:.1f} s with the "
              f"cache filled (cold/warm = {cold / warm:.1f}).", "",
              "| kernel (compiled on the first box run, callees included) | cold compile [s] "
              "| share |", "|---|---|---|"]
    total = sum(kernels.values()) or 1.0
    for name, sec in sorted(kernels.items(), key=lambda kv: -kv[1]):
        lines.append(f"| {name} | {sec:.2f} | {sec / total:.0%} |")
    lines.append(f"| total | {sum(kernels.values()):.2f} | |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--t-end", type=float, default=5.0)
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).parent / "results" / "spatial_box.md")
    parser.add_argument("--no-sweep", action="store_true")
    parser.add_argument("--first-run-only", action="store_true",
                        help="only the cold/warm first-run table (printed, not written)")
    args = parser.parse_args(argv)
    if args.first_run_only:
        print("\n".join(_first_run_lines()))
        return
    rows = []
    for friction, paper in (("pyramid", 1.34), ("previous", 1.09)):
        times, cpu = [], []
        for _ in range(args.repeats):
            wall, proc, res = run(friction, args.t_end)
            times.append(wall)
            cpu.append(proc)
        stick = float(np.mean(res["ground-box.stick"][1:]))
        drift = float(np.hypot(res["box.x"][-1], res["box.y"][-1]))
        rows.append((friction, statistics.mean(times), statistics.pstdev(times),
                     statistics.mean(cpu), paper, stick, drift))
    lines = [f"# SPEC §7 box benchmark ({args.t_end:g} s at dt = 1 ms, rk_gill, mean of "
             f"{args.repeats})", "",
             f"Machine: {platform.processor() or platform.machine()}, Python "
             f"{platform.python_version()}, NumPy {np.__version__}", "",
             f"Load average at start: {_load()}", "",
             "| method | wall time [s] | std [s] | CPU time [s] | paper (C, i7-4790S) [s] | "
             "stick fraction | final drift [m] |", "|---|---|---|---|---|---|---|"]
    for name, mean, std, proc, paper, stick, drift in rows:
        lines.append(f"| {name} | {mean:.3f} | {std:.3f} | {proc:.3f} | {paper:.2f} | "
                     f"{stick:.3f} | {drift:.2e} |")
    lines += _first_run_lines()
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
