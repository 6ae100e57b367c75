"""The four 3-D examples (issue 20, item 9) on whatever JAX backend runs this: their key
numbers and their first and second call, so that a GPU run can be set beside a CPU run.

Each example (``stickslip.spatial.examples.EXAMPLES``: sphere slip → roll, four-bar with pin
friction, gripper, arm pushing a box) runs twice in one process; its ``numbers`` (measured
values against their closed forms) and the wall time of each call are written as JSON.
``--table CPU.json GPU.json`` sets two such files side by side as Markdown: the calls'
times and, for every key number above 1e-6 in size, the largest relative difference (the
error metrics — drifts, residuals, relative errors — are round-off on any backend and are
left out of that column).

    python benchmarks/spatial_examples_devices.py --json cpu.json
    python benchmarks/spatial_examples_devices.py --table cpu.json gpu.json \
        [--out benchmarks/results/spatial_examples_devices.md]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

NAMES = ("sphere_slip_roll", "four_bar_friction", "gripper", "arm_pushes_box")


def run(path: Path) -> dict:
    """Run each example twice; write and return {backend, device, name: {first_s, second_s,
    numbers}}."""
    import jax

    import stickslip  # noqa: F401  (before JAX's first program: the CPU runtime's threads)
    from stickslip.spatial import examples

    out: dict = {"backend": jax.default_backend(), "device": str(jax.devices()[0])}
    for name in NAMES:
        start = time.perf_counter()
        example = examples.EXAMPLES[name][1]()
        first = time.perf_counter() - start
        start = time.perf_counter()
        examples.EXAMPLES[name][1]()
        second = time.perf_counter() - start
        numbers = {k: float(v) for k, v in example.numbers.items()
                   if isinstance(v, (int, float))}
        out[name] = {"first_s": first, "second_s": second, "numbers": numbers}
        print(name, json.dumps(out[name]), flush=True)
    path.write_text(json.dumps(out, indent=1))
    return out


def table(a: dict, b: dict) -> list[str]:
    """Markdown lines setting run `a` beside run `b`."""
    lines = [f"| example | first call {a['backend']} / {b['backend']} [s] | second call "
             f"{a['backend']} / {b['backend']} [s] | key numbers compared | largest relative "
             "difference (number) |", "|---|---|---|---|---|"]
    for name in NAMES:
        worst, which, n = 0.0, "-", 0
        for key, value in a[name]["numbers"].items():
            if "wall" in key or abs(value) < 1e-6:
                continue
            n += 1
            diff = abs(value - b[name]["numbers"][key]) / abs(value)
            if diff >= worst:
                worst, which = diff, key
        lines.append(f"| {name} | {a[name]['first_s']:.2f} / {b[name]['first_s']:.2f} | "
                     f"{a[name]['second_s']:.3f} / {b[name]['second_s']:.3f} | {n} | "
                     f"{worst:.1e} ({which}) |")
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="run the examples, write their JSON here")
    parser.add_argument("--table", type=Path, nargs=2, metavar=("A", "B"),
                        help="two JSON files to set side by side")
    parser.add_argument("--out", type=Path, help="the table's Markdown file")
    args = parser.parse_args(argv)
    if args.json:
        run(args.json)
    if args.table:
        a, b = (json.loads(p.read_text()) for p in args.table)
        lines = table(a, b)
        if args.out:
            from _report import write_report
            write_report(lines, args.out)
        else:
            print("\n".join(lines))
    if not (args.json or args.table):
        parser.error("give --json PATH to run, or --table A B to compare")


if __name__ == "__main__":
    main()
