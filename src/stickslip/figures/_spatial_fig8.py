"""SPEC §7, Fig. 8 of Wakisaka & Sugihara: the (force, torque) region judged as static friction
for a box on the ground — the proposed pyramidal LP versus the previous method (friction force
and normal-axis torque limited separately). Also Table 1's comparison, shortened."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

MASS, SIDE, G, MU_S, MU_K = 1.0, 0.1, 9.81, 0.5, 0.3


def box_model():
    from ..spatial import Box, SpatialModel

    model = SpatialModel(gravity=(0, 0, -G))
    model.add_body("box", mass=MASS, inertia=None, shape=Box(SIDE, SIDE, SIDE),
                   position=(0, 0, SIDE / 2))
    model.add_ground(mu_s=MU_S, mu_k=MU_K)
    return model


def bottom_load(force_x: float, torque_z: float):
    """The paper's Fig. 7 load: a horizontal force and a normal-axis torque at the centre of
    the bottom face, as a wrench about the centre of mass."""
    F = np.array([force_x, 0.0, 0.0])
    T = np.cross([0.0, 0.0, -SIDE / 2], F) + np.array([0.0, 0.0, torque_z])
    return {"box": lambda t, s: (F, T)}


def _sweep_row(args):
    """Static flags along the torque axis for one force (one worker's share of the grid)."""
    friction, force, torques, steps, x0 = args
    model = box_model()
    return [bool(np.all(model.simulate(steps * 1e-3, dt=1e-3, forces=bottom_load(force, tau),
                                       initial=x0, friction=friction)["ground-box.stick"][1:]
                        == 1)) for tau in torques]


def sweep(n_force: int = 17, n_torque: int = 17, steps: int = 10, workers: int = 1):
    """Simulate `steps` ms from rest for every (F, τ) on a grid, for both methods; a point is
    static when every step was judged static. Returns the grid and the two boolean maps.
    ``workers > 1`` spreads the grid's rows over that many processes."""
    model = box_model()
    x0 = model.simulate(0.05, dt=1e-3).final_state
    f_max = MU_S * MASS * G
    t_max = f_max * SIDE / np.sqrt(2)
    forces = np.linspace(0, 1.2 * f_max, n_force)
    torques = np.linspace(0, 1.2 * t_max, n_torque)
    jobs = [(friction, f, torques, steps, x0) for friction in ("pyramid", "previous")
            for f in forces]
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers) as pool:
            rows = list(pool.map(_sweep_row, jobs))
    else:
        rows = [_sweep_row(job) for job in jobs]
    maps = {"pyramid": np.array(rows[:n_force]), "previous": np.array(rows[n_force:])}
    return forces, torques, maps


def make(out_dir: Path) -> dict:
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    from ..spatial import static_friction_holds

    t0 = time.perf_counter()
    forces, torques, maps = sweep()
    sweep_time = time.perf_counter() - t0
    half = SIDE / 2
    square = [(-half, -half), (half, -half), (half, half), (-half, half)]
    fine_f = np.linspace(0, forces[-1], 121)
    fine_t = np.linspace(0, torques[-1], 121)
    lp = np.array([[static_friction_holds((f, 0.0), t, square, MU_S, MASS * G, solver="nnls")
                    for t in fine_t] for f in fine_f])
    fig, ax = plt.subplots(figsize=(6.2, 5.2))
    F, T = np.meshgrid(forces, torques, indexing="ij")
    sliding = ~maps["previous"] & ~maps["pyramid"]
    ax.scatter(F[sliding], T[sliding], s=10, c="0.55", marker="x", linewidths=0.8,
               label="sampled, slides in both")
    ax.scatter(F[maps["previous"]], T[maps["previous"]], s=70, c="tab:green", alpha=0.45,
               label="previous method: static", marker="s")
    ax.scatter(F[maps["pyramid"]], T[maps["pyramid"]], s=18, c="tab:red",
               label="proposed (P = 8): static")
    ax.contour(fine_f, fine_t, lp.T.astype(float), levels=[0.5], colors="k", linewidths=1)
    ax.plot([], [], "k-", lw=1, label="LP boundary (eq. 28–31)")
    ax.add_patch(Rectangle((0, 0), forces[-1], torques[-1], fill=False, ls=":", lw=0.8,
                           ec="0.4", label=f"sampled grid: {len(forces)} × {len(torques)}"
                           " points, 10 ms each"))
    ax.set_xlabel("horizontal force $f_x$ [N]")
    ax.set_ylabel(r"normal-axis torque $\tau_z$ [N m]")
    ax.set_title("Static-friction region of a 1 kg box on the ground, μs = 0.5\n"
                 "(Wakisaka & Sugihara, Fig. 8)", fontsize="medium")
    pad_f, pad_t = 0.04 * forces[-1], 0.04 * torques[-1]
    ax.set_xlim(-pad_f, forces[-1] + pad_f)
    ax.set_ylim(-pad_t, 1.55 * torques[-1])
    ax.legend(loc="upper right", fontsize="small")
    fig.tight_layout()
    fig.savefig(Path(out_dir) / "spatial_fig8.png", dpi=130)
    plt.close(fig)
    rows = [(f, t, int(maps["pyramid"][i, j]), int(maps["previous"][i, j]))
            for i, f in enumerate(forces) for j, t in enumerate(torques)]
    np.savetxt(Path(out_dir) / "spatial_fig8.csv", np.array(rows), delimiter=",",
               header="force_x_N,torque_z_Nm,static_proposed,static_previous", comments="")
    area = lambda m: float(m.mean())   # noqa: E731
    return {"grid": [len(forces), len(torques)], "steps_per_point": 10,
            "static_fraction_proposed": area(maps["pyramid"]),
            "static_fraction_previous": area(maps["previous"]),
            "force_limit_N": MU_S * MASS * G,
            "torque_limit_Nm": MU_S * MASS * G * SIDE / np.sqrt(2),
            "sweep_wall_time_s": sweep_time}
