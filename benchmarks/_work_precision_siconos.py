"""Siconos models of AP1–AP3 for benchmarks/work_precision_peers.py (issue 21, item 5).

Siconos (4.4) is the Debian system package ``python3-siconos``: it is not pip-installable
and lives in the *system* Python, not in the project's venv. So this file has two halves:

* the driver, run by the benchmark in the venv — :func:`available` and :func:`rows` start
  ``/usr/bin/python3 <this file> PROBLEM ROUTE STEP...`` and read back JSON;
* the models, run in that subprocess — ``import siconos.kernel`` happens only there.

Models (the problems of ``moreau_jean.py`` and ``event_route.py``):

* AP1 — ``LagrangianLinearTIDS`` (M = 1 kg) with a ``RelayNSL`` on the velocity
  (``LagrangianLinearTIR``, C = 1): friction as the set-valued Coulomb law, solved by the
  ``Relay`` one-step problem of ``MoreauJeanOSI`` (θ = 0.5). At the velocity level Siconos'
  multiplier is a percussion, so the relay bounds are ±F·h. The activation threshold is
  set to +∞ (a relay is bilateral; by default the OSI activates only closed gaps). The load
  per step is given two ways: its exact mean ∫f_e dt / h over the step ("exact impulse"), or
  θ·f_e(t_k+1) + (1 − θ)·f_e(t_k) (what Siconos does with a time-dependent ``FExt``).
* AP2 — the same relay in the belt's frame: u = x − v_b·t, u̇ is the sliding velocity,
  m ü + k u = −k v_b t + λ (K in the ``LagrangianLinearTIDS``, the θ-weighted −k v_b t
  as ``FExt``); x = u + v_b t sampled every step.
* AP3 — ``LagrangianLinearTIDS`` under gravity, ``NewtonImpactNSL(e)`` on the gap; time
  stepping (``MoreauJeanOSI`` θ = 0.5 + ``LCP``; apex read off the samples) and event-driven
  (``EventDriven`` + ``LsodarOSI``, ``LCP`` impact and acceleration problems; apex
  v⁺²/(2g) from the state after each impact).
* AP4 (slider–crank) is not modelled: it needs a nonlinear ``LagrangianDS`` with closed-loop
  joint constraints (C plugins or ``siconos.mechanics`` joints) — beyond this benchmark.

Timing, as for the other peers: "wall" is the best of ``repeats`` runs of the stepping loop
alone (output every step, as the stickslip routes), each on a freshly built model ("cpu":
the best CPU time of the same loops, steadier under load); "setup"
is the build + ``initialize()`` of one model (not in the wall); "first" is setup + loop of
the first run.

Run alone:  /usr/bin/python3 benchmarks/_work_precision_siconos.py AP1 ts-exact 1e-2 1e-3
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SYSTEM_PYTHON = "/usr/bin/python3"
G, E, H0 = 9.81, 0.8, 1.0                       # AP3, as event_route.py
AP1_EXACT = 0.0375 + 0.04 / (10 * math.pi)
AP1_F, AP2_F, AP2_K, AP2_VB = 0.5, 1.0, 1.0, 0.5
ROUTES = {          # (problem, route key) -> the route's name in the table and figure
    ("AP1", "ts-exact"): "MoreauJeanOSI θ=0.5 + Relay, exact impulse",
    ("AP1", "ts-ends"): "MoreauJeanOSI θ=0.5 + Relay, f_e at step ends",
    ("AP2", "ts"): "MoreauJeanOSI θ=0.5 + Relay, belt frame",
    ("AP3", "ts"): "TimeStepping MoreauJeanOSI θ=0.5 + LCP",
    ("AP3", "ed"): "EventDriven LsodarOSI",
}


# ------------------------------------------------------------ errors (pure NumPy)
def cycle_error(t, x):
    """AP2: max(|max x − 1.5|, |min x − 0.5|) over t ≥ 10 s [m] (as the peer models)."""
    t, x = np.asarray(t), np.asarray(x)
    cycle = x[t >= 10.0]
    return float(max(abs(cycle.max() - 1.5), abs(cycle.min() - 0.5)))


def sampled_apex_error(p, v):
    """AP3 from samples: largest |p + v²/(2g) − e^(2k)·h0| at the last sample before each
    apex [m] (as the peer models)."""
    p, v = np.asarray(p), np.asarray(v)
    turn = np.nonzero((v[:-1] > 0) & (v[1:] <= 0))[0]
    if len(turn) == 0:
        return H0 * E ** 2
    apex = p[turn] + v[turn] ** 2 / (2 * G)
    return float(np.max(np.abs(apex - H0 * E ** (2 * np.arange(1, len(turn) + 1)))))


def ap1_load(t):
    return 0.0 if t < 0.5 else (0.6 if t < 1.0 else 0.45 + 0.04 * math.sin(10 * math.pi * t))


def ap1_load_integral(t):
    """∫_0^t f_e dt of AP1 [N·s]."""
    if t < 0.5:
        return 0.0
    if t < 1.0:
        return 0.6 * (t - 0.5)
    return 0.3 + 0.45 * (t - 1.0) - 0.04 / (10 * math.pi) * (math.cos(10 * math.pi * t) - 1.0)


# ------------------------------------------------------------ models (system Python)
def _relay_block(t_end, h, bound, q0, v0, stiffness=None):
    import siconos.kernel as sk

    mass = np.eye(1)
    ds = (sk.LagrangianLinearTIDS([q0], [v0], mass) if stiffness is None else
          sk.LagrangianLinearTIDS([q0], [v0], mass, stiffness * np.eye(1), np.zeros((1, 1))))
    ds.setFExtPtr(np.zeros(1))
    friction = sk.Interaction(sk.RelayNSL(1, -bound * h, bound * h),    # percussion bounds
                              sk.LagrangianLinearTIR(np.eye(1)))
    nsds = sk.NonSmoothDynamicalSystem(0.0, t_end)
    nsds.insertDynamicalSystem(ds)
    nsds.link(friction, ds)
    osi = sk.MoreauJeanOSI(0.5)
    osi.setConstraintActivationThreshold(math.inf)          # the relay is always active
    sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, h), osi, sk.Relay())
    sim.initialize()
    return sim, ds


def _ap1(h, exact_impulse):
    sim, ds = _relay_block(10.0, h, AP1_F, 0.0, 0.0)

    def loop():
        fext, q = ds.fExt(), ds.q()                         # views on Siconos' vectors
        x = [q[0]]                                          # output every step, as stickslip
        while sim.hasNextEvent():
            tk, tk1 = sim.getTk(), sim.getTkp1()
            fext[0] = ((ap1_load_integral(tk1) - ap1_load_integral(tk)) / (tk1 - tk)
                       if exact_impulse else 0.5 * (ap1_load(tk) + ap1_load(tk1)))
            sim.computeOneStep()
            sim.nextStep()
            x.append(q[0])
        return abs(x[-1] - AP1_EXACT)
    return loop


def _ap2(h):
    sim, ds = _relay_block(20.0, h, AP2_F, 0.0, -AP2_VB, stiffness=AP2_K)

    def loop():
        fext, q = ds.fExt(), ds.q()
        t, x = [0.0], [q[0]]
        while sim.hasNextEvent():
            tk1 = sim.getTkp1()
            fext[0] = -AP2_K * AP2_VB * 0.5 * (sim.getTk() + tk1)   # exact mean of −k v_b t
            sim.computeOneStep()
            sim.nextStep()
            t.append(tk1)
            x.append(q[0] + AP2_VB * tk1)
        return cycle_error(t, x)
    return loop


def _ball(h):
    import siconos.kernel as sk

    ds = sk.LagrangianLinearTIDS([H0], [0.0], np.eye(1))
    ds.setFExtPtr(np.array([-G]))
    contact = sk.Interaction(sk.NewtonImpactNSL(E), sk.LagrangianLinearTIR(np.eye(1)))
    nsds = sk.NonSmoothDynamicalSystem(0.0, 3.0)
    nsds.insertDynamicalSystem(ds)
    nsds.link(contact, ds)
    return nsds, ds, sk.TimeDiscretisation(0.0, h)


def _ap3_ts(h):
    import siconos.kernel as sk

    nsds, ds, td = _ball(h)
    sim = sk.TimeStepping(nsds, td, sk.MoreauJeanOSI(0.5), sk.LCP())
    sim.initialize()

    def loop():
        q, v = ds.q(), ds.velocity()
        p_s, v_s = [q[0]], [v[0]]
        while sim.hasNextEvent():
            sim.computeOneStep()
            sim.nextStep()
            p_s.append(q[0])
            v_s.append(v[0])
        return sampled_apex_error(p_s, v_s)
    return loop


def _ap3_ed(h, tol):
    import siconos.kernel as sk

    nsds, ds, td = _ball(h)
    osi = sk.LsodarOSI()
    if tol:
        osi.setTol(1, tol, tol * 1e-2)                      # itol = 1: scalar rtol, atol
    sim = sk.EventDriven(nsds, td)
    sim.insertIntegrator(osi)
    sim.insertNonSmoothProblem(sk.LCP(), sk.SICONOS_OSNSP_ED_IMPACT)
    sim.insertNonSmoothProblem(sk.LCP(), sk.SICONOS_OSNSP_ED_SMOOTH_ACC)
    sim.initialize()
    events = sim.eventsManager()

    def loop():
        v_after = []
        while sim.hasNextEvent() and sim.startingTime() < 3.0 - 1e-12:
            sim.advanceToEvent()
            impact = events.nextEvent().getType() == 2       # 2: a non-smooth event
            sim.processEvents()
            if impact:
                v_after.append(ds.velocity()[0])
        k = np.arange(1, len(v_after) + 1)
        return float(np.max(np.abs(np.square(v_after) / (2 * G) - H0 * E ** (2 * k))))
    return loop


def _model(problem, route, step):
    """A freshly built model's stepping loop (a callable returning the error)."""
    if problem == "AP1":
        return _ap1(step, exact_impulse=route == "ts-exact")
    if problem == "AP2":
        return _ap2(step)
    if route == "ts":
        return _ap3_ts(step)
    h, _, tol = str(step).partition(":")                     # "h:tol", tol 0 = default
    return _ap3_ed(float(h), float(tol or 0.0))


def measure(problem, route, step, repeats):
    """One row: build + initialize (setup), then the loop, `repeats` + 1 times."""
    first = setup = wall = cpu = math.inf
    err = None
    for i in range(repeats + 1):
        start = time.perf_counter()
        loop = _model(problem, route, step)
        built, cpu_start = time.perf_counter(), time.process_time()
        err = loop()
        done, cpu_done = time.perf_counter(), time.process_time()
        setup = min(setup, built - start)
        if i == 0:
            first = done - start
        if i > 0 or repeats == 0:
            wall, cpu = min(wall, done - built), min(cpu, cpu_done - cpu_start)
    return {"err": err, "wall": wall, "first": first, "setup": setup, "cpu": cpu}


# ------------------------------------------------------------ driver (project venv)
def available():
    """None when ``/usr/bin/python3`` imports siconos, else the reason it cannot."""
    if not Path(SYSTEM_PYTHON).exists():
        return f"{SYSTEM_PYTHON} not found"
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import siconos.kernel"],
                           check=False, capture_output=True, text=True)
    if probe.returncode:
        return (f"`{SYSTEM_PYTHON} -c 'import siconos.kernel'` failed: "
                f"{(probe.stderr.strip().splitlines() or ['?'])[-1]}")
    return None


def version():
    """The Debian package's version (``siconos.version`` of 4.4.0+dfsg says 4.5.0)."""
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "python3-siconos"],
                         check=False, capture_output=True, text=True)
    return f"python3-siconos {out.stdout.strip()}" if out.returncode == 0 else "?"


def rows(problem, route, steps, repeats=3, timeout=600):
    """Measured rows of one Siconos route, run in the system Python.

    Parameters
    ----------
    problem : str
        ``"AP1"``, ``"AP2"`` or ``"AP3"``.
    route : str
        A key of ``ROUTES`` for that problem.
    steps : list
        Time steps h [s]; for ``("AP3", "ed")`` strings ``"h:tol"`` (Lsodar tolerance,
        0 for its default).
    repeats : int
        Timed runs after the first.
    timeout : float
        Seconds before the subprocess is stopped.

    Returns
    -------
    list of dict
        One dict per step: problem, engine, route, step, err, wall, first, setup, cpu.

    Raises
    ------
    RuntimeError
        When the subprocess fails; the message carries its stderr's last lines.
    """
    cmd = [SYSTEM_PYTHON, str(Path(__file__).resolve()), problem, route,
           "--repeats", str(repeats), *map(str, steps)]
    out = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=timeout)
    if out.returncode:
        tail = "\n".join(out.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"Siconos {problem} {route} failed ({' '.join(cmd)}):\n{tail}")
    return [{"problem": problem, "engine": "Siconos", "route": ROUTES[problem, route],
                 "step": label(problem, route, r["step"]), "err": r["err"], "wall": r["wall"],
                 "first": r["first"], "setup": r["setup"], "cpu": r["cpu"]}
            for r in json.loads(out.stdout.strip().splitlines()[-1])]


def label(problem, route, step):
    if (problem, route) != ("AP3", "ed"):
        return f"dt={float(step):g}"
    h, _, tol = str(step).partition(":")
    return f"h={float(h):g}, " + (f"tol={float(tol):g}" if float(tol or 0) else "default tol")


def main(argv):
    import argparse

    parser = argparse.ArgumentParser(description="Siconos AP1–AP3 (issue 21): JSON rows")
    parser.add_argument("problem", choices=sorted({p for p, _ in ROUTES}))
    parser.add_argument("route", choices=sorted({r for _, r in ROUTES}))
    parser.add_argument("steps", nargs="+")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if (args.problem, args.route) not in ROUTES:
        parser.error(f"no route {args.route!r} for {args.problem}; routes: "
                     f"{[r for p, r in ROUTES if p == args.problem]}")
    out = []
    for step in args.steps:
        value = step if (args.problem, args.route) == ("AP3", "ed") else float(step)
        out.append(dict(step=step, **measure(args.problem, args.route, value, args.repeats)))
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
