"""Self-locking map of a slider–crank with joint friction (SPEC §9 joint friction, with the
ODE friction law of SPEC §2): push the slider towards the crank with a constant force and
sweep the friction coefficient μ of all four joints and the crank angle θ0. Near the dead
centre the push has almost no lever on the crank and friction holds it: the mechanism
self-locks. Output: the crank's rotation after 0.3 s and whether it stayed put.

The model is built once with the planar API; `build` only swaps the traced parameters (the
joints' friction laws in ``system.frictions`` and the assembled initial pose), so `ss.sweep` runs the whole grid
vmapped — one compile for every point.

    PYTHONPATH=src python examples/studies/slider_crank_self_locking.py [--out DIR]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import equinox as eqx
import jax.numpy as jnp
import numpy as np

import stickslip as ss
from stickslip import planar

CRANK, ROD, PIN, PUSH = 0.1, 0.3, 0.03, 20.0     # [m], [m], pin radius [m], push [N]


def model() -> planar.Model:
    """The slider–crank of `planar.examples.slider_crank` without gravity, with CoulombODE
    friction (μ = 0.1 placeholder) in its three revolutes and its slide, and a constant
    push of PUSH N on the slider towards the crank pivot."""
    m = planar.Model(gravity=(0.0, 0.0), name="slider_crank_friction")
    theta0 = math.radians(60.0)
    bx, by = CRANK * math.cos(theta0), CRANK * math.sin(theta0)
    sx = bx + math.sqrt(ROD ** 2 - by ** 2)
    crank = m.add_body("crank", mass=1.0, inertia=CRANK ** 2 / 12, x=bx / 2, y=by / 2,
                       phi=theta0)
    rod = m.add_body("rod", mass=1.0, inertia=ROD ** 2 / 12, x=(bx + sx) / 2, y=by / 2,
                     phi=math.atan2(-by, sx - bx))
    slider = m.add_body("slider", mass=0.5, inertia=1e-4, x=sx, y=0.0)
    pin = ss.laws.CoulombODE(mu=0.1, K=1e3, beta=2e-3)     # torque proxy [N·m/rad]
    slide = ss.laws.CoulombODE(mu=0.1, K=1e5, beta=2e-3)
    m.add(planar.RevoluteJoint(m.ground, crank, (0, 0), (-CRANK / 2, 0), name="A",
                               friction=pin, pin_radius=PIN))
    m.add(planar.RevoluteJoint(crank, rod, (CRANK / 2, 0), (-ROD / 2, 0), name="B",
                               friction=pin, pin_radius=PIN))
    m.add(planar.RevoluteJoint(rod, slider, (ROD / 2, 0), (0, 0), name="C",
                               friction=pin, pin_radius=PIN))
    m.add(planar.TranslationalJoint(m.ground, slider, axis_i=(1.0, 0.0), name="D",
                                    friction=slide))
    m.add(planar.PointForce(slider, lambda t, q, qd: jnp.stack([-PUSH + 0 * t, 0 * t]),
                            name="push"))
    return m


BASE = model().system(projection=True)


def pose(theta0):
    """Assembled q0 (crank, rod, slider) for crank angle θ0 [rad], closed form."""
    bx, by = CRANK * jnp.cos(theta0), CRANK * jnp.sin(theta0)
    sx = bx + jnp.sqrt(ROD ** 2 - by ** 2)
    psi = jnp.arctan2(-by, sx - bx)
    return jnp.stack([bx / 2, by / 2, theta0, (bx + sx) / 2, by / 2, psi, sx, 0.0 * sx, 0.0 * sx])


def build(mu, theta0_deg):
    """The base system with friction coefficient μ in every joint, started at rest at θ0."""
    frictions = tuple(eqx.tree_at(lambda f: f.law, f, f.law.replace(mu=mu))
                      for f in BASE.frictions)
    system = eqx.tree_at(lambda s: s.frictions, BASE, frictions)
    return system.with_state(pose(jnp.deg2rad(theta0_deg)), jnp.zeros(BASE.qd0.shape))


def crank_turn(res):
    """Crank rotation [rad] over the run."""
    phi = res["crank.phi"]
    return np.abs(phi[..., -1] - phi[..., 0])


def main(out: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    design = ss.studies.grid(mu=np.linspace(0.0, 0.6, 7), theta0_deg=np.linspace(1, 15, 8))
    table = ss.sweep(build, design, {"turn": crank_turn,
                                     "drift": "max_abs(constraint.position)"},
                     t_end=0.3, dt=1e-4, dt_out=1e-2)
    table["locked"] = table["turn"] < 1e-3
    out.mkdir(parents=True, exist_ok=True)
    table.drop(columns="error").to_csv(out / "slider_crank_self_locking.csv", index=False)
    locked = table.pivot(index="mu", columns="theta0_deg", values="locked")
    fig, ax = plt.subplots(figsize=(5.5, 4))
    ax.imshow(locked.to_numpy(float), origin="lower", aspect="auto", cmap="Greys",
              extent=[design.theta0_deg.min(), design.theta0_deg.max(),
                      design.mu.min(), design.mu.max()])
    ax.set_xlabel("crank angle θ0 from dead centre [deg]")
    ax.set_ylabel("joint friction coefficient μ [-]")
    ax.set_title(f"slider–crank under a {PUSH:g} N push: self-locked (dark)")
    fig.tight_layout()
    fig.savefig(out / "slider_crank_self_locking.png", dpi=120)
    print(table.drop(columns="error").to_string(index=False))
    print(f"mode={table.attrs['mode']}, {table.attrs['computed']} points in "
          f"{table.attrs['wall_time']:.1f} s; failed: {int(table.error.notna().sum())}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("examples_out/studies"))
    main(parser.parse_args().out)
