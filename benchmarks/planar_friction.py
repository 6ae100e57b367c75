"""Joint-friction benchmark: run time after compile, with friction vs the
frictionless model.

Models:
* the sliding block of the LuGre tutorial (SPEC §8), 8 s (μ_s raised from 0.3 to 0.5 at
  4 s for LuGre; μ 0.2 → 0.5 for CoulombODE), RK4 dt = 2e-4 s, outputs every 0.01 s;
* the slider–crank of planar_slider_crank.py (10 s, released at 60°), RK4 dt = 1e-3 s, with CoulombODE
  friction on the three pins (pin radius 1 cm, μ = 0.1, K = 50 N·m/rad, critically damped
  on the crank's inertia) and on the slider (μ = 0.1, K = 1e5 N/m).

Compile = first call minus the best warm call; run = best of five warm calls (wall clock,
including assembly and channel computation). No peer is run: MuJoCo's ``frictionloss``
ignores the joint load, so there is no like-for-like peer installed here.

Usage: python benchmarks/planar_friction.py [--out benchmarks/results/planar_friction.md]
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from pathlib import Path

import jax
import numpy as np

import stickslip as ss
from stickslip.planar import examples
from _timing import best_of

jax.config.update("jax_enable_x64", True)


def _time(label, call, steps):
    start = time.perf_counter()
    call()
    first = time.perf_counter() - start
    run, res = best_of(call)
    return {"case": label, "compile": max(first - run, 0.0), "run": run,
            "per_step_us": 1e6 * run / steps, "res": res}


def sliding_block_rows():
    rows = []
    dt = 2e-4
    steps = int(8.0 / dt)
    for kind in ("lugre", "coulomb"):
        model = examples.sliding_block(kind)
        name, key = ("lugre", "mu_s") if kind == "lugre" else ("slide", "mu")
        low = 0.3 if kind == "lugre" else 0.2

        def call(model=model, name=name, key=key, low=low):
            model.replace(name, **{key: low})
            first = model.simulate(4.0, dt=dt, dt_out=0.01)
            model.replace(name, **{key: 0.5})
            return model.simulate(8.0, dt=dt, dt_out=0.01, initial=first)
        rows.append(_time(f"sliding block 8 s, {kind} (two segments)", call, steps))
    plain = examples.sliding_block("none")
    rows.append(_time("sliding block 8 s, frictionless",
                      lambda: plain.simulate(8.0, dt=dt, dt_out=0.01), steps))
    return rows


def slider_crank_with_friction(mu=0.1, radius=0.01):
    inertia = 1.0 * 0.1 ** 2 / 3
    pin_law = ss.laws.CoulombODE(mu=mu, K=50.0, beta=2 * math.sqrt(inertia / 50.0))
    return examples.slider_crank(pin_friction=pin_law, pin_radius=radius,
                                 slide_friction=ss.laws.CoulombODE.tuned(0.5, 1e5, mu=mu))


def slider_crank_rows():
    dt, steps = 1e-3, 10000
    rows = []
    for label, model in (("slider–crank 10 s, frictionless", examples.slider_crank()),
                         ("slider–crank 10 s, friction on 3 pins + slider",
                          slider_crank_with_friction())):
        rows.append(_time(label, lambda m=model: m.simulate(10.0, dt=dt, dt_out=0.02), steps))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = sliding_block_rows() + slider_crank_rows()
    lines = ["| case | compile [s] | run [s] | per step [µs] | note |",
             "|---|---|---|---|---|"]
    for r in rows:
        res, note = r["res"], ""
        if "block" in r["case"] and "frictionless" not in r["case"]:
            note = f"x change over last 4 s: {1e3 * np.ptp(res['block.x']):.3f} mm"
        elif "crank" in r["case"]:
            note = (f"energy {res['energy'][0]:.4f} → {res['energy'][-1]:.4f} J, crank at "
                    f"{math.degrees(res['crank.phi'][-1]):.2f}°")
        lines.append(f"| {r['case']} | {r['compile']:.2f} | {r['run']:.3f} | "
                     f"{r['per_step_us']:.1f} | {note} |")
    table = "\n".join(lines)
    header = (f"# Planar joint friction benchmark\n\n{platform.processor() or platform.machine()}"
              f", {jax.devices()[0].platform}, jax {jax.__version__}; "
              f"`python benchmarks/planar_friction.py`\n\n")
    print(table)
    if args.out:
        args.out.write_text(header + table + "\n")


if __name__ == "__main__":
    main()
