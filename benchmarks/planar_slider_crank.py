"""Slider–crank benchmark: stickslip.planar against MuJoCo, work–precision.

Model: crank 0.1 m / 1 kg and rod 0.3 m / 1 kg (uniform slender links), slider 0.5 kg on
the x axis through the crank pivot, vertical plane (gravity −y), released from rest at 60°;
10 s. Reported per run: compile time (first call minus a warm call), run time (best warm
call of three, wall clock, including assembly and channel computation for stickslip),
energy drift max|E(t) − E(0)| [J], constraint drift (max gap [m]), crank angle at 10 s and
its error against a tight-tolerance reference (dopri5, rtol = atol = 1e-12).

MuJoCo (``pip install mujoco``) runs the same model as a hinge chain closed by an equality
``connect``, with its RK4 integrator; it is skipped when not installed. Exudyn is not run
here (not installed); their numbers, measured outside this repository, are repeated in the table for reference.

``--startup`` instead measures what a user waits for in a *fresh process*: for
the slider–crank 10 s, the slider–crank with CoulombODE friction on its four joints (1 s)
and the two-segment LuGre tutorial (8 s), the import, the first call (compile + run) and a
second call, each with an empty persistent compilation cache (cold) and again in a new
process on the cache the first one filled (warm). ``--baseline-src DIR`` runs the same
cases on another source tree (e.g. ``git archive <commit> src | tar -x -C /tmp/before``)
in the same session, for before/after ratios.

Usage: python benchmarks/planar_slider_crank.py [--out benchmarks/results/planar_slider_crank.md]
       python benchmarks/planar_slider_crank.py --startup [--baseline-src /tmp/before/src]
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from stickslip.planar import examples
from _report import write_report
from _timing import best_of

T_END = 10.0
THETA0 = math.radians(60.0)
CRANK, ROD = 0.1, 0.3


def run_stickslip(dt, method="rk4", projection=None, **options):
    model = examples.slider_crank()

    def call():
        kwargs = dict(dt_out=0.02, **options)
        if method in ("rk4", "rk_gill", "euler"):
            kwargs.update(dt=dt, projection=projection)
        return model.simulate(T_END, method=method, **kwargs)

    start = time.perf_counter()
    call()
    first = time.perf_counter() - start
    run, res = best_of(call)
    label = f"stickslip {method}" + ("" if method not in ("rk4",) else
                                     (" + projection" if res.meta["projection"] else
                                      " + Baumgarte"))
    return {"who": label, "dt": dt if dt else f"adaptive rtol {options.get('rtol')}",
            "compile": max(first - run, 0.0), "run": run, "energy": res.meta["energy_drift"],
            "gap": res.meta["constraint_drift"],
            "angle": math.degrees(res["crank.phi"][-1]), "E0": float(res["energy"][0])}


MJCF = """
<mujoco>
  <option timestep="{dt}" integrator="RK4" gravity="0 -9.81 0">
    <flag contact="disable" energy="enable"/>
  </option>
  <worldbody>
    <body name="crank">
      <joint name="crank" type="hinge" axis="0 0 1"/>
      <inertial pos="0.05 0 0" mass="1" diaginertia="1e-6 {Ic} {Ic}"/>
      <body name="rod" pos="0.1 0 0">
        <joint name="rod" type="hinge" axis="0 0 1"/>
        <inertial pos="0.15 0 0" mass="1" diaginertia="1e-6 {Ir} {Ir}"/>
      </body>
    </body>
    <body name="slider" pos="0.4 0 0">
      <joint name="slide" type="slide" axis="1 0 0"/>
      <inertial pos="0 0 0" mass="0.5" diaginertia="1e-4 1e-4 1e-4"/>
    </body>
  </worldbody>
  <equality>
    <connect body1="rod" body2="slider" anchor="0.3 0 0" {solref}/>
  </equality>
</mujoco>
"""


def run_mujoco(dt, stiff=True):
    try:
        import mujoco
    except ImportError:
        return None
    solref = 'solref="{:g} 1"'.format(2 * dt) if stiff else ""
    xml = MJCF.format(dt=dt, Ic=CRANK ** 2 / 12, Ir=ROD ** 2 / 12, solref=solref)
    model = mujoco.MjModel.from_xml_string(xml)
    bx, by = CRANK * math.cos(THETA0), CRANK * math.sin(THETA0)
    sx = bx + math.sqrt(ROD ** 2 - by ** 2)
    psi = math.atan2(-by, sx - bx)
    n = int(round(T_END / dt))

    def call():
        data = mujoco.MjData(model)
        data.qpos[:] = [THETA0, psi - THETA0, sx - 0.4]
        mujoco.mj_forward(model, data)
        e0 = data.energy.sum()
        worst_e, worst_gap = 0.0, 0.0
        for _ in range(n // 10):
            mujoco.mj_step(model, data, nstep=10)
            if True:
                worst_e = max(worst_e, abs(data.energy.sum() - e0))
                rod_end = data.xpos[2] + data.xmat[2].reshape(3, 3) @ np.array([0.3, 0, 0])
                worst_gap = max(worst_gap, float(np.linalg.norm(rod_end - data.xpos[3])))
        return data, worst_e, worst_gap, e0

    start = time.perf_counter()
    call()
    first = time.perf_counter() - start
    run, (data, energy, gap, e0) = best_of(call)
    return {"who": "MuJoCo RK4, " + ("stiff connect (solref 2·dt)" if stiff else
                                     "default soft connect"),
            "dt": dt, "compile": max(first - run, 0.0), "run": run, "energy": energy,
            "gap": gap, "angle": math.degrees(data.qpos[0]), "E0": e0,
            "note": "mj_step(nstep=10); drift sampled every 10 steps"}


_STARTUP_CASE = r"""
import json, math, sys, time
start = time.perf_counter()
import stickslip as ss
from stickslip.planar import examples
imported = time.perf_counter()
case = sys.argv[1]

def build():
    if case == "slider_crank":
        return examples.slider_crank()
    law = ss.laws.CoulombODE(mu=0.1, K=50.0, beta=2 * math.sqrt((0.1 ** 2 / 3) / 50.0))
    slide = ss.laws.CoulombODE.tuned(0.5, 1e5, mu=0.1)
    try:
        return examples.slider_crank(pin_friction=law, pin_radius=0.01, slide_friction=slide)
    except TypeError:                          # the code before the equinox elements: mutable elements
        m = examples.slider_crank()
        for name in ("A", "B", "C"):
            j = m.element(name)
            j.friction, j.pin_radius = law, 0.01
        m.element("D").friction = slide
        m._changed()
        return m

def run():
    if case == "lugre_tutorial":
        return examples.sliding_block_tutorial("lugre", raised=0.5, dt=2e-4)
    t_end = 10.0 if case == "slider_crank" else 1.0
    return build().simulate(t_end, dt=1e-3, dt_out=0.01)

run()
first = time.perf_counter()
run()
second = time.perf_counter()
print(json.dumps({"import": imported - start, "first": first - imported,
                  "second": second - first}))
"""

STARTUP_CASES = ("slider_crank", "friction_slider_crank", "lugre_tutorial")


def _fresh_process(src, case, cache_dir):
    import json
    import os
    import subprocess
    import sys

    # both caches in the run's directory: JAX's and stickslip's own program store (without the
    # latter a "cold" process found every program compiled by earlier runs of the same tree)
    env = dict(os.environ, PYTHONPATH=str(src), JAX_COMPILATION_CACHE_DIR=str(cache_dir),
               STICKSLIP_JAX_CACHE=str(cache_dir),
               JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0",
               JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="0")
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _STARTUP_CASE, case], env=env, check=True,
                         capture_output=True, text=True).stdout
    wall = time.perf_counter() - start
    return dict(json.loads(out.strip().splitlines()[-1]), wall=wall)


def startup(args):
    import tempfile

    trees = [("this tree", Path(__file__).resolve().parents[1] / "src")]
    if args.baseline_src:
        trees.insert(0, ("baseline", Path(args.baseline_src)))
    rows = []
    for case in STARTUP_CASES:
        for label, src in trees:
            with tempfile.TemporaryDirectory() as cache:
                cold = _fresh_process(src, case, cache)
                warm = _fresh_process(src, case, cache)
            rows.append((case, label, cold, warm))
            print(case, label, cold, warm, flush=True)
    lines = ["# Planar start-up: what a user waits for in a fresh process", "",
             "Each cell: seconds in a new Python process (`--startup`). *first call* = "
             "compile + run of the case; *second call* = the same call again in the same "
             "process; *cold* = empty persistent compilation cache, *warm* = a new process "
             "on the cache the cold one filled. *end to end* = first call, import excluded.",
             "",
             "| case | code | import [s] | end to end cold [s] | second call [s] | "
             "end to end warm cache [s] | process wall cold / warm [s] |",
             "|---|---|---|---|---|---|---|"]
    for case, label, cold, warm in rows:
        lines.append(f"| {case} | {label} | {cold['import']:.2f} | {cold['first']:.2f} | "
                     f"{cold['second']:.3f} | {warm['first']:.2f} | {cold['wall']:.1f} / "
                     f"{warm['wall']:.1f} |")
    if args.baseline_src:
        lines += ["", "Ratios baseline / this tree (first call, cold): " + ", ".join(
            f"{c}: {rows[2 * k][2]['first'] / rows[2 * k + 1][2]['first']:.1f}×"
            for k, c in enumerate(STARTUP_CASES)) + "."]
    lines += ["", "Cases: `slider_crank` — 10 s, RK4 dt = 1e-3, projection; "
              "`friction_slider_crank` — 1 s, CoulombODE friction on pins A, B, C "
              "(radius 1 cm, μ = 0.1) and on the slider D; `lugre_tutorial` — "
              "`examples.sliding_block_tutorial('lugre')`, 2 × 4 s at dt = 2e-4 with "
              "`Model.replace` between. Shared 2-core machine: other jobs run beside it."]
    write_report(lines, args.out if args.out != "benchmarks/results/planar_slider_crank.md"
                 else "benchmarks/results/planar_startup.md")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="benchmarks/results/planar_slider_crank.md")
    parser.add_argument("--quick", action="store_true", help="fewer rows")
    parser.add_argument("--startup", action="store_true",
                        help="fresh-process cold/warm start-up table instead")
    parser.add_argument("--baseline-src", default=None,
                        help="with --startup: a source tree to compare against")
    args = parser.parse_args()
    if args.startup:
        return startup(args)

    reference = examples.slider_crank().simulate(T_END, method="dopri5", dt_out=0.01,
                                                 rtol=1e-12, atol=1e-12)
    ref_angle = math.degrees(reference["crank.phi"][-1])
    rows = []
    steps = [1e-3, 5e-3] if args.quick else [1e-3, 2e-3, 2.5e-3, 4e-3, 5e-3]
    for dt in steps:
        rows.append(run_stickslip(dt))
    rows.append(run_stickslip(1e-3, projection=False))
    rows.append(run_stickslip(None, method="tsit5", rtol=1e-8, atol=1e-10))
    rows.append(run_stickslip(None, method="tsit5", rtol=1e-7, atol=1e-9))
    for dt, stiff in ([(1e-3, True), (1e-3, False)] if args.quick
                      else [(1e-3, True), (1e-3, False), (1e-4, True)]):
        row = run_mujoco(dt, stiff)
        if row is not None:
            rows.append(row)

    lines = [
        "# Slider–crank, 10 s", "",
        f"Reference crank angle at 10 s: {ref_angle:.5f}° (stickslip dopri5, rtol = atol = "
        "1e-12; the published reference value is −30.495°). E0 = "
        f"{reference['energy'][0]:.4f} J.", "",
        "| run | dt [s] | compile [s] | run [s] | energy drift [J] | constraint drift [m] "
        "| crank angle at 10 s [°] | angle error [°] |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['who']} | {r['dt']} | {r['compile']:.2f} | {r['run']:.3f} | "
                     f"{r['energy']:.2e} | {r['gap']:.1e} | {r['angle']:.4f} | "
                     f"{abs(r['angle'] - ref_angle):.4f} |")
    lines += [
        "| Exudyn generalized-α (measured elsewhere, not run here) | 1e-3 | – | 0.10 | 3.3e-4 "
        "| 5e-12 | – | – |",
        "| MuJoCo RK4 stiff connect (measured elsewhere) | 1e-3 | – | 0.078 | 1.6e-4 | 2e-6 "
        "| – | – |",
        "",
        "Run times are wall clock on a shared 2-core machine (best of five warm calls); "
        "stickslip's include assembly, the DOF check and every output channel (reactions, "
        "energy) at 50 Hz. MuJoCo's include a Python loop over `mj_step(nstep=10)` and the drift sampling every 10 steps.",
    ]
    write_report(lines, args.out)


if __name__ == "__main__":
    main()
