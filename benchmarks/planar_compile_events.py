"""Where the first call of a planar run spends its time: JAX's compile events, per function.

For the slider–crank 10 s and the friction slider–crank 1 s (the ``--startup`` cases of
planar_slider_crank.py), each in a fresh process with an empty persistent compilation cache
(``STICKSLIP_JAX_CACHE=<new empty directory>``: *cold*; ``--cache off`` turns the cache off
instead): the first call (build + compile + run, import excluded), its process CPU time, the
sums of JAX's ``jax.monitoring`` duration events (jaxpr trace, lowering to MLIR, XLA backend
compile), the largest single XLA compile (the run's kernel, whatever name the program store
gives it), the functions with a compile event over 0.05 s, and
the best of three warm calls (the run time after compile). ``--baseline-src DIR`` runs the
same cases on another source tree in the same session, alternating, for before/after
ratios; ``--repeats N`` runs every cell N times, alternating trees, and reports medians
(timings on a shared machine are noisy; CPU time less so); ``--xla-flags FLAGS`` adds rows
of this tree with ``XLA_FLAGS=FLAGS`` (e.g. ``--xla_cpu_use_fusion_emitters=false``).

Usage: python benchmarks/planar_compile_events.py [--baseline-src /tmp/main/src]
           [--cases friction_slider_crank] [--repeats 3] [--xla-flags FLAGS] [--cache off]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from _report import write_report

_CASE = r"""
import collections, json, math, sys, time
import jax.monitoring as mon
events, detail = collections.defaultdict(float), []
def listen(name, dur, **kw):
    events[name.rsplit("/", 1)[-1]] += dur
    if dur > 0.05:
        detail.append((kw.get("fun_name"), name.rsplit("/", 1)[-1], round(dur, 3)))
mon.register_event_duration_secs_listener(listen)
import stickslip as ss
from stickslip.planar import examples
case = sys.argv[1]
def build():
    if case == "slider_crank":
        return examples.slider_crank()
    law = ss.laws.CoulombODE(mu=0.1, K=50.0, beta=2 * math.sqrt((0.1 ** 2 / 3) / 50.0))
    slide = ss.laws.CoulombODE.tuned(0.5, 1e5, mu=0.1)
    return examples.slider_crank(pin_friction=law, pin_radius=0.01, slide_friction=slide)
t_end = 10.0 if case == "slider_crank" else 1.0
events.clear()
c0, w0 = time.process_time(), time.perf_counter()
build().simulate(t_end, dt=1e-3, dt_out=0.01)
first, cpu = time.perf_counter() - w0, time.process_time() - c0
ev = dict(events)
warm = []
for _ in range(3):
    w0 = time.perf_counter(); build().simulate(t_end, dt=1e-3, dt_out=0.01)
    warm.append(time.perf_counter() - w0)
kernel = max((d for f, n, d in detail if n == "backend_compile_duration"), default=0.0)
print(json.dumps({"first": first, "cpu": cpu, "trace": ev.get("jaxpr_trace_duration", 0.0),
                  "lower": ev.get("jaxpr_to_mlir_module_duration", 0.0),
                  "xla": ev.get("backend_compile_duration", 0.0), "kernel_xla": kernel,
                  "warm": min(warm), "steps": round(t_end / 1e-3), "detail": detail}))
"""

CASES = ("slider_crank", "friction_slider_crank")


def _run(src, case, cache, xla_flags=None):
    import tempfile

    env = dict(os.environ, PYTHONPATH=str(src))
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    env.pop("XLA_FLAGS", None)
    if xla_flags:
        env["XLA_FLAGS"] = xla_flags
    with tempfile.TemporaryDirectory() as empty:
        env["STICKSLIP_JAX_CACHE"] = "0" if cache == "off" else empty
        out = subprocess.run([sys.executable, "-c", _CASE, case], env=env, check=True,
                             capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _median(runs):
    """The run with the median first call, with the median CPU time and the best warm call
    over all runs."""
    ordered = sorted(runs, key=lambda r: r["first"])
    mid = dict(ordered[len(ordered) // 2])
    mid["cpu"] = statistics.median(r["cpu"] for r in runs)
    mid["warm"] = min(r["warm"] for r in runs)
    mid["firsts"] = [r["first"] for r in runs]
    return mid


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-src", default=None)
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=CASES)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--xla-flags", default=None)
    parser.add_argument("--cache", choices=("cold", "off"), default="cold")
    parser.add_argument("--note", default=None, help="a paragraph added to the table (what "
                        "the baseline is, the machine's state)")
    parser.add_argument("--out", default="benchmarks/results/planar_compile_events.md")
    args = parser.parse_args()
    trees = [("this tree", Path(__file__).resolve().parents[1] / "src", None)]
    if args.baseline_src:
        trees.insert(0, ("baseline", Path(args.baseline_src), None))
    if args.xla_flags:
        trees += [(f"{label}, XLA_FLAGS={args.xla_flags}", src, args.xla_flags)
                  for label, src, _ in list(trees)]
    before = load_average()
    rows = []
    for case in args.cases:
        runs: dict = {label: [] for label, _, _ in trees}
        for _ in range(args.repeats):
            for label, src, flags in trees:
                r = _run(src, case, args.cache, flags)
                runs[label].append(r)
                print(case, label, {k: v for k, v in r.items() if k != "detail"}, flush=True)
        rows += [(case, label, _median(runs[label])) for label, _, _ in trees]
    cache = ("an empty persistent compilation cache (cold)" if args.cache == "cold"
             else "the persistent cache off")
    lines = ["# Planar first call: JAX compile events", "",
             f"Fresh process per cell, {cache}; {args.repeats} run(s) per cell, alternating "
             f"the code versions (median first call and CPU, best warm call); load average "
             f"{before} before, {load_average()} after (shared 2-core machine: compare rows "
             "of one run only).",
             "", "| case | code | first call [s] | fastest first call [s] | its CPU [s] | "
             "trace [s] | lowering [s] | XLA compile [s] | largest one (the run's kernel) "
             "[s] | warm call [s] | warm per RK4 step [µs] |", "|" + "---|" * 11]
    for case, label, r in rows:
        lines.append(f"| {case} | {label} | {r['first']:.2f} | {min(r['firsts']):.2f} | "
                     f"{r['cpu']:.2f} | {r['trace']:.2f} | {r['lower']:.2f} | {r['xla']:.2f} | "
                     f"{r['kernel_xla']:.2f} | {r['warm']:.3f} | "
                     f"{1e6 * r['warm'] / r['steps']:.0f} |")
    if args.baseline_src:
        ratios = []
        for case in args.cases:
            mine = {label: r for c, label, r in rows if c == case}
            base = mine["baseline"]
            for label, r in mine.items():
                if label != "baseline":
                    ratios.append(f"{case}, {label}: {base['first'] / r['first']:.2f}× "
                                  f"({base['cpu'] / r['cpu']:.2f}×)")
        lines += ["", "Ratios baseline / other rows, first call (CPU): " + "; ".join(ratios)
                  + "."]
    lines += ["", "First calls of every run [s]: " + "; ".join(
        f"{case}, {label}: " + ", ".join(f"{x:.2f}" for x in r["firsts"])
        for case, label, r in rows) + "."]
    lines += ["", "Compile events over 0.05 s (function, event, seconds), median run:", ""]
    for case, label, r in rows:
        lines.append(f"- {case}, {label}: " + "; ".join(f"{f} {n.replace('_duration', '')} "
                                                        f"{d:.2f}" for f, n, d in r["detail"]))
    lines += ["", "The warm call includes building the model, assembly, the step check and "
              "every output channel at 100 Hz."]
    if args.note:
        lines += ["", args.note]
    write_report(lines, args.out)


if __name__ == "__main__":
    main()
