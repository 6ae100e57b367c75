"""Work–precision of every stickslip route against MuJoCo, Exudyn and Siconos on AP1–AP4 of
issue 21 (items 3 and 5), all timed in one run; Siconos where the system Python
(``/usr/bin/python3``) imports ``siconos.kernel`` (models in ``_work_precision_siconos.py``,
run there in a subprocess; AP1–AP3 only).

Problems (AP1–AP3 are those of ``moreau_jean.py`` and ``event_route.py``, imported from them):

* AP1 — 1 kg block, Coulomb F = 0.5 N, load 0 / 0.6 N / 0.45 + 0.04 sin(10πt) N: slides,
  stops at t = 2 s, sticks; error |x(10) − (0.0375 + 0.04/(10π))| [m].
* AP2 — m = k = 1, belt 0.5 m/s, F = 1 N, 20 s: error of the limit cycle's extent against
  [0.5, 1.5] m over t ∈ [10, 20] s, read off samples (every step, or every 1e-4 s for the
  Tsit5 route: a sampling floor of ≈ A(ωΔ)²/8, 6e-10 m at Δ = 1e-4 s and 6e-8 m
  at the events route's Δ = 1e-3 s).
* AP3 — ball from 1 m, g = 9.81, e = 0.8, 3 s: largest apex error against e^(2k)·h0 [m].
* AP4 — the slider–crank of ``planar_slider_crank.py`` (10 s): error of the crank angle at
  10 s [°] against a converged run of the *same route* (RK4: dt = 1e-4; Tsit5: rtol 1e-12;
  MuJoCo: dt = 1e-5) — each route's own discretisation error, not its model error.

Routes: stickslip ODE (RK4 on ``CoulombODE.tuned`` / ``for_tolerance``, ``UnilateralODE``
tuned to e = 0.8 by ``contact_tuning.alpha_for_restitution``; Tsit5), ``moreau_jean``,
``events``; MuJoCo (slide joint with ``frictionloss``, with and without ``noslip``; a
sphere on a plane with solref dampratio set for e = 0.8; hinge chain closed by ``connect``
for AP4), rolled out in C by ``mujoco.rollout`` (AP1–AP3) or ``mj_step(nstep=n)`` (AP4);
Exudyn (``Mass1D`` with ``CoordinateSpringDamperExt`` bristle friction and
``ContactCoordinate`` with the Gonthier restitution model, generalized-α; AP1's load is a
Python user function); Siconos (``MoreauJeanOSI`` θ = 0.5 with a ``Relay`` for the 1-D
friction, ``NewtonImpactNSL`` with time stepping and ``EventDriven``/``LsodarOSI`` for AP3).
Wall: best of 3 after a first call (``moreau_jean``, ``events`` and Siconos: of 5, with the
CPU time too; AP3 ``events`` and Siconos event-driven: of 10);
"first" is that first call (compile for stickslip, model load for the peers). Model building
is outside the walls; Siconos builds a fresh model for each timed run (a Siconos simulation
runs once), its build + ``initialize()`` reported apart as "setup".

Run:  python benchmarks/work_precision_peers.py [--quick]
(writes benchmarks/results/work_precision_peers.md and work_precision_peers.png)
"""

from __future__ import annotations

import argparse
import datetime
import functools
import math
import os
import platform
import subprocess
import time
import warnings
from pathlib import Path

import _work_precision_siconos as siconos
import event_route
import moreau_jean as mj
import planar_slider_crank as psc
from _report import write_report
from _work_precision_peer_models import (
    exudyn_ap1,
    exudyn_ap2,
    exudyn_ap3,
    mujoco_ap1,
    mujoco_ap2,
    mujoco_ap3,
    mujoco_ap4,
    row,
    sampled_apex_error,
)

import stickslip as ss
from stickslip.laws import contact_tuning

OUT = Path(__file__).parent / "results"
G, E, H0 = event_route.G, event_route.E, event_route.H0
AP2_DT_OUT = 1e-4
FLOOR = 1e-17                       # errors of exactly 0 are drawn here on the log axes
TARGETS = {"AP1": 1e-6, "AP2": 1e-8, "AP3": 1e-6, "AP4": 1e-3}
AP3_REPEATS = 10                    # AP3 events and Siconos event-driven run in < 2 ms
EXACT_REPEATS = 5                   # the other moreau_jean / events / Siconos rows
ROUNDOFF = 1e-14                    # errors below this count as equal (round-off) …
SAME_DIGITS = 1e-3                  # … and so do errors equal to 3 digits
PROBLEM_NOTES = {"AP2": [
    ("MuJoCo `frictionloss` without noslip shows no friction at all here (error 1.5 m): the "
    "belt is a 1e12 kg body driven at constant speed, which most likely ill-conditions "
    "MuJoCo's soft friction row — a flaw of this model, not a measure of MuJoCo."), ""]}


def from_tuples(problem, route_of, tuples):
    """Rows from moreau_jean.py's (name, step, error, wall, first) tuples."""
    return [row(problem, "stickslip", route_of(name), step, err, wall, first)
            for name, step, err, wall, first in tuples]


def ode_route(name):
    return "rk4 for_tolerance" if "for_tolerance" in name else "rk4 CoulombODE.tuned"


def timed(run, repeats=3):
    """(first call [s], best wall [s], best CPU time of this process [s], last result) of
    `repeats` calls after a first one; CPU time is the steadier figure under load."""
    start = time.perf_counter()
    run()
    first, wall, cpu = time.perf_counter() - start, math.inf, math.inf
    for _ in range(repeats):
        start, cpu_start = time.perf_counter(), time.process_time()
        res = run()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - cpu_start)
    return first, wall, cpu, res


def exact_rows(problem, system, t_end, error, method, steps, route=None,
               repeats=EXACT_REPEATS, **options):
    """Rows of an exact route (``moreau_jean`` / ``events``), with CPU time."""
    rows = []
    for dt in steps:
        first, wall, cpu, res = timed(functools.partial(
            ss.simulate, system, t_end, method=method, dt=dt, **options), repeats)
        rows.append(row(problem, "stickslip", route or method, f"dt={dt:g}", error(res),
                        wall, first, cpu=cpu))
    return rows


# ---------------------------------------------------------------- stickslip
def stickslip_ap1(quick):
    block = mj.ap1(ss.laws.CoulombODE(F=0.5, K=1e4, beta=1e-3))
    steps = (1e-2,) if quick else (1e-2, 1e-3)
    rows = exact_rows("AP1", block, 10.0, mj.ap1_error, "moreau_jean", steps)
    rows += exact_rows("AP1", block, 10.0, mj.ap1_error, "moreau_jean", steps,
                       route="moreau_jean, one sample", dt_out=10.0)  # all AP1 asks for
    rows += exact_rows("AP1", block, 10.0, mj.ap1_error, "events",
                       (0.1, 1e-2) if quick else (0.1, 2e-2, 1e-2))
    rows += from_tuples("AP1", ode_route, mj.ode_rows(
        mj.ap1, 10.0, mj.ap1_error, 0.5, (1e4, 1e6) if quick else (1e4, 1e5, 1e6, 1e7),
        () if quick else (1e-5, 1e-6)))
    system = mj.ap1(ss.laws.CoulombODE.tuned(mass=1.0, K=1e6, F=0.5))
    for rtol in (1e-6,) if quick else (1e-6, 1e-8):
        first, wall, res = mj.timed(lambda r=rtol: ss.simulate(
            system, 10.0, method="tsit5", rtol=r, atol=r * 1e-3, dt_out=10.0,
            max_steps=10 ** 7))
        rows.append(row("AP1", "stickslip", "tsit5 CoulombODE.tuned", f"K=1e6, rtol={rtol:g}",
                        mj.ap1_error(res), wall, first))
    return rows


def stickslip_ap2(quick):
    belt = mj.ap2(ss.laws.CoulombODE(F=1.0, K=1e4, beta=1e-3))
    rows = exact_rows("AP2", belt, 20.0, mj.ap2_error, "moreau_jean",
                      (1e-3, 1e-4) if quick else (1e-3, 3e-4, 1e-4, 3e-5))
    rows += exact_rows("AP2", belt, 20.0, mj.ap2_error, "events",    # dt_out = dt: the
                       (1e-3,) if quick else (1e-2, 1e-3))           # sampling floor
    rows += from_tuples("AP2", ode_route, mj.ode_rows(
        mj.ap2, 20.0, mj.ap2_error, 1.0, (1e4, 1e6) if quick else (1e4, 1e6, 1e8),
        () if quick else (1e-5,)))
    system = mj.ap2(ss.laws.CoulombODE.tuned(mass=1.0, K=1e6, F=1.0))
    for rtol in (1e-6,) if quick else (1e-6, 1e-8):
        first, wall, res = mj.timed(lambda r=rtol: ss.simulate(
            system, 20.0, method="tsit5", rtol=r, atol=r * 1e-3, dt_out=AP2_DT_OUT,
            max_steps=10 ** 7))
        rows.append(row("AP2", "stickslip", "tsit5 CoulombODE.tuned", f"K=1e6, rtol={rtol:g}",
                        mj.ap2_error(res), wall, first))
    return rows


def stickslip_ap3(quick):
    ball = event_route.ball()
    rows = exact_rows("AP3", ball, 3.0, lambda res: event_route.apex_error(res.events["v"]),
                      "events", (3.0, 1e-2) if quick else (3.0, 0.1, 1e-2),
                      repeats=AP3_REPEATS)                            # sub-ms: best of 10
    rows += exact_rows("AP3", ball, 3.0, lambda res: sampled_apex_error(res["p"], res["v"]),
                       "moreau_jean", (1e-3, 1e-4) if quick else (1e-3, 1e-4, 1e-5))
    for K in (1e5,) if quick else (1e5, 1e6):
        beta = 1.0 / math.sqrt(K)                                  # ωβ = 1
        alpha = contact_tuning.alpha_for_restitution(1.0, K, beta, E, g=G,
                                                     v_impact=math.sqrt(2 * G * H0))
        system = ss.systems.ContactMass(M=1.0, law=ss.laws.UnilateralODE(K, beta, alpha),
                                        g=G, p0=H0)
        limit = ss.largest_stable_step(system, "rk4")
        for frac in (0.5, 0.05) if quick else (0.5, 0.1, 0.02):
            dt = 3.0 / math.ceil(3.0 / (frac * limit))
            first, wall, res = mj.timed(lambda s=system, dt=dt: ss.simulate(s, 3.0, dt=dt))
            rows.append(row("AP3", "stickslip", "rk4 UnilateralODE", f"K={K:g}, dt={dt:.2g}",
                            sampled_apex_error(res["p"], res["v"]), wall, first))
        first, wall, res = mj.timed(lambda s=system: ss.simulate(
            s, 3.0, method="tsit5", rtol=1e-8, atol=1e-10, dt_out=1e-4))
        rows.append(row("AP3", "stickslip", "tsit5 UnilateralODE", f"K={K:g}, rtol=1e-8",
                        sampled_apex_error(res["p"], res["v"]), wall, first))
    return rows


def crank_angle(method, **kwargs):
    res = psc.examples.slider_crank().simulate(psc.T_END, method=method, dt_out=0.02, **kwargs)
    return math.degrees(res["crank.phi"][-1])


def stickslip_ap4(quick):
    ref_rk4 = crank_angle("rk4", dt=1e-4, projection=None)
    ref_tsit5 = crank_angle("tsit5", rtol=1e-12, atol=1e-14)
    rows = []
    for dt in (2e-3, 5e-3) if quick else (1e-3, 2e-3, 5e-3):
        r = psc.run_stickslip(dt)
        rows.append(row("AP4", "stickslip", "rk4 + projection", f"dt={dt:g}",
                        abs(r["angle"] - ref_rk4), r["run"], r["compile"] + r["run"]))
    for rtol in (1e-6,) if quick else (1e-6, 1e-8):
        r = psc.run_stickslip(None, method="tsit5", rtol=rtol, atol=rtol * 1e-2)
        rows.append(row("AP4", "stickslip", "tsit5", f"rtol={rtol:g}",
                        abs(r["angle"] - ref_tsit5), r["run"], r["compile"] + r["run"]))
    return rows, {"rk4 dt=1e-4": ref_rk4, "tsit5 rtol=1e-12": ref_tsit5}


# ---------------------------------------------------------------- Siconos
def siconos_rows(quick):
    """Every Siconos route of ``_work_precision_siconos.py``, each in a system-Python
    subprocess (AP3 event-driven steps are "h:Lsodar tolerance", 0 = its default)."""
    plan = [("AP1", "ts-exact", (1e-2,) if quick else (1e-2, 1e-3)),
            ("AP1", "ts-ends", (1e-2, 1e-3) if quick else (1e-2, 1e-3, 1e-4)),
            ("AP2", "ts", (1e-3,) if quick else (1e-3, 3e-4, 1e-4)),
            ("AP3", "ts", (1e-3, 1e-4) if quick else (1e-3, 1e-4, 1e-5)),
            ("AP3", "ed", ("3:1e-9", "3:0") if quick else
             ("3:1e-6", "3:1e-9", "3:1e-12", "3:0", "0.01:0"))]
    return [r for problem, route, steps in plan
            for r in siconos.rows(problem, route, steps,
                                  repeats=AP3_REPEATS if route == "ed" else EXACT_REPEATS)]


def head_to_head(rows):
    """Issue 21's speed questions, from this run's rows: AP1/AP2 — the run of each stickslip
    ``moreau_jean`` route at or below each Siconos run's error; AP3 — the ``events`` and
    Siconos event-driven runs at ≤ 1e-12 m; the cheapest in CPU time each."""
    def cheapest(problem, engine, routes, bound):
        ok = [r for r in rows if (r["problem"], r["engine"]) == (problem, engine)
              and r["route"] in routes and r["cpu"] is not None
              and r["err"] <= max(bound * (1 + SAME_DIGITS), ROUNDOFF)]
        return min(ok, key=lambda r: r["cpu"]) if ok else None

    siconos_ed = [r["route"] for r in rows if r["route"].startswith("EventDriven")]
    pairs = [(sic, route, cheapest(sic["problem"], "stickslip", (route,), sic["err"]))
             for sic in rows if sic["engine"] == "Siconos" and sic["problem"] != "AP3"
             for route in ("moreau_jean", "moreau_jean, one sample")
             if any(r["route"] == route and r["problem"] == sic["problem"] for r in rows)]
    sic = cheapest("AP3", "Siconos", siconos_ed, 1e-12)
    if sic:
        pairs.append((sic, "events", cheapest("AP3", "stickslip", ("events",), 1e-12)))
    lines = [("| problem | Siconos run | error | wall / CPU [ms] | stickslip run at or below "
              "that error | error | wall / CPU [ms] | Siconos ÷ stickslip: wall, CPU |"),
             "|---|---|---|---|---|---|---|---|"]
    for sic, route, ours in pairs:
        mine = (f"{route}, {ours['step']} | {ours['err']:.1e} | {ours['wall'] * 1e3:.3g} / "
                f"{ours['cpu'] * 1e3:.3g} | **{sic['wall'] / ours['wall']:.2g}**, "
                f"**{sic['cpu'] / ours['cpu']:.2g}**" if ours else f"{route}: none | | |")
        lines.append(f"| {sic['problem']} | {sic['route']}, {sic['step']} | "
                     f"{sic['err']:.1e} | {sic['wall'] * 1e3:.3g} / {sic['cpu'] * 1e3:.3g} | "
                     f"{mine} |")
    return lines


# ---------------------------------------------------------------- MuJoCo
def best_at(rows, target):
    best = {}
    for r in rows:
        key = (r["engine"], r["route"])
        if r["err"] <= target and (key not in best or r["wall"] < best[key]["wall"]):
            best[key] = r
    return sorted(best.values(), key=lambda r: r["wall"])


def figure(all_rows, problems, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    markers = {"stickslip": "o-", "MuJoCo": "s--", "Exudyn": "^:", "Siconos": "D-."}
    for ax, (key, title) in zip(axes.flat, problems.items()):
        rows = [r for r in all_rows if r["problem"] == key]
        routes = list(dict.fromkeys((r["engine"], r["route"]) for r in rows))
        for i, (engine, route) in enumerate(routes):
            pts = sorted((r["wall"], max(r["err"], FLOOR)) for r in rows
                         if (r["engine"], r["route"]) == (engine, route))
            ax.loglog(*zip(*pts), markers[engine], color=f"C{i % 10}",
                      label=f"{engine}: {route}")
        ax.axhline(TARGETS[key], color="grey", lw=0.8, ls=":")
        ax.set(xlabel="wall time per run, after the first call [s]", ylabel="error",
               title=title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="x-small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def uptime():
    return subprocess.run(["uptime"], check=False, capture_output=True,
                          text=True).stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a one-minute smoke run")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    started = time.perf_counter()
    uptime_start = uptime()

    rows, notes = [], []
    rows += stickslip_ap1(args.quick) + stickslip_ap2(args.quick) + stickslip_ap3(args.quick)
    ap4, refs = stickslip_ap4(args.quick)
    rows += ap4
    peers = []
    try:
        import mujoco
        rows += mujoco_ap1(args.quick) + mujoco_ap2(args.quick) + mujoco_ap3(args.quick)
        ap4, mj_ref = mujoco_ap4(args.quick)
        rows += ap4
        refs["MuJoCo dt=1e-5"] = mj_ref
        peers.append(f"MuJoCo {mujoco.__version__}")
    except ImportError:
        notes.append("MuJoCo: `import mujoco` failed — not run (`pip install -e .[bench]`).")
    try:
        import exudyn
        rows += exudyn_ap1(args.quick) + exudyn_ap2(args.quick) + exudyn_ap3(args.quick, notes)
        peers.append(f"Exudyn {exudyn.__version__}")
        notes.append("Exudyn AP4: no Exudyn slider–crank model here yet; the one measured "
                     "elsewhere is quoted in `planar_slider_crank.md`.")
    except ImportError:
        notes.append("Exudyn: `import exudyn` failed — not run (`pip install -e .[bench]`).")
    reason = siconos.available()
    if reason is None:
        rows += siconos_rows(args.quick)
        peers.append(f"Siconos ({siconos.version()}, system Python, one subprocess per "
                     "route)")
        notes.append("Siconos AP4: not modelled — a slider–crank needs a nonlinear "
                     "`LagrangianDS` with closed-loop joints (C plugins or "
                     "`siconos.mechanics` joints), beyond this benchmark.")
    else:
        print(f"Siconos rows skipped: {reason}")
        notes.append(f"Siconos: not run — {reason} (the Debian system package "
                     "`python3-siconos`, not pip-installable).")

    problems = {"AP1": "AP1: block stops at 2 s and sticks — |x(10) − exact| [m]",
                "AP2": "AP2: mass–spring on a belt — limit-cycle extent error [m]",
                "AP3": "AP3: bouncing ball — largest apex error [m]",
                "AP4": "AP4: slider–crank — crank angle at 10 s vs same route converged [°]"}
    figure(rows, problems, OUT / "work_precision_peers.png")
    elapsed = time.perf_counter() - started
    uptime_end = uptime()
    command = "python benchmarks/work_precision_peers.py" + (" --quick" if args.quick else "")
    lines = ["# Work–precision with peers (issue 21, items 3 and 5)", "",
             (f"Command: `{command}`; {datetime.datetime.now():%Y-%m-%d %H:%M}; "
             f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
             f"Python {platform.python_version()}; stickslip {ss.__version__}; peers run: "
             f"{', '.join(peers) or 'none'}; the whole run {elapsed:.0f} s."), "",
             f"`uptime` at the start: `{uptime_start}`; at the end: `{uptime_end}`.", "",
             ("Wall: best of 3 runs of one call on a model built beforehand, after a first "
             "call (\"first\": compile + run for stickslip, model load + run for the "
             f"peers; `moreau_jean`, `events` and Siconos: best of {EXACT_REPEATS}, AP3 "
             f"`events` and Siconos event-driven of {AP3_REPEATS}). "
             "stickslip walls include the output at every step (AP1 Tsit5: one "
             "sample; AP2 Tsit5: every 1e-4 s; AP4: every 0.02 s with energy and "
             "reactions). Siconos: the Python stepping loop of a freshly built model, "
             "reading the state every step (its model build + `initialize()` is the "
             "\"setup\" column; \"first\" = setup + the first loop, in a subprocess "
             "that has imported siconos). \"CPU\": the best CPU time of this process "
             "over the same timed runs, for the exact routes and Siconos."), ""] + [f"- {n}" for n in notes] + [""]
    if any(r["engine"] == "Siconos" for r in rows):
        lines += ["## Siconos head to head (issue 21's Speed section)", "",
                  ("Same run. AP1/AP2: for each Siconos run, the stickslip `moreau_jean` run "
                  "(output every step, and one sample) whose error is at or below it; AP3: "
                  "the Siconos event-driven and stickslip `events` runs at ≤ 1e-12 m; "
                  "each the cheapest in CPU time (best of the timed runs; the load moves "
                  "wall times by 2–3× here, CPU times much less). Errors "
                  f"below {ROUNDOFF:g} (round-off) or equal to 3 digits count as equal. "
                  "A ratio > 1: stickslip is faster."), ""] + head_to_head(rows) + [""]
    lines += ["## Wall time at equal error", "",
              ("The fastest run of each route whose error is at or below the target "
              "(routes that never reach it are left out)."), "",
              "| problem | target | route (fastest first) | wall [ms] | error | step |",
              "|---|---|---|---|---|---|"]
    for key in problems:
        for r in best_at([r for r in rows if r["problem"] == key], TARGETS[key]):
            lines.append(f"| {key} | {TARGETS[key]:g} | {r['engine']}: {r['route']} | "
                         f"{r['wall'] * 1e3:.3g} | {r['err']:.1e} | {r['step']} |")
    lines += [""]
    for key, title in problems.items():
        lines += [f"## {title}", ""] + PROBLEM_NOTES.get(key, []) + [
            ("| engine | route | step | error | wall [ms] | CPU [ms] | first call [s] | "
             "setup [ms] |"), "|---|---|---|---|---|---|---|---|"]
        for r in rows:
            if r["problem"] == key:
                setup = f"{r['setup'] * 1e3:.2g}" if "setup" in r else ""
                cpu = f"{r['cpu'] * 1e3:.3g}" if r.get("cpu") is not None else ""
                lines.append(f"| {r['engine']} | {r['route']} | {r['step']} | "
                             f"{r['err']:.2e} | {r['wall'] * 1e3:.3g} | {cpu} | "
                             f"{r['first']:.2f} | {setup} |")
        lines += [""]
    lines += ["AP4 references (crank angle at 10 s): " + ", ".join(
        f"{k}: {v:.6f}°" for k, v in refs.items()) + " (the published value is −30.495°).",
        ""]
    write_report(lines, OUT / "work_precision_peers.md")


if __name__ == "__main__":
    main()
