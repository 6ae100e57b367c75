"""`method="events"` on AP3 of issue 21 (the bouncing ball) against the planar impact-event
path and `moreau_jean`, in one run; AP1 and the stick–slip oscillator against `moreau_jean`;
the Zeno run to rest; the cold compile. Siconos where ``import siconos`` works.

* AP3 — a 1 kg ball dropped from h0 = 1 m, g = 9.81 m/s², e = 0.8, 3 s (6 impacts): error
  = the largest |apex_k − e^(2k)·h0| [m] over the bounces. ``events``: apex from the state
  after impact k, v⁺²/(2g). Planar path (``ss.planar`` ``PointLineStop``, RK4 + a Python
  root-find per impact): the same from its ``normal_velocity_after``. ``moreau_jean``: the
  sampled flight's p + v²/(2g) just before each apex (a step resolves an impact).
* AP1 — the block of issue 21 (slides, stops at t = 2 s, sticks): error of x(10 s).
* Stick–slip oscillator — m = k = 1, belt 0.2 m/s, F_s = 1 N, F = 0.6 N, 30 s: the largest
  relative error of the stick and slip durations against 2(F_s − F)/(k v_b) and
  (2π − 2α)/ω; ``moreau_jean`` read from its samples (a phase ends on a step).

Wall: one ``simulate`` call on a system built beforehand (or ``Model.simulate`` on a built
planar model), best of 5 (AP3 `events`: of 20; planar: of 3) after a first (compiling or
loading) call, output every step unless said.
"cold" = the first call in a fresh process with the program store and JAX's compile cache
off (``STICKSLIP_JAX_CACHE=0``).

Run:  python benchmarks/event_route.py   (writes benchmarks/results/event_route.md)
"""

from __future__ import annotations

import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import jax.numpy as jnp
import numpy as np
from _report import write_report
from _timing import best_of

import stickslip as ss

OUT = Path(__file__).parent / "results" / "event_route.md"
G, E, H0, T_END = 9.81, 0.8, 1.0, 3.0
V1, T1 = math.sqrt(2 * G * H0), math.sqrt(2 * H0 / G)
T_ZENO = T1 + 2 * V1 * E / (G * (1 - E))
AP1_REST = 0.0375 + 0.04 / (10 * np.pi)
FS, FK, VB = 1.0, 0.6, 0.2
T_STICK, T_SLIP = 2 * (FS - FK) / VB, 2 * np.pi - 2 * math.atan2(FS - FK, VB)


def timed(run, repeats=5):
    start = time.perf_counter()
    run()
    first = time.perf_counter() - start
    wall, res = best_of(run, repeats=repeats)
    return first, wall, res


def apex_error(v_after):
    k = np.arange(1, len(v_after) + 1)
    return float(np.max(np.abs(np.asarray(v_after) ** 2 / (2 * G) - H0 * E ** (2 * k))))


def ball():
    return ss.systems.ContactMass(M=1.0, law=ss.laws.NewtonImpact(e=E), g=G, p0=H0)


def ap3_rows():
    rows, system = [], ball()             # built once: the walls are the runs alone
    for dt in (3.0, 0.1, 1e-2):
        first, wall, res = timed(lambda dt=dt: ss.simulate(system, T_END, method="events",
                                                           dt=dt), repeats=20)
        n = len(res.events)
        rows.append(("events", f"dt={dt:g}", apex_error(res.events["v"]), wall, first,
                     f"{n} impacts, {len(res.t)} samples"))
    for dt in (1e-2, 1e-3):
        model = ss.planar.Model(gravity=(0.0, -G))
        body = model.add_body("ball", mass=1.0, inertia=1e-3, y=H0)
        model.add(ss.planar.PointLineStop(body, restitution=E, name="floor"))
        first, wall, res = timed(lambda m=model, dt=dt: m.simulate(T_END, dt=dt), repeats=3)
        after = [i["normal_velocity_after"] for i in res.meta["impacts"]]
        rows.append(("planar impact events (Python loop)", f"dt={dt:g}", apex_error(after),
                     wall, first, f"{len(after)} impacts"))
    for dt in (1e-3, 1e-4):
        first, wall, res = timed(lambda dt=dt: ss.simulate(system, T_END, method="moreau_jean",
                                                           dt=dt))
        p, v = res["p"], res["v"]
        turn = np.nonzero((v[:-1] > 0) & (v[1:] <= 0))[0]
        apex = p[turn] + v[turn] ** 2 / (2 * G)
        err = float(np.max(np.abs(apex - H0 * E ** (2 * np.arange(1, len(turn) + 1)))))
        rows.append(("moreau_jean θ = 0.5", f"dt={dt:g}", err, wall, first, ""))
    return rows


def zeno_row():
    system = ball()
    first, wall, res = timed(lambda: ss.simulate(system, 6.0, method="events", dt=0.1,
                                                 dt_out=0.1))
    events = res.events
    return (len(events), float(events["t"].iloc[-1] - T_ZENO), wall, first)


def ap1_load(t):
    return jnp.where(t < 0.5, 0.0, jnp.where(t < 1.0, 0.6,
                                             0.45 + 0.04 * jnp.sin(10 * jnp.pi * t)))


def friction_rows():
    law = ss.laws.CoulombODE(F=0.5, K=1e4, beta=1e-3)
    block = ss.systems.FrictionMass(M=1.0, law=law, force=ap1_load)
    ap1 = []
    for method, dt in (("events", 0.1), ("events", 2e-2), ("events", 1e-2),
                       ("moreau_jean", 1e-2)):
        first, wall, res = timed(lambda m=method, dt=dt: ss.simulate(block, 10.0, method=m,
                                                                     dt=dt))
        ap1.append((method, f"dt={dt:g}", abs(res["p"][-1] - AP1_REST), wall, first, ""))
    law = ss.laws.CoulombODE(F=FK, F_s=FS, K=1e4, beta=1e-3)
    belt = ss.systems.FrictionMass(M=1.0, law=law, stiffness=1.0, surface_velocity=VB,
                                   p0=0.2, v0=VB)
    oscillator = []
    for method, dt in (("events", 0.3), ("events", 0.1), ("moreau_jean", 1e-3),
                       ("moreau_jean", 1e-4)):
        first, wall, res = timed(lambda m=method, dt=dt: ss.simulate(belt, 30.0, method=m,
                                                                     dt=dt))
        if method == "events":
            times, kinds = res.events["t"].to_numpy(), res.events["kind"].to_numpy()
        else:                                    # phase ends read off the samples
            stuck = res["slip"] == 0.0
            change = np.nonzero(stuck[1:] != stuck[:-1])[0] + 1
            times, kinds = res.t[change], np.where(stuck[change], "stick", "slip")
        spans = np.diff(times)
        stick, slip = spans[kinds[:-1] == "stick"], spans[kinds[:-1] == "slip"]
        err = max(np.max(np.abs(stick / T_STICK - 1)), np.max(np.abs(slip / T_SLIP - 1)))
        oscillator.append((method, f"dt={dt:g}", err, wall, first, ""))
    return ap1, oscillator


COLD = """
import time
import stickslip as ss
ball = ss.systems.ContactMass(M=1.0, law=ss.laws.NewtonImpact(e=0.8), p0=1.0)
law = ss.laws.CoulombODE(F=0.6, F_s=1.0, K=1e4, beta=1e-3)
belt = ss.systems.FrictionMass(M=1.0, law=law, stiffness=1.0, surface_velocity=0.2)
walls = []
for system in (ball, belt):
    start = time.perf_counter()
    ss.simulate(system, 3.0, method="events", dt=0.1)
    walls.append(time.perf_counter() - start)
print(*walls)
"""


def cold_compile():
    env = {**os.environ, "STICKSLIP_JAX_CACHE": "0",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", COLD], env=env, capture_output=True,
                         text=True, check=True)
    return [float(w) for w in out.stdout.split()[-2:]]


def table(title, error_name, rows):
    header = f"| route | step | {error_name} | wall [ms] | first call [s] | note |"
    lines = [f"## {title}", "", header, "|---|---|---|---|---|---|"]
    for name, step, err, wall, first, note in rows:
        lines.append(f"| {name} | {step} | {err:.2e} | {wall * 1e3:.3g} | {first:.2f} | "
                     f"{note} |")
    return lines + [""]


def main():
    ap3 = ap3_rows()
    zeno = zeno_row()
    ap1, oscillator = friction_rows()
    cold = cold_compile()
    try:
        import siconos  # noqa: F401
        siconos_line = ("Siconos imported, but no Siconos model of AP3 is defined here "
                        "(issue 21 item 5, benchmarks/work_precision.py): not run.")
    except ImportError:
        siconos_line = ("Siconos: `import siconos` failed — not installed here (the system "
                        "package `python3-siconos`), so it was **not run**. The issue's "
                        "figure, from another run on another load: Siconos event-driven, AP3 "
                        "apex error 8e-15 m in **1.8 ms**.")
    load = os.getloadavg()
    machine = (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; load "
               f"average {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} (at the end of the "
               "run). `python benchmarks/event_route.py`.")
    lines = ["# method='events' (issue 21, item 2)", "", machine, "", siconos_line, ""]
    lines += table("AP3: bouncing ball, 3 s, largest apex error", "apex error [m]", ap3)
    lines += [(f"Zeno run (6 s, dt = 0.1, dt_out = 0.1): {zeno[0]} events, the last "
               f"'rest' {zeno[1]:+.1e} s from the closed-form accumulation time "
               f"T∞ = {T_ZENO:.6f} s; wall {zeno[2] * 1e3:.3g} ms (first call "
               f"{zeno[3]:.2f} s)."), ""]
    lines += table("AP1: block held by static friction, error of x(10 s)", "error [m]", ap1)
    lines += table("Stick–slip oscillator, 30 s: largest relative error of the phase "
                   "durations", "error [-]", oscillator)
    lines += [(f"Cold first call (fresh process, STICKSLIP_JAX_CACHE=0; trace, compile and "
               f"run): ContactMass {cold[0]:.2f} s, FrictionMass on a belt {cold[1]:.2f} s."),
              ""]
    write_report(lines, OUT)


if __name__ == "__main__":
    main()
