"""Speed of the core: eq. 10 with RK4, compile time, a 1000-member batch, and the
same stiction problem solved the way a user would otherwise do it (SciPy solve_ivp + LuGre).
The traced-grid kernel against the static-bounds kernel (the shape of the kernel
before dt, steps per output and the last interval became traced data), a new dt without a
recompile, and a fresh process with a cold and a warm persistent compile cache.

Run:  python benchmarks/core_speed.py            (writes benchmarks/results/core_speed.md)

Every number is measured in this process; ratios compare runs made side by side.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
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


def lugre_rhs(t, x, mu_s=F_LEVEL, mu_k=F_LEVEL, vs=1e-3, k0=1e4, k1=100.0, k2=0.0, M=1.0):
    """LuGre on a 1 kg block, written as a user would for solve_ivp (NumPy, no JAX)."""
    p, v, z = x
    g = (mu_k + (mu_s - mu_k) * np.exp(-(v / vs) ** 2)) / k0
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


FRESH = ("import stickslip as ss; from stickslip.figures._fig3_stiction import stiction_load; "
         "ss.simulate(ss.systems.FrictionMass(M=1.0, law=ss.laws.CoulombODE(F=0.5, K=1e4, "
         "beta=1e-3), force=stiction_load), 10.0, dt=1e-4, dt_out=1e-2)")


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
    # one object per parameter set (array parameters are refused at construction), stacked
    # once into the batched system simulate_batch runs
    stacked = ss.stack_systems([eq10_system(M=m, F=f) for m, f in
                                zip(rng.uniform(0.5, 2.0, n), rng.uniform(0.45, 0.55, n))])
    start = time.perf_counter()
    ss.simulate_batch(stacked, T_END, dt=DT, dt_out=1e-2)
    batch_first = time.perf_counter() - start
    batch_run = best_of(lambda: ss.simulate_batch(stacked, T_END, dt=DT, dt_out=1e-2), 3)[0]
    rows.append((f"batch of {n} parameter sets, 10 s each, run after compile", batch_run,
                 f"{n * N_STEPS / batch_run:.3g} member-steps/s; first call {batch_first:.2f} s"))

    # 2b. the kernel simulate runs (dt, steps per output, last interval traced)
    # against the static-bounds kernel (fixed loop counts, as before traced grids)
    import equinox as eqx
    import jax.numpy as jnp
    from stickslip.integrate._fixed_step import StepRule, solve_fixed_step
    from stickslip.integrate._grid import step_grid

    grid = step_grid(0.0, T_END, DT, 1e-2)
    dyn, static = eqx.partition(system, eqx.is_array)
    rule = StepRule.for_system(system, "rk4")
    x0 = system.initial_state()
    static_run = lambda: solve_fixed_step(dyn, static, jnp.asarray(0.0), x0,  # noqa: E731
                                          jnp.asarray(DT), rule=rule,
                                          grid=grid)[0].block_until_ready()
    static_time = best_of(static_run, warm_up=True)[0]
    rows.append(("eq. 10, 10⁵ steps, static-bounds kernel (fixed loop counts, as before traced grids)", static_time,
                 f"{N_STEPS / static_time:.3g} steps/s; simulate's traced-grid kernel "
                 f"above: {run / static_time:.2f}× its time (incl. host checks)"))
    start = time.perf_counter()
    ss.simulate(system, T_END, dt=2 * DT, dt_out=1e-2)      # new dt, same output count
    rows.append(("new dt (2e-4, 50 steps per output), first call: no recompile",
                 time.perf_counter() - start, f"{run:.3g} s is a run of 10⁵ steps: dt, "
                 "steps per output and t_end are traced data"))
    env = dict(os.environ, STICKSLIP_JAX_CACHE=tempfile.mkdtemp(prefix="stickslip-cache-"))
    for label in ("cold", "warm"):                 # the same new cache directory twice
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", FRESH], env=env, check=True)
        rows.append((f"fresh process, {label} persistent cache: import + eq. 10 10 s",
                     time.perf_counter() - start, "STICKSLIP_JAX_CACHE=<temp dir>"))

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
