"""Speed of the core: eq. 10 with RK4, compile time, a 1000-member batch, and the
same stiction problem solved the way a user would otherwise do it (SciPy solve_ivp + LuGre).

Run:  python benchmarks/core_speed.py            (writes benchmarks/results/core_speed.md)

Every number is measured in this process; ratios compare runs made side by side.
"""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=1")

import jax  # noqa: E402
import numpy as np  # noqa: E402
from scipy.integrate import solve_ivp  # noqa: E402

import stickslip as ss  # noqa: E402
from stickslip.figures._fig3_stiction import F_LEVEL, T_STUCK, stiction_load  # noqa: E402
from _timing import best_of  # noqa: E402

T_END, DT = 10.0, 1e-4
N_STEPS = round(T_END / DT)
OUT = Path(__file__).parent / "results" / "core_speed.md"


def eq10_system(M=1.0, F=F_LEVEL, K=1e4, beta=1e-3):
    return ss.systems.FrictionMass(M=M, law=ss.laws.CoulombODE(F=F, K=K, beta=beta),
                                   force=stiction_load)


def stuck_drift(t, p):
    stuck = t >= T_STUCK
    return float(np.ptp(p[stuck]))


def lugre_rhs(t, x, mus=F_LEVEL, mud=F_LEVEL, vs=1e-3, k0=1e4, k1=100.0, k2=0.0, M=1.0):
    """LuGre on a 1 kg block, written as a user would for solve_ivp (NumPy, no JAX)."""
    p, v, z = x
    g = (mud + (mus - mud) * np.exp(-(v / vs) ** 2)) / k0
    zd = v - abs(v) * z / g
    f = -(k0 * z + k1 * zd + k2 * v)
    fe = _load_np(t)
    return [v, (fe + f) / M, zd]


def _load_np(t):
    if t < 1.0:
        return 0.6 * t
    if t < 2.0:
        return 0.6 - 0.2 * (t - 1.0)
    return 0.4 + 0.08 * np.sin(4 * np.pi * (t - 2.0))


def main():
    rows = []
    # 1. eq. 10, RK4, dt = 1e-4, 10 s: first call (compile + run), then best of 5
    system = eq10_system()
    start = time.perf_counter()
    res = ss.simulate(system, T_END, dt=DT, dt_out=1e-2)
    first = time.perf_counter() - start
    run = best_of(lambda: ss.simulate(system, T_END, dt=DT, dt_out=1e-2))[0]
    compile_time = first - run
    drift10 = stuck_drift(res.t, res["p"])
    rows.append(("eq. 10, RK4, dt=1e-4, 10 s (10⁵ steps), run after compile", run,
                 f"{N_STEPS / run:.3g} steps/s; stuck-phase range {drift10:.2e} m"))
    rows.append(("eq. 10 compile (first call − run)", compile_time, ""))

    # 1b. the same problem at the largest steps that keep the stuck phase exact
    for dt in (1e-3, 2e-3):
        res_dt = ss.simulate(system, T_END, dt=dt, dt_out=1e-2)
        wall = best_of(lambda: ss.simulate(system, T_END, dt=dt, dt_out=1e-2))[0]
        rows.append((f"eq. 10, RK4, dt={dt:g}, 10 s ({round(T_END / dt)} steps)", wall,
                     f"stuck-phase range {stuck_drift(res_dt.t, res_dt['p']):.2e} m; "
                     f"error at 10 s vs dt=1e-4: {abs(res_dt['p'][-1] - res['p'][-1]):.1e} m"))
        if dt == 2e-3:
            fast = wall

    # 2. batch of 1000 parameter sets, one compile (stacked arrays: the fast path)
    n = 1000
    rng = np.random.default_rng(0)
    stacked = ss.systems.FrictionMass(
        M=rng.uniform(0.5, 2.0, n),
        law=ss.laws.CoulombODE(F=rng.uniform(0.45, 0.55, n), K=np.full(n, 1e4),
                               beta=np.full(n, 1e-3)),
        force=stiction_load, N=np.ones(n), p0=np.zeros(n), v0=np.zeros(n))
    start = time.perf_counter()
    ss.simulate_batch(stacked, T_END, dt=DT, dt_out=1e-2)
    batch_first = time.perf_counter() - start
    batch_run = best_of(lambda: ss.simulate_batch(stacked, T_END, dt=DT, dt_out=1e-2), 3)[0]
    rows.append((f"batch of {n} parameter sets, 10 s each, run after compile", batch_run,
                 f"{n * N_STEPS / batch_run:.3g} member-steps/s; first call {batch_first:.2f} s"))

    # 3. what a user would otherwise do: SciPy solve_ivp + LuGre (stiff: LSODA), 10 s
    for method in ("LSODA", "Radau"):
        start = time.perf_counter()
        sol = solve_ivp(lugre_rhs, (0.0, T_END), [0.0, 0.0, 0.0], method=method, rtol=1e-6,
                        atol=1e-9, t_eval=np.arange(0.0, T_END + 1e-9, 1e-2))
        wall = time.perf_counter() - start
        rows.append((f"SciPy solve_ivp({method}) + LuGre, 10 s", wall,
                     f"{wall / run:.0f}× eq. 10 at dt=1e-4, {wall / fast:.0f}× at dt=2e-3; "
                     "stuck-phase drift "
                     f"{stuck_drift(sol.t, sol.y[0]):.2e} m (LuGre creeps)"))

    lines = [
        "# Core speed",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"JAX {jax.__version__} on {jax.devices()[0].platform}; float64. "
        "Command: `python benchmarks/core_speed.py`.",
        "",
        "| case | wall time [s] | notes |",
        "|---|---|---|",
    ]
    lines += [f"| {name} | {t:.4g} | {note} |" for name, t, note in rows]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
