"""Frictional unilateral constraints (SPEC §6): error against a reference vs wall time for
the λ-problem formulations kikuuwe / anitescu / nakaoka (SPEC §6, relaxed ODE, RK4) and the
exact Moreau–Jean time-stepping, on the block on an incline and the slider–crank with a
clearance slider. Writes ``benchmarks/results/unilateral_formulations.md``.

Wall time is after compilation (best of `REPEATS` runs, ``_timing.best_of``); the compile
column is the first call minus the best *in this process* (a later row of the same model
reuses the compiled program, so it reads ≈ 0). Cold compile times of the issue-12 speed
target (clearance slider: kikuuwe RK4 vs Moreau–Jean) come from fresh processes with an empty
JAX cache, with JAX's own compile events. The clearance-slider rows also sweep δ and h for the
equal-accuracy comparison of issue 12's Speed section. Run:
``nice -n 10 python benchmarks/unilateral_formulations.py`` (a few minutes).

The issue's compile target (δ = 5e-5, h = 1e-4, the default formulation) gets its own table,
``benchmarks/results/unilateral_compile.md``: cold runs of this checkout and of a baseline
source tree alternately, with run time after compile and error against Moreau–Jean:
``python benchmarks/unilateral_formulations.py --baseline-src "main 041c8a0=/tmp/base/src"
--compile-only``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import stickslip as ss
from stickslip.planar._contact_examples import block_on_incline, clearance_slider_crank

from _timing import best_of

REPEATS = 2
OUT = Path(__file__).parent / "results" / "unilateral_formulations.md"
COMPILE_OUT = Path(__file__).parent / "results" / "unilateral_compile.md"


def timed(run):
    start = time.perf_counter()
    run()
    first_wall = time.perf_counter() - start
    wall, res = best_of(run, repeats=REPEATS)
    return res, wall, max(first_wall - wall, 0.0)


def incline_rows():
    theta, mu, t_end = math.radians(35.0), 0.4, 1.0
    a = 9.81 * (math.sin(theta) - mu * math.cos(theta))
    exact = 0.5 * a * t_end ** 2
    rows = []

    def along(res):
        return res["block.x"][-1] * math.cos(theta) - res["block.y"][-1] * math.sin(theta)

    for form in ("kikuuwe", "anitescu", "nakaoka"):
        model = block_on_incline(theta, mu)
        res, wall, comp = timed(lambda: model.simulate(t_end, dt=1e-3, dt_out=0.01,
                                                       contact_formulation=form))
        rows.append(("incline", form, "RK4 h=1e-3, δ=1e-3", abs(along(res) - exact),
                     float(np.max(np.abs(res["slope.gap"]))), wall, comp, None))
    for h in (1e-3, 1e-4):
        model = block_on_incline(theta, mu)
        res, wall, comp = timed(lambda: ss.planar.moreau_jean(model, t_end, h, dt_out=0.01))
        rows.append(("incline", "exact (Moreau–Jean)", f"h={h:g}", abs(along(res) - exact),
                     float(np.max(np.abs(res["slope.gap"]))), wall, comp, None))
    return rows


SLIDER_T_END = 0.2
# (δ, h) of the relaxed runs: the first two settings for every formulation, then the
# seed's law at small δ for the equal-accuracy comparison (h up to 2δ: RK4 resolves the
# relaxation's double mode −1/δ for h < 2.78δ)
SLIDER_SETTINGS = ((1e-3, 2.5e-4), (5e-4, 1e-4))
SLIDER_SWEEP = ((1e-4, 1e-4), (1e-4, 2e-4), (5e-5, 5e-5), (5e-5, 1e-4), (2.5e-5, 2.5e-5),
                (2.5e-5, 5e-5))


def slider_rows():
    t_end = SLIDER_T_END
    ref = ss.planar.moreau_jean(clearance_slider_crank(), t_end, 5e-6, dt_out=1e-3)
    finer = ss.planar.moreau_jean(clearance_slider_crank(), t_end, 1e-6, dt_out=1e-3)

    def err(res, against=ref):
        return max(float(np.max(np.abs(res[c] - against[c]))) for c in ("slider.x", "slider.y"))

    def gaps(res):
        g = np.stack([res[f"guide.gap.{k}"] for k in range(1, 5)])
        return float(-min(np.min(g), 0.0))

    rows = []
    settings = [(form, d, h) for form in ("kikuuwe", "anitescu", "nakaoka")
                for d, h in SLIDER_SETTINGS] + [("kikuuwe", d, h) for d, h in SLIDER_SWEEP]
    for form, delta, h in settings:
        model = clearance_slider_crank(delta=delta)
        res, wall, comp = timed(lambda: model.simulate(t_end, dt=h, dt_out=1e-3,
                                                       contact_formulation=form))
        rows.append(("clearance slider", form, f"RK4 h={h:g}, δ={delta:g}", err(res),
                     gaps(res), wall, comp, err(res, finer)))
    for h in (1e-4, 2e-5, 1e-5):
        model = clearance_slider_crank()
        res, wall, comp = timed(lambda: ss.planar.moreau_jean(model, t_end, h, dt_out=1e-3))
        rows.append(("clearance slider", "exact (Moreau–Jean)", f"h={h:g}", err(res),
                     gaps(res), wall, comp, err(res, finer)))
    return rows, err(ref, finer)


COLD = """
import collections, json, os, sys, time
from jax import monitoring
ev = collections.defaultdict(float)
monitoring.register_event_duration_secs_listener(
    lambda name, d, **k: ev.__setitem__(name.rsplit("/", 1)[-1], ev[name.rsplit("/", 1)[-1]] + d))
import stickslip as ss
from stickslip.planar._contact_examples import clearance_slider_crank
kind, delta, h = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
def run():
    if kind == "kikuuwe":
        return clearance_slider_crank(delta=delta).simulate({t}, dt=h, dt_out=1e-3)
    return ss.planar.moreau_jean(clearance_slider_crank(), {t}, h, dt_out=1e-3)
load = os.getloadavg()[0]
c0, t0 = time.process_time(), time.perf_counter()
run()
first, cpu_first = time.perf_counter() - t0, time.process_time() - c0
walls, cpus = [], []
for _ in range(3):
    c0, t0 = time.process_time(), time.perf_counter()
    res = run()
    walls.append(time.perf_counter() - t0)
    cpus.append(time.process_time() - c0)
print(json.dumps(dict(first=first, second=min(walls), cpu_first=cpu_first,
                      cpu_second=min(cpus), trace=ev["jaxpr_trace_duration"],
                      lower=ev["jaxpr_to_mlir_module_duration"],
                      backend=ev["backend_compile_duration"], load=load,
                      x=res["slider.x"].tolist(), y=res["slider.y"].tolist())))
""".format(t=SLIDER_T_END)

# the speed setting: the seed's law (the default), δ = 5e-5, h = 1e-4
COLD_SETTING = ("kikuuwe", 5e-5, 1e-4)


def cold_compile(kind, delta, h, src=None):
    """Compile cost of one slider run in a fresh process with an empty JAX cache; `src`: the
    source tree to import stickslip from (the baseline), default this checkout's."""
    with tempfile.TemporaryDirectory() as cache:
        # `import stickslip` in this process exported JAX's cache settings (its warm cache
        # directory); the child must not inherit them
        env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
        env["STICKSLIP_JAX_CACHE"] = cache
        if src is not None:
            env["PYTHONPATH"] = str(src)
        out = subprocess.run([sys.executable, "-c", COLD, kind, str(delta), str(h)], env=env,
                             capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def compile_table(baselines, rounds):
    """Cold runs of the issue's setting, this checkout and the baselines (``label=src``)
    alternately (so all see the same load), with errors against Moreau–Jean at h = 5 µs."""
    ref = ss.planar.moreau_jean(clearance_slider_crank(), SLIDER_T_END, 5e-6, dt_out=1e-3)
    trees = [("this branch", None)] + [tuple(b.split("=", 1)) for b in baselines]
    runs = {label: [] for label, _ in trees}
    for _ in range(rounds):
        for label, src in trees:
            c = cold_compile(*COLD_SETTING, src=src)
            c["error"] = max(float(np.max(np.abs(np.asarray(c.pop(k)) - ref[ch])))
                             for k, ch in (("x", "slider.x"), ("y", "slider.y")))
            runs[label].append(c)
    kind, delta, h = COLD_SETTING
    lines = ["# Clearance slider: cold compile (issue 12 speed target: compile ≤ 5 s)", "",
             f"Clearance slider–crank, 0.2 s, `contact_formulation=\"{kind}\"` (default), "
             f"δ = {delta:g} s, RK4 h = {h:g} s, dt_out = 1 ms. Each run: a fresh process "
             "with an empty JAX cache (`STICKSLIP_JAX_CACHE=<new dir>`); first call, then the "
             "best of 3 more (run time after compile). Compile = first − best. CPU: the "
             "process's CPU seconds (XLA compiles on both cores, so wall can be below CPU on "
             "a quiet machine and far above it under load). trace / lower / backend: JAX's "
             "compile events (wall). Error: max |Δx|, |Δy| of the slider against Moreau–Jean "
             "at h = 5 µs. Rows alternate between the trees, so all see the same load "
             "(1-min load average at each run's start). Baselines: " + (", ".join(
                 f"{label} = `{src}`" for label, src in trees[1:]) or "none") + ".", "",
             "| tree | load | first [s] | after compile [s] | compile [s] | CPU first − "
             "after [s] | trace [s] | lower [s] | backend [s] | error [m] |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for k in range(rounds):
        for label, _ in trees:
            c = runs[label][k]
            lines.append(f"| {label} | {c['load']:.1f} | {c['first']:.2f} | "
                         f"{c['second']:.3f} | {c['first'] - c['second']:.2f} | "
                         f"{c['cpu_first'] - c['cpu_second']:.2f} | {c['trace']:.2f} | "
                         f"{c['lower']:.2f} | {c['backend']:.2f} | {c['error']:.2e} |")
    lines.append("")
    for label, _ in trees:
        comp = sorted(c["first"] - c["second"] for c in runs[label])
        cpu = sorted(c["cpu_first"] - c["cpu_second"] for c in runs[label])
        after = sorted(c["second"] for c in runs[label])
        lines.append(f"* {label}: compile median {comp[len(comp) // 2]:.2f} s (min "
                     f"{comp[0]:.2f}, max {comp[-1]:.2f}); CPU median {cpu[len(cpu) // 2]:.2f}"
                     f" s; run after compile median {after[len(after) // 2]:.3f} s; error "
                     f"{runs[label][0]['error']:.2e} m.")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline-src", action="append", default=[], metavar="LABEL=SRC",
                        help="a source tree (its src/ folder) to measure the cold compile "
                             "against, e.g. main's: git archive <rev> src | tar -x -C DIR; "
                             "repeat for several")
    parser.add_argument("--rounds", type=int, default=3, help="cold runs per tree")
    parser.add_argument("--compile-only", action="store_true",
                        help="only the cold-compile table (unilateral_compile.md)")
    args = parser.parse_args()
    lines = compile_table(args.baseline_src, args.rounds)
    COMPILE_OUT.parent.mkdir(exist_ok=True)
    COMPILE_OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    if args.compile_only:
        return
    load = os.getloadavg()
    cold = {kind: cold_compile(kind, d, h) for kind, d, h in (("kikuuwe", 2.5e-5, 5e-5),
                                                              ("moreau_jean", 0.0, 1e-5))}
    slider, ref_resolution = slider_rows()
    rows = incline_rows() + slider
    lines = ["# Frictional unilateral constraints: formulations compared", "",
             "Error: incline — |distance slid at 1 s − ½ g(sin θ − μ cos θ) t²| (θ = 35°, "
             "μ = 0.4); clearance slider — max over 0.2 s of |Δx|, |Δy| of the slider against "
             "Moreau–Jean at h = 5 µs (restitution e(ζ = 1) = 0 from free flight, "
             "`relaxation_restitution`; that reference differs from h = 1 µs by "
             f"{ref_resolution:.1e} m, so errors below a few µm are also given against "
             "Moreau–Jean at h = 1 µs, column 'error 1 µs'). Gap column: incline — max |gap| (the block should "
             "stay on the slope; Anitescu's law lifts it), slider — the deepest penetration "
             "(−min gap). Wall: after compilation, best of 2; compile: first call minus that "
             "in this process (≈ 0 where an earlier row compiled the same program). "
             f"Load average at the start: {load[0]:.1f}.", "",
             "| model | formulation | step | error [m] | error 1 µs [m] | gap [m] | wall [s] | "
             "compile [s] |", "|---|---|---|---|---|---|---|---|"]
    for model, form, step, e, pen, wall, comp, e1 in rows:
        fine = "" if e1 is None else f"{e1:.2e}"
        lines.append(f"| {model} | {form} | {step} | {e:.2e} | {fine} | {pen:.1e} | "
                     f"{wall:.2f} | {comp:.1f} |")
    mj = next(r for r in rows if r[0] == "clearance slider" and r[2] == "h=1e-05")
    kik = [r for r in rows if r[0] == "clearance slider" and r[1] == "kikuuwe"]
    lines += ["", "## Speed target (issue 12): clearance slider, 0.2 s", ""]
    for col, label in ((3, "Moreau–Jean h = 5 µs (the issue's reference)"),
                       (7, "Moreau–Jean h = 1 µs")):
        equal = [r for r in kik if r[col] <= mj[col]]
        lines += [f"Against {label}: Moreau–Jean h = 1e-5 has error {mj[col]:.2e} m, wall "
                  f"{mj[5]:.2f} s. Kikuuwe rows with error ≤ that (equal accuracy): " + (
                      "; ".join(f"{r[2]}: error {r[col]:.2e} m, wall {r[5]:.2f} s = "
                                f"{r[5] / mj[5]:.2f}× Moreau–Jean" for r in equal)
                      if equal else "none") + ".", ""]
    lines += ["Cold compile (fresh process, empty JAX cache; JAX's compile events):", "",
              "| run | first call [s] | second call [s] | trace [s] | lower [s] | "
              "backend compile [s] |", "|---|---|---|---|---|---|"]
    for kind, c in cold.items():
        label = ("kikuuwe RK4 h=5e-5, δ=2.5e-5" if kind == "kikuuwe"
                 else "Moreau–Jean h=1e-5")
        lines.append(f"| {label} | {c['first']:.2f} | {c['second']:.2f} | {c['trace']:.2f} | "
                     f"{c['lower']:.2f} | {c['backend']:.2f} |")
    ck, cm = cold["kikuuwe"], cold["moreau_jean"]
    lines += ["", f"Compile (first − second call): kikuuwe {ck['first'] - ck['second']:.2f} s, "
              f"Moreau–Jean {cm['first'] - cm['second']:.2f} s."]
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
