"""Cost of the kinetic cut on the volume route's host loop (`_friction_kinetic.
slip_stopping_share`, applied in `_volume_wrench.contact_step` to slipping ground contacts),
against a baseline tree without it, in the same run: each tree in its own process, one after
the other, `--rounds` times, each process reporting the best of `--repeats` runs after a
compiling one. A box sliding on the ground (every step slips: the cut's worst case) and a
box resting under a sub-static push (every step sticks: the cut never runs). Writes a
markdown table with the load average.

    git -C <main> archive b0ae313 src | tar -x -C /tmp/base      # the tree before the cut
    python benchmarks/spatial_kinetic_cut.py --baseline-src /tmp/base/src \
        [--repeats 3] [--rounds 2] [--out benchmarks/results/spatial_kinetic_cut.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

CASES = {   # name: (initial velocity [m/s], push [N]); 2 s at dt = 1 ms
    "sliding (every step slips)": ((2.0, 0.0, 0.0), 4.0),
    "resting, 4 N push (every step sticks)": ((0.0, 0.0, 0.0), 4.0),
}


def _child(repeats: int) -> None:
    import numpy as np

    import stickslip as ss

    def run(velocity, push):
        m = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
        m.add_body("box", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1),
                   position=(0, 0, 0.05), velocity=velocity)
        m.add_ground(mu_s=0.5, mu_k=0.3)
        forces = {"box": lambda t, s: (np.array([push, 0.0, 0.0]), np.zeros(3))}
        start = time.perf_counter()
        res = m.simulate(2.0, dt=1e-3, forces=forces)
        return time.perf_counter() - start, res

    out = {}
    for name, (velocity, push) in CASES.items():
        run(velocity, push)                                   # numba kernels compiled
        walls, res = [], None
        for _ in range(repeats):
            wall, res = run(velocity, push)
            walls.append(wall)
        out[name] = (min(walls), float(res["box.x"][-1]),
                     float(1.0 - res["ground-box.stick"][1:].mean()))
    print(json.dumps(out))


def _measure(src: str, repeats: int) -> dict:
    env = dict(os.environ, PYTHONPATH=src)
    text = subprocess.run([sys.executable, __file__, "--child", "--repeats", str(repeats)],
                          env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(text.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-src", help="another checkout's src (the tree before)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", default="benchmarks/results/spatial_kinetic_cut.md")
    args = parser.parse_args()
    if args.child:
        _child(args.repeats)
        return
    if not args.baseline_src:
        parser.error("--baseline-src is required (the tree to compare with)")
    this_src = str(Path(__file__).resolve().parents[1] / "src")
    rows = []
    for r in range(1, args.rounds + 1):
        for label, src in (("baseline", args.baseline_src), ("this tree", this_src)):
            load = os.getloadavg()[0]
            for name, (wall, x, slipping) in _measure(src, args.repeats).items():
                rows.append(f"| {r} | {label} | {load:.2f} | {name} | {wall:.3f} | "
                            f"{slipping:.2f} | {x:.6f} |")
    text = "\n".join([
        "# Cost of the kinetic cut on the volume route's host loop (2 s at dt = 1 ms)", "",
        f"Command: `python benchmarks/spatial_kinetic_cut.py --baseline-src {args.baseline_src} "
        f"--repeats {args.repeats} --rounds {args.rounds}`. Machine: {platform.machine()}, "
        f"Python {platform.python_version()}. Each row: one process, the best of "
        f"{args.repeats} runs after a compiling one; the trees alternate.", "",
        "| round | tree | load (1 min) | case | wall [s] | slipping share of steps | "
        "final x [m] |", "|---|---|---|---|---|---|---|", *rows, ""])
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
