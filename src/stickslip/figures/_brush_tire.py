"""SPEC §6 (slides, "vehicle simulation", Kikuuwe et al. SI2007): the brush tire as a
partial differential-algebraic inclusion — longitudinal force vs slip ratio, and the force
density along the contact patch: stick near the leading edge, sliding towards the trailing
edge. The classic brush model (Pacejka §3.2, parabolic pressure) is drawn for reference.

Tire: `BrushTire.example()` (L = 0.2 m, K = 2.4e6 N/m², B = 100 N·s/m², μ = 1, Fz = 4 kN,
R = 0.3 m, 100 cells); speed 10 m/s, T = 1 ms, 60 steps to steady state. Ours.
"""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp
import numpy as np

from ..discrete import BrushTire, brush_analytic_force, steady_state_curve

__all__ = ["make"]

SPEED, T, N_STEPS = 10.0, 1e-3, 60
PROFILE_SLIPS = (0.05, 0.1, 0.2)


def make(out: Path) -> dict:
    import matplotlib.pyplot as plt
    import pandas as pd

    tire = BrushTire.example()
    slips = np.linspace(-0.5, 0.5, 81)
    Fx, _, _ = steady_state_curve(tire, SPEED, jnp.asarray(slips), T, N_STEPS)
    Fx = np.asarray(Fx)
    mu_fz = float(tire.mu * tire.Fz)
    analytic = brush_analytic_force(slips / (1 + slips), tire)
    _, _, dens = steady_state_curve(tire, SPEED, jnp.asarray(PROFILE_SLIPS), T, N_STEPS)
    dens = np.abs(np.asarray(dens))
    xi = np.asarray(tire.nodes)
    bound = float(tire.mu) * np.asarray(tire.load_density())
    summary: dict = {"theta": tire.theta(), "peak_force_N": float(Fx.max()),
                     "slip_ratio_at_999_permille_of_muFz": float(
                         slips[np.argmax(Fx >= 0.999 * mu_fz)]),
                     "brush_model_full_sliding_slip_ratio": 1.0 / (tire.theta() - 1.0),
                     "max_deviation_from_brush_model_N": float(np.max(np.abs(Fx - analytic))),
                     "stick_region_end_over_L": {}}
    for slip, row in zip(PROFILE_SLIPS, dens):
        sliding = row[1:-1] >= bound[1:-1] * (1 - 1e-9)
        first_slide = int(np.argmax(sliding)) + 1 if sliding.any() else len(xi) - 1
        summary["stick_region_end_over_L"][f"{slip:g}"] = float(xi[first_slide] / tire.L)
    pd.DataFrame({"slip_ratio": slips, "Fx_N": Fx, "brush_model_N": analytic}).to_csv(
        out / "brush_tire.csv", index=False)

    fig, (ax_c, ax_d) = plt.subplots(1, 2, figsize=(11, 4.2))
    ax_c.plot(slips, analytic / mu_fz, "k-", lw=0.8, label="classic brush model (B = 0)")
    ax_c.plot(slips, Fx / mu_fz, "o", ms=3, color="C0", label="discrete PDAI algorithm")
    ax_c.set_xlabel("slip ratio κ = (Rω − V)/V")
    ax_c.set_ylabel("$F_x / μF_z$")
    ax_c.grid(True, alpha=0.3)
    ax_c.legend(fontsize="small")
    ax_c.set_title("longitudinal force vs slip ratio", fontsize="medium")
    ax_d.plot(xi * 1e3, bound / 1e3, "k--", lw=0.8, label="μ q(ξ): sliding limit")
    for i, (slip, row) in enumerate(zip(PROFILE_SLIPS, dens)):
        end = summary["stick_region_end_over_L"][f"{slip:g}"] * float(tire.L)
        ax_d.plot(xi * 1e3, row / 1e3, color=f"C{i}", label=f"|f(ξ)|, κ = {slip:g}")
        ax_d.axvline(end * 1e3, color=f"C{i}", ls=":", lw=0.8)
    ax_d.set_xlabel("ξ along the patch [mm] (leading edge at 0)")
    ax_d.set_ylabel("force density [kN/m]")
    ax_d.set_title("stick from the leading edge (below the limit), then sliding",
                   fontsize="medium")
    ax_d.grid(True, alpha=0.3)
    ax_d.legend(fontsize="small")
    fig.suptitle("Brush tire as a partial differential-algebraic inclusion, 10 m/s, Fz = 4 kN, "
                 "μ = 1 — Kikuuwe, slides: vehicle simulation (SI2007);\nreference: the "
                 "classic brush model (Pacejka, Tire and Vehicle Dynamics, §3.2)",
                 fontsize="medium")
    fig.tight_layout()
    fig.savefig(out / "brush_tire.png", dpi=120)
    plt.close(fig)
    return summary
