"""Work–precision of eq. 10: error in the rest position vs wall time, over K, β and dt.

Problem (closed form): a 1 kg block launched at v0 = 1 m/s on a surface with F = 0.5 N
and no other force decelerates at F/M and stops at p* = M v0²/(2F) = 1 m at t* = 2 s. We run
to 3 s and take |p(3 s) − p*| as the error. Sweeps:

* β at fixed K = 1e4 N/m and a small step: the proxy's own error (it grows ∝ β),
* K with β = 2√(M/K) (critically damped stick mode, `CoulombODE.tuned`) and dt a fraction
  of the largest stable step: RK4 (fixed) and Tsit5 (adaptive, several tolerances).

Run:  python benchmarks/work_precision.py
(writes benchmarks/results/work_precision.md and work_precision.png)
"""

from __future__ import annotations

import time
from pathlib import Path

import jax
import numpy as np

import stickslip as ss

M, F, V0, T_END = 1.0, 0.5, 1.0, 3.0
P_STAR = M * V0 ** 2 / (2 * F)
OUT = Path(__file__).parent / "results"


def block(K, beta):
    return ss.systems.FrictionMass(M=M, law=ss.laws.CoulombODE(F=F, K=K, beta=beta), v0=V0)


def timed_fixed(system, dt):
    dt = (T_END / 3) / np.ceil((T_END / 3) / dt)      # a whole number of steps per output
    run = lambda: jax.block_until_ready(ss.integrate.trajectory(system, T_END, dt=dt,  # noqa
                                                                dt_out=T_END / 3))
    run()
    best = min(_time(run) for _ in range(3))
    _, xs = run()
    return abs(float(xs[-1, 0]) - P_STAR), best


def timed_adaptive(system, rtol):
    run = lambda: ss.simulate(system, T_END, method="tsit5", dt_out=T_END, rtol=rtol,  # noqa
                              atol=rtol * 1e-3, max_steps=10 ** 7)
    res = run()
    best = min(_time(run) for _ in range(3))
    return abs(float(res["p"][-1]) - P_STAR), best, int(res.meta["steps"])


def _time(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    OUT.mkdir(exist_ok=True)
    lines = ["# Work–precision of eq. 10 (rest-position error)", "",
             "Command: `python benchmarks/work_precision.py`. Exact rest position p* = 1 m.", ""]

    # 1. error vs beta (K fixed, fine step): the proxy's modelling error
    lines += ["## Error vs β (K = 1e4 N/m, RK4, dt = min(β/4, 2.5e-4) s)", "",
              "| β [s] | ζ = β√(K/M)/2 | error [m] | error / β [m/s] |", "|---|---|---|---|"]
    betas = np.array([1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 2e-2, 5e-2])
    beta_err = []
    for beta in betas:
        system = block(1e4, beta)
        dt = min(beta / 4, 2.5e-4, 0.5 * ss.largest_stable_step(system))
        err, _ = timed_fixed(system, dt)
        beta_err.append(err)
        lines.append(f"| {beta:g} | {beta * 50:.3g} | {err:.3e} | {err / beta:.3g} |")
    slope = np.polyfit(np.log(betas[1:]), np.log(beta_err[1:]), 1)[0]
    lines += ["", f"Log–log slope of error vs β: **{slope:.2f}** (1 = proportional).", ""]

    # 2. work-precision over K (critically damped) and dt / tolerance
    lines += ["## Error vs wall time (β = 2√(M/K), critically damped stick mode)", "",
              "| K [N/m] | method | dt or rtol | error [m] | wall [s] |", "|---|---|---|---|---|"]
    fig, (ax_b, ax_w) = plt.subplots(1, 2, figsize=(11, 4.2))
    ax_b.loglog(betas, beta_err, "o-")
    ax_b.set(xlabel="β [s]", ylabel="rest-position error [m]",
             title=f"proxy error ∝ β^{slope:.2f} (K = 1e4)")
    ax_b.grid(True, which="both", alpha=0.3)
    for i, K in enumerate((1e3, 1e4, 1e5, 1e6)):
        system = ss.systems.FrictionMass(M=M, law=ss.laws.CoulombODE.tuned(M, K, F=F), v0=V0)
        limit = ss.largest_stable_step(system)
        pts = []
        for frac in (0.9, 0.5, 0.2, 0.05):
            err, wall = timed_fixed(system, frac * limit)
            pts.append((wall, err))
            lines.append(f"| {K:g} | rk4 | dt={frac * limit:.3g} | {err:.3e} | {wall:.3g} |")
        ax_w.loglog(*zip(*pts), "o-", color=f"C{i}", label=f"rk4, K={K:g}")
        pts = []
        for rtol in (1e-4, 1e-6, 1e-8):
            err, wall, steps = timed_adaptive(system, rtol)
            pts.append((wall, err))
            lines.append(f"| {K:g} | tsit5 ({steps} steps) | rtol={rtol:g} | {err:.3e} | "
                         f"{wall:.3g} |")
        ax_w.loglog(*zip(*pts), "s--", color=f"C{i}", label=f"tsit5, K={K:g}")
    ax_w.set(xlabel="wall time after compile [s]", ylabel="rest-position error [m]",
             title="work–precision (β critical)")
    ax_w.grid(True, which="both", alpha=0.3)
    ax_w.legend(fontsize="x-small", ncol=2)
    fig.tight_layout()
    fig.savefig(OUT / "work_precision.png", dpi=120)
    (OUT / "work_precision.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
