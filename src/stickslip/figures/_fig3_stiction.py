"""SPEC §2 Fig. 3: a block under a load that briefly exceeds F and then oscillates below it.

Eq. 10 (`CoulombODE`) holds the block still once the load drops below F; LuGre and the
tanh-regularised Coulomb law creep forward for as long as the load keeps oscillating.
The paper gives F = 0.5 N and RK4; the mass, the load's shape and the other parameters
are not given, so this module chooses them (documented below) and keeps them fixed.
"""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp
import numpy as np

from .. import laws
from ..integrate import simulate
from ..systems import FrictionMass

__all__ = ["stiction_load", "stiction_laws", "make", "F_LEVEL", "T_STUCK"]

F_LEVEL = 0.5     # [N] the paper's maximum static friction force
MASS = 1.0        # [kg]
K, BETA = 1e4, 1e-3
T_END, T_STUCK = 10.0, 3.0


def stiction_load(t):
    """Applied force [N]: a ramp to 0.6 N (above F) by t = 1 s, down to 0.4 N by t = 2 s,
    then 0.4 + 0.08 sin(4πt) N (peaks at 0.48 N < F) — the shape of SPEC §2 Fig. 3(a)."""
    return jnp.where(t < 1.0, 0.6 * t,
                     jnp.where(t < 2.0, 0.6 - 0.2 * (t - 1.0),
                               0.4 + 0.08 * jnp.sin(4 * jnp.pi * (t - 2.0))))


def stiction_laws() -> dict[str, laws.AbstractFrictionLaw]:
    """The three models compared, with matched stiffness (K = k0 = 1e4 N/m) and level."""
    return {
        "CoulombODE (eq. 10)": laws.CoulombODE(F=F_LEVEL, K=K, beta=BETA),
        "LuGre": laws.LuGre(mu_s=F_LEVEL, mu_k=F_LEVEL, vs=1e-3, k0=K, k1=100.0, k2=0.0),
        "tanh Coulomb": laws.TanhCoulomb(F=F_LEVEL, v_eps=1e-3),
    }


def make(out: Path) -> dict:
    import matplotlib.pyplot as plt
    import pandas as pd

    runs = {name: simulate(FrictionMass(M=MASS, law=law, force=stiction_load), T_END,
                           dt=1e-4, dt_out=1e-3, method="rk4")
            for name, law in stiction_laws().items()}
    t = next(iter(runs.values())).t
    stuck = t >= T_STUCK
    summary = {"F": F_LEVEL, "K": K, "beta": BETA, "stuck_phase_from_s": T_STUCK,
               "drift_in_stuck_phase_m": {}, "range_in_stuck_phase_m": {},
               "CoulombODE_bound_F_over_K_m": F_LEVEL / K}
    frame = pd.DataFrame({"t": t, "fe": runs["CoulombODE (eq. 10)"]["fe"]})
    for name, res in runs.items():
        p = res["p"][stuck]
        summary["drift_in_stuck_phase_m"][name] = float(p[-1] - p[0])
        summary["range_in_stuck_phase_m"][name] = float(np.ptp(p))
        frame[f"p[{name}]"] = res["p"]
        frame[f"f[{name}]"] = res["f"]
    frame.to_csv(out / "fig3_stiction.csv", index=False)

    fig, (ax_f, ax_net, ax_p, ax_zoom) = plt.subplots(
        4, 1, figsize=(7.5, 10), sharex=True, gridspec_kw={"height_ratios": (3, 1.4, 2.5, 2.5)})
    friction = -runs["CoulombODE (eq. 10)"]["f"]
    ax_f.plot(t, friction, color="C0", lw=5, alpha=0.45,
              label="friction on the block, eq. 10 (sign flipped)")
    ax_f.plot(t, frame["fe"], "k", lw=1, label="applied force $f_e$")
    ax_f.axhline(F_LEVEL, color="grey", ls="--", label="$F$ = 0.5 N (static level)")
    ax_f.set_ylabel("force [N]")
    ax_f.legend(fontsize="small", loc="lower right")
    ax_f.set_title("while stuck, friction cancels the load exactly (the traces coincide)",
                   fontsize="medium")
    ax_net.plot(t, frame["fe"] + runs["CoulombODE (eq. 10)"]["f"], color="C0", lw=1)
    ax_net.axhline(0, color="k", lw=0.6)
    ax_net.set_ylabel("$f_e$ + friction\n= M·a [N]")
    for i, (name, res) in enumerate(runs.items()):
        ax_p.plot(t, res["p"] * 1e3, color=f"C{i}", label=name)
        ax_zoom.plot(t[stuck], (res["p"][stuck] - res["p"][stuck][0]) * 1e3, color=f"C{i}",
                     label=name)
    ax_p.set_ylabel("p [mm]")
    ax_p.legend(fontsize="small")
    ax_zoom.set_ylabel(f"p − p({T_STUCK:g} s) [mm]\n(creep under the sub-static load)")
    ax_zoom.set_xlabel("t [s]")
    ax_zoom.legend(fontsize="small")
    for ax in (ax_f, ax_net, ax_p, ax_zoom):
        ax.grid(True, alpha=0.3)
    fig.suptitle("Sub-static oscillating load: eq. 10 sticks, LuGre and tanh creep\n"
                 "(Xiong, Kikuuwe & Yamamoto, Fig. 3; M = 1 kg, K = 1e4 N/m, β = 1 ms, RK4)",
                 fontsize="medium")
    fig.tight_layout()
    fig.savefig(out / "fig3_stiction.png", dpi=120)
    plt.close(fig)
    return summary
