"""Work–precision of the tolerance recipe `CoulombODE.for_tolerance` on the slide-then-stick
problem, against the earlier recipe (K = F/ε with a critically damped stick mode).

Problem (closed form, docs/tuning.md point 2): a 1 kg block at rest, friction level
F = 0.5 N, pushed by P = 1 N for 0.5 s: it slides for t* = 1 s and sticks at p* = 0.125 m
exactly (ideal Coulomb). Error = |p(2 s) − p*|. For each requested tolerance ε:

* recipe: ``CoulombODE.for_tolerance(mass=1, F=0.5, tol=ε, push=1, slide_time=1)``, RK4 at
  its step (shortened so the push ends on a step boundary);
* earlier recipe: K = F/ε, β = 2√(M/K) (``CoulombODE.tuned``), RK4 at 0.5 × the largest
  stable step (likewise aligned).

Wall time after compile (best of 3, `_timing.best_of`). Writes
benchmarks/results/tolerance_recipe.md and tolerance_recipe.png.

    python benchmarks/tolerance_recipe.py
"""

from __future__ import annotations

import math
import platform
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import stickslip as ss
from _timing import best_of

M, F, PUSH, T_PUSH, T_END, P_STAR = 1.0, 0.5, 1.0, 0.5, 2.0, 0.125
TOLERANCES = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7)
OUT = Path(__file__).parent / "results"


def load(t):
    return jnp.where(t < T_PUSH, PUSH, 0.0)


def run(law, dt_max):
    dt = T_PUSH / math.ceil(T_PUSH / dt_max)            # the push ends on a step boundary
    block = ss.systems.FrictionMass(M=M, law=law, force=load)
    steps = round(T_END / dt)
    every = max(1, steps // 100)
    simulate = lambda: ss.simulate(block, T_END, dt=dt, dt_out=every * dt)  # noqa: E731
    simulate()                                           # compile
    wall, res = best_of(simulate, repeats=3)
    return abs(float(res["p"][-1]) - P_STAR), wall, steps, dt


def main() -> None:
    rows = {"for_tolerance": [], "K = F/ε, ζ = 1": []}
    for tol in TOLERANCES:
        tuning = ss.laws.CoulombODE.for_tolerance(mass=M, F=F, tol=tol, push=PUSH,
                                                  slide_time=1.0)
        error, wall, steps, dt = run(tuning.law, tuning.dt)
        rows["for_tolerance"].append((tol, tuning.K, tuning.beta, dt, steps, error, wall))
        old = ss.laws.CoulombODE.tuned(M, F / tol, F=F)
        block = ss.systems.FrictionMass(M=M, law=old, force=load)
        stable = ss.largest_stable_step(block, "rk4")
        error, wall, steps, dt = run(old, 0.5 * stable)
        rows["K = F/ε, ζ = 1"].append((tol, float(old.K), float(old.beta), dt, steps, error,
                                        wall))
        print(tol, rows["for_tolerance"][-1], rows["K = F/ε, ζ = 1"][-1], flush=True)

    lines = ["# Tolerance recipe: rest-position error after a slide", "",
             f"Machine: {platform.machine()}, JAX {jax.__version__} on "
             f"{jax.default_backend()}, float64. Command: `python benchmarks/tolerance_recipe.py`. "
             "Problem: 1 kg at rest, F = 0.5 N, pushed by 1 N for 0.5 s; exact rest "
             "p* = 0.125 m. RK4, wall time after compile (best of 3).", "",
             "| recipe | requested ε [m] | K [N/m] | β [s] | dt [s] | steps | error [m] | "
             "error / ε | wall [s] |", "|---|---|---|---|---|---|---|---|---|"]
    for name, table in rows.items():
        for tol, K, beta, dt, steps, error, wall in table:
            lines.append(f"| {name} | {tol:.0e} | {K:.3g} | {beta:.3g} | {dt:.3g} | {steps} | "
                         f"{error:.2e} | {error / tol:.2f} | {wall:.3f} |")
    met = [row[5] <= row[0] for row in rows["for_tolerance"]]
    old_met = [row[5] <= row[0] for row in rows["K = F/ε, ζ = 1"]]
    lines += ["", f"`for_tolerance` meets the requested ε in {sum(met)} of {len(met)} cases; "
              f"the earlier recipe in {sum(old_met)} of {len(old_met)}.", ""]
    (OUT / "tolerance_recipe.md").write_text("\n".join(lines))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_e, ax_w) = plt.subplots(1, 2, figsize=(11, 4.2))
    for (name, table), marker in zip(rows.items(), ("o", "s")):
        tol, error, wall = (np.array([r[i] for r in table]) for i in (0, 5, 6))
        ax_e.loglog(tol, error, marker=marker, label=name)
        ax_w.loglog(wall, error, marker=marker, label=name)
        for t, w, e in zip(tol, wall, error):
            ax_w.annotate(f"ε = {t:.0e}", (w, e), fontsize="x-small", xytext=(4, 2),
                          textcoords="offset points")
    ax_e.loglog(TOLERANCES, TOLERANCES, "k--", lw=0.8, label="error = ε")
    ax_e.set(xlabel="requested ε [m]", ylabel="rest-position error [m]",
             title="error against the request")
    ax_w.set(xlabel="wall time after compile [s]", ylabel="rest-position error [m]",
             title="work–precision (RK4)")
    for ax in (ax_e, ax_w):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle("Slide then stick: 1 kg, F = 0.5 N, pushed by 1 N for 0.5 s (exact rest "
                 "0.125 m)", fontsize="medium")
    fig.tight_layout()
    fig.savefig(OUT / "tolerance_recipe.png", dpi=110)
    print("wrote", OUT / "tolerance_recipe.md")


if __name__ == "__main__":
    main()
