"""Start-up time of the command line: `stickslip --version`, `--help`, `figures --list`,
each in a fresh process, against a bare Python start and against `import jax` (what every
command paid before the imports became lazy: `stickslip/__init__` imported JAX, numba and
the planar package). Writes benchmarks/results/cli_startup.md.

    python benchmarks/cli_startup.py [--repeats 10]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
from pathlib import Path

from _timing import best_of

ROOT = Path(__file__).resolve().parents[1]
CLI = "import sys; from stickslip.cli import main; sys.argv = ['stickslip', *sys.argv[1:]]; main()"
CASES = [
    ("python -c pass (baseline)", ["-c", "pass"]),
    ("python -c 'import jax' (the old floor)", ["-c", "import jax"]),
    ("python -c 'import stickslip'", ["-c", "import stickslip"]),
    ("stickslip --version", ["-c", CLI, "--version"]),
    ("stickslip --help", ["-c", CLI, "--help"]),
    ("stickslip figures -h", ["-c", CLI, "figures", "-h"]),
    ("stickslip figures --list", ["-c", CLI, "figures", "--list"]),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}

    def run(argv):
        return lambda: subprocess.run([sys.executable, *argv], env=env, check=True,
                                      capture_output=True)

    rows, base = [], None
    for label, argv in CASES:
        best, _ = best_of(run(argv), repeats=args.repeats)
        base = base or best
        rows.append(f"| {label} | {best:.3f} | {best / base:.1f} |")
        print(rows[-1], flush=True)
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3]) \
        if Path("/proc/loadavg").exists() else "n/a"
    text = "\n".join([
        "# Command-line start-up", "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared), Python "
        f"{platform.python_version()}; load average at the end: {load}. Command: "
        f"`python benchmarks/cli_startup.py --repeats {args.repeats}` (best of the repeats, "
        "each a fresh process).", "",
        "| command | wall time [s] | × bare Python |", "|---|---|---|", *rows, ""])
    out = ROOT / "benchmarks" / "results" / "cli_startup.md"
    out.write_text(text)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
