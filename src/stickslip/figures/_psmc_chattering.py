"""SPEC §6 (slides, "sliding mode control"): naive SMC chatters, PSMC does not.

Plant: a 1 kg mass with Coulomb friction F = 2 N (eq. 10, `CoulombODE`), sampled at 1 kHz
with zero-order hold. Both controllers have the same force level (20 N) and sliding surface
(H = 0.2 s); PSMC adds the PID coupling of `PSMC_GAINS`. Reference: a 0.1 m step at 50 ms.
The slides show the same comparison on a robot; parameters here are our choice.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import laws
from ..control import ActuatedSystem, NaiveSMCParams, PSMCParams, simulate_closed_loop
from ..systems import FrictionMass

__all__ = ["PSMC_GAINS", "make"]

PSMC_GAINS = dict(F=20.0, H=0.2, K=1600.0, B=80.0, L=16000.0, T=1e-3)
STEP, T_STEP, T_END, T_LATE = 0.1, 0.05, 1.5, 1.0


def _reference(t):
    return STEP * (t >= T_STEP)


def make(out: Path) -> dict:
    import matplotlib.pyplot as plt
    import pandas as pd

    plant = ActuatedSystem(FrictionMass(M=1.0, law=laws.CoulombODE(F=2.0, K=1e4, beta=1e-3)))
    runs = {
        "naive SMC": simulate_closed_loop(
            plant, NaiveSMCParams(F=PSMC_GAINS["F"], H=PSMC_GAINS["H"], T=PSMC_GAINS["T"]),
            T_END, _reference),
        "PSMC": simulate_closed_loop(plant, PSMCParams(**PSMC_GAINS), T_END, _reference),
    }
    t = runs["PSMC"].t
    late = t >= T_LATE
    frame = pd.DataFrame({"t": t, "p_d": runs["PSMC"]["p_d"]})
    summary: dict = {"force_sign_flips_after_1s": {}, "force_rms_after_1s_N": {},
                     "final_error_m": {}, "F_N": PSMC_GAINS["F"], "T_s": PSMC_GAINS["T"]}
    for name, res in runs.items():
        u = res["u"]
        summary["force_sign_flips_after_1s"][name] = int(
            np.sum(np.abs(np.diff(np.sign(u[late]))) > 1))
        summary["force_rms_after_1s_N"][name] = float(np.sqrt(np.mean(u[late] ** 2)))
        summary["final_error_m"][name] = float(res["p"][-1] - STEP)
        frame[f"p[{name}]"] = res["p"]
        frame[f"u[{name}]"] = u
    frame["proxy[PSMC]"] = runs["PSMC"]["proxy"]
    frame.to_csv(out / "psmc_chattering.csv", index=False)

    fig, axes = plt.subplots(2, 2, figsize=(10, 6), sharex="col")
    for col, (name, res) in enumerate(runs.items()):
        ax_p, ax_u = axes[0, col], axes[1, col]
        ax_p.plot(t, res["p_d"] * 1e3, "k--", lw=0.8, label="$p_d$")
        ax_p.plot(t, res["p"] * 1e3, color=f"C{col}", label="p")
        if "proxy" in res:
            ax_p.plot(t, res["proxy"] * 1e3, color="C2", lw=0.8, label="proxy")
        ax_p.set_title(f"{name}: {summary['force_sign_flips_after_1s'][name]} force sign "
                       "flips after 1 s")
        ax_p.set_ylabel("position [mm]")
        ax_p.legend(fontsize="small")
        ax_u.plot(t, res["u"], color=f"C{col}", lw=0.6)
        ax_u.set_ylabel("actuator force f [N]")
        ax_u.set_xlabel("t [s]")
        ax_u.set_ylim(-1.2 * PSMC_GAINS["F"], 1.2 * PSMC_GAINS["F"])
        for ax in (ax_p, ax_u):
            ax.grid(True, alpha=0.3)
    fig.suptitle("Naive SMC chatters, PSMC does not (mass 1 kg with Coulomb friction 2 N, "
                 "T = 1 ms, F = 20 N, H = 0.2 s)\nproxy-based sliding mode control: Kikuuwe & Fujimoto, "
                 "ICRA 2006 (Kikuuwe, slides: sliding mode control)", fontsize="medium")
    fig.tight_layout()
    fig.savefig(out / "psmc_chattering.png", dpi=120)
    plt.close(fig)
    return summary
