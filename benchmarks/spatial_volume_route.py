"""Benchmark of `SpatialModel.simulate`'s volume route: the JAX engine
(`stickslip.spatial._volume_jax_route`, one jitted run) against the numba host loop
(`_volume_host.run_host`) on the same model and arguments (issue 20 item 8).

1. **Table 1 box, 5 s at Δt = 1 ms** (rk_gill, 2 N + 0.1 N m at the bottom face, from rest
   settled 0.05 s; paper's C: 1.34 s): each engine in ``--repeats`` fresh processes,
   alternating, each timing its first call (compile and/or numba's cache load included) and
   the 5 s run twice, as CPU time of the process (``time.process_time``: the machine is shared)
   and wall time.
2. **CPU per step by regime**: 1 s of the protocol's box sticking, sliding, and sliding
   while turning, per engine in fresh processes (`regime_runs`).
3. **The box-under-force protocol** (`spatial_box_force.py`: a 1 kg cube of side 0.1 m,
   μ = 0.5, F_x ∈ [0, 5] N and T_z ∈ [0, 0.3] N m at the centre of the bottom face,
   ``--grid``² trials of 1 s, held = moved < 1 mm and turned < 0.01 rad) on the volume
   contact, the trials one after another through `SpatialModel.simulate` (the JAX engine
   compiles once: the loads are data), at ``--dt``; breakaway errors against μ m g =
   4.905 N and the uniform square patch's μ m g · a (√2 + asinh 1)/6 = 0.1877 N m (volume contact has a
   pressure patch, not four corners).
4. **Several bodies** (`bodies_runs`): four bodies on the ground, each against the ground
   only (the model of tests/spatial/test_volume_jax_bodies.py: a cube sticking, a cube
   sliding, a flat box landing spinning, a triangular prism sliding), 1 s at Δt = 1 ms;
   and a two-box stack (a 0.1 m cube resting on another, 1 s: body–body contact, the JAX
   engine's joint QP, `_volume_jax_joint`). Fresh processes,
   engines alternating, with the program store as found (``--cold-store``: an empty one per
   JAX process).
5. **Stacks** (`stack_runs`): four and five 0.1 m cubes stacked, 1 s each (the JAX engine's
   joint QP in slots, `_volume_jax_slots`), first call and again; fresh processes as 4.

    python benchmarks/spatial_volume_route.py [--repeats 3] [--grid 21] [--dt 1e-3]
        [--engines jax numba] [--skip-box] [--skip-regimes] [--skip-grid] [--skip-bodies]
        [--skip-stacks] [--cold-store]
        [--out benchmarks/results/spatial_volume_route.md]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

_BOX_RUN = r"""
import json, sys, time
c0, w0 = time.process_time(), time.perf_counter()
import numpy as np
from stickslip.figures._spatial_fig8 import bottom_load, box_model
from stickslip.spatial._volume_host import run_host
from stickslip.spatial._volume_jax_route import run_jax
engine = sys.argv[1]
run = run_jax if engine == "jax" else run_host
out = {"engine": engine, "import": (time.process_time() - c0, time.perf_counter() - w0)}
model = box_model()
c, w = time.process_time(), time.perf_counter()
x0 = run(model, 0.05, 1e-3, "rk_gill", None, "pyramid", None, "nnls", None, None, "step")
out["first"] = (time.process_time() - c, time.perf_counter() - w)
x0 = x0.final_state
for label in ("run", "again"):
    c, w = time.process_time(), time.perf_counter()
    res = run(model, 5.0, 1e-3, "rk_gill", bottom_load(2.0, 0.1), "pyramid", 0.01, "nnls", x0,
              None, "step")
    out[label] = (time.process_time() - c, time.perf_counter() - w)
out["final"] = res.final_state[0].tolist()
out["stick"] = float(np.mean(res["ground-box.stick"][1:]))
print(json.dumps(out))
"""


_REGIME_RUN = r"""
import json, sys, time
sys.path.insert(0, sys.argv[2])
from spatial_volume_route import volume_box
from stickslip.spatial._volume_host import run_host
from stickslip.spatial._volume_jax_route import run_jax
engine = sys.argv[1]
run = run_jax if engine == "jax" else run_host
model, forces = volume_box(1.0, 0.0)
run(model, 0.05, 1e-3, "rk_gill", forces, "pyramid", 0.005, "nnls", None, None, "step")
out = {"engine": engine}
for label, (f, t) in (("sticks", (2.0, 0.05)), ("slides", (6.0, 0.0)),
                      ("slides and turns", (6.0, 0.3))):
    model, forces = volume_box(f, t)
    c = time.process_time()
    res = run(model, 1.0, 1e-3, "rk_gill", forces, "pyramid", 0.1, "nnls", None, None, "step")
    out[label] = 1e3 * (time.process_time() - c) / 1000.0
print(json.dumps(out))
"""


_BODIES_RUN = r"""
import json, sys, time
c0 = time.process_time()
sys.path.insert(0, sys.argv[2])
import numpy as np
import stickslip as ss
from stickslip.spatial._volume_host import run_host
from stickslip.spatial._volume_jax_route import jax_route_gap, run_jax
sys.path.insert(0, sys.argv[3])
import test_volume_jax_bodies as case
engine = sys.argv[1]
run = run_jax if engine == "jax" else run_host
out = {"engine": engine, "import": time.process_time() - c0}
model = case._model()
for label, t_end in (("first", 0.05), ("run", 1.0), ("again", 1.0)):
    c = time.process_time()
    res = run(*case._args(model, t_end))
    out[label] = time.process_time() - c
out["final"] = res.final_state.tolist()
stack = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
stack.add_body("low", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
stack.add_body("top", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0.15))
stack.add_ground(mu_s=0.5, mu_k=0.3)
gap = jax_route_gap(stack, "pyramid", "nnls", "step")
if engine == "jax" and gap is not None:
    out["stack"] = f"not covered ({gap})"
else:
    args = (stack, 1.0, 1e-3, "rk_gill", None, "pyramid", 0.01, "nnls", None, None, "step")
    c = time.process_time()
    res = run(*args)
    out["stack first"] = time.process_time() - c
    c = time.process_time()
    res = run(*args)
    out["stack"] = time.process_time() - c
    out["stack top z"] = float(res["top.z"][-1])
    out["stack final"] = res.final_state.tolist()
print(json.dumps(out))
"""


_STACK_RUN = r"""
import json, sys, time
c0 = time.process_time()
import numpy as np
import stickslip as ss
from stickslip.spatial._volume_host import run_host
from stickslip.spatial._volume_jax_route import run_jax
engine = sys.argv[1]
run = run_jax if engine == "jax" else run_host
out = {"engine": engine, "import": time.process_time() - c0}
for n in (4, 5):
    m = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
    for i in range(n):
        m.add_body(f"b{i}", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1),
                   position=(0.0, 0.0, 0.05 + 0.1 * i))
    m.add_ground(mu_s=0.5, mu_k=0.3)
    args = (m, 1.0, 1e-3, "rk_gill", None, "pyramid", 0.01, "nnls", None, None, "step")
    for label in ("first", "again"):
        c = time.process_time()
        res = run(*args)
        out[f"{n} {label}"] = time.process_time() - c
    out[f"{n} final"] = res.final_state.tolist()
print(json.dumps(out))
"""


def stack_runs(engines, repeats, cold):
    """Stacks of four and five 0.1 m cubes, 1 s each (module docstring, 5): one dict per
    process."""
    import tempfile

    rows = []
    for _ in range(repeats):
        for engine in engines:
            env = dict(os.environ)
            with tempfile.TemporaryDirectory() as store:
                if cold:
                    env["STICKSLIP_JAX_CACHE"] = store
                out = subprocess.run([sys.executable, "-c", _STACK_RUN, engine],
                                     check=True, capture_output=True, text=True, env=env)
            row = json.loads(out.stdout.strip().splitlines()[-1])
            row["load"] = _load()
            rows.append(row)
            print({k: v for k, v in row.items() if "final" not in k}, flush=True)
    return rows


def bodies_runs(engines, repeats, cold):
    """Several bodies and the two-box stack (module docstring, 4): one dict per process."""
    import tempfile

    rows = []
    tests = str(HERE.parent / "tests" / "spatial")
    for _ in range(repeats):
        for engine in engines:
            env = dict(os.environ)
            with tempfile.TemporaryDirectory() as store:
                if cold:
                    env["STICKSLIP_JAX_CACHE"] = store
                out = subprocess.run([sys.executable, "-c", _BODIES_RUN, engine, str(HERE),
                                      tests], check=True, capture_output=True, text=True,
                                     env=env)
            row = json.loads(out.stdout.strip().splitlines()[-1])
            row["load"] = _load()
            rows.append(row)
            print({k: v for k, v in row.items() if "final" not in k}, flush=True)
    return rows


def regime_runs(engines, repeats):
    """CPU per step [ms] of a 1 s trial of the protocol's box by regime (F_x, T_z): sticks
    (2 N, 0.05 N m), slides (6 N, 0), slides and turns (6 N, 0.3 N m); one fresh process
    per engine and repeat, alternating (the first call, compile or load, not timed)."""
    rows = []
    for _ in range(repeats):
        for engine in engines:
            out = subprocess.run([sys.executable, "-c", _REGIME_RUN, engine, str(HERE)],
                                 check=True, capture_output=True, text=True)
            row = json.loads(out.stdout.strip().splitlines()[-1])
            row["load"] = _load()
            rows.append(row)
            print(row, flush=True)
    return rows


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def box_runs(engines, repeats):
    """The Table 1 box in fresh processes, engines alternating: one dict per process."""
    rows = []
    for _ in range(repeats):
        for engine in engines:
            out = subprocess.run([sys.executable, "-c", _BOX_RUN, engine], check=True,
                                 capture_output=True, text=True)
            row = json.loads(out.stdout.strip().splitlines()[-1])
            row["load"] = _load()
            rows.append(row)
            print(row["engine"], row["first"], row["run"], row["again"], row["load"],
                  flush=True)
    return rows


def volume_box(force_x, torque_z):
    """The protocol's box on the volume contact (μ_s = μ_k = 0.5), a constant load at the
    centre of its bottom face (as a wrench about the centre of mass): the box-force
    benchmark's own (:func:`spatial_box_force.volume_box`)."""
    from spatial_box_force import volume_box as protocol_box

    return protocol_box(force_x, torque_z)


def grid_rows(engine, grid, dt):
    """The protocol's trials one after another on `engine`: (compile-or-first [s] wall,
    run [s] wall, run CPU [s], held (n,))."""
    from spatial_box_force import T_END, _final, loads

    from stickslip.spatial._volume_host import run_host
    from stickslip.spatial._volume_jax_route import run_jax

    run = run_jax if engine == "jax" else run_host
    F, T, fs, ts = loads(grid)
    model, forces = volume_box(F[0], T[0])
    w = time.perf_counter()
    run(model, T_END, dt, "rk_gill", forces, "pyramid", T_END / 10, "nnls", None, None, "step")
    first = time.perf_counter() - w
    held = np.zeros(F.size, dtype=bool)
    w, c = time.perf_counter(), time.process_time()
    for k, (f, t) in enumerate(zip(F, T)):
        model, forces = volume_box(f, t)
        res = run(model, T_END, dt, "rk_gill", forces, "pyramid", T_END / 10, "nnls", None,
                  None, "step")
        held[k] = _final(res, -1)
    return first, time.perf_counter() - w, time.process_time() - c, held, fs, ts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--grid", type=int, default=21)
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--engines", nargs="+", default=["jax", "numba"],
                        choices=["jax", "numba"])
    parser.add_argument("--skip-box", action="store_true")
    parser.add_argument("--skip-grid", action="store_true")
    parser.add_argument("--skip-regimes", action="store_true")
    parser.add_argument("--skip-bodies", action="store_true")
    parser.add_argument("--skip-stacks", action="store_true")
    parser.add_argument("--cold-store", action="store_true")
    parser.add_argument("--out", type=Path,
                        default=HERE / "results" / "spatial_volume_route.md")
    args = parser.parse_args(argv)
    lines = ["# Volume route: JAX engine vs numba host loop", "",
             (f"Machine: {os.uname().machine}, {os.cpu_count()} cores (shared). "
             f"Command: `python benchmarks/spatial_volume_route.py "
             f"{' '.join(argv if argv is not None else sys.argv[1:])}`."), ""]
    if not args.skip_box:
        rows = box_runs(args.engines, args.repeats)
        lines += ["## Table 1 box, 5 s at Δt = 1 ms (rk_gill; paper's C: 1.34 s)", "",
                  ("Fresh process per row, engines alternating; CPU = process time [s], "
                   "wall [s]. First call: the model's first run (0.05 s settling, 50 steps) "
                   "after import — the JAX compile, or numba's kernels from its cache; then "
                   "the 5 s run twice (a new load: the JAX run is not compiled again)."),
                  "", ("| engine | import CPU | first call CPU (wall) | 5 s run CPU (wall) "
                       "| again CPU (wall) | load avg. |"), "|---|---|---|---|---|---|"]
        for r in rows:
            lines.append(f"| {r['engine']} | {r['import'][0]:.2f} | {r['first'][0]:.3f} "
                         f"({r['first'][1]:.3f}) | {r['run'][0]:.3f} ({r['run'][1]:.3f}) | "
                         f"{r['again'][0]:.3f} ({r['again'][1]:.3f}) | {r['load']} |")
        for engine in args.engines:
            mine = [r for r in rows if r["engine"] == engine]
            lines.append(f"\n{engine}: median 5 s run CPU "
                         f"{np.median([r['run'][0] for r in mine]):.3f} s, median first call "
                         f"CPU {np.median([r['first'][0] for r in mine]):.3f} s; stick "
                         f"fraction {mine[0]['stick']:.3f}")
        if len(args.engines) == 2:
            a = np.array(next(r["final"] for r in rows if r["engine"] == "jax"))
            b = np.array(next(r["final"] for r in rows if r["engine"] == "numba"))
            lines.append(f"\nmax |final state JAX − numba| = {np.abs(a - b).max():.2e}")
        lines.append("")
    if not args.skip_regimes:
        rows = regime_runs(args.engines, args.repeats)
        lines += ["## CPU per step by regime (the protocol's box, 1 s at Δt = 1 ms)", "",
                  ("Fresh process per row, engines alternating, after a first call; CPU "
                   "process time per step [ms]. The kinetic passes (eq. 32–34, after the "
                   "static LP fails) are the sliding steps' extra cost."), "",
                  ("| engine | sticks (2 N, 0.05 N m) | slides (6 N) | slides and turns "
                   "(6 N, 0.3 N m) | load avg. |"), "|---|---|---|---|---|"]
        for r in rows:
            lines.append(f"| {r['engine']} | {r['sticks']:.3f} | {r['slides']:.3f} | "
                         f"{r['slides and turns']:.3f} | {r['load']} |")
        lines.append("")
    if not args.skip_bodies:
        rows = bodies_runs(args.engines, args.repeats, args.cold_store)
        store = "an empty program store per process" if args.cold_store else \
            "the program store as found"
        lines += ["## Several bodies (1 s at Δt = 1 ms, rk_gill)", "",
                  (f"Fresh process per row, engines alternating, {store}; CPU process time "
                   "[s]. Four bodies on the ground (tests/spatial/test_volume_jax_bodies.py): "
                   "first call (0.05 s: the JAX compile or load, numba's cache), then 1 s "
                   "twice. Two-box stack: a 0.1 m cube resting on another, 1 s (first call, "
                   "with the compile or load, and again) — body–body contact, the JAX "
                   "engine's joint QP."), "",
                  ("| engine | import | four bodies: first call | 1 s run | again "
                   "| stack: first | stack again | load avg. |"),
                  "|---|---|---|---|---|---|---|---|"]
        for r in rows:
            stack = r["stack"] if isinstance(r["stack"], str) else f"{r['stack']:.3f}"
            first = f"{r['stack first']:.3f}" if "stack first" in r else "—"
            lines.append(f"| {r['engine']} | {r['import']:.2f} | {r['first']:.3f} | "
                         f"{r['run']:.3f} | {r['again']:.3f} | {first} | {stack} | "
                         f"{r['load']} |")
        if len(args.engines) == 2:
            a = np.array(next(r["final"] for r in rows if r["engine"] == "jax"))
            b = np.array(next(r["final"] for r in rows if r["engine"] == "numba"))
            lines.append(f"\nfour bodies: max |final state JAX − numba| = "
                         f"{np.abs(a - b).max():.2e}")
            a, b = (next((np.array(r["stack final"]) for r in rows
                          if r["engine"] == e and "stack final" in r), None)
                    for e in ("jax", "numba"))
            if a is not None and b is not None:
                lines.append(f"\ntwo-box stack: max |final state JAX − numba| = "
                             f"{np.abs(a - b).max():.2e}")
        lines.append("")
    if not args.skip_stacks:
        rows = stack_runs(args.engines, args.repeats, args.cold_store)
        store = "an empty program store per process" if args.cold_store else \
            "the program store as found"
        lines += ["## Stacks of four and five cubes (1 s at Δt = 1 ms, rk_gill)", "",
                  (f"Fresh process per row, engines alternating, {store}; CPU process time "
                   "[s]. 0.1 m cubes of 1 kg stacked from resting contact (the JAX engine's "
                   "joint QP in slots: 8 and 10 slots, 4 and 5 active contacts): first call "
                   "(1 s, with the compile or load) and again."), "",
                  ("| engine | import | four: first | four: again | five: first | five: again "
                   "| load avg. |"), "|---|---|---|---|---|---|---|"]
        for r in rows:
            lines.append(f"| {r['engine']} | {r['import']:.2f} | {r['4 first']:.3f} | "
                         f"{r['4 again']:.3f} | {r['5 first']:.3f} | {r['5 again']:.3f} | "
                         f"{r['load']} |")
        if len(args.engines) == 2:
            for n in (4, 5):
                a, b = (np.array(next(r[f"{n} final"] for r in rows if r["engine"] == e))
                        for e in ("jax", "numba"))
                lines.append(f"\nstack of {n}: max |final state JAX − numba| = "
                             f"{np.abs(a - b).max():.2e}")
        lines.append("")
    if not args.skip_grid:
        from spatial_box_force import F_THEORY, _errors
        t_patch = F_THEORY * 0.1 * (np.sqrt(2.0) + np.arcsinh(1.0)) / 6.0   # uniform patch
        lines += [(f"## Box-under-force protocol, volume contact ({args.grid}² trials × 1 s, "
                  f"Δt = {args.dt:g} s, rk_gill, one after another)"), "",
                  ("| engine | first call [s] | run wall [s] | run CPU [s] | per trial [ms] "
                  "| force breakaway − 4.905 N | torque breakaway − 0.1877 N m | load avg. |"),
                  "|---|---|---|---|---|---|---|---|"]
        for engine in args.engines:
            load0 = _load()
            first, wall, cpu, held, fs, ts = grid_rows(engine, args.grid, args.dt)
            bf, _ef, bt, _ = _errors(held, fs, ts, args.grid)
            lines.append(f"| {engine} | {first:.2f} | {wall:.1f} | {cpu:.1f} | "
                         f"{1e3 * wall / held.size:.1f} | {bf - F_THEORY:+.4f} | "
                         f"{bt - t_patch:+.4f} | {load0} → {_load()} |")
            print(lines[-1], flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
