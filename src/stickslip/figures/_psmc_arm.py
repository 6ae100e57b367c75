"""SPEC §6 on a mechanism (issue 22 item 4): PSMC and PID with the same gains driving a
planar two-link arm with Coulomb pin friction (``stickslip.planar.psmc_arm.two_link_arm``:
vertical plane, links 1 kg / 0.3 m, hanging down at the start), one controller per joint,
1 kHz, zero-order hold. A 1 rad step on both joints: the PID overshoots with a torque kick of
thousands of N·m; PSMC saturates at its limits F = (12, 4) N·m and recovers along its sliding
surface without overshoot.
"""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp
import numpy as np

from ..planar import psmc_arm as arm
from ..control import simulate_closed_loop

__all__ = ["STEP", "make"]

STEP, T_STEP, T_END = 1.0, 0.05, 2.0
JOINTS = ("shoulder", "elbow")


def make(out: Path) -> dict:
    import matplotlib.pyplot as plt
    import pandas as pd

    plant = arm.two_link_arm_plant()
    theta0 = np.asarray(arm.HANGING)

    def reference(t):
        return jnp.asarray(theta0) + STEP * (t >= T_STEP)

    runs = {"PSMC": simulate_closed_loop(plant, arm.arm_psmc(), T_END, reference),
            "PID": simulate_closed_loop(plant, arm.arm_pid(), T_END, reference)}
    F = np.asarray(arm.ARM_GAINS["F"])
    summary: dict = {"gains": {k: np.asarray(v).tolist() for k, v in arm.ARM_GAINS.items()},
                     "step_rad": STEP}
    frames = []
    fig, axes = plt.subplots(2, 2, figsize=(10, 6), sharex=True)
    for col, joint in enumerate(JOINTS):
        for i, (name, res) in enumerate(runs.items()):
            q = res[f"{joint}.measured"] - theta0[col]
            u = res[f"{joint}.u"]
            summary[f"{joint}/{name}"] = {
                "overshoot_rad": float(q.max() - STEP),
                "peak_torque_Nm": float(np.max(np.abs(u))),
                "error_at_end_rad": float(q[-1] - STEP)}
            frames.append(pd.DataFrame({"joint": joint, "controller": name, "t": res.t,
                                        "theta_minus_start": q, "torque": u}))
            style = {"color": f"C{i}", "lw": 1.6 if name == "PSMC" else 1.0,
                     "ls": "-" if name == "PSMC" else "--"}
            axes[0, col].plot(res.t, q, label=name, **style)
            axes[1, col].plot(res.t, u, label=name, **style)
        axes[0, col].plot(res.t, res[f"{joint}.p_d"] - theta0[col], color="0.5", lw=0.8,
                          label="reference")
        psmc, pid = summary[f"{joint}/PSMC"], summary[f"{joint}/PID"]
        axes[0, col].set_title(f"{joint}: overshoot PSMC {max(psmc['overshoot_rad'], 0):.2g} "
                               f"rad, PID {pid['overshoot_rad']:.2g} rad", fontsize="small")
        axes[0, col].set_ylabel(f"θ{col + 1} − θ{col + 1}(0) [rad]")
        axes[1, col].set_ylim(-3 * F[col], 3 * F[col])
        for sign in (-1, 1):
            axes[1, col].axhline(sign * F[col], color="0.5", lw=0.6, ls=":")
        axes[1, col].annotate(f"PSMC |τ| ≤ F = {F[col]:g} N·m; PID peak "
                              f"{pid['peak_torque_Nm']:.3g} N·m (off scale)", (0.03, 0.06),
                              xycoords="axes fraction", fontsize="small")
        axes[1, col].set_ylabel(f"torque τ{col + 1} [N·m]")
        axes[1, col].set_xlabel("t [s]")
        for ax in axes[:, col]:
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize="small", loc="upper right")
    fig.suptitle("PSMC vs PID, same gains, on a two-link arm with pin friction: a 1 rad step "
                 "on both joints\n(Kikuuwe & Fujimoto, ICRA 2006; Kikuuwe, slides: "
                 "advantages of PSMC)", fontsize="medium")
    fig.tight_layout()
    fig.savefig(out / "psmc_arm.png", dpi=120)
    plt.close(fig)
    pd.concat(frames).to_csv(out / "psmc_arm.csv", index=False)
    return summary
