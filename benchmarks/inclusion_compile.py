"""Benchmark of the inclusion compiler: compile time and run-time overhead.

Measures, for SPEC §5 example 2 (two blocks on a conveyor, eq. 23-26):

* symbolic compile time: building the DifferentialInclusion and `compile_inclusion`
  (SymPy analysis, Steps 1-2, lambdify);
* JAX compile time: tracing and XLA-compiling the jitted RK4 loop that `ss.simulate` runs,
  for the compiled and the hand-written `ss.systems.TwoBlocksConveyor`;
* XLA's flop count of one vector-field evaluation (a load-independent cost measure);
* run time: warm `ss.simulate` calls (RK4, dt = 1e-4 s, 5 s, 50 000 steps), compiled vs
  hand-written, interleaved; the ratio (target <= 1.2).

Usage::

    python benchmarks/inclusion_compile.py [--repeats 15] \
        [--out benchmarks/results/inclusion_compile.md]

Writes a markdown table (and prints it).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp

import stickslip as ss
from stickslip.integrate._fixed_step import solve_fixed_step
from stickslip.inclusion import compile_inclusion, examples

T_END, DT, DT_OUT = 5.0, 1e-4, 1e-3


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def _run(system):
    return ss.simulate(system, T_END, dt=DT, dt_out=DT_OUT)


def _trace_and_compile(system):
    """Seconds to trace and to XLA-compile the jitted RK4 loop of `simulate` for `system`."""
    dynamic, static = eqx.partition(system, eqx.is_array)
    n_sub = round(DT_OUT / DT)
    start = time.perf_counter()
    lowered = solve_fixed_step.lower(dynamic, static, jnp.asarray(0.0), system.initial_state(),
                                     jnp.asarray(DT), method="rk4", n_sub=n_sub,
                                     n_out=round(T_END / DT_OUT))
    traced = time.perf_counter()
    lowered.compile()
    return traced - start, time.perf_counter() - traced


def _field_flops(system) -> float:
    """XLA's flop count of one jitted vector-field evaluation (independent of machine load)."""
    field = jax.jit(lambda x: system.vector_field(jnp.asarray(0.0), x))
    cost = field.lower(system.initial_state()).compile().cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    return float(cost.get("flops", float("nan")))


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).parent / "results" / "inclusion_compile.md")
    args = parser.parse_args(argv)

    symbolic = []
    for _ in range(args.repeats):
        dt, compiled = _timed(lambda: compile_inclusion(
            examples.two_blocks_conveyor(compiled=False),
            K={"dio": 1e5, "sgn": 1e4}, beta={"dio": 2e-3, "sgn": 2e-2}, alpha=1e-3))
        symbolic.append(dt)
    hand = ss.systems.TwoBlocksConveyor()
    ss.simulate(ss.systems.ContactMass(M=1.0, law=ss.laws.UnilateralODE.example()), 0.01,
                dt=1e-4)                          # warm JAX up before timing anything
    flops_c, flops_h = _field_flops(compiled), _field_flops(hand)
    looped = compile_inclusion(examples.two_blocks_conveyor(compiled=False),
                               K={"dio": 1e5, "sgn": 1e4}, beta={"dio": 2e-3, "sgn": 2e-2},
                               alpha=1e-3, trace_stages_once=True)
    trace_l, xla_l = _trace_and_compile(looped)
    trace_c, xla_c = _trace_and_compile(compiled)
    trace_h, xla_h = _trace_and_compile(hand)

    _run(compiled), _run(hand)                   # first calls: jit caches filled
    _run(looped)
    run_compiled, run_hand, run_looped = [], [], []
    for _ in range(args.repeats):        # interleaved, so load on the machine hits all
        run_compiled.append(_timed(lambda: _run(compiled))[0])
        run_hand.append(_timed(lambda: _run(hand))[0])
        run_looped.append(_timed(lambda: _run(looped))[0])
    med_c, med_h = statistics.median(run_compiled), statistics.median(run_hand)
    min_c, min_h = min(run_compiled), min(run_hand)

    rows = [
        ("symbolic compile (DifferentialInclusion + compile_inclusion), median",
         f"{statistics.median(symbolic) * 1e3:.0f} ms", "—"),
        ("JAX trace of the RK4 loop", f"{trace_c:.2f} s", f"{trace_h:.2f} s"),
        ("XLA compile of the RK4 loop", f"{xla_c:.2f} s", f"{xla_h:.2f} s"),
        ("trace + XLA compile with `trace_stages_once=True`", f"{trace_l + xla_l:.2f} s", "—"),
        (f"run, RK4 dt={DT:g} s, {T_END:g} s ({int(T_END / DT)} steps), median",
         f"{med_c * 1e3:.0f} ms", f"{med_h * 1e3:.0f} ms"),
        ("run, best of the repeats", f"{min_c * 1e3:.0f} ms", f"{min_h * 1e3:.0f} ms"),
        ("run with `trace_stages_once=True`, median",
         f"{statistics.median(run_looped) * 1e3:.0f} ms", "—"),
        ("XLA flops of one vector-field evaluation (load-independent)", f"{flops_c:.0f}",
         f"{flops_h:.0f} (ratio {flops_c / flops_h:.2f})"),
        ("run-time ratio compiled / hand-written (median; best)",
         f"{med_c / med_h:.2f}×; {min_c / min_h:.2f}×", "target ≤ 1.2×"),
    ]
    lines = [
        "# Inclusion compiler: example 2 (two blocks on a conveyor)",
        "",
        f"`python benchmarks/inclusion_compile.py --repeats {args.repeats}` — "
        f"{platform.processor() or platform.machine()}, JAX {jax.__version__} on "
        f"{jax.default_backend()}, float64, {args.repeats} repeats.",
        "",
        "| quantity | compiled inclusion | hand-written `TwoBlocksConveyor` |",
        "|---|---|---|",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
        "",
    ]
    table = "\n".join(lines)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(table)
    print(table)
    return table


if __name__ == "__main__":
    main()
