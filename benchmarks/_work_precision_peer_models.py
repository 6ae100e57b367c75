"""The peers of benchmarks/work_precision_peers.py — MuJoCo and Exudyn models of AP1–AP4,
each timed at several steps — and the row and error helpers both files use. Kept apart so
the script stays a readable driver; run the script, not this module."""

from __future__ import annotations

import math
import time

import event_route
import moreau_jean as mj
import numpy as np
import planar_slider_crank as psc

G, E, H0 = event_route.G, event_route.E, event_route.H0


def row(problem, engine, route, step, err, wall, first, cpu=None):
    """A table row; `cpu` (the best CPU time [s]) where measured."""
    return {"problem": problem, "engine": engine, "route": route, "step": step,
            "err": float(err), "wall": wall, "first": first, "cpu": cpu}


def sampled_apex_error(p, v):
    turn = np.nonzero((v[:-1] > 0) & (v[1:] <= 0))[0]
    if len(turn) == 0:                                  # no bounce: the first apex missed
        return H0 * E ** 2
    apex = p[turn] + v[turn] ** 2 / (2 * G)
    return float(np.max(np.abs(apex - H0 * E ** (2 * np.arange(1, len(turn) + 1)))))


def cycle_error(t, x):
    cycle = x[t >= 10.0]
    return max(abs(cycle.max() - 1.5), abs(cycle.min() - 0.5))


def _mujoco_rollout(xml, state0, n, control=None):
    import mujoco
    from mujoco import rollout

    start = time.perf_counter()
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    load = time.perf_counter() - start
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    init = np.zeros(mujoco.mj_stateSize(model, spec))
    mujoco.mj_getState(model, data, init, spec)
    init[1:1 + len(state0)] = state0                           # [time, qpos..., qvel...]
    run = lambda: rollout.rollout(model, data, init[None], control, nstep=n)[0][0]
    first, wall, states = mj.timed(run)
    return load + first, wall, states, model.nq


def mujoco_ap1(quick):
    rows = []
    for h in (1e-2, 1e-3) if quick else (1e-2, 1e-3, 1e-4):
        n = round(10.0 / h)
        u = np.asarray(mj.ap1_load(h * np.arange(n)))[None, :, None]
        for noslip in (0, 10):
            xml = f"""<mujoco><option timestep="{h}" gravity="0 0 0"
              noslip_iterations="{noslip}"/><worldbody><body><joint name="x" type="slide"
              axis="1 0 0" frictionloss="0.5"/><geom type="sphere" size="0.05" mass="1"
              contype="0" conaffinity="0"/></body></worldbody><actuator><motor joint="x"
              ctrllimited="false"/></actuator></mujoco>"""
            first, wall, s, _ = _mujoco_rollout(xml, [0.0, 0.0], n, u)
            rows.append(row("AP1", "MuJoCo", "frictionloss" + (" + noslip" if noslip else ""),
                            f"dt={h:g}", abs(s[-1, 1] - mj.AP1_EXACT), wall, first))
    return rows


def mujoco_ap2(quick):
    rows = []
    for h in (1e-3,) if quick else (1e-3, 1e-4):
        n = round(20.0 / h)
        for noslip in (0, 10):
            # a belt body of 1e12 kg at 0.5 m/s carries the block (joint x relative to it);
            # the spring to the wall is a fixed tendon on the sum of the two joints
            xml = f"""<mujoco><option timestep="{h}" gravity="0 0 0"
              noslip_iterations="{noslip}"/><worldbody><body><joint name="b" type="slide"
              axis="1 0 0"/><inertial pos="0 0 0" mass="1e12" diaginertia="1 1 1"/>
              <body><joint name="x" type="slide" axis="1 0 0" frictionloss="1"/>
              <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body></body>
              </worldbody><tendon><fixed stiffness="1"><joint joint="b" coef="1"/>
              <joint joint="x" coef="1"/></fixed></tendon></mujoco>"""
            first, wall, s, _nq = _mujoco_rollout(xml, [0.0, 0.0, 0.5, -0.5], n)
            t, x = s[:, 0], s[:, 1] + s[:, 2]
            rows.append(row("AP2", "MuJoCo", "frictionloss" + (" + noslip" if noslip else ""),
                            f"dt={h:g}", cycle_error(t, x), wall, first))
    return rows


def mujoco_ap3(quick):
    rows = []
    zeta = -math.log(E) / math.sqrt(math.pi ** 2 + math.log(E) ** 2)   # linear e = 0.8
    for h in (1e-3, 1e-4) if quick else (1e-3, 1e-4, 1e-5):
        n = round(3.0 / h)
        for integrator in ("Euler", "RK4"):
            xml = f"""<mujoco><option timestep="{h}" integrator="{integrator}"/>
              <worldbody><geom type="plane" size="5 5 0.1"/><body pos="0 0 0.1"><joint
              type="slide" axis="0 0 1"/><geom type="sphere" size="0.1" mass="1"
              solref="{max(0.005, 2 * h)} {zeta:.6f}" solimp="0.99 0.99 0.001"/></body>
              </worldbody></mujoco>"""
            first, wall, s, _ = _mujoco_rollout(xml, [H0, 0.0], n)
            rows.append(row("AP3", "MuJoCo", f"sphere–plane, {integrator}", f"dt={h:g}",
                            sampled_apex_error(s[:, 1], s[:, 2]), wall, first))
    return rows


def _mujoco_crank(dt):
    import mujoco

    xml = psc.MJCF.format(dt=dt, Ic=psc.CRANK ** 2 / 12, Ir=psc.ROD ** 2 / 12,
                          solref=f'solref="{2 * dt:g} 1"')
    model = mujoco.MjModel.from_xml_string(xml)
    bx, by = psc.CRANK * math.cos(psc.THETA0), psc.CRANK * math.sin(psc.THETA0)
    sx = bx + math.sqrt(psc.ROD ** 2 - by ** 2)
    psi = math.atan2(-by, sx - bx)
    n = round(psc.T_END / dt)

    def call():
        data = mujoco.MjData(model)
        data.qpos[:] = [psc.THETA0, psi - psc.THETA0, sx - 0.4]
        mujoco.mj_step(model, data, nstep=n)
        return math.degrees(data.qpos[0])
    return call


def mujoco_ap4(quick):
    reference = _mujoco_crank(1e-5)()
    rows = []
    for dt in (1e-3,) if quick else (1e-3, 3e-4, 1e-4):
        first, wall, angle = mj.timed(_mujoco_crank(dt))
        rows.append(row("AP4", "MuJoCo", "RK4, stiff connect (solref 2·dt)", f"dt={dt:g}",
                        abs(angle - reference), wall, first))
    return rows, reference


# ---------------------------------------------------------------- Exudyn
def _exudyn_system(build, h, t_end, discontinuous=False):
    import exudyn as exu

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    sensors = build(mbs)
    mbs.Assemble()
    settings = exu.SimulationSettings()
    settings.timeIntegration.numberOfSteps = round(t_end / h)
    settings.timeIntegration.endTime = t_end
    settings.timeIntegration.verboseMode = 0
    settings.solutionSettings.writeSolutionToFile = False
    settings.solutionSettings.sensorsWritePeriod = h
    settings.timeIntegration.newton.useModifiedNewton = True
    if discontinuous:
        settings.timeIntegration.discontinuous.iterationTolerance = 1e-8
        settings.timeIntegration.discontinuous.maxIterations = 5

    def run():
        mbs.SolveDynamic(settings, showHints=False)
        return [mbs.GetSensorStoredData(s) for s in sensors]
    return run


def _exudyn_block(mbs, friction, force=None, stiffness=0.0, belt=0.0):
    import exudyn as exu
    from exudyn.itemInterface import (
        LoadCoordinate,
        MarkerNodeCoordinate,
        Mass1D,
        Node1D,
        NodeGenericData,
        NodePointGround,
        ObjectConnectorCoordinateSpringDamper,
        ObjectConnectorCoordinateSpringDamperExt,
        SensorNode,
    )
    ground = mbs.AddMarker(MarkerNodeCoordinate(
        nodeNumber=mbs.AddNode(NodePointGround(referenceCoordinates=[0, 0, 0])), coordinate=0))
    node = mbs.AddNode(Node1D(referenceCoordinates=[0], initialCoordinates=[0],
                              initialVelocities=[0]))
    mbs.AddObject(Mass1D(nodeNumber=node, physicsMass=1.0))
    block = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=node, coordinate=0))
    surface = ground
    if belt:                                           # a 1e12 kg belt at `belt` m/s
        bnode = mbs.AddNode(Node1D(referenceCoordinates=[0], initialCoordinates=[0],
                                   initialVelocities=[belt]))
        mbs.AddObject(Mass1D(nodeNumber=bnode, physicsMass=1e12))
        surface = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=bnode, coordinate=0))
    data = mbs.AddNode(NodeGenericData(initialCoordinates=[0, 0, 0],
                                       numberOfDataCoordinates=3))
    mbs.AddObject(ObjectConnectorCoordinateSpringDamperExt(           # bristle friction
        markerNumbers=[surface, block], nodeNumber=data, fDynamicFriction=friction,
        stickingStiffness=1e6, stickingDamping=2e3, frictionProportionalZone=0.0))
    if stiffness:
        mbs.AddObject(ObjectConnectorCoordinateSpringDamper(markerNumbers=[ground, block],
                                                            stiffness=stiffness))
    if force is not None:
        mbs.AddLoad(LoadCoordinate(markerNumber=block, load=0.0,
                                   loadUserFunction=lambda mbs, t, load: force(t)))
    return [mbs.AddSensor(SensorNode(nodeNumber=node, storeInternal=True, writeToFile=False,
                                     outputVariableType=exu.OutputVariableType.Coordinates))]


def _ap1_load_float(t):
    return 0.0 if t < 0.5 else (0.6 if t < 1.0 else 0.45 + 0.04 * math.sin(10 * math.pi * t))


def exudyn_ap1(quick):
    rows = []
    for h in (1e-2, 1e-3) if quick else (1e-2, 1e-3, 1e-4):
        run = _exudyn_system(lambda mbs: _exudyn_block(mbs, 0.5, force=_ap1_load_float),
                             h, 10.0)
        first, wall, (x,) = mj.timed(run)
        rows.append(row("AP1", "Exudyn", "bristle friction, gen.-α", f"dt={h:g}",
                        abs(x[-1, 1] - mj.AP1_EXACT), wall, first))
    return rows


def exudyn_ap2(quick):
    rows = []
    for h in (1e-3,) if quick else (1e-3, 1e-4):
        run = _exudyn_system(lambda mbs: _exudyn_block(mbs, 1.0, stiffness=1.0, belt=0.5),
                             h, 20.0)
        first, wall, (x,) = mj.timed(run)
        rows.append(row("AP2", "Exudyn", "bristle friction, gen.-α", f"dt={h:g}",
                        cycle_error(x[:, 0], x[:, 1]), wall, first))
    return rows


def _exudyn_ball(mbs):
    import exudyn as exu
    from exudyn.itemInterface import (
        LoadCoordinate,
        MarkerNodeCoordinate,
        Mass1D,
        Node1D,
        NodeGenericData,
        NodePointGround,
        ObjectContactCoordinate,
        SensorNode,
    )
    ground = mbs.AddMarker(MarkerNodeCoordinate(
        nodeNumber=mbs.AddNode(NodePointGround(referenceCoordinates=[0, 0, 0])), coordinate=0))
    node = mbs.AddNode(Node1D(referenceCoordinates=[0], initialCoordinates=[H0],
                              initialVelocities=[0]))
    mbs.AddObject(Mass1D(nodeNumber=node, physicsMass=1.0))
    ball = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=node, coordinate=0))
    mbs.AddLoad(LoadCoordinate(markerNumber=ball, load=-G))
    data = mbs.AddNode(NodeGenericData(initialCoordinates=[0, 0], numberOfDataCoordinates=2))
    mbs.AddObject(ObjectContactCoordinate(markerNumbers=[ground, ball], nodeNumber=data,
                                          contactStiffness=1e6, restitutionCoefficient=E,
                                          impactModel=2, minimumImpactVelocity=1e-3))
    kinds = (exu.OutputVariableType.Coordinates, exu.OutputVariableType.Coordinates_t)
    return [mbs.AddSensor(SensorNode(nodeNumber=node, storeInternal=True, writeToFile=False,
                                     outputVariableType=kind)) for kind in kinds]


def exudyn_ap3(quick, notes):
    import exudyn as exu

    rows = []
    for h in (1e-3, 1e-4) if quick else (1e-3, 1e-4, 1e-5):
        run = _exudyn_system(_exudyn_ball, h, 3.0, discontinuous=True)
        try:
            first, wall, (p, v) = mj.timed(run)
        except exu.SolverError:
            notes.append(f"Exudyn AP3 (ContactCoordinate, K = 1e6 N/m, Gonthier model, "
                         f"dt = {h:g}): SolveDynamic failed — no row; the model here is "
                         "likely set up wrongly here (not investigated), not a verdict on Exudyn.")
            continue
        rows.append(row("AP3", "Exudyn", "contact, Gonthier e-model, gen.-α", f"dt={h:g}",
                        sampled_apex_error(p[:, 1], v[:, 1]), wall, first))
    return rows


# ---------------------------------------------------------------- report
