"""SPEC §3 Fig. 5: a mass dropped on a wall, eq. 16 with α = β, 0.7β, 0.5β, 0.1β.

The paper shows restitution falling as α decreases; it gives no numbers, so M = 1 kg,
K = 1e4 N/m, β = 5 ms (ωβ = 0.5) and a drop from 0.1 m under g = 9.81 m/s² are chosen here.
Each restitution is measured on the first bounce and compared with the exact value of the
tuning guide (`stickslip.laws.contact_tuning.impact_response`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .. import laws
from ..integrate import simulate
from ..laws import contact_tuning
from ..systems import ContactMass

__all__ = ["make", "ALPHA_RATIOS"]

MASS, K, BETA, DROP, G = 1.0, 1e4, 5e-3, 0.1, 9.81
ALPHA_RATIOS = (1.0, 0.7, 0.5, 0.1)


def _first_bounce(res) -> float:
    touching = np.nonzero(res["f"] > 0)[0]
    start = touching[0]
    release = start + int(np.argmax(res["f"][start:] == 0))
    return float(-res["v"][release] / res["v"][start])


def make(out: Path) -> dict:
    import matplotlib.pyplot as plt
    import pandas as pd

    styles = {1.0: ("0.6", "--"), 0.7: ("k", "--"), 0.5: ("0.6", "-"), 0.1: ("k", "-")}
    summary = {"M": MASS, "K": K, "beta": BETA, "drop_height_m": DROP, "restitution": {},
               "restitution_exact_no_gravity": {}, "min_contact_force_N": {}}
    fig, (ax_p, ax_f) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    columns: dict[str, Any] = {}             # the CSV: t, then p and f of each ratio
    for ratio in ALPHA_RATIOS:
        law = laws.UnilateralODE(K=K, beta=BETA, alpha=ratio * BETA)
        res = simulate(ContactMass(M=MASS, law=law, g=G, p0=DROP), 1.5, dt=2e-5, dt_out=2e-4)
        key = f"alpha={ratio:g}beta"
        summary["restitution"][key] = _first_bounce(res)
        v_in = np.sqrt(2 * G * DROP)
        summary["restitution_exact_no_gravity"][key] = contact_tuning.impact_response(
            MASS, K, BETA, ratio * BETA, v_in).restitution
        summary["min_contact_force_N"][key] = float(res["f"].min())
        columns.setdefault("t", res.t)
        columns[f"p[{key}]"], columns[f"f[{key}]"] = res["p"], res["f"]
        color, ls = styles[ratio]
        ax_p.plot(res.t, res["p"] * 1e3, color=color, ls=ls, label=f"α = {ratio:g}β")
        ax_f.plot(res.t, res["f"], color=color, ls=ls, label=f"α = {ratio:g}β")
    pd.DataFrame(columns).to_csv(out / "fig5_restitution.csv", index=False)
    ax_p.set_ylabel("p [mm]")
    ax_p.legend(fontsize="small")
    ax_f.set_ylabel("contact force f [N]")
    ax_f.set_xlabel("t [s]")
    fig.suptitle("Drop on a wall: restitution falls as α decreases, the contact force never pulls"
                 "\n(Xiong, Kikuuwe & Yamamoto, Fig. 5, eq. 16)", fontsize="medium")
    fig.tight_layout()
    fig.savefig(out / "fig5_restitution.png", dpi=120)
    plt.close(fig)
    return summary
