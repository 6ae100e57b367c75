"""SPEC §6 (slides, "differential-algebraic relaxation", needle-insertion haptics): the tissue
friction felt through a haptic needle, rendered at 1 kHz from the device's measured velocity.

A needle is pushed into tissue and pulled back by hand through a haptic device; the device
renders the friction of the tissue on the needle's shaft, which grows with the inserted
depth d: kinetic f_k·d and static f_s·d (f_k = 15 N/m, f_s = 20 N/m — the order of the
shaft friction measured in soft tissue, e.g. Okamura, Simone & O'Leary, IEEE TBME 51(10),
2004, Fig. 9: about 0.1–0.3 N at 10–20 mm). The velocity is what a real device gives: the
backward difference of an encoder position quantised at 10 µm (steps of 10 mm/s at T = 1 ms)
through the usual first-order low-pass (50 Hz); it is never cleanly zero while the hand is
held still (a 0.03 mm tremor at 8 Hz).

Two renderings of the same friction from the same measured velocity:

* **DA relaxation** (`ss.discrete.da_relaxation_step`, K = 2000 N/m, B = 20 N·s/m, with the
  static level ``F_s``): each sample solves its backward-Euler inclusion exactly, so while the
  hand holds still the proxy sticks and the force is continuous, inside [−F_s, F_s]. (Below
  the speed (F_s − F_k)·d/(KT + B) — 5.7 mm/s at 25 mm here — a steady push makes the proxy
  stick–slip: it sticks, loads at K·v up to F_s and slips back to F_k, a sawtooth of
  frequency K·v/(F_s − F_k). That is static > kinetic friction on a spring, not an
  artifact; the moves below are faster.)
* **naive Coulomb**, f = F_s·sgn(v_measured): the force flips between ±F_s whenever the
  quantised velocity changes sign — the chatter (vibration felt as buzzing) that DA
  relaxation removes.

The motion (ours): insert from 2 mm to 25 mm at 15 mm/s, hold still 1 s, pull back 8 mm at
10 mm/s, hold 1 s, insert to 30 mm at 15 mm/s, hold 0.5 s.
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from ..discrete import da_relaxation_step

__all__ = ["make", "needle_motion", "render"]

T = 1e-3                           # haptic sample period [s]
F_KINETIC, F_STATIC = 15.0, 20.0   # shaft friction per inserted length [N/m]
K_DA, B_DA = 2000.0, 20.0          # DA relaxation [N/m], [N·s/m]
ENCODER = 10e-6                    # position resolution [m]
CUTOFF = 50.0                      # velocity filter [Hz]
TREMOR = 3e-5                      # hand tremor amplitude while holding [m]
PHASES = ((0.002, 0.0), (0.025, 0.023 / 0.015), (0.025, 1.0), (0.017, 0.8), (0.017, 1.0),
          (0.030, 0.013 / 0.015), (0.030, 0.5))   # (depth at the phase's end [m], duration [s])


def needle_motion():
    """(t, true depth [m], measured velocity [m/s], holding) at each sample: piecewise
    linear moves and holds (with a small tremor), the velocity from the quantised position."""
    ends = np.cumsum([d for _, d in PHASES])
    t = np.arange(1, int(round(ends[-1] / T)) + 1) * T
    depth = np.interp(t, ends, [x for x, _ in PHASES])
    moving = np.abs(np.gradient(depth, T)) > 1e-9
    rng = np.random.default_rng(7)
    tremor = TREMOR * np.sin(2 * np.pi * 8.0 * t + rng.uniform(0, 2 * np.pi))
    depth = depth + np.where(moving, 0.0, tremor)
    encoder = np.round(depth / ENCODER) * ENCODER
    raw = np.diff(encoder, prepend=encoder[0]) / T
    alpha = 1.0 - np.exp(-2 * np.pi * CUTOFF * T)
    velocity = np.empty_like(raw)
    filtered = 0.0
    for k, v in enumerate(raw):                    # first-order low-pass, as devices do
        filtered += alpha * (v - filtered)
        velocity[k] = filtered
    return t, depth, velocity, ~moving


@jax.jit
def render(depth, velocity):
    """The friction force on the needle [N] from both renderings: (DA relaxation, naive)."""
    def sample(e, inputs):
        d, v = inputs
        f, e = da_relaxation_step(e, v, F_KINETIC * d, K_DA, B_DA, T, F_s=F_STATIC * d)
        return e, (f, F_STATIC * d * jnp.sign(v))
    _, (da, naive) = jax.lax.scan(sample, jnp.asarray(0.0), (depth, velocity))
    return da, naive


def _flips(force, mask):
    """Sign reversals of the force inside `mask` (zeros skipped: +, 0, − is one reversal)."""
    s = np.sign(force[mask])
    s = s[s != 0]
    return int(np.count_nonzero(s[1:] != s[:-1]))


def make(out: Path) -> dict:
    import matplotlib.pyplot as plt
    import pandas as pd

    t, depth, velocity, holding = needle_motion()
    da, naive = (np.asarray(x) for x in render(jnp.asarray(depth), jnp.asarray(velocity)))
    static = F_STATIC * depth
    summary = {
        "force_sign_flips_while_holding": {"DA relaxation": _flips(da, holding),
                                           "naive sgn": _flips(naive, holding)},
        "force_variation_while_holding_N_per_s": {     # Σ|Δf| over the holds / their time
            name: float(np.sum(np.abs(np.diff(f))[holding[1:]]) / (np.count_nonzero(holding)
                                                                    * T))
            for name, f in (("DA relaxation", da), ("naive sgn", naive))},
        "max_force_over_static_level": float(np.max(np.abs(da) / static)),
        "parameters": {"T_s": T, "f_kinetic_N_per_m": F_KINETIC, "f_static_N_per_m": F_STATIC,
                       "K_N_per_m": K_DA, "B_Ns_per_m": B_DA, "encoder_m": ENCODER}}
    pd.DataFrame({"t": t, "depth": depth, "velocity_measured": velocity, "f_da": da,
                  "f_naive": naive, "static_level": static}).to_csv(
        out / "needle_insertion.csv", index=False)

    fig, (ax_d, ax_f, ax_h) = plt.subplots(3, 1, figsize=(7.5, 10),
                                           gridspec_kw={"height_ratios": (1.6, 2.6, 3)})
    ax_d.plot(t, depth * 1e3, "k", lw=1)
    ax_d.set_ylabel("depth d [mm]")
    ax_d.set_xlabel("t [s]")
    ax_d.set_title("the hand's motion (held still, with a 0.03 mm tremor, in the grey bands)",
                   fontsize="medium")
    for ax in (ax_d, ax_f):
        edges = np.diff(np.concatenate([[0], holding.astype(int), [0]]))
        for a, b in zip(np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]):
            ax.axvspan(t[a], t[b - 1], color="0.9", lw=0)
    ax_f.plot(t, naive, color="C3", lw=0.5, alpha=0.6, label="naive: $F_s$·sgn(measured v)")
    ax_f.plot(t, da, color="C0", lw=1.4, label="DA relaxation (exact stick)")
    ax_f.plot(t, static, "k--", lw=0.8, label="±static level $f_s$·d")
    ax_f.plot(t, -static, "k--", lw=0.8)
    ax_f.set_ylabel("rendered friction [N]")
    ax_f.set_xlabel("t [s]")
    ax_f.legend(fontsize="small", loc="lower left")
    ax_f.set_title(f"while held: naive flips sign {summary['force_sign_flips_while_holding']['naive sgn']}"
                   f" times, DA relaxation "
                   f"{summary['force_sign_flips_while_holding']['DA relaxation']}",
                   fontsize="medium")
    ax_h.plot(depth * 1e3, da, color="C0", lw=1.2)
    ax_h.plot(depth * 1e3, F_STATIC * depth, "k--", lw=0.8, label="±static level")
    ax_h.plot(depth * 1e3, -F_STATIC * depth, "k--", lw=0.8)
    ax_h.plot(depth * 1e3, F_KINETIC * depth, "k:", lw=0.8, label="±kinetic level")
    ax_h.plot(depth * 1e3, -F_KINETIC * depth, "k:", lw=0.8)
    ax_h.set_xlabel("depth d [mm]")
    ax_h.set_ylabel("rendered friction, DA relaxation [N]")
    ax_h.set_title("force vs depth: kinetic while sliding, vertical stick segments at reversals",
                   fontsize="medium")
    ax_h.legend(fontsize="small", loc="upper left")
    for ax in (ax_d, ax_f, ax_h):
        ax.grid(True, alpha=0.3)
    fig.suptitle("Needle insertion: tissue friction rendered at 1 kHz from a quantised encoder\n"
                 "(Kikuuwe's DA relaxation with static > kinetic, vs naive Coulomb)",
                 fontsize="medium")
    fig.tight_layout()
    fig.savefig(out / "needle_insertion.png", dpi=120)
    plt.close(fig)
    return summary
