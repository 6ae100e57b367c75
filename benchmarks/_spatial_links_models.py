"""The models that ``benchmarks/spatial_links.py`` times (issue 20), built in its child
processes: chains of n rods on revolute joints, the 6-body cart with 4 point contacts, the
pushed box of the batch, the double pendulum and the sliding ball of
``tests/spatial/test_link_systems.py``; and the MuJoCo peer, the same chain as an MJCF hinge
chain, with its timing loop. The step and the output interval, `DT` and `DT_OUT`, are the
benchmark's.
"""

from __future__ import annotations

import math
import os
import time

DT, DT_OUT = 1e-3, 0.01


# --- stickslip models (child side) ------------------------------------------------------------
def chain(n, length=0.1, mass=0.1, tilt=math.pi / 4):
    """n slender rods on z-axis hinges, straight at `tilt` from the vertical (gravity −y)."""
    import numpy as np

    import stickslip as ss

    sp = ss.spatial
    m = sp.SpatialModel(gravity=(0, -9.81, 0))
    d = np.array([np.sin(tilt), -np.cos(tilt), 0.0])
    angle = np.arctan2(d[1], d[0])                  # the rod's x axis along d
    quat = (np.cos(angle / 2), 0.0, 0.0, np.sin(angle / 2))
    transverse = mass * length ** 2 / 12
    previous = "ground"
    for k in range(n):
        a, b = k * length * d, (k + 1) * length * d
        m.add_body(f"rod{k}", mass=mass, inertia=(1e-4 * transverse, transverse, transverse),
                   shape=None, position=(a + b) / 2, orientation=quat)
        m.add(sp.RevoluteJoint(previous, f"rod{k}", point=a, axis=(0, 0, 1), name=f"J{k}"))
        previous = f"rod{k}"
    return m


def cart(push=1.0, radius=0.05):
    """A 2 kg chassis on four spheres (0.2 kg, radius 5 cm) on revolute axles along y, and a
    0.1 kg, 0.2 m pendulum hinged on top, released at 30°; ground μ = 0.5; a push along x."""
    import numpy as np

    import stickslip as ss

    sp = ss.spatial
    m = sp.SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("chassis", mass=2.0, inertia=(0.01, 0.02, 0.025), shape=None,
               position=(0, 0, radius))
    for k, (x, y) in enumerate([(0.15, 0.12), (0.15, -0.12), (-0.15, 0.12), (-0.15, -0.12)]):
        m.add_body(f"wheel{k}", mass=0.2, shape=sp.Sphere(radius), position=(x, y, radius))
        m.add(sp.RevoluteJoint("chassis", f"wheel{k}", point=(x, y, radius), axis=(0, 1, 0),
                               name=f"axle{k}"))
    length, tilt = 0.2, math.pi / 6
    d = np.array([np.sin(tilt), 0.0, -np.cos(tilt)])
    top = np.array([0.0, 0.0, 0.15])
    angle = np.arctan2(-d[2], d[0])                 # the rod's x axis along d (about y)
    transverse = 0.1 * length ** 2 / 12
    m.add_body("pendulum", mass=0.1, inertia=(1e-4 * transverse, transverse, transverse),
               shape=None, position=top + d * length / 2,
               orientation=(np.cos(-angle / 2), 0.0, np.sin(-angle / 2), 0.0))
    m.add(sp.RevoluteJoint("chassis", "pendulum", point=top, axis=(0, 1, 0), name="hinge"))
    m.add_ground(mu_s=0.5, mu_k=0.5)
    m.add(sp.PointForce("chassis", force=(push, 0, 0)))
    return m


def box(push):
    """A 1 kg, 10 cm cube on the ground (μ = 0.5, 8 corner contacts), pushed along x [N]."""
    import stickslip as ss

    sp = ss.spatial
    m = sp.SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("box", mass=1.0, shape=sp.Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    m.add_ground(mu_s=0.5, mu_k=0.5)
    m.add(sp.PointForce("box", force=(push, 0, 0)))
    return m


def double_pendulum():
    """tests/spatial/test_link_systems.py's double pendulum."""
    import numpy as np

    import stickslip as ss

    sp = ss.spatial
    m = sp.SpatialModel(gravity=(0, -9.81, 0))
    for name, start, end, mass in (("upper", (0, 0, 0), (1.0, 0, 0), 1.0),
                                   ("lower", (1.0, 0, 0), (1.8, 0.3, 0), 0.7)):
        start, end = np.asarray(start, float), np.asarray(end, float)
        length = np.linalg.norm(end - start)
        angle = np.arctan2(end[1] - start[1], end[0] - start[0])
        transverse = mass * length ** 2 / 12
        m.add_body(name, mass=mass, inertia=(1e-4 * transverse, transverse, transverse),
                   shape=None, position=(start + end) / 2,
                   orientation=(np.cos(angle / 2), 0.0, 0.0, np.sin(angle / 2)))
    m.add(sp.RevoluteJoint("ground", "upper", point=(0, 0, 0), axis=(0, 0, 1), name="J1"))
    m.add(sp.RevoluteJoint("upper", "lower", point=(1.0, 0, 0), axis=(0, 0, 1), name="J2"))
    return m


def sphere_on_ground():
    """tests/spatial/test_link_systems.py's sliding ball (rolls at 5/7 v₀)."""
    import stickslip as ss

    sp = ss.spatial
    m = sp.SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("ball", mass=1.0, shape=sp.Sphere(0.1), position=(0, 0, 0.1),
               velocity=(2.0, 0, 0))
    m.add_ground(mu_s=0.3, mu_k=0.3)
    return m


# --- MuJoCo peer -------------------------------------------------------------------------------
def _mjcf_chain(n, length=0.1, mass=0.1, tilt=math.pi / 4):
    transverse = mass * length ** 2 / 12
    body = ""
    for k in reversed(range(n)):
        pos = "0 0 0" if k == 0 else f"{length} 0 0"
        body = (f'<body name="rod{k}" pos="{pos}">'
                f'<joint name="J{k}" type="hinge" axis="0 0 1"/>'
                f'<inertial pos="{length / 2} 0 0" mass="{mass}" '
                f'diaginertia="{1e-4 * transverse} {transverse} {transverse}"/>'
                f'{body}</body>')
    angle = tilt - math.pi / 2                     # the chain's x axis at tilt from −y
    return ('<mujoco><compiler angle="radian"/>'
            f'<option timestep="{DT}" integrator="RK4" gravity="0 -9.81 0">'
            '<flag contact="disable"/></option><worldbody>'
            f'<frame euler="0 0 {angle}">{body}</frame>'
            '</worldbody></mujoco>')


def mujoco_chain(n, t_end, repeats):
    """(load, model compile [s], best run [s], steps, energy drift [J]) of the hinge chain."""
    import mujoco
    import numpy as np

    load = os.getloadavg()[0]
    start = time.perf_counter()
    model = mujoco.MjModel.from_xml_string(_mjcf_chain(n))
    compile_time = time.perf_counter() - start
    data = mujoco.MjData(model)
    steps, per_out = round(t_end / DT), round(DT_OUT / DT)

    def run():
        mujoco.mj_resetData(model, data)
        mujoco.mj_forward(model, data)
        out = np.empty((steps // per_out + 1, model.nq))
        out[0] = data.qpos
        for k in range(steps // per_out):
            mujoco.mj_step(model, data, nstep=per_out)
            out[k + 1] = data.qpos
        return out

    best = math.inf
    for _ in range(max(repeats, 1)):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    # energy drift (enableflags energy)
    model.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    mujoco.mj_resetData(model, data)
    energies = []
    for _ in range(steps // per_out):
        mujoco.mj_step(model, data, nstep=per_out)
        energies.append(data.energy.sum())
    return load, compile_time, best, steps, float(np.ptp(energies))
