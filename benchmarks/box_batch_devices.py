"""Batches of 3-D boxes on point contacts under one ``vmap`` on whatever JAX backend runs it
(issue 20: "a batch of 1000 boxes under vmap in one compile"): the CPU here, a GPU where one
is present.

Each member is the box of ``benchmarks/_spatial_links_models.box``: 1 kg, 10 cm, eight corner
contacts (24 λ rows), μ = 0.5, pushed along x by a force spread over 0…10 N across the batch.
One link system is built and stacked N times; the push is the traced parameter that differs
(so the batch is one compile, whatever N). Two routes: RK4 at dt = 1 ms over 0.2 s (the
Lipschitz ODE of SPEC §6) and ``moreau_jean`` at h = 10 ms over 1 s (the exact velocity-level
step). For each: the first call (compile + run), the best of ``--repeats`` runs after it, the
time per box-step, and the largest error of the final speed against the closed form
v(T) = max(F − μmg, 0)·T/m (sliding boxes accelerate at (F − μmg)/m, held ones stay).

    python benchmarks/box_batch_devices.py [--sizes 100 1000] [--repeats 2] [--routes rk4]

Prints one markdown table (backend and device in its heading). Timings are wall clock on a
warm process; the row's load average is printed where the OS gives one.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jax
import jax.numpy as jnp
import numpy as np

ROUTES = (("rk4", 1e-3, 0.2), ("moreau_jean", 1e-2, 1.0))
MU, G, MASS = 0.5, 9.81, 1.0


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def batch(n: int):
    """The box link system stacked n times, pushes 0…10 N as the one differing parameter."""
    import equinox as eqx
    from _spatial_links_models import box

    import stickslip as ss

    system = box(0.0).link_system()
    stacked = ss.integrate.stack_systems([system] * n)
    pushes = np.linspace(0.0, 10.0, n)
    values = np.zeros((n, 1, 3))
    values[:, 0, 0] = pushes
    stacked = eqx.tree_at(lambda s: s.force_values, stacked, jnp.asarray(values))
    return stacked, pushes


def row(n: int, method: str, dt: float, t_end: float, repeats: int) -> str:
    import stickslip as ss

    stacked, pushes = batch(n)
    load = _load()
    start = time.perf_counter()
    res = ss.simulate_batch(stacked, t_end, dt=dt, dt_out=0.1, method=method)
    first = time.perf_counter() - start
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        res = ss.simulate_batch(stacked, t_end, dt=dt, dt_out=0.1, method=method)
        runs.append(time.perf_counter() - start)
    run = min(runs)
    steps = round(t_end / dt)
    expected = np.maximum(pushes - MU * MASS * G, 0.0) * t_end / MASS
    err = float(np.abs(np.asarray(res["box.vx"])[:, -1] - expected).max())
    return (f"| {n} | {method} | {dt:g} | {steps} | {first:.2f} | {run:.3f} | "
            f"{first - run:.2f} | {1e6 * run / (n * steps):.3f} | {err:.1e} | {load} |")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--routes", nargs="+", default=[r[0] for r in ROUTES],
                        choices=[r[0] for r in ROUTES])
    args = parser.parse_args(argv)
    device = jax.devices()[0]
    print(f"# Box batches on {jax.default_backend()} ({device.device_kind}), JAX "
          f"{jax.__version__}, float64\n")
    print("| boxes | route | step [s] | steps | first call [s] | run [s] | compile ≈ first − "
          "run [s] | per box-step [µs] | max |v − v_exact| [m/s] | load |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        for method, dt, t_end in ROUTES:
            if method not in args.routes:
                continue
            print(row(n, method, dt, t_end, args.repeats), flush=True)


if __name__ == "__main__":
    main()
