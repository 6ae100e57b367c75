"""What an output sample costs, and eq. 10 against a plain C loop of the same step (issue 21
item 4), measured in one run.

(a) AP1 of issue 21 — a 1 kg block, F = 0.5 N; load 0 before 0.5 s, 0.6 N until 1 s, then
    0.45 + 0.04 sin(10πt) N; 10 s — as eq. 10 with K = 1e6 N/m and the critically damped
    β = 2√(M/K) = 2 ms (`CoulombODE.tuned`), RK4 at dt = 1 ms (RK4 is stable up to ~2.8 ms
    there): 10⁴ steps, once with an output every step (10⁴ samples) and once every 1000 steps
    (10 samples). This tree against the tree at commit d041685 (``git archive d041685``, read
    only), each in its own process (``PYTHONPATH=<tree>/src``, its own empty compile cache),
    the two alternating, each time the best of `--repeats` runs after a first (compiling)
    call. Per step = the sparse run / 10⁴; per output sample = (every step − sparse) /
    (10 001 − 11) samples.
(b) eq. 10 as in `core_speed.py` (`eq10_system`: 1 kg, F = 0.5 N, K = 1e4 N/m, β = 1 ms, the
    fig. 3 load) — 10⁵ RK4 steps of 0.1 ms, an output every 100 steps — through
    ``ss.simulate``, against a C99 loop of exactly the same step and force (below, compiled
    with ``cc -O2 -std=c99``; timed with clock_gettime inside C, the best of many repeats;
    it stores the same 1001 samples). Its x(10 s) must equal ours to 1e-12 (relative). The C
    row is skipped where no C compiler is found.

Run:  python benchmarks/output_cost.py [--repeats 7] [--rounds 3] [--this-tree DIR]
(writes benchmarks/results/output_cost.md; `--this-tree` measures another checkout's
``src`` as "this tree", e.g. a copy made before a change.)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "results" / "output_cost.md"
OLD_COMMIT = "d041685"

# run in a child process with PYTHONPATH=<tree>/src: only API that both trees have
CHILD = r'''
import json, math, sys, time
import jax.numpy as jnp
import stickslip as ss

def best(fn, repeats):
    fn()                                    # compile (and the first run)
    out = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - start)
    return out

def ap1_load(t):
    return jnp.where(t < 0.5, 0.0, jnp.where(t < 1.0, 0.6,
                                             0.45 + 0.04 * jnp.sin(10 * jnp.pi * t)))

repeats = int(sys.argv[2])
result = {}
if sys.argv[1] == "ap1":
    system = ss.systems.FrictionMass(M=1.0, law=ss.laws.CoulombODE.tuned(1.0, 1e6, F=0.5),
                                     force=ap1_load)
    for name, every in (("every", 1), ("sparse", 1000)):
        run = lambda: ss.simulate(system, 10.0, dt=1e-3, dt_out=every * 1e-3)
        res = run()
        result[name] = {"wall": best(run, repeats), "samples": len(res.t),
                        "p_end": float(res["p"][-1])}
else:
    from stickslip.figures._fig3_stiction import F_LEVEL, stiction_load
    system = ss.systems.FrictionMass(M=1.0, law=ss.laws.CoulombODE(F=F_LEVEL, K=1e4, beta=1e-3),
                                     force=stiction_load)
    run = lambda: ss.simulate(system, 10.0, dt=1e-4, dt_out=1e-2)
    res = run()
    state = [float(res[name][-1]) for name in system.state_names]
    result["eq10"] = {"wall": best(run, repeats), "samples": len(res.t), "x_end": state}
result["module"] = ss.__file__
print("RESULT " + json.dumps(result))
'''

# eq. 10 (FrictionMass + CoulombODE, the fig. 3 load), RK4: the step of
# stickslip.integrate._rk_step.rk_step with the vector field of FrictionMass, operation for
# operation (the 0·t and 0·p terms included: the surface velocity and spring of FrictionMass)
C_SOURCE = r'''
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const double PI = 3.141592653589793;
static const double M = 1.0, F = 0.5, K = 1e4, BETA = 1e-3;

static double load(double t) {              /* stiction_load: fig. 3 of SPEC section 2 */
    return t < 1.0 ? 0.6 * t
                   : (t < 2.0 ? 0.6 - 0.2 * (t - 1.0) : 0.4 + 0.08 * sin(4.0 * PI * (t - 2.0)));
}

static void field(double t, const double *x, double *k) {
    double w = x[1] - 0.0 * t;                 /* sliding velocity (no belt) */
    double z = x[2] + BETA * w;
    double lim = F / K;
    double s = z < -lim ? -lim : (z > lim ? lim : z);  /* sat(F/K, a + beta w), eq. 9b */
    k[0] = x[1];
    k[1] = (load(t) + (-K * s) + 0.0 * x[0]) / M;      /* eq. 10 */
    k[2] = (s - x[2]) / BETA;                           /* eq. 9a */
}

int main(int argc, char **argv) {
    long n = atol(argv[1]), every = atol(argv[2]);
    int repeats = atoi(argv[3]);
    double dt = atof(argv[4]);
    double *out = malloc(sizeof(double) * 3 * (n / every + 1));
    double x[3], best = 1e300;
    for (int r = 0; r < repeats; r++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        x[0] = x[1] = x[2] = 0.0;
        out[0] = out[1] = out[2] = 0.0;
        for (long s = 0; s < n; s++) {
            double t = (double)s * dt, k1[3], k2[3], k3[3], k4[3], y[3];
            field(t, x, k1);
            for (int i = 0; i < 3; i++) y[i] = x[i] + (dt * 0.5) * k1[i];
            field(t + 0.5 * dt, y, k2);
            for (int i = 0; i < 3; i++) y[i] = x[i] + (dt * 0.5) * k2[i];
            field(t + 0.5 * dt, y, k3);
            for (int i = 0; i < 3; i++) y[i] = x[i] + dt * k3[i];
            field(t + dt, y, k4);
            for (int i = 0; i < 3; i++)
                x[i] = x[i] + dt * ((((1.0 / 6.0) * k1[i] + (1.0 / 3.0) * k2[i])
                                     + (1.0 / 3.0) * k3[i]) + (1.0 / 6.0) * k4[i]);
            if ((s + 1) % every == 0)
                for (int i = 0; i < 3; i++) out[3 * ((s + 1) / every) + i] = x[i];
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        double wall = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
        if (wall < best) best = wall;
    }
    printf("%.17g %.17g %.17g %.9g\n", x[0], x[1], x[2], best);
    free(out);
    return 0;
}
'''


def old_tree(workdir: Path) -> Path:
    """The tree at OLD_COMMIT, extracted with ``git archive`` (no checkout)."""
    target = workdir / OLD_COMMIT
    target.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", OLD_COMMIT],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target / "src"


def child(src: Path, mode: str, repeats: int, cache: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src), STICKSLIP_JAX_CACHE=str(cache))
    done = subprocess.run([sys.executable, "-c", CHILD, mode, str(repeats)], env=env,
                          capture_output=True, text=True, cwd=str(cache), check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{mode} in {src} failed:\n{done.stderr[-3000:]}")
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    result = json.loads(line[len("RESULT "):])
    if not Path(result.pop("module")).resolve().is_relative_to(src):
        raise RuntimeError(f"the child imported stickslip from outside {src}")
    return result


def c_loop(workdir: Path):
    """The compiled C loop's path, or None without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        return None
    source = workdir / "eq10.c"
    source.write_text(C_SOURCE)
    binary = workdir / "eq10"
    subprocess.run([cc, "-O2", "-std=c99", "-o", str(binary), str(source), "-lm"], check=True)
    return binary


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--this-tree", type=Path, default=REPO / "src")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    this = args.this_tree.resolve()
    with tempfile.TemporaryDirectory(prefix="output-cost-") as tmp:
        work = Path(tmp)
        trees = {"this tree": this, OLD_COMMIT: old_tree(work)}
        caches = {}
        for name in trees:
            caches[name] = work / f"cache-{len(caches)}"
            caches[name].mkdir()
        binary = c_loop(work)
        ap1 = {name: {} for name in trees}
        loads = []
        eq10, c_best, c_state = None, None, None
        for _ in range(args.rounds):
            loads.append(load())
            for name, src in trees.items():                 # alternating
                got = child(src, "ap1", args.repeats, caches[name])
                for case, value in got.items():
                    kept = ap1[name].get(case)
                    if kept is None or value["wall"] < kept["wall"]:
                        ap1[name][case] = value
            if binary is not None:
                done = subprocess.run([str(binary), "100000", "100", "200", "1e-4"],
                                      check=True, capture_output=True, text=True)
                *state, wall = (float(v) for v in done.stdout.split())
                if c_best is None or wall < c_best:
                    c_best, c_state = wall, state
            got = child(this, "eq10", args.repeats, caches["this tree"])["eq10"]
            if eq10 is None or got["wall"] < eq10["wall"]:
                eq10 = got
        loads.append(load())

    n_steps = 10_000
    lines = [
        "# Cost of an output sample, and eq. 10 against a plain C loop (issue 21 item 4)",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores "
        "(shared). Command: `python benchmarks/output_cost.py"
        + (f" --this-tree {args.this_tree}" if args.this_tree != REPO / "src" else "")
        + f"` ({args.rounds} rounds, best of {args.repeats} runs each after a compiling "
        f"call). Load average (1/5/15 min) at each round and at the end: {', '.join(loads)}.",
        "",
        "## (a) AP1, K = 1e6 N/m, β = 2 ms, RK4, dt = 1 ms, 10 s: 10⁴ steps",
        "",
        ("| tree | output every step (10 001 samples) [ms] | every 1000 steps (11 samples) "
         "[ms] | µs per step | µs per output sample | x(10 s) [m] |"),
        "|---|---|---|---|---|---|",
    ]
    for name in trees:
        every, sparse = ap1[name]["every"], ap1[name]["sparse"]
        per_sample = (every["wall"] - sparse["wall"]) / (every["samples"] - sparse["samples"])
        lines.append(f"| {name} | {every['wall'] * 1e3:.3f} | {sparse['wall'] * 1e3:.3f} | "
                     f"{sparse['wall'] / n_steps * 1e6:.3f} | {per_sample * 1e6:.3f} | "
                     f"{every['p_end']:.15g} |")
    this_every = ap1["this tree"]["every"]["wall"]
    old_every = ap1[OLD_COMMIT]["every"]["wall"]
    lines += ["", (f"Output every step: this tree / {OLD_COMMIT} = "
                   f"**{this_every / old_every:.2f}** (target ≤ 1)."), ""]
    steps = 100_000
    lines += ["## (b) eq. 10, RK4, dt = 0.1 ms, 10 s (10⁵ steps), output every 100 steps", "",
              "| run | wall [ms] | steps/s | x(10 s): p, v, a |", "|---|---|---|---|"]
    lines.append(f"| `ss.simulate` (this tree) | {eq10['wall'] * 1e3:.3f} | "
                 f"{steps / eq10['wall']:.3g} | {', '.join(f'{v:.17g}' for v in eq10['x_end'])} |")
    if binary is None:
        lines += ["", "No C compiler found (cc, gcc, clang): the C row is skipped."]
    else:
        diff = max(abs(a - b) / max(abs(b), 1e-300) for a, b in zip(c_state, eq10["x_end"]))
        lines.append(f"| C99 loop, `cc -O2 -std=c99` | {c_best * 1e3:.3f} | "
                     f"{steps / c_best:.3g} | {', '.join(f'{v:.17g}' for v in c_state)} |")
        ratio = (steps / eq10["wall"]) / (steps / c_best)
        lines += ["", (f"Largest relative difference of x(10 s), C against ours: {diff:.1e} "
                       f"({'within' if diff <= 1e-12 else 'NOT within'} 1e-12)."),
                  f"`ss.simulate`'s steps/s / the C loop's: **{ratio:.2f}** (target ≥ 0.5)."]
    from _report import write_report

    write_report(lines, args.out)


if __name__ == "__main__":
    main()
