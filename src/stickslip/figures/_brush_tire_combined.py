"""SPEC §6 (slides, "vehicle simulation", Kikuuwe et al. SI2007; issue 22 item 7): the brush
tire with combined slip — lateral force and aligning moment vs slip angle, and the combined
F_x–F_y forces inside the friction circle μF_z. The classic isotropic brush model (Pacejka
§3.2, parabolic pressure, B = 0) is drawn for reference.

Tire: `BrushTire.example()` (L = 0.2 m, K = 2.4e6 N/m², B = 100 N·s/m², μ = 1, Fz = 4 kN,
R = 0.3 m, 100 cells); speed 10 m/s, T = 1 ms, 60 steps to steady state, every point in one
vmapped call. Ours.
"""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp
import numpy as np

from ..discrete import (BrushTire, brush_analytic_combined, steady_state_combined,
                        theoretical_slip)

__all__ = ["make"]

SPEED, T, N_STEPS = 10.0, 1e-3, 60
CIRCLE_ANGLES_DEG = (1.0, 2.0, 4.0, 8.0)


def make(out: Path) -> dict:
    import matplotlib.pyplot as plt
    import pandas as pd

    tire = BrushTire.example()
    mu_fz, arm = float(tire.mu * tire.Fz), 0.5 * float(tire.L)
    sweep_alpha = np.deg2rad(np.linspace(-12.0, 12.0, 49))
    kappas = np.linspace(-0.4, 0.4, 41)
    grid_k, grid_a = np.meshgrid(kappas, np.deg2rad(CIRCLE_ANGLES_DEG))
    kappa = np.concatenate([np.zeros_like(sweep_alpha), grid_k.ravel()])
    alpha = np.concatenate([sweep_alpha, grid_a.ravel()])
    F, Mz, _, _ = steady_state_combined(tire, SPEED, jnp.asarray(kappa), jnp.asarray(alpha), T,
                                        N_STEPS)
    F, Mz = np.asarray(F) / mu_fz, np.asarray(Mz) / (mu_fz * arm)
    ref = np.array(brush_analytic_combined(*theoretical_slip(kappa, alpha), tire))
    ref = ref / np.array([[mu_fz], [mu_fz], [mu_fz * arm]])
    m = sweep_alpha.size
    deviation = np.max(np.abs(np.column_stack([F, Mz]) - ref.T), axis=0)
    summary = {"theta": tire.theta(),
               "peak_lateral_force_over_muFz": float(F[:m, 1].max()),
               "peak_aligning_moment_over_muFz_a": float(np.abs(Mz[:m]).max()),
               "slip_angle_of_peak_moment_deg": float(np.rad2deg(
                   sweep_alpha[np.argmin(Mz[:m])])),
               "brush_model_full_sliding_slip_angle_deg": float(np.rad2deg(
                   np.arctan(1.0 / tire.theta()))),
               "max_deviation_from_brush_model_over_muFz": float(deviation[:2].max()),
               "max_moment_deviation_over_muFz_a": float(deviation[2]),
               "max_combined_force_over_muFz": float(np.hypot(F[:, 0], F[:, 1]).max())}
    pd.DataFrame({"slip_ratio": kappa, "slip_angle_rad": alpha, "Fx_over_muFz": F[:, 0],
                  "Fy_over_muFz": F[:, 1], "Mz_over_muFz_a": Mz,
                  "brush_Fx_over_muFz": ref[0], "brush_Fy_over_muFz": ref[1],
                  "brush_Mz_over_muFz_a": ref[2]}).to_csv(out / "brush_tire_combined.csv",
                                                          index=False)

    fig, (ax_f, ax_m, ax_c) = plt.subplots(1, 3, figsize=(14, 4.4))
    deg = np.rad2deg(sweep_alpha)
    fine = np.deg2rad(np.linspace(-12.0, 12.0, 481))
    _, fy_line, mz_line = brush_analytic_combined(*theoretical_slip(0.0, fine), tire)
    ax_f.plot(np.rad2deg(fine), fy_line / mu_fz, "k-", lw=0.8, label="classic brush model")
    ax_f.plot(deg, F[:m, 1], "o", ms=3, color="C0", label="discrete PDAI algorithm")
    ax_f.set_ylabel("$F_y / μF_z$")
    ax_m.plot(np.rad2deg(fine), mz_line / (mu_fz * arm), "k-", lw=0.8,
              label="classic brush model")
    ax_m.plot(deg, Mz[:m], "o", ms=3, color="C1", label="discrete PDAI algorithm")
    ax_m.set_ylabel("$M_z / (μF_z L/2)$")
    for ax, title in ((ax_f, "lateral force, free rolling"),
                      (ax_m, "aligning moment about the patch centre")):
        ax.set_xlabel("slip angle α [deg]")
        ax.set_title(title, fontsize="medium")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    circle = np.linspace(0.0, 2 * np.pi, 361)
    ax_c.plot(np.cos(circle), np.sin(circle), "k--", lw=0.8, label="friction circle μ$F_z$")
    fine_k = np.linspace(-0.4, 0.4, 401)
    for i, a_deg in enumerate(CIRCLE_ANGLES_DEG):
        fx, fy, _ = brush_analytic_combined(*theoretical_slip(fine_k, np.deg2rad(a_deg)), tire)
        ax_c.plot(fx / mu_fz, fy / mu_fz, "-", lw=0.8, color=f"C{i}")
        rows = slice(m + i * kappas.size, m + (i + 1) * kappas.size)
        ax_c.plot(F[rows, 0], F[rows, 1], "o", ms=3, color=f"C{i}",
                  label=f"α = {a_deg:g}°, κ = −0.4 … 0.4")
    ax_c.set_aspect("equal")
    ax_c.set_xlabel("$F_x / μF_z$")
    ax_c.set_ylabel("$F_y / μF_z$")
    ax_c.set_title("combined slip (lines: brush model)", fontsize="medium")
    ax_c.grid(True, alpha=0.3)
    ax_c.legend(fontsize="x-small", loc="lower center")
    fig.suptitle("Brush tire with combined slip as a partial differential-algebraic "
                 "inclusion, 10 m/s, Fz = 4 kN, μ = 1 — Kikuuwe, slides: vehicle simulation "
                 "(SI2007);\nreference: the isotropic brush model (Pacejka, Tire and Vehicle "
                 "Dynamics, §3.2)", fontsize="medium")
    fig.tight_layout()
    fig.savefig(out / "brush_tire_combined.png", dpi=120)
    plt.close(fig)
    return summary
