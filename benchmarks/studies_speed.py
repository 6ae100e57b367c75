"""Speed of the studies: sweep throughput per backend, Dask overhead per point,
and the time of a six-parameter LuGre fit. Writes benchmarks/results/studies_speed.md.

1. A 10⁴-point Latin-hypercube sweep of eq. 10 (`friction_mass`: F, amplitude), 10 s at
   dt = 1e-4 (10⁹ member-steps), outputs every 10 ms, analyses stick_fraction, max |p|,
   energy loss. Baseline in the same process: `ss.simulate_batch` of the same members
   (stacked with `ss.integrate.stack_systems`, in the sweep's chunks of 1024), the same
   analyses applied to its Results; the ratio sweep/baseline is what counts on a shared
   machine. Timed after a warm-up sweep (so compilation is excluded) on: vmap in this
   process; a Dask LocalCluster with 1 and 2 single-threaded workers (warmed the same way);
   the processes backend with 2 workers (a fresh pool: its time includes starting the
   workers and compiling in each).
   Dask overhead per point = (Dask 1 worker − vmap)/points, and as a ratio to vmap.
2. A fit of LuGre's six parameters to 5 s of p, v, f sampled every ms (1 % noise), dt 1e-4,
   from a start 15–50 % off: our Levenberg–Marquardt against optimistix's.

    nice -n 10 env PYTHONPATH=src python benchmarks/studies_speed.py [--points 10000]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
from pathlib import Path

import numpy as np

import stickslip as ss
from stickslip.studies import friction_mass, latin_hypercube, lugre_block

OUTPUTS = ["stick_fraction", "max_abs(p)", "energy_loss"]
RUN = dict(t_end=10.0, dt=1e-4, dt_out=1e-2)


def sweep_rows(n_points: int, n_overhead: int):
    design = latin_hypercube(n_points, seed=0, F=(0.2, 1.0), amplitude=(0.3, 1.2))
    chunk = min(1024, n_points)
    warm = design.iloc[: chunk + 1]          # two chunks: compiles in (up to) two workers
    rows = []

    def timed(label, points=n_points, **kw):
        steps = points * round(RUN["t_end"] / RUN["dt"])
        start = time.perf_counter()
        table = ss.sweep(friction_mass, design.iloc[:points], OUTPUTS, **RUN, chunk=chunk,
                         **kw)
        wall = time.perf_counter() - start
        assert table["error"].isna().all(), table["error"].dropna().iloc[0]
        rows.append((label, points, wall, steps / wall, table.attrs["chunk"]))
        print(f"{label}: {wall:.1f} s, {steps / wall:.3g} member-steps/s", flush=True)
        return table

    ss.sweep(friction_mass, warm, OUTPUTS, **RUN, chunk=chunk)              # warm-up vmap
    table = timed("vmap, 1 process")
    baseline = batch_baseline(design, chunk, table)
    results = {"vmap": timed("vmap, 1 process", points=n_overhead)}
    from distributed import Client, LocalCluster

    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            ss.sweep(friction_mass, warm, OUTPUTS, **RUN, backend="dask", client=client,
                     chunk=chunk)
            results[f"dask{workers}"] = timed(f"dask LocalCluster, {workers} worker(s)",
                                              points=n_overhead, backend="dask",
                                              client=client)
    results["processes"] = timed("processes, 2 workers (fresh pool)", points=n_overhead,
                                 backend="processes", workers=2)
    # the machinery alone: the same sweep with 10 steps per point instead of 10⁵, so the
    # difference Dask − vmap is the per-point cost of shipping chunks, not CPU contention
    short = dict(RUN, t_end=10 * RUN["dt"], dt_out=RUN["dt"])
    bare = {}
    for label, kw in (("vmap", {}), ("dask", {"backend": "dask"})):
        with (LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None)
              if kw else _nothing()) as cluster:
            client = Client(cluster) if kw else None
            extra = {"client": client} if kw else {}
            ss.sweep(friction_mass, warm, OUTPUTS, **short, chunk=chunk, **kw, **extra)
            start = time.perf_counter()
            ss.sweep(friction_mass, design.iloc[:n_overhead], OUTPUTS, **short, chunk=chunk,
                     **kw, **extra)
            bare[label] = time.perf_counter() - start
            if client is not None:
                client.close()
    print(f"machinery: vmap {bare['vmap']:.2f} s, dask {bare['dask']:.2f} s", flush=True)
    same = all(np.array_equal(results["vmap"][OUTPUTS].to_numpy(),
                              t[OUTPUTS].to_numpy(), equal_nan=True) for t in results.values())
    return rows, same, bare, baseline


def batch_baseline(design, chunk, table):
    """`ss.simulate_batch` of the sweep's members, chunk by chunk (members stacked outside
    the timing), with the sweep's analyses; returns (wall, agreement with the sweep)."""
    from stickslip.integrate import stack_systems
    from stickslip.studies._analyses import resolve_analyses

    analyses = resolve_analyses(OUTPUTS)
    values = design.to_numpy(dtype=float)
    names = list(design.columns)
    chunks = [stack_systems([friction_mass(**dict(zip(names, map(float, row))))
                             for row in values[s:s + chunk]])
              for s in range(0, len(values), chunk)]
    ss.simulate_batch(chunks[0], **RUN)                                     # compile
    outputs = {name: [] for name in analyses}
    start = time.perf_counter()
    for stacked in chunks:
        res = ss.simulate_batch(stacked, **RUN)
        for name, fn in analyses.items():
            outputs[name].append(np.asarray(fn(res)))
    wall = time.perf_counter() - start
    worst = max(float(np.max(np.abs(np.concatenate(outputs[name]) - table[name].to_numpy())))
                for name in analyses)
    steps = len(values) * round(RUN["t_end"] / RUN["dt"])
    print(f"simulate_batch baseline: {wall:.1f} s, {steps / wall:.3g} member-steps/s; "
          f"largest difference from the sweep {worst:.3g}", flush=True)
    return wall, worst


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def fit_rows():
    true = dict(mu_s=0.3, mu_k=0.2, vs=1e-3, k0=1e5, k1=math.sqrt(1e5), k2=0.4)
    res = ss.simulate(lugre_block(**true), 5.0, dt=1e-4, dt_out=1e-3)
    rng = np.random.default_rng(0)
    data = {"t": res.t}
    for c in ("p", "v", "f"):
        data[c] = res[c] + 0.01 * np.std(res[c]) * rng.standard_normal(res.t.size)
    start = dict(mu_s=0.35, mu_k=0.15, vs=2e-3, k0=5e4, k1=200.0, k2=0.3)
    rows = []
    for solver in ("levenberg_marquardt", "optimistix_lm"):
        t0 = time.perf_counter()
        result = ss.fit(lugre_block, data, start, dt=1e-4, solver=solver)
        wall = time.perf_counter() - t0
        covered = sum(lo <= true[k] <= hi for k, (lo, hi) in result.intervals.items())
        rows.append((solver, wall, result.steps, result.residual_norm, covered))
        print(f"fit {solver}: {wall:.1f} s, {result.steps} steps, {covered}/6 covered",
              flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--overhead-points", type=int, default=2048,
                        help="points of the backend comparison (the machine is shared)")
    parser.add_argument("--skip-fit", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    out = Path(__file__).parent / "results" / "studies_speed.md"
    previous = out.read_text() if out.exists() else ""
    rows, same, bare, (base_wall, worst) = sweep_rows(args.points, args.overhead_points)
    fits = [] if args.skip_fit else fit_rows()
    vmap_wall = rows[1][2]
    dask1 = next(r for r in rows if r[0].startswith("dask LocalCluster, 1"))
    n_over = args.overhead_points
    overhead = (dask1[2] - vmap_wall) / n_over
    best = max(rows, key=lambda r: r[3])
    lines = [
        "# studies speed", "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores "
        f"(shared; load average {load:.1f} at start). "
        f"Command: `nice -n 10 env PYTHONPATH=src python benchmarks/studies_speed.py "
        f"--points {args.points} --overhead-points {n_over}"
        f"{' --skip-fit' if args.skip_fit else ''}`.", "",
        "## Sweep of eq. 10 (friction_mass), 10 s at dt 1e-4 per point", "",
        "| backend | points | wall [s] | member-steps/s | chunk |", "|---|---:|---:|---:|---:|",
        *[f"| {label} | {n} | {wall:.1f} | {rate:.3g} | {chunk} |"
          for label, n, wall, rate, chunk in rows],
        f"| baseline: `ss.simulate_batch` of the same members (chunks of "
        f"{rows[0][4]}), same analyses | {rows[0][1]} | {base_wall:.1f} | "
        f"{rows[0][1] * round(RUN['t_end'] / RUN['dt']) / base_wall:.3g} | {rows[0][4]} |", "",
        f"Sweep (vmap) / simulate_batch of the same {rows[0][1]} members, same process: "
        f"**{base_wall / rows[0][2]:.2f}× the member-steps/s** (largest difference of an "
        f"output: {worst:.2g}). The sweep passes the parameters the design does not vary "
        "(M, K, β, the force's frequency and bias, …) unbatched to the vmapped run, so "
        "the force's sin(2π·f·t) is computed once per stage for the whole chunk; "
        "`simulate_batch` of stacked members has every leaf batched and computes it per "
        "member.", "",
        f"Identical outputs on every backend ({n_over} points): {same}.", "",
        f"Dask overhead per point (1 worker vs vmap, both warm, {n_over} points): "
        f"{overhead * 1e3:.3f} ms = {100 * (dask1[2] / vmap_wall - 1):.1f} % of the vmap "
        f"time per point ({vmap_wall / n_over * 1e3:.3f} ms) — on a shared machine this "
        "difference of two long runs is mostly CPU contention.", "",
        f"The machinery alone (the same {n_over} points with 10 steps each, 1 worker, warm): "
        f"vmap {bare['vmap']:.2f} s, Dask {bare['dask']:.2f} s: Dask adds "
        f"{(bare['dask'] - bare['vmap']) / n_over * 1e3:.3f} ms per point = "
        f"{100 * (bare['dask'] - bare['vmap']) / vmap_wall:.2f} % of a point's 10 s run "
        f"(vmap, above). Target ≤ 5 %.", "",
        f"Target ≥ 1e8 member-steps/s on 2 cores; best here: {best[3]:.3g} ({best[0]}, "
        f"{best[1]} points).", ""]
    if fits:
        lines += ["## Fit: LuGre's six parameters to 5 s of p, v, f (1 % noise), dt 1e-4", "",
                  "| solver | wall [s] (with compile) | steps | ‖r‖ | truth inside 95 % CI |",
                  "|---|---:|---:|---:|---:|",
                  *[f"| {s} | {w:.1f} | {n} | {r:.4g} | {c}/6 |" for s, w, n, r, c in fits],
                  "", "Target ≤ 30 s.", ""]
    if not fits and "## Fit" in previous:     # --skip-fit: keep the last measured fit
        lines += ["## Fit" + previous.split("## Fit", 1)[1].split("\n## ", 1)[0]
                  .replace("\n\n(Not rerun in this run: `--skip-fit`.)", "").rstrip()
                  + "\n\n(Not rerun in this run: `--skip-fit`.)", ""]
    out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
