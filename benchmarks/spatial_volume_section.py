"""Benchmark of ``patch="section"`` (SPEC §7: S the contact plane's section of C) on
`SpatialModel.simulate`'s volume route: the JAX engine (`stickslip.spatial._volume_jax_route`
with `_volume_jax_section`, one jitted run) against the numba host loop
(`_volume_host.run_host`, whose section path clips C with NumPy and a hull per cut) on the
same models and arguments (issue 20 item 8).

Cases, 1 s of simulated time each at Δt = 1 ms (rk_gill):

* **rests** — the Table 1 box (`stickslip.figures._spatial_fig8`: 1 kg, 0.1 m cube) at rest,
  settled 0.05 s first;
* **slides and turns** — the same box under 6 N + 0.3 N m at the bottom face;
* **tips over** — `examples/spatial/tip_over_edge.py`'s 0.1 × 0.1 × 0.3 m box released on an
  edge (tilted 30°), tipping onto its side.

Each engine runs in fresh processes, alternating, ``--repeats`` times; each process times its
first call (the settling run: the JAX engine's compile or its program-store load, numba's
cache load) and then each case twice (the second of them is reported), as CPU time of the
process (``time.process_time``: the machine is shared) and wall time. ``--store empty``: a new
program store per JAX process (the compile is timed); ``warm``: one store shared by the
processes, filled by an untimed process first (the load is timed).

    python benchmarks/spatial_volume_section.py [--repeats 3] [--store empty warm]
        [--engines jax numba] [--out benchmarks/results/spatial_volume_section.md]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

_RUN = r"""
import json, sys, time
c0, w0 = time.process_time(), time.perf_counter()
import numpy as np
import stickslip as ss
from stickslip.figures._spatial_fig8 import bottom_load, box_model
from stickslip.spatial._volume_host import run_host
from stickslip.spatial._volume_jax_route import run_jax
engine = sys.argv[1]
run = run_jax if engine == "jax" else run_host
out = {"engine": engine, "import": time.process_time() - c0}

def args(model, t_end, forces=None, initial=None):
    return (model, t_end, 1e-3, "rk_gill", forces, "pyramid", 0.01, "nnls", initial, None,
            "step")

box = box_model()
box.patch = "section"
theta, hx, hz = np.radians(30), 0.05, 0.15
tip = ss.spatial.Model(gravity=(0, 0, -9.81), patch="section")
tip.add_body("box", mass=1.0, shape=ss.spatial.Box(2 * hx, 0.1, 2 * hz),
             position=(0, 0, hx * np.sin(theta) + hz * np.cos(theta)),
             orientation=(np.cos(theta / 2), 0, np.sin(theta / 2), 0))
tip.add_ground(mu_s=0.5, mu_k=0.3)
c, w = time.process_time(), time.perf_counter()
x0 = run(*args(box, 0.05, bottom_load(0.0, 0.0))).final_state
out["first"] = (time.process_time() - c, time.perf_counter() - w)
c, w = time.process_time(), time.perf_counter()
run(*args(tip, 0.05))
out["first (tall box)"] = (time.process_time() - c, time.perf_counter() - w)
cases = {"rests": args(box, 1.0, bottom_load(0.0, 0.0), x0),
         "slides and turns": args(box, 1.0, bottom_load(6.0, 0.3), x0),
         "tips over": args(tip, 1.0)}
for label, a in cases.items():
    for _ in range(2):
        c, w = time.process_time(), time.perf_counter()
        res = run(*a)
        out[label] = (time.process_time() - c, time.perf_counter() - w)
    out[label + " final"] = res.final_state[0].tolist()
print(json.dumps(out))
"""

CASES = ("rests", "slides and turns", "tips over")


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def _process(engine: str, store: str | None) -> dict:
    env = dict(os.environ)
    if store is not None:
        env["STICKSLIP_JAX_CACHE"] = store
    load = _load()
    out = subprocess.run([sys.executable, "-c", _RUN, engine], check=False, capture_output=True,
                         text=True, env=env)
    if out.returncode:
        raise RuntimeError(f"the {engine} process failed:\n{out.stderr[-3000:]}")
    row = json.loads(out.stdout.strip().splitlines()[-1])
    row["load"] = load
    return row


def runs(engines, repeats, stores):
    """One dict per process: (store, engine, the times of module docstring)."""
    rows = []
    for store in stores:
        with tempfile.TemporaryDirectory() as shared:
            if store == "warm" and "jax" in engines:
                _process("jax", shared)                   # fills the store, untimed
            for _ in range(repeats):
                for engine in engines:
                    if engine == "jax" and store == "empty":
                        with tempfile.TemporaryDirectory() as empty:
                            row = _process(engine, empty)
                    else:
                        row = _process(engine, shared if engine == "jax" else None)
                    row["store"] = store if engine == "jax" else "-"
                    rows.append(row)
                    print({k: v for k, v in row.items() if "final" not in k}, flush=True)
    return rows


def _median(values):
    values = sorted(values)
    return values[len(values) // 2]


def report(rows) -> str:
    lines = ["| engine | store | first call CPU [s] | tall box first CPU [s] | "
             + " | ".join(f"{c}: CPU per simulated s [s]" for c in CASES) + " | load |",
             "|" + "---|" * (5 + len(CASES))]
    keys = sorted({(r["engine"], r["store"]) for r in rows})
    for engine, store in keys:
        sel = [r for r in rows if r["engine"] == engine and r["store"] == store]
        cells = [f"{_median([r['first'][0] for r in sel]):.2f}",
                 f"{_median([r['first (tall box)'][0] for r in sel]):.2f}"]
        cells += [f"{_median([r[c][0] for r in sel]):.3f}" for c in CASES]
        lines.append(f"| {engine} | {store} | " + " | ".join(cells) + " | "
                     + "; ".join(r["load"] for r in sel) + " |")
    finals = {}
    for r in rows:
        for c in CASES:
            finals.setdefault(c, {}).setdefault(r["engine"], r[c + " final"])
    lines.append("")
    for c in CASES:
        got = finals[c]
        if len(got) == 2:
            import numpy as np
            diff = float(np.max(np.abs(np.subtract(got["jax"], got["numba"]))))
            lines.append(f"- {c}: final states of the engines differ by {diff:.2e} at most")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--engines", nargs="+", default=["jax", "numba"])
    parser.add_argument("--store", nargs="+", default=["empty", "warm"],
                        choices=["empty", "warm"])
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    rows = runs(args.engines, args.repeats, args.store)
    text = ("# `patch=\"section\"`: JAX engine vs numba host loop\n\n"
            "`python benchmarks/spatial_volume_section.py` "
            f"(--repeats {args.repeats}); medians over the processes; CPU process time. "
            "1 s simulated per case at Δt = 1 ms, so CPU per simulated second = CPU per "
            "1000 steps.\n\n" + report(rows) + "\n")
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
