"""PSMC in a control loop: try it against a simulated plant, then export it to C.

Run:  python examples/psmc_loop.py
"""

import tempfile

import stickslip as ss

gains = dict(F=20.0, H=0.2, K=1600.0, B=80.0, L=16000.0, T=1e-3)   # N, s, N/m, N·s/m, N/(m·s), s

# 1. closed loop against a mass with Coulomb friction (eq. 10), zero-order hold at 1 kHz
plant = ss.control.ActuatedSystem(
    ss.systems.FrictionMass(M=1.0, law=ss.laws.CoulombODE(F=2.0, K=1e4, beta=1e-3)))
res = ss.control.simulate_closed_loop(plant, ss.control.PSMC(**gains), 2.0,
                                      reference=lambda t: 0.5 * (t >= 0.05))
print(f"final position {res['p'][-1]:.5f} m, peak force {abs(res['u']).max():.1f} N")

# 2. the same controller as a stateful object, as in a hand-written loop
ctrl = ss.control.PSMC(**gains)
mass = ss.discrete.CoulombMass(M=1.0, F=2.0, T=gains["T"])   # a plant in discrete time
for k in range(2000):
    f = ctrl.step(0.5, mass.p)          # reference 0.5 m, measured position
    mass.step(f)                         # apply the force for one period
print(f"stateful loop: position after 2 s {mass.p:.5f} m")

# 3. dependency-free C for the controller, with these gains as defaults
header, source = ss.discrete.export_c(ctrl, tempfile.mkdtemp())
print(f"wrote {header} and {source}")
