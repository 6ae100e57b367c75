"""The static-friction region of the volume-contact paper (SPEC §7, Fig. 8) as a sweep: a
box on the ground under a horizontal force f_x and a normal-axis torque τ_z at the centre of
its bottom face; a point is *static* when every step of a short run was judged static.
The physics is `stickslip.figures._spatial_fig8`'s (model, load, rest state); this script
runs it through `ss.sweep`, so it is resumable (--store) and runs on any backend
(--backend processes / dask). The spatial model is built in Python, so the sweep runs one
simulation per point (``mode == "points"``).

    PYTHONPATH=src python examples/studies/volume_contact_fig8.py --n 9 --backend processes
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

import numpy as np

import stickslip as ss
from stickslip.figures._spatial_fig8 import MASS, MU_S, SIDE, G, bottom_load, box_model

STEPS = 10      # 10 ms at the paper's Δt = 1 ms


@functools.cache
def rest_state():
    """The box settled on the ground (50 ms from its initial pose)."""
    return box_model().simulate(0.05, dt=1e-3).final_state


def run_point(force_x, torque_z, friction="pyramid"):
    """One point: `STEPS` ms from rest under the load, with the given friction method."""
    return box_model().simulate(STEPS * 1e-3, dt=1e-3, forces=bottom_load(force_x, torque_z),
                                initial=rest_state(), friction=friction)


def static(res):
    """1 when every step after the first was judged static (the LP of eq. 28–31)."""
    return float(np.all(res["ground-box.stick"][1:] == 1))


def main(n: int, backend: str, store: Path | None, out: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f_max = MU_S * MASS * G
    t_max = f_max * SIDE / np.sqrt(2)
    design = ss.studies.grid(force_x=np.linspace(0, 1.2 * f_max, n),
                             torque_z=np.linspace(0, 1.2 * t_max, n))
    tables = {}
    for friction in ("pyramid", "previous"):
        tables[friction] = ss.sweep(functools.partial(run_point, friction=friction), design,
                                    {"static": static}, backend=backend, workers=2,
                                    store=None if store is None else store / friction)
        attrs = tables[friction].attrs
        print(f"{friction}: {attrs['computed']} computed, {attrs['reused']} reused, "
              f"mode={attrs['mode']}, {attrs['wall_time']:.1f} s")
    out.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    for friction, style in (("previous", dict(s=70, c="tab:green", alpha=0.45, marker="s")),
                            ("pyramid", dict(s=18, c="tab:red"))):
        t = tables[friction]
        held = t["static"] == 1
        ax.scatter(t.force_x[held], t.torque_z[held], label=f"{friction}: static", **style)
        t.drop(columns="error").to_csv(out / f"fig8_{friction}.csv", index=False)
    ax.set_xlabel("horizontal force $f_x$ [N]")
    ax.set_ylabel(r"normal-axis torque $\tau_z$ [N m]")
    ax.set_title("Static-friction region (Wakisaka & Sugihara, Fig. 8) by ss.sweep")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(out / "fig8_sweep.png", dpi=120)
    for friction, t in tables.items():
        print(f"static fraction ({friction}): {t['static'].mean():.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=9, help="grid points per axis")
    parser.add_argument("--backend", default="vmap", choices=["vmap", "processes", "dask"])
    parser.add_argument("--store", type=Path, default=None, help="resumable store directory")
    parser.add_argument("--out", type=Path, default=Path("examples_out/studies"))
    args = parser.parse_args()
    main(args.n, args.backend, args.store, args.out)
