"""Speed of spatial link systems in the JAX core (issue 20): chains of n bodies on revolute
joints, a 6-body mechanism with 4 point contacts, 1000 boxes in one vmap, and the first call
of a new model (cold and warm).

1. *Chains* of n = 2, 6, 12, 30, 45 rods (0.1 m, 0.1 kg each) on revolute joints, hanging
   straight at 45° from the vertical, gravity, no contact; RK4, dt = 1 ms, 2 s, dt_out =
   10 ms. Run time per step after compile, the fitted exponent of time per step against n
   (the joints' rows in local form, their Schur complement factored densely or, from 150
   rows, block by block), and the first call in fresh processes:
   *cold* with ``STICKSLIP_JAX_CACHE=0``, *cold, writing* with an empty cache directory
   (it fills it), *warm* on that directory. Peer: the same chains in MuJoCo (hinge chain in
   MJCF, RK4, same dt, ``mj_step(nstep=10)`` per output sample) when ``mujoco`` imports.
   Also the solve alone at the chains' sizes (m = 5n rows): the pure-JAX elimination
   (:func:`stickslip.constraints.spd_solve`), LAPACK's Cholesky and the block factor; the
   dense and block factors in whole runs (n ≥ 30); and the two routes to A = J M⁻¹ Jᵀ
   (dense product, body by body) on the chains and the cart.
1b. *Chains on the exact route* (``method="moreau_jean"``): n = 6 and 30, 1 s.
2. *Cart*: a chassis on four spherical wheels (revolute axles) with a pendulum — 6 bodies,
   5 revolute joints, exactly 4 point contacts — pushed by 1 N; steps/s after compile
   (issue target: ≥ 10⁴) on RK4 and on the exact time-stepping route (``moreau_jean``).
3. *Box batch*: 1000 boxes on the ground (8 corner contacts each) with pushes 0…10 N
   (``PointForce``: traced data, one compile), ``ss.simulate_batch`` (step check on),
   0.2 s at dt = 1 ms;
   stacking, compile and run time, time per box-step, against one box run alone.
4. *First call of a new model*: the double pendulum and the sphere on the ground of
   ``tests/spatial/test_link_systems.py`` (``model.simulate(1.0, dt=1e-3, dt_out=0.01)``,
   link build included, import excluded) and the ``arm_pushes_box`` example (the call the
   CLI makes), cold and warm (issue targets: ≤ 10 s, ≤ 1 s).

Every case runs in its own fresh process (``--child``); each row carries the 1-minute load
average at its start (the machine is shared: 2 cores). Ratios are taken between rows of the
same run.

    python benchmarks/spatial_links.py [--quick] [--out PATH]
        [--only chains chains_mj cart batch first]

``--quick``: chains n = 2, 6, 12 over 0.2 s, 100 boxes, no writing/warm chain rows. A
quick or partial (``--only``) run prints its tables and writes them only with ``--out``.
The full run writes ``benchmarks/results/spatial_links.md`` (about 8 minutes on the 2-core
machine at load 2).
The models (and the MuJoCo peer's chain) are in ``benchmarks/_spatial_links_models.py``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _report import write_report
from _spatial_links_models import (
    DT,
    DT_OUT,
    box,
    cart,
    chain,
    double_pendulum,
    mujoco_chain,
    sphere_on_ground,
)

OUT = Path(__file__).parent / "results" / "spatial_links.md"


# --- child processes ---------------------------------------------------------------------------
def _clock():
    return time.perf_counter(), time.process_time()


def _since(start):
    return time.perf_counter() - start[0], time.process_time() - start[1]


_PHASES = {"trace": re.compile(r"Finished tracing .* in ([0-9.e-]+) sec"),
           "lower": re.compile(r"Finished jaxpr to MLIR module conversion .* in ([0-9.e-]+) sec"),
           "xla": re.compile(r"Finished XLA compilation of .* in ([0-9.e-]+) sec")}


def _count_compile_phases(out: dict) -> None:
    """Sum JAX's own timings of tracing, lowering and XLA's compile over every program the
    process compiles (``jax_log_compiles``) into out["trace"], out["lower"], out["xla"]."""
    import logging

    import jax

    for phase in _PHASES:
        out[phase] = 0.0

    class Phases(logging.Handler):
        def emit(self, record):
            message = record.getMessage()
            for phase, pattern in _PHASES.items():
                found = pattern.search(message)
                if found:
                    out[phase] += float(found.group(1))

    jax.config.update("jax_log_compiles", True)
    logger = logging.getLogger("jax")
    logger.addHandler(Phases())
    logger.propagate = False          # the log lines themselves would flood stderr


def _child(case: str, params: dict) -> dict:
    """One case in this (fresh) process; returns what the parent tabulates."""
    out = {"load": os.getloadavg()[0]}
    start = _clock()
    import numpy as np

    import stickslip as ss
    import jax  # noqa: F401  (the import is part of what a user waits for)
    out["import"] = _since(start)[0]
    _count_compile_phases(out)
    out["src"] = str(Path(ss.__file__).parents[1])
    repeats = params.get("repeats", 0)
    if case in ("chain", "cart"):
        if "fraction" in params:          # force the dense (0) or body-by-body (inf) route
            from stickslip.spatial import _link_dynamics
            _link_dynamics.SPARSE_FRACTION = params["fraction"]
        if "block_rows" in params:        # force the block (0) or dense (inf) factor
            from stickslip.spatial import _link_dynamics
            _link_dynamics.BLOCK_ROWS = params["block_rows"]
        t_end = params["t_end"]
        start = _clock()
        system = (chain(params["n"]) if case == "chain" else cart()).link_system()
        out["build"] = _since(start)[0]
        route = {"method": params["method"]} if "method" in params else {}
        start = _clock()
        res = ss.simulate(system, t_end, dt=DT, dt_out=DT_OUT, **route)
        out["first"], out["first_cpu"] = _since(start)
        runs = []
        for _ in range(repeats):
            start = _clock()
            res = ss.simulate(system, t_end, dt=DT, dt_out=DT_OUT, **route)
            runs.append(_since(start))
        if runs:
            out["run"] = min(r[0] for r in runs)
            out["run_cpu"] = min(r[1] for r in runs)
        out["steps"] = res.meta["steps"]
        if case == "chain":
            out["energy_drift"] = float(np.ptp(res["energy"]))
            out["constraint"] = float(res["constraint.position"].max())
        else:
            out["unsolved"] = float(res["contact.unsolved_time"][-1])
            out["fn_min"] = float(min(res[f"ground-wheel{k}.fn"].min() for k in range(4)))
            out["x_end"] = float(res["chassis.x"][-1])
    elif case == "batch":
        n, t_end = params["n"], params["t_end"]
        pushes = np.linspace(0.0, 10.0, n)
        start = _clock()
        systems = [box(p).link_system() for p in pushes]
        out["build"] = _since(start)[0]
        start = _clock()
        stacked = ss.integrate.stack_systems(systems)
        out["stack"] = _since(start)[0]
        # with the step check (it reads member 0's modes; it raised TypeError on the stacked
        # δ before 2026-11-25's fix, when this ran with check_step=False)
        start = _clock()
        res = ss.simulate_batch(stacked, t_end, dt=DT, dt_out=DT_OUT)
        out["first"], out["first_cpu"] = _since(start)
        runs = []
        for _ in range(repeats):
            start = _clock()
            res = ss.simulate_batch(stacked, t_end, dt=DT, dt_out=DT_OUT)
            runs.append(_since(start))
        if runs:
            out["run"] = min(r[0] for r in runs)
            out["run_cpu"] = min(r[1] for r in runs)
        out["steps"] = res.meta["steps"]
        # sliding boxes: v(T) = (F − μ m g) T / m; held ones stay put
        expected = np.maximum(pushes - 0.5 * 9.81, 0.0) * t_end
        out["v_error"] = float(np.abs(res["box.vx"][:, -1] - expected).max())
        out["unsolved"] = float(res["contact.unsolved_time"][:, -1].max())
        if params.get("single"):
            one = systems[-1]
            start = _clock()
            ss.simulate(one, t_end, dt=DT, dt_out=DT_OUT)
            out["single_first"] = _since(start)[0]
            best = math.inf
            for _ in range(3):
                start = _clock()
                ss.simulate(one, t_end, dt=DT, dt_out=DT_OUT)
                best = min(best, _since(start)[0])
            out["single_run"] = best
    elif case == "first":
        if params["model"] == "arm_pushes_box":      # the example, as the CLI runs it
            from stickslip.spatial import examples

            def run():
                return examples.arm_pushes_box()
        else:
            model = {"double_pendulum": double_pendulum,
                     "sphere_on_ground": sphere_on_ground}[params["model"]]()

            def run():
                return model.simulate(1.0, dt=DT, dt_out=DT_OUT)
        start = _clock()
        run()
        out["first"], out["first_cpu"] = _since(start)
        start = _clock()
        run()
        out["second"] = _since(start)[0]
    elif case == "solve":
        import jax
        import jax.numpy as jnp
        import jax.scipy.linalg as jsl

        from stickslip.constraints import spd_solve
        from stickslip.constraints._block_factor import block_factor, row_block_plan
        rng = np.random.default_rng(0)
        rows = []
        for m in params["sizes"]:
            n = m // 5                     # the chain's pattern: joint k on rods k − 1, k
            plan = row_block_plan(np.repeat([n] + list(range(n - 1)), 5),
                                  np.repeat(np.arange(n), 5), ground=n)
            A = rng.normal(size=(m, m))
            S = jnp.asarray(A @ A.T + m * np.eye(m))
            b = jnp.asarray(rng.normal(size=m))
            # 100 solves in one compiled call, so the dispatch does not count
            # S moves with the loop's carry (by 1e-12 x₀ on its diagonal): a loop-invariant
            # S would have XLA hoist the factor out of the loop (before 2026-11-27 this
            # table timed the Cholesky's solves alone)
            def loop(solve):
                return jax.jit(lambda S, b: jax.lax.fori_loop(
                    0, 100, lambda _, x: solve(S + 1e-12 * x[0] * jnp.eye(S.shape[0]),
                                               b + 1e-3 * x), b))
            times = {}
            for name, solve in (("elimination", spd_solve),
                                ("cholesky", lambda S, b: jsl.cho_solve(
                                    jsl.cho_factor(S), b)),
                                ("block", lambda S, b, plan=plan: block_factor(S, plan)(b))):
                f = loop(solve)
                f(S, b).block_until_ready()
                best = math.inf
                for _ in range(5):
                    start = _clock()
                    f(S, b).block_until_ready()
                    best = min(best, _since(start)[0])
                times[name] = best / 100
            # the Schur complement's product J (M⁻¹Jᵀ) with a dense (m, 6n) J, as the engine
            # forms it
            J = jnp.asarray(rng.normal(size=(m, 6 * m // 5)))
            f = jax.jit(lambda J, Y: jax.lax.fori_loop(
                0, 100, lambda _, A: A + J @ (Y + 1e-9 * A[0, 0]), jnp.zeros((m, m))))
            f(J, J.T).block_until_ready()
            best = math.inf
            for _ in range(5):
                start = _clock()
                f(J, J.T).block_until_ready()
                best = min(best, _since(start)[0])
            rows.append((m, times["elimination"], times["cholesky"], best / 100,
                         times["block"]))
        out["rows"] = rows
    out["load_end"] = os.getloadavg()[0]
    return out


SRC = {"path": str(Path(__file__).resolve().parents[1] / "src")}


def snapshot_src(root: Path) -> str:
    """A copy of this checkout's ``src`` that every child of the run imports: the program
    store keys a compiled run by a hash of stickslip's sources, so an edit in the checkout
    between the process that fills the cache and the warm one would make a warm row cold."""
    import shutil

    target = Path(tempfile.mkdtemp(prefix="stickslip-src-")) / "src"
    shutil.copytree(root / "src", target,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return str(target)


def _run_child(case: str, params: dict, cache: str) -> dict:
    """`case` in a fresh process; cache: "0" (off) or a directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
    env["STICKSLIP_JAX_CACHE"] = cache
    env["PYTHONPATH"] = SRC["path"] + os.pathsep + env.get("PYTHONPATH", "")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, "--child", case, json.dumps(params)],
                          env=env, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"child {case} {params} failed:\n{proc.stderr[-3000:]}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    data["process"] = time.perf_counter() - start
    print(f"  {case} {params} cache={'off' if cache == '0' else 'dir'}: "
          f"{ {k: v for k, v in data.items() if k != 'rows'} }", file=sys.stderr, flush=True)
    return data


def _cold_writing_warm(case, params, warm_params=None, *, writing=True):
    """(cold with the cache off, cold into an empty directory, warm on that directory)."""
    cold = _run_child(case, params, "0")
    if not writing:
        return cold, None, None
    with tempfile.TemporaryDirectory(prefix="stickslip-bench-") as cache:
        fill = _run_child(case, warm_params or params, cache)
        warm = _run_child(case, warm_params or params, cache)
    return cold, fill, warm


# --- the table -----------------------------------------------------------------------------------
def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _fit(ns, ts):
    """Least-squares slope of log t against log n."""
    import numpy as np

    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def chain_lines(quick: bool) -> list[str]:
    ns = (2, 6, 12) if quick else (2, 6, 12, 30, 45)
    t_end = 0.2 if quick else 2.0
    repeats = 1 if quick else 2
    lines = ["## 1. Chains of n rods on revolute joints", "",
             f"RK4, dt = 1 ms, {t_end:g} s ({round(t_end / DT)} steps), dt_out = 10 ms. "
             "*per step* = the best of "
             f"{repeats} calls after the first, in the cold process, divided by the steps "
             "(it includes `simulate`'s host side: step check, Results). *compile* = first "
             "call − that run. *cold*: `STICKSLIP_JAX_CACHE=0`; *cold, writing*: an empty "
             "cache directory (filled by that process); *warm*: a fresh process on the "
             "filled directory. First calls exclude the import and the link build "
             "(`link_system()`, listed apart). Load = 1-minute load average at the process's "
             "start.", "",
             "| n | rows m = 5n | load | per step [µs] | steps/s | compile cold [s] | "
             "first call cold [s] (CPU) | load | first call cold, writing [s] | load | "
             "first call warm [s] | link build cold / warm [s] | import [s] | energy drift "
             "[J] |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    per_step = []
    for n in ns:
        cold, fill, warm = _cold_writing_warm("chain", {"n": n, "t_end": t_end,
                                                        "repeats": repeats},
                                              {"n": n, "t_end": t_end}, writing=not quick)
        step = cold["run"] / cold["steps"]
        per_step.append(step)
        lines.append(
            f"| {n} | {5 * n} | {cold['load']:.1f} | {step * 1e6:.0f} | {1 / step:.0f} | "
            f"{cold['first'] - cold['run']:.1f} | {cold['first']:.1f} "
            f"({cold['first_cpu']:.1f}) | "
            + (f"{fill['load']:.1f} | {fill['first']:.1f} | {warm['load']:.1f} | "
               f"{warm['first']:.2f} | {cold['build']:.2f} / {warm['build']:.2f} | "
               if fill else f"– | – | – | – | {cold['build']:.2f} / – | ")
            + f"{cold['import']:.2f} | {cold['energy_drift']:.1e} |")
    slope = _fit(ns, per_step)
    lines += ["", f"Time per step against n: fitted exponent **{slope:.2f}** over n = "
              f"{', '.join(map(str, ns))}; between neighbours: " + ", ".join(
                  f"{a}→{b}: {math.log(tb / ta) / math.log(b / a):.2f}"
                  for (a, ta), (b, tb) in zip(zip(ns, per_step), zip(ns[1:], per_step[1:])))
              + ". Per step and body: " + ", ".join(
                  f"n={n}: {t / n * 1e6:.0f} µs" for n, t in zip(ns, per_step)) + "."]
    # the dense solve alone at the chains' sizes
    solve = _run_child("solve", {"sizes": [5 * n for n in ns]}, "0")
    lines += ["", f"The solve alone (load {solve['load']:.1f}; 100 factors and solves in one "
              "compiled loop, best of 5): the pure-JAX elimination "
              "(`constraints.spd_solve`, two `fori_loop`s of whole-matrix updates), "
              "LAPACK's Cholesky (`jax.scipy.linalg.cho_factor/cho_solve`; the engine's "
              "dense factor from 16 rows) and the block factor on the chain's pattern "
              "(`constraints._block_factor`: ⌊log₂ n⌋ + 1 levels). One RK4 step factors 5 "
              "times (one per stage, one in the projection). *product*: S = J (M⁻¹Jᵀ) with "
              "a dense (m, 6n) J, which the engine no longer forms for joints alone (rows in "
              "local form, `spatial._link_rows`; A by body).", "",
              "| m | elimination [µs] | Cholesky [µs] | block [µs] | block / Cholesky | "
              "product [µs] | 5 × Cholesky / per step |",
              "|---|---|---|---|---|---|---|"]
    for (m, el, ch, prod, bl), step in zip(solve["rows"], per_step):
        lines.append(f"| {m} | {el * 1e6:.1f} | {ch * 1e6:.1f} | {bl * 1e6:.1f} | "
                     f"{bl / ch:.2f} | {prod * 1e6:.1f} | {5 * ch / step:.0%} |")
    lines += factor_lines([n for n in ns if n >= 30], t_end)
    lines += route_lines(ns, t_end)
    try:
        import mujoco
    except ImportError:
        lines += ["", "MuJoCo is not installed: no peer rows."]
        return lines
    lines += ["", f"Peer: the same chains in MuJoCo {mujoco.__version__} (hinge chain in MJCF, "
              "same masses and inertias, contact off, RK4, dt = 1 ms, `mj_step(nstep=10)` "
              "per output sample, qpos copied; reduced coordinates: n DOF against our 6n "
              "coordinates and 5n rows), in this process.", "",
              "| n | load | MuJoCo per step [µs] | stickslip / MuJoCo | MJCF compile [s] | "
              "MuJoCo energy drift [J] |", "|---|---|---|---|---|---|"]
    mj = []
    for n, step in zip(ns, per_step):
        load, comp, run, steps, drift = mujoco_chain(n, t_end, 5)
        mj.append(run / steps)
        lines.append(f"| {n} | {load:.1f} | {run / steps * 1e6:.1f} | "
                     f"{step / (run / steps):.0f} | {comp:.4f} | {drift:.1e} |")
    lines += ["", f"MuJoCo's exponent over the same n: {_fit(ns, mj):.2f}."]
    return lines


def chain_mj_lines(quick: bool) -> list[str]:
    """Chains on the exact time-stepping route (``method="moreau_jean"``)."""
    ns = (6,) if quick else (6, 30)
    lines = ["## 1b. Chains on `method=\"moreau_jean\"`", "",
             "The chains of §1 on the exact time-stepping route (θ = ½, one nonsymmetric "
             "joint solve G_e M⁻¹ G_θᵀ per step, then the projection), 1 s at 1 ms, one fresh "
             "process each (cache off); per step = the best of 2 calls after the first. With "
             "joints alone the step keeps the rows in local form, assembles G_e M⁻¹ G_θᵀ "
             "body by body and, from 150 rows, solves it by block LU on the joints' plan "
             "(since 2026-11-27; before, with dense rows, the same call took "
             "101 µs per step for n = 6 and 1141 µs for n = 30 in fresh processes on tree "
             "26b44c8).", "",
             "| n | load | per step [µs] | steps/s | first call cold [s] | energy drift [J] |",
             "|---|---|---|---|---|---|"]
    for n in ns:
        r = _run_child("chain", {"n": n, "t_end": 1.0, "repeats": 2,
                                 "method": "moreau_jean"}, "0")
        step = r["run"] / r["steps"]
        lines.append(f"| {n} | {r['load']:.1f} | {step * 1e6:.0f} | {1 / step:.0f} | "
                     f"{r['first']:.1f} | {r['energy_drift']:.1e} |")
    return lines


def factor_lines(ns, t_end) -> list[str]:
    """The joints' Schur complement by the dense Cholesky against the block factor, whole
    runs in fresh processes (cache off), alternating."""
    lines = ["", "The factor of S in whole runs (issue item 2: an O(n) factorisation against "
             "the dense solve): *dense* = LAPACK's Cholesky of S (m, m); *block* = the block "
             "factor (`constraints._block_factor`, unrolled levels). The engine takes the "
             "block factor from `_link_dynamics.BLOCK_ROWS` = 150 rows (chains of 30 rods; "
             "below, it is no faster per step). Two fresh processes per route, alternating, "
             "cache off; per step as above; *XLA* = XLA's compile seconds of the first call "
             "(`jax_log_compiles`); *steps to repay* = (best compile difference) / (best "
             "per-step difference).",
             "", "| n | m | route | load | per step [µs] | first call [s] | XLA [s] | "
             "steps to repay the compile |", "|---|---|---|---|---|---|---|---|"]
    for n in ns:
        runs = {"dense": [], "block": []}
        for _ in range(2):
            for route, rows in (("dense", math.inf), ("block", 0)):
                runs[route].append(_run_child("chain", {"n": n, "t_end": t_end,
                                                        "repeats": 2, "block_rows": rows},
                                              "0"))
        best = {route: min(r["run"] / r["steps"] for r in rs) for route, rs in runs.items()}
        compile_ = {route: min(r["first"] - r["run"] for r in rs)
                    for route, rs in runs.items()}
        gain = best["dense"] - best["block"]
        repay = ((compile_["block"] - compile_["dense"]) / gain if gain > 0 else math.inf)
        for route, rs in runs.items():
            lines.append(
                f"| {n} | {5 * n} | {route} | "
                + " / ".join(f"{r['load']:.1f}" for r in rs) + " | "
                + " / ".join(f"{r['run'] / r['steps'] * 1e6:.0f}" for r in rs) + " | "
                + " / ".join(f"{r['first']:.1f}" for r in rs) + " | "
                + " / ".join(f"{r['xla']:.1f}" for r in rs) + " | "
                + (f"{repay:.0f}" if route == "block" and math.isfinite(repay) else "–")
                + " |")
    return lines


def route_lines(ns, t_end) -> list[str]:
    """A = J M⁻¹ Jᵀ by the dense product against body by body, per step, chains and cart."""
    intro = ("The constraint matrix A = J M⁻¹ Jᵀ (issue item 2: a sparse route against the "
             "dense one): *dense* = J (M⁻¹Jᵀ) with J (m, 6n); *by body* = Σ_b J_b M_b⁻¹ "
             "J_bᵀ over the p_b rows touching each body (padded to p = max p_b), scattered "
             "into A. The engine takes the body route where p < 0.4 m "
             "(`_link_dynamics.SPARSE_FRACTION`). Per step = the best of 2 runs after the "
             "first, each route in its own process (cache off); the cart: 1 s.")
    header = ("| model | m | p | load | dense [µs/step] | by body [µs/step] | by body / dense "
              "| engine takes |")
    lines = ["", intro, "", header, "|---|---|---|---|---|---|---|---|"]
    cases = [("chain", {"n": n, "t_end": t_end}, f"chain n = {n}", 5 * n, 10 if n > 1 else 5)
             for n in ns] + [("cart", {"t_end": 1.0}, "cart (section 2)", 37, 25)]
    for case, params, label, m, p in cases:
        # the engine takes the body route where p < fraction·m: 0 forces the dense product,
        # inf the body route
        dense = _run_child(case, {**params, "repeats": 2, "fraction": 0.0}, "0")
        body = _run_child(case, {**params, "repeats": 2, "fraction": float("inf")}, "0")
        td, tb = dense["run"] / dense["steps"], body["run"] / body["steps"]
        lines.append(f"| {label} | {m} | {p} | {dense['load']:.1f} / {body['load']:.1f} | "
                     f"{td * 1e6:.0f} | {tb * 1e6:.0f} | {tb / td:.2f} | "
                     f"{'by body' if p < 0.4 * m else 'dense'} |")
    return lines


def cart_lines(quick: bool) -> list[str]:
    t_end = 0.5 if quick else 2.0
    lines = ["## 2. A 6-body link system with 4 point contacts", "",
             ("A 2 kg chassis on four spheres (radius 5 cm) on revolute axles, a pendulum "
              "hinged on top released at 30°, ground μ = 0.5, pushed by 1 N: 6 bodies, 5 "
              f"revolute joints (25 rows), 4 point contacts (12 rows); dt = 1 ms, {t_end:g} "
              "s, dt_out = 10 ms; best of 3 after compile. *rk4*: the ODE route (4 λ-stages "
              "per step, each a λ-problem of the 37 rows, then the projection); "
              "*moreau_jean*: the exact time-stepping route (`method=\"moreau_jean\"`, θ = ½: "
              "one impulse problem of the 12 contact rows on the joints' projected inverse "
              "mass per step, then the projection: its position and velocity steps on that "
              "step's factor of the joints' Schur complement at the predicted end pose), the "
              "like-for-like "
              "comparison with MuJoCo's semi-implicit time stepping."), "",
             ("| method | load | per step [µs] | CPU per step [µs] | steps/s | issue target | "
              "compile cold [s] | first call warm [s] | unsolved λ time [s] | min f_n [N] |"),
             "|---|---|---|---|---|---|---|---|---|---|"]
    for method in ("rk4", "moreau_jean"):
        route = {} if method == "rk4" else {"method": method}
        cold, _, warm = _cold_writing_warm("cart", {"t_end": t_end, "repeats": 3, **route},
                                           {"t_end": t_end, **route}, writing=not quick)
        step = cold["run"] / cold["steps"]
        lines.append(
            f"| {method} | {cold['load']:.1f} | {step * 1e6:.0f} | "
            f"{cold['run_cpu'] / cold['steps'] * 1e6:.0f} | {1 / step:.0f} | ≥ 10000 | "
            f"{cold['first'] - cold['run']:.1f} | "
            + (f"{warm['first']:.2f} (load {warm['load']:.1f})" if warm else "–")
            + f" | {cold['unsolved']:g} | {cold['fn_min']:.3f} |")
    return lines


def batch_lines(quick: bool) -> list[str]:
    n = 100 if quick else 1000
    t_end = 0.2
    cold, fill, warm = _cold_writing_warm("batch", {"n": n, "t_end": t_end, "repeats": 1,
                                                    "single": True},
                                          {"n": n, "t_end": t_end}, writing=not quick)
    steps = cold["steps"]
    per = cold["run"] / (n * steps)
    single = cold["single_run"] / steps
    lines = ["## 3. A batch of boxes under vmap, one compile", "",
             f"{n} boxes (1 kg, 10 cm, 8 corner contacts each: 24 λ rows) on the ground, "
             f"μ = 0.5, pushes 0…10 N (`PointForce`), `ss.simulate_batch`, {t_end:g} s at "
             f"dt = 1 ms ({steps} steps), dt_out = 10 ms, with the step check. "
             "*single* = the box with the largest push run alone with `ss.simulate`, same "
             "process.", "",
             "| load | link builds [s] | stack_systems [s] | first call (compile + run) [s] | "
             "run after compile [s] | compile [s] | per box-step [µs] | single box per step "
             "[µs] | single / batched per box | first call warm [s] | max |v − v_exact| "
             "[m/s] |", "|---|---|---|---|---|---|---|---|---|---|---|",
             f"| {cold['load']:.1f} | {cold['build']:.1f} | {cold['stack']:.1f} | "
             f"{cold['first']:.1f} | {cold['run']:.1f} | {cold['first'] - cold['run']:.1f} | "
             f"{per * 1e6:.1f} | {single * 1e6:.1f} | {single / per:.2f} | "
             + (f"{warm['first']:.1f} (load {warm['load']:.1f})" if warm else "–")
             + f" | {cold['v_error']:.1e} |"]
    return lines


def first_lines(quick: bool) -> list[str]:
    lines = ["## 4. First call of a new model", "",
             "`model.simulate(1.0, dt=1e-3, dt_out=0.01)` in a fresh process: link build, "
             "step check, compile (or load) and run; the import apart. *arm_pushes_box*: "
             "the example as `stickslip examples run arm_pushes_box` runs it "
             "(`examples.arm_pushes_box()`: 5 bodies, 2 revolute joints on position "
             "drivers, 2 welds, 9 point contacts; 1.2 s at dt = 1 ms). Issue targets: cold "
             "≤ 10 s, warm ≤ 1 s. *trace / lower / XLA*: JAX's own timings "
             "(`jax_log_compiles`) of tracing, lowering to MLIR and XLA's compile, summed "
             "over the programs the process compiled (the first call's share of it).", "",
             "| model | cache | load | import [s] | first call [s] | CPU [s] | trace / lower / "
             "XLA [s] | second call [s] | process wall [s] |",
             "|---|---|---|---|---|---|---|---|---|"]
    for model in ("double_pendulum", "sphere_on_ground", "arm_pushes_box"):
        cold, fill, warm = _cold_writing_warm("first", {"model": model})
        for label, r in (("off (cold)", cold), ("empty dir (cold, writing)", fill),
                         ("warm", warm)):
            lines.append(f"| {model} | {label} | {r['load']:.1f} | {r['import']:.2f} | "
                         f"{r['first']:.2f} | {r['first_cpu']:.2f} | {r['trace']:.1f} / "
                         f"{r['lower']:.1f} / {r['xla']:.1f} | {r['second']:.3f} | "
                         f"{r['process']:.1f} |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--only", nargs="+", default=list(SECTIONS), choices=list(SECTIONS))
    parser.add_argument("--child", nargs=2, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child[0], json.loads(args.child[1]))))
        return
    command = "python benchmarks/spatial_links.py" + (" --quick" if args.quick else "") + (
        f" --only {' '.join(args.only)}" if len(args.only) < len(SECTIONS) else "")
    import jax
    import numpy as np

    root = Path(__file__).resolve().parents[1]
    git = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip() or "?"
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "src"],
                           capture_output=True, text=True).stdout.strip()
    SRC["path"] = snapshot_src(root)
    start_load = _load()
    started = datetime.datetime.now(datetime.timezone.utc)
    lines = ["# Spatial link systems: chains, contacts, batches, first call (issue 20)", "",
             f"Command: `{command}`. Date: {started:%Y-%m-%d %H:%M} UTC. Machine: "
             f"{platform.machine()}, {os.cpu_count()} cores (shared), Python "
             f"{platform.python_version()}, JAX {jax.__version__} on cpu, NumPy "
             f"{np.__version__}; float64. Tree: {git}"
             f"{' with uncommitted changes in src/' if dirty else ''} (copied at the "
             "start; every process imports the copy). Load average at "
             f"start: {start_load}.", ""]
    for name in args.only:
        lines += SECTIONS[name](args.quick) + [""]
    lines.append(f"Load average at the end: {_load()} "
                 f"({(datetime.datetime.now(datetime.timezone.utc) - started).seconds / 60:.0f}"
                 " min).")
    import shutil

    shutil.rmtree(Path(SRC["path"]).parent, ignore_errors=True)
    # the results file holds every section: a partial run (--only) or a quick one only
    # prints, unless told where to write (--out)
    whole = not args.quick and len(args.only) == len(SECTIONS)
    out = args.out if args.out is not None else (OUT if whole else None)
    if out is None:
        print("\n".join(lines))
    else:
        write_report(lines, out)


SECTIONS = {"chains": chain_lines, "chains_mj": chain_mj_lines, "cart": cart_lines,
            "batch": batch_lines, "first": first_lines}


if __name__ == "__main__":
    main()
