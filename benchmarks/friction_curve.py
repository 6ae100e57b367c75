"""Cost of CoulombODE's friction curve (issue 22) against eq. 9's single level, side by side:
the Fig. 3 stiction problem (a 1 kg block, load ramp then oscillation just below the level),
RK4, dt = 1e-4, 10 s (10⁵ steps), the same `FrictionMass` with each law:

* eq. 9, one level F = 0.5 N (the baseline);
* static above kinetic, a jump: F = 0.45 N, F_s = 0.5 N (closed-form slip solve);
* Stribeck + viscous: F = 0.45, F_s = 0.5 N, v_stribeck = 1e-3 m/s, viscous = 0.1 N·s/m
  (safeguarded Newton, 12 rounds);
* LuGre with the same levels (for scale).

Run:  python benchmarks/friction_curve.py   (writes benchmarks/results/friction_curve.md)

Times are the best of 5 runs after the first (compiling) call, in this process; the ratio is
against the baseline measured in the same run.
"""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path

import stickslip as ss
from _timing import best_of
from stickslip.figures._fig3_stiction import stiction_load

T_END, DT = 10.0, 1e-4
OUT = Path(__file__).parent / "results" / "friction_curve.md"
K, BETA = 1e4, 2e-2            # K·β = 200 N·s/m: above the Stribeck drop's 0.05·0.858/1e-3 = 43


def laws():
    return {
        "eq. 9, one level (baseline)": ss.laws.CoulombODE(F=0.5, K=K, beta=BETA),
        "static > kinetic (jump)": ss.laws.CoulombODE(F=0.45, F_s=0.5, K=K, beta=BETA),
        "Stribeck + viscous": ss.laws.CoulombODE(F=0.45, F_s=0.5, v_stribeck=1e-3,
                                                 viscous=0.1, K=K, beta=BETA),
        "LuGre (same levels)": ss.laws.LuGre(mu_s=0.5, mu_k=0.45),
    }


def main():
    rows = []
    for name, law in laws().items():
        block = ss.systems.FrictionMass(M=1.0, law=law, force=stiction_load)
        start = time.perf_counter()
        ss.simulate(block, T_END, dt=DT, dt_out=1e-2)
        first = time.perf_counter() - start
        run = best_of(lambda: ss.simulate(block, T_END, dt=DT, dt_out=1e-2))[0]
        rows.append((name, first, run))
    base = rows[0][2]
    load = os.getloadavg()
    lines = ["# Friction curve cost (issue 22)", "",
             f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
             f"load average {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}. "
             f"`python benchmarks/friction_curve.py`.", "",
             "| law | first call [s] | run [ms] | steps/s | × baseline |",
             "|---|---|---|---|---|"]
    for name, first, run in rows:
        lines.append(f"| {name} | {first:.2f} | {run * 1e3:.1f} | {T_END / DT / run:.3g} | "
                     f"{run / base:.2f} |")
    text = "\n".join(lines) + "\n"
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
