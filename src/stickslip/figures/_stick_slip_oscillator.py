"""The classic stick–slip oscillator: a mass on a spring, dragged by a belt, with static
friction above kinetic (issue 22; the textbook case, e.g. Popp & Stelter 1990, and the setting
of Armstrong-Hélouvry, Dupont & Canudas de Wit 1994, §4).

Mass m = 1 kg on a spring k = 1 N/m anchored at x = 0, on a belt moving at v_b = 0.2 m/s;
static level F_s = 1 N, kinetic F_k = 0.6 N. Ideal Coulomb friction gives a closed-form limit
cycle (derived in ``stick_slip_cycle``): stick while the spring loads up to F_s, then a slip
arc of the free oscillation about F_k/k until the relative velocity is zero again.

Compared: `CoulombODE` with ``F_s`` (exact stick, the jump from F_s to F_k), LuGre with the
same levels (its Stribeck drop and bristle creep), the tanh-regularised law (one level: no
stick, no static level), and `CoulombODE` with one level (eq. 9: the orbit only touches the
belt speed — no recurring stick–slip, what the package modelled before).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from .. import laws
from ..integrate import simulate
from ..systems import FrictionMass

__all__ = ["stick_slip_cycle", "oscillator_laws", "make", "MASS", "STIFFNESS", "BELT",
           "STATIC", "KINETIC"]

MASS, STIFFNESS, BELT = 1.0, 1.0, 0.2      # kg, N/m, m/s
STATIC, KINETIC = 1.0, 0.6                 # N
T_END, DT = 40.0, 1e-4


def stick_slip_cycle(m=MASS, k=STIFFNESS, belt=BELT, static=STATIC, kinetic=KINETIC):
    """``(stick time, slip time, x_min, x_max)`` of the limit cycle (ideal Coulomb friction,
    a jump from `static` to `kinetic`), for a belt moving at `belt` > 0.

    Stick: x grows at the belt speed until k·x = F_s (x_s = F_s/k). Slip: m ẍ = −k x + F_k,
    a circle about x_c = F_k/k in (x, v/ω), ω = √(k/m), of radius A = √((x_s − x_c)² +
    (belt/ω)²) through (x_s, belt). The relative velocity is negative on the arc below
    v = belt, which ends at the mirror point x_e = 2x_c − x_s, where |k x_e| ≤ F_s lets the
    mass stick again. The arc spans 2π − 2α, α = atan2(x_s − x_c, belt/ω), and passes both
    extremes x_c ± A; the stick lasts (x_s − x_e)/belt.

    >>> [round(v, 4) for v in stick_slip_cycle()]
    [4.0, 4.0689, 0.1528, 1.0472]
    """
    omega = math.sqrt(k / m)
    x_s, x_c = static / k, kinetic / k
    alpha = math.atan2(x_s - x_c, belt / omega)
    amplitude = math.hypot(x_s - x_c, belt / omega)
    return (2 * (x_s - x_c) / belt, (2 * math.pi - 2 * alpha) / omega,
            x_c - amplitude, x_c + amplitude)


def oscillator_laws() -> dict[str, laws.AbstractFrictionLaw]:
    """The compared laws: the same kinetic level, the static level where the law has one."""
    return {
        "CoulombODE, F_s > F": laws.CoulombODE.tuned(mass=MASS, K=1e6, F=KINETIC, F_s=STATIC,
                                                     damping_ratio=5.0),
        "LuGre (v_s = 1 mm/s)": laws.LuGre(mu_s=STATIC, mu_k=KINETIC, vs=1e-3, k0=1e4,
                                          k1=200.0, k2=0.0),
        "tanh Coulomb (one level)": laws.TanhCoulomb(F=KINETIC, v_eps=1e-3),
        "CoulombODE, one level": laws.CoulombODE.tuned(mass=MASS, K=1e6, F=KINETIC,
                                                       damping_ratio=5.0),
    }


def _stick_phases(t, stuck):
    """(durations of the whole stick phases, of the slip phases between them) [s]."""
    edges = np.diff(np.concatenate([[0], stuck.astype(int), [0]]))
    starts, ends = np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]
    whole = [(a, b) for a, b in zip(starts, ends) if a > 0 and b < len(t)]
    sticks = [t[b - 1] - t[a] + (t[1] - t[0]) for a, b in whole]
    slips = [t[a2] - t[b1 - 1] - (t[1] - t[0]) for (_, b1), (a2, _) in zip(whole, whole[1:])]
    return np.asarray(sticks), np.asarray(slips)


def make(out: Path) -> dict:
    import matplotlib.pyplot as plt
    import pandas as pd

    t_stick, t_slip, x_min, x_max = stick_slip_cycle()
    runs = {name: simulate(FrictionMass(M=MASS, law=law, stiffness=STIFFNESS,
                                        surface_velocity=BELT, v0=BELT),
                           T_END, dt=DT, dt_out=DT, method="rk4")
            for name, law in oscillator_laws().items()}
    t = next(iter(runs.values())).t
    summary: dict[str, dict[str, Any]] = {"closed_form": {
        "stick_s": t_stick, "slip_s": t_slip, "x_min_m": x_min, "x_max_m": x_max}}
    keep = slice(None, None, 100)                                   # 10 ms in the CSV
    frame = pd.DataFrame({"t": t[keep]})
    for name, res in runs.items():
        x, v = np.asarray(res["p"]), np.asarray(res["v"])
        frame[f"x[{name}]"], frame[f"v[{name}]"] = x[keep], v[keep]
        # stuck: CoulombODE's proxy slip is exactly 0 (round-off); the others creep, so
        # "stuck" is |v − v_b| below 1 mm/s for them
        slip = np.asarray(res["slip"]) if "slip" in res.names else v - BELT
        stuck = np.abs(slip) < (1e-12 if name.startswith("CoulombODE") else 1e-3)
        sticks, slips = _stick_phases(t, stuck)
        late = t > 2 * (t_stick + t_slip)
        summary[name] = {
            "stick_phases": len(sticks),
            "stick_s_mean": float(sticks.mean()) if len(sticks) else 0.0,
            "slip_s_mean": float(slips.mean()) if len(slips) else None,
            "x_min_m": float(x[late].min()), "x_max_m": float(x[late].max())}
    frame.to_csv(out / "stick_slip_oscillator.csv", index=False)

    fig, (ax_x, ax_rel, ax_phase) = plt.subplots(3, 1, figsize=(7.5, 10),
                                                 gridspec_kw={"height_ratios": (2.5, 2, 3)})
    colors = {name: f"C{i}" for i, name in enumerate(runs)}
    style = {name: dict(color=colors[name], lw=1.6 if "tanh" in name else 0.9,
                        ls=(0, (4, 3)) if "tanh" in name else "-") for name in runs}
    for name, res in runs.items():            # tanh (dashed) and one level coincide
        ax_x.plot(t, res["p"], label=name, **style[name])
        ax_rel.plot(t, np.asarray(res["v"]) - BELT, label=name, **style[name])
        ax_phase.plot(res["p"], res["v"], label=name, **style[name])
    theta = np.linspace(0, 2 * np.pi, 400)
    omega = math.sqrt(STIFFNESS / MASS)
    x_c, amplitude = KINETIC / STIFFNESS, (x_max - x_min) / 2
    circle_v = omega * amplitude * np.sin(theta)
    below = circle_v <= BELT
    ax_phase.plot(np.where(below, x_c + amplitude * np.cos(theta), np.nan),
                  np.where(below, circle_v, np.nan), "k--", lw=1,
                  label="closed form: slip arc")
    ax_phase.plot([2 * x_c - STATIC / STIFFNESS, STATIC / STIFFNESS], [BELT, BELT], "k:",
                  lw=2, label="closed form: stick (moves with the belt)")
    ax_x.set_ylabel("x [m]")
    ax_x.set_xlabel("t [s]")
    ax_x.set_title(f"closed form: stick {t_stick:.3f} s, slip {t_slip:.3f} s, "
                   f"x ∈ [{x_min:.3f}, {x_max:.3f}] m", fontsize="medium")
    ax_x.legend(fontsize="small", loc="upper right", ncol=2)
    ax_rel.set_ylabel("v − v_belt [m/s]")
    ax_rel.set_xlabel("t [s]")
    ax_rel.set_xlim(20, 30)
    ax_rel.set_title("relative velocity, 20–30 s: flat zero while stuck", fontsize="medium")
    ax_phase.set_xlabel("x [m]")
    ax_phase.set_ylabel("v [m/s]")
    ax_phase.set_title("phase plane (all 40 s)", fontsize="medium")
    ax_phase.legend(fontsize="small", loc="lower left")
    for ax in (ax_x, ax_rel, ax_phase):
        ax.grid(True, alpha=0.3)
    fig.suptitle("Stick–slip oscillator: mass 1 kg on a 1 N/m spring, belt 0.2 m/s,\n"
                 "static 1 N above kinetic 0.6 N (RK4, dt = 0.1 ms)", fontsize="medium")
    fig.tight_layout()
    fig.savefig(out / "stick_slip_oscillator.png", dpi=120)
    plt.close(fig)
    return summary
