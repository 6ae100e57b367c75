"""What a model's compiled run is made of: its kernels, counted, and where they come from.

A first call is tracing + lowering + XLA's compile, and XLA's compile on the CPU grows with
the number of kernels (top-level operations after XLA's optimisations: each fusion, library
call, dot, loop) — about 15 ms each on this machine. The timings are noisy (a shared 2-core
machine); the count is not: two trees give the same count every run. So this script runs
each case in a fresh process with an empty program store, has XLA dump the optimised
program, and reports for its largest program:

* the kernels, by kind, and the stickslip functions they come from (each counted in every
  function on its call stack: inclusive; the program store's wrappers left out), with ``traced_once`` taken out for that run so the
  call stacks reach the functions it wraps (the compiled program is the same:
  :mod:`stickslip._compile.traced_once`);
* in a second fresh process (``traced_once`` as shipped), the first call's wall time and
  JAX's own tracing, lowering and XLA seconds (``jax_log_compiles``); then in a third, on
  the program store the second filled, the warm first call.

``--baseline DIR`` runs each case also on another checkout's ``src`` (e.g. a ``git
worktree`` of the commit before), alternating, and tabulates both.

    python benchmarks/program_census.py [--cases arm gripper ...] [--baseline DIR]
        [--top N] [--out PATH]

Cases: ``arm`` (``spatial.examples.arm_pushes_box``, Moreau–Jean), ``gripper``,
``four_bar`` (``four_bar_friction``), ``sphere`` (``sphere_slip_roll``), ``volume_arm`` (the
arm and box of ``tests/spatial/test_volume_links.py``, built here, with ``contact="volume"``,
0.02 s),
``stack`` (two cubes stacked, ``engine="jax"``, 0.02 s), ``box`` (one cube on the ground,
``engine="jax"``, 0.02 s).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = ("arm", "gripper", "four_bar", "sphere", "volume_arm", "stack", "box")
# top-level HLO operations that are kernels of their own (the rest — parameters, tuples,
# bitcasts, constants — are not)
_KERNELS = {"fusion", "custom-call", "dot", "while", "conditional", "sort", "scatter",
            "gather", "reduce", "copy", "concatenate", "slice", "dynamic-slice",
            "dynamic-update-slice", "select", "add", "subtract", "multiply", "divide",
            "compare", "maximum", "minimum", "and", "or", "not", "broadcast", "iota",
            "convert", "transpose", "pad", "reverse", "negate", "abs", "sqrt", "exp", "log",
            "select-n", "clamp", "remainder", "power", "atan2", "sine", "cosine", "tanh"}


# --- the child: one case, one fresh process ------------------------------------------------------
def _run_case(case: str):
    import stickslip as ss
    if case in ("arm", "gripper", "four_bar", "sphere"):
        from stickslip.spatial import examples
        name = {"arm": "arm_pushes_box", "gripper": "gripper", "four_bar": "four_bar_friction",
                "sphere": "sphere_slip_roll"}[case]
        examples.EXAMPLES[name][1]()
    elif case == "volume_arm":        # tests/spatial/test_volume_links.py's arm_model
        sp = ss.spatial
        m = sp.SpatialModel(gravity=(0, 0, -9.81))
        m.add_body("link1", mass=1.0, inertia=(0.001, 0.02, 0.02), shape=None,
                   position=(0.225, 0, 0.02))
        m.add_body("box", mass=1.0, inertia=None, shape=sp.Box(0.1, 0.1, 0.1),
                   position=(0.55, 0, 0.05))
        m.add_ground(mu_s=0.5, mu_k=0.3)
        m.add(sp.RevoluteJoint("ground", "link1", point=(0, 0, 0.02), axis=(0, 0, 1),
                               name="shoulder"))
        m.add(sp.RevoluteJoint("link1", "box", point=(0.45, 0, 0.02), axis=(0, 1, 0),
                               name="elbow"))
        m.add(sp.JointDriver("shoulder", effort=0.0))
        m.add(sp.JointDriver("elbow", effort=0.0))
        m.simulate(0.02, dt=1e-3, dt_out=1e-2, contact="volume")
    elif case == "box":              # the volume route's one body on the JAX engine
        m = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
        m.add_body("box", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
        m.add_ground(mu_s=0.5, mu_k=0.3)
        m.simulate(0.02, dt=1e-3, method="rk_gill", dt_out=0.01, engine="jax")
    elif case == "stack":
        m = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
        for name, z in (("low", 0.05), ("top", 0.15)):
            m.add_body(name, mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, z))
        m.add_ground(mu_s=0.5, mu_k=0.3)
        m.simulate(0.02, dt=1e-3, method="rk_gill", dt_out=0.01, engine="jax")
    else:
        raise SystemExit(f"unknown case {case!r}; one of {', '.join(CASES)}")


def _child(case: str, census: bool) -> dict:
    import logging

    import jax
    if census:           # call stacks through the functions traced_once wraps
        import stickslip._compile.traced_once as once
        once.traced_once = lambda fn: lambda *args, **kwargs: fn(*args, **kwargs)
    messages = []

    class _Keep(logging.Handler):
        def emit(self, record):
            messages.append(record.getMessage())
    logging.getLogger("jax").addHandler(_Keep())
    logging.getLogger("jax").setLevel(logging.DEBUG)
    jax.config.update("jax_log_compiles", True)
    import stickslip  # noqa: F401  (imported before the clock: the call is what is timed)
    start = time.perf_counter()
    _run_case(case)
    wall = time.perf_counter() - start

    def seconds(pattern):
        return sum(float(s) for m in messages
                   for s in re.findall(pattern + r".* in ([0-9.]+) sec", m))
    return {"first": wall, "trace": seconds("Finished tracing"),
            "lower": seconds("Finished jaxpr to MLIR"), "xla": seconds("Finished XLA compilation")}


# --- reading XLA's dump ----------------------------------------------------------------------------
def _tables(text: str):
    """The dump's stack-frame tables: frame id → (file, function, line), parent id."""
    section, files, functions, locations, frames = None, {}, {}, {}, {}
    for line in text.splitlines():
        s = line.strip()
        if s in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
            section = s
            continue
        if section == "FileNames" and (m := re.match(r'(\d+) "(.*)"', s)):
            files[int(m[1])] = m[2].split("src/stickslip/")[-1]
        elif section == "FunctionNames" and (m := re.match(r'(\d+) "(.*)"', s)):
            functions[int(m[1])] = m[2]
        elif section == "FileLocations" and (m := re.match(
                r"(\d+) \{file_name_id=(\d+) function_name_id=(\d+) line=(\d+)", s)):
            locations[int(m[1])] = (files[int(m[2])], functions[int(m[3])], int(m[4]))
        elif section == "StackFrames" and (m := re.match(
                r"(\d+) \{file_location_id=(\d+) parent_frame_id=(\d+)", s)):
            # the text printer writes the parent's id plus one (0: none)
            frames[int(m[1])] = (int(m[2]), int(m[3]) - 1)
    return locations, frames


def census(path: Path, top: int) -> dict:
    """Kernels of the optimised HLO module at `path`: by kind and by stickslip function."""
    text = path.read_text()
    locations, frames = _tables(text)
    # computations called as fusions or as reductions' regions are not kernels of their own
    inner = set(re.findall(r"(?:calls|to_apply)=%?([\w.\-]+)", text))
    by_kind, by_function, by_leaf = (collections.Counter() for _ in range(3))
    inside = False
    for line in text.splitlines():
        head = re.match(r"(?:ENTRY )?%?([\w.\-]+) .*\{$", line)
        if head and not line.startswith(" "):
            inside = head[1] in inner
            continue
        op = re.search(r"= \S+ ([\w\-]+)\(", line)
        if inside or not op or op[1] not in _KERNELS:
            continue
        # while loops and conditionals are counted through their bodies' kernels, not as one
        if op[1] in ("while", "conditional"):
            continue
        by_kind[op[1]] += 1
        frame = re.search(r"stack_frame_id=(\d+)", line)
        seen, fid, names = set(), int(frame[1]) if frame else 0, []
        while fid in frames and fid not in seen:
            seen.add(fid)
            location, fid = frames[fid]
            file, function, _ = locations[location]
            if not file.startswith(("/", "_compile/")) and "<" not in file:
                names.append(f"{file.removesuffix('.py')}:{function}")
        for name in set(names):
            by_function[name] += 1
        by_leaf[names[0] if names else "(no stickslip frame)"] += 1
    total = sum(by_kind.values())
    # inclusive counts without the frames every kernel with a stack passes through (the
    # run's entry: the largest count)
    most = max(by_function.values(), default=0)
    shared = [(name, n) for name, n in by_function.most_common() if n < most]
    return {"kernels": total, "by_kind": dict(by_kind.most_common()),
            "by_function": shared[:top], "by_leaf": by_leaf.most_common(top),
            "hlo_bytes": len(text)}


def _run(case: str, src: str, top: int) -> dict:
    """`case` twice in fresh processes on `src`: the census run and the timed one."""
    out = {}
    for census_run in (True, False):
        with tempfile.TemporaryDirectory(prefix="stickslip-census-") as tmp:
            env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
            env["XDG_CACHE_HOME"] = tmp                       # an empty program store
            env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
            dump = Path(tmp) / "dump"
            if census_run:
                env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + f" --xla_dump_to={dump} "
                                    "--xla_dump_hlo_as_text --xla_dump_hlo_pass_re=^$")
            proc = subprocess.run([sys.executable, __file__, "--child", case,
                                   json.dumps(census_run)], env=env, capture_output=True,
                                  text=True, cwd=ROOT, check=False)
            if proc.returncode:
                raise RuntimeError(f"{case} on {src} failed:\n{proc.stderr[-3000:]}")
            timing = json.loads(proc.stdout.strip().splitlines()[-1])
            if census_run:
                modules = sorted(dump.glob("*.cpu_after_optimizations.txt"),
                                 key=lambda p: p.stat().st_size)
                out.update(census(modules[-1], top))
                out["program"] = modules[-1].name.split(".")[1]
            else:
                out.update(timing, load=os.getloadavg()[0])
                # a third process on the store the timed one filled: the warm first call
                proc = subprocess.run([sys.executable, __file__, "--child", case, "false"],
                                      env=env, capture_output=True, text=True, cwd=ROOT,
                                      check=False)
                if proc.returncode:
                    raise RuntimeError(f"{case} on {src} (warm) failed:\n{proc.stderr[-3000:]}")
                out["warm"] = json.loads(proc.stdout.strip().splitlines()[-1])["first"]
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=CASES)
    parser.add_argument("--baseline", help="another checkout's root, run alternately")
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--out", help="append the report to this file")
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child[0], json.loads(args.child[1]))))
        return
    trees = [("this tree", str(ROOT / "src"))]
    if args.baseline:
        trees.insert(0, ("baseline", str(Path(args.baseline).resolve() / "src")))
    lines = [f"\n## Program census — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n",
             (f"`python benchmarks/program_census.py {' '.join(argv or sys.argv[1:])}`; "
              "each case in fresh processes, empty program store. Kernels: top-level "
              "operations of the largest program after XLA's optimisations (loops counted by "
              "their bodies). Seconds: the first call (import excluded) and JAX's tracing, "
              "lowering and XLA compile, from a second process; the warm first call from a third, "
              "on the store the second filled.\n"),
             ("| case | tree | program | kernels | HLO [MB] | first [s] | trace | lower | XLA "
              "| warm first [s] | load |"), "|---|---|---|---|---|---|---|---|---|---|---|"]
    details = []
    for case in args.cases:
        for label, src in trees:
            r = _run(case, src, args.top)
            lines.append(f"| {case} | {label} | {r['program']} | {r['kernels']} | "
                         f"{r['hlo_bytes'] / 1e6:.1f} | {r['first']:.1f} | {r['trace']:.1f} | "
                         f"{r['lower']:.1f} | {r['xla']:.1f} | {r['warm']:.2f} | "
                         f"{r['load']:.1f} |")
            print(lines[-1], file=sys.stderr, flush=True)
            if label == "this tree":
                kinds = ", ".join(f"{k} {n}" for k, n in list(r["by_kind"].items())[:8])
                functions = "; ".join(f"{name} {n}" for name, n in r["by_function"])
                leaves = "; ".join(f"{name} {n}" for name, n in r["by_leaf"])
                details.append(f"- **{case}** ({r['kernels']} kernels): {kinds}. By function, "
                               f"inclusive: {functions}. Innermost stickslip function: "
                               f"{leaves}.")
    report = "\n".join(lines + [""] + details) + "\n"
    print(report)
    if args.out:
        with open(args.out, "a") as f:
            f.write(report)


if __name__ == "__main__":
    main()
