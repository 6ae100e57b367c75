"""SPEC §6 (slides, "advantages of PSMC"): step responses of PSMC and PID with the same
gains. A small step (0.1 mm) never saturates F, so PSMC *is* the PID — equally accurate;
a large step (0.5 m) makes PID overshoot with a huge force, while PSMC recovers slowly and
overdamped along its sliding surface with the force saturated at F.

Plant: a 1 kg mass, 1 kHz, zero-order hold. Gains (ours; the slides give none):
K = 1600 N/m, B = 80 N·s/m, L = 16000 N/(m·s), F = 20 N, H = 0.2 s.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..control import MassPlant, PIDParams, PSMCParams, simulate_closed_loop
from ._psmc_chattering import PSMC_GAINS

__all__ = ["make", "STEPS"]

STEPS = {"small": 1e-4, "large": 0.5}
T_STEP, T_END = 0.05, 2.0


def _settling_time(t, p, target, band=0.02):
    outside = np.flatnonzero(np.abs(p - target) > band * abs(target))
    return float(t[outside[-1] + 1] - T_STEP) if outside.size and outside[-1] + 1 < t.size \
        else float("nan")


def make(out: Path) -> dict:
    import matplotlib.pyplot as plt
    import pandas as pd

    plant = MassPlant(M=1.0)
    controllers = {"PSMC": PSMCParams(**PSMC_GAINS),
                   "PID": PIDParams(K=PSMC_GAINS["K"], L=PSMC_GAINS["L"], B=PSMC_GAINS["B"],
                                    T=PSMC_GAINS["T"])}
    summary: dict = {"gains": PSMC_GAINS, "steps_m": STEPS}
    frames = []
    fig, axes = plt.subplots(2, 2, figsize=(10, 6), sharex=True)
    for col, (label, size) in enumerate(STEPS.items()):
        def reference(t, size=size):
            return size * (t >= T_STEP)
        for i, (name, ctrl) in enumerate(controllers.items()):
            res = simulate_closed_loop(plant, ctrl, T_END, reference)
            key = f"{label}/{name}"
            summary[key] = {
                "overshoot_percent": float(100 * (res["p"].max() - size) / size),
                "peak_force_N": float(np.max(np.abs(res["u"]))),
                "settling_time_2pct_s": _settling_time(res.t, res["p"], size),
            }
            frames.append(pd.DataFrame({"step": label, "controller": name, "t": res.t,
                                        "p": res["p"], "u": res["u"]}))
            style = dict(color=f"C{i}", lw=1.6 if name == "PSMC" else 1.0,
                         ls="-" if name == "PSMC" else "--")
            axes[0, col].plot(res.t, res["p"] / size, label=name, **style)
            axes[1, col].plot(res.t, res["u"], label=name, **style)
        axes[0, col].set_title(f"{label} step ({size:g} m): overshoot PSMC "
                               f"{summary[label + '/PSMC']['overshoot_percent']:.2g} %, PID "
                               f"{summary[label + '/PID']['overshoot_percent']:.2g} %",
                               fontsize="small")
        axes[0, col].set_ylabel("p / step [-]")
        axes[1, col].set_ylabel("force f [N]")
        axes[1, col].set_xlabel("t [s]")
        if label == "large":
            axes[1, col].set_ylim(-3 * PSMC_GAINS["F"], 3 * PSMC_GAINS["F"])
            axes[1, col].annotate(f"PID peak {summary['large/PID']['peak_force_N']:.3g} N "
                                  "(off scale)", (0.3, 0.9), xycoords="axes fraction",
                                  fontsize="small")
        for ax in axes[:, col]:
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize="small")
    fig.suptitle("PSMC vs PID, same gains: identical for a small error, no overshoot and "
                 "|f| ≤ F = 20 N for a large one\n(Kikuuwe & Fujimoto, ICRA 2006; Kikuuwe, slides: "
                 "advantages of PSMC)", fontsize="medium")
    fig.tight_layout()
    fig.savefig(out / "psmc_step_response.png", dpi=120)
    plt.close(fig)
    pd.concat(frames).to_csv(out / "psmc_step_response.csv", index=False)
    return summary
