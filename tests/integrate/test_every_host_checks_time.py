"""Every host refuses a bad step or time span the same way (issue 23, item 1).

`ss.simulate` on the core systems, `simulate_batch`, `ss.sweep`, the planar model with and
without an impact stop and with frictional contacts, a spatial link system, the spatial
volume model, the exact routes (``moreau_jean`` on PointOnPlane, TwoBlocksConveyor, 3-D point
contacts and planar contacts; ``events`` in a batch), 3-D point contacts, the JAX and the
jointed volume routes, and the closed loop and host loop (through their ``dt=``; issue 23,
item 2) all run the core's step and span check
(:func:`stickslip.integrate.check_time_arguments`): a bad `dt`, `t_end`, `dt_out` (or the
closed loop's `t0`, `substeps`) raises `ss.errors.ParameterError` naming
``<host>.<argument>``, before the host builds or compiles anything (no JAX trace or compile,
no program-store call). Each case runs under an alarm, so a host that hangs (the planar event
loop did with ``dt=0``) fails instead of blocking the suite.

Plus the regression of item 2: ``ss.sweep``'s vmapped fixed-step runs are labelled with
`simulate`'s output grid (``t_end=1.05, dt_out=0.1`` used to end at 1.1 s).
"""

from __future__ import annotations

import contextlib
import math
import signal

import jax
import numpy as np
import pytest
from models import sliding_block

import stickslip as ss
from stickslip.integrate import _program_store
from stickslip.studies import friction_mass, grid

H = 1e-3                       # a good step [s]
T_END = 0.01                   # a good end time [s]
ALARM = 30.0                   # [s] per case; the check itself takes milliseconds

BAD_DT = [0.0, -H, math.nan, math.inf]
BAD_T_END = [0.0, -1.0, math.nan]
BAD_DT_OUT = [0.0, -H, math.nan, math.inf, 1.5 * H]     # the last: not a multiple of dt


class _Hang(Exception):
    pass


@contextlib.contextmanager
def _alarm(seconds):
    """Raise `_Hang` in the test after `seconds` (SIGALRM; pytest-timeout is not installed)."""
    def ring(signum, frame):
        raise _Hang(f"no answer within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _jax_work(monkeypatch):
    """Collect what JAX and the program store did inside the block: JAX's trace and compile
    events (a compile-cache hit records them too) and the program store's kernel calls."""
    seen: list[str] = []

    def listener(event, *args, **kwargs):
        seen.append(event)

    real_call = _program_store.STORE.call     # every kernel of every host goes through it

    def call(kernel, *args, **kwargs):
        seen.append(f"program store: {getattr(kernel, '__name__', kernel)}")
        return real_call(kernel, *args, **kwargs)

    monkeypatch.setattr(_program_store.STORE, "call", call)
    jax.monitoring.register_event_listener(listener)
    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield seen
    finally:
        jax.monitoring.unregister_event_listener(listener)
        jax.monitoring.unregister_event_duration_listener(listener)


# --- the hosts: small models, built once; each runner takes (t_end, dt, dt_out) -----------

def _ball(stop: bool) -> ss.planar.Model:
    m = ss.planar.Model(gravity=(0.0, -9.81), name="ball")
    ball = m.add_body("ball", mass=0.2, inertia=1e-4, y=1.0)
    if stop:
        m.add(ss.planar.PointLineStop(ball, restitution=0.8, name="floor"))
    return m


def _incline() -> ss.planar.Model:
    m = ss.planar.Model(gravity=(0.0, -9.81), name="incline")
    block = m.add_body("block", mass=2.0, inertia=0.01)
    m.add(ss.planar.PointLineContact(m.ground, block, point_j=(0.0, 0.0),
                                     line_point_i=(0.0, 0.0), line_axis_i=(1.0, 0.0), mu=0.5,
                                     name="slope"))
    return m


def _pendulum(shape=None) -> ss.spatial.SpatialModel:
    m = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("link", mass=1.0, inertia=(0.1, 0.1, 0.01), shape=shape, position=(0, 0, -0.5))
    m.add(ss.spatial.RevoluteJoint("ground", "link", point=(0, 0, 0), axis=(0, 1, 0),
                                   name="hinge"))
    return m


def _box_on_ground() -> ss.spatial.SpatialModel:
    m = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
    m.add_ground(mu_s=0.5, mu_k=0.4)
    m.add_body("box", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1),
               position=(0, 0, 0.2))
    return m


def _hosts():
    block = sliding_block()
    bounce = ss.systems.ContactMass(M=1.0, law=ss.laws.UnilateralODE(K=1e4, beta=1e-3,
                                                                     alpha=1e-3), p0=0.1)
    batch = ss.stack_systems([sliding_block(M=1.0), sliding_block(M=2.0)])
    free, stopped, incline = _ball(False), _ball(True), _incline()
    pendulum, box = _pendulum(), _box_on_ground()
    design = grid(F=[0.5], amplitude=[0.6])
    # the exact routes: time stepping on every host that has it, events in a batch
    rigid = ss.laws.NewtonImpact(e=0.0)
    plane = ss.systems.PointOnPlane(M=1.0, contact=rigid)
    blocks = ss.systems.TwoBlocksConveyor(contacts=(rigid, rigid, rigid),
                                          x0=(0.0, 0.03, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    points = ss.spatial.PointContacts.from_model(_box_on_ground())
    balls = ss.stack_systems([ss.systems.ContactMass(M=1.0, law=ss.laws.NewtonImpact(e=e),
                                                     p0=1.0) for e in (0.5, 0.8)])

    hinged_box = _pendulum(shape=ss.spatial.Box(0.1, 0.1, 0.1))
    hinged_box.add_ground(mu_s=0.5, mu_k=0.4)
    plant = ss.control.MassPlant(M=1.0)
    controller = ss.control.PIDParams(K=100.0, L=0.0, B=1.0, T=H)   # dt = H: one step per T
    stateful = ss.control.PID(K=100.0, L=0.0, B=1.0, T=H)

    def stepped(system):
        return lambda t, dt, o: ss.simulate(system, t, dt=dt, dt_out=o, method="moreau_jean")
    return {
        # host id: (owner named in the messages, runner)
        "FrictionMass": ("simulate", lambda t, dt, o: ss.simulate(block, t, dt=dt, dt_out=o)),
        "FrictionMass_tsit5": ("simulate", lambda t, dt, o: ss.simulate(
            block, t, dt=dt, dt_out=o, method="tsit5")),
        "ContactMass": ("simulate", lambda t, dt, o: ss.simulate(bounce, t, dt=dt, dt_out=o)),
        "simulate_batch": ("simulate_batch", lambda t, dt, o: ss.simulate_batch(
            batch, t, dt=dt, dt_out=o)),
        "sweep": ("sweep", lambda t, dt, o: ss.sweep(friction_mass, design, "max_abs(p)",
                                                     t_end=t, dt=dt, dt_out=o)),
        "planar": ("planar.Model.simulate", lambda t, dt, o: free.simulate(t, dt=dt, dt_out=o)),
        "planar_impact_stop": ("planar.Model.simulate",
                               lambda t, dt, o: stopped.simulate(t, dt=dt, dt_out=o)),
        "planar_contacts": ("planar.Model.simulate",
                            lambda t, dt, o: incline.simulate(t, dt=dt, dt_out=o)),
        "spatial_links": ("SpatialModel.simulate",
                          lambda t, dt, o: pendulum.simulate(t, dt=dt, dt_out=o)),
        "spatial_volume": ("SpatialModel.simulate",
                           lambda t, dt, o: box.simulate(t, dt=dt, dt_out=o)),
        "PointOnPlane_moreau_jean": ("simulate", stepped(plane)),
        "TwoBlocks_moreau_jean": ("simulate", stepped(blocks)),
        "point_contacts_moreau_jean": ("simulate", stepped(points)),
        "planar_contacts_moreau_jean": ("planar.Model.simulate", lambda t, dt, o: incline.simulate(
            t, dt=dt, dt_out=o, method="moreau_jean")),
        "events_batch": ("simulate_batch", lambda t, dt, o: ss.simulate_batch(
            balls, t, dt=dt, dt_out=o, method="events")),
        # issue 23 item 2: the other routes and hosts of the shared signature
        "point_contacts": ("simulate", lambda t, dt, o: points.simulate(t, dt=dt, dt_out=o)),
        "spatial_volume_jax": ("SpatialModel.simulate", lambda t, dt, o: box.simulate(
            t, dt=dt, dt_out=o, engine="jax")),
        "spatial_volume_links": ("SpatialModel.simulate", lambda t, dt, o: hinged_box.simulate(
            t, dt=dt, dt_out=o, contact="volume")),
        "closed_loop": ("simulate_closed_loop", lambda t, dt, o: ss.control.simulate_closed_loop(
            plant, controller, t, dt=dt, dt_out=o)),
        "host_loop": ("simulate_host_loop", lambda t, dt, o: ss.control.simulate_host_loop(
            plant, stateful.step, t, dt=dt, dt_out=o)),
    }


HOST_IDS = ["FrictionMass", "FrictionMass_tsit5", "ContactMass", "simulate_batch", "sweep",
            "planar", "planar_impact_stop", "planar_contacts", "spatial_links",
            "spatial_volume", "PointOnPlane_moreau_jean", "TwoBlocks_moreau_jean",
            "point_contacts_moreau_jean", "planar_contacts_moreau_jean", "events_batch",
            "point_contacts", "spatial_volume_jax", "spatial_volume_links", "closed_loop",
            "host_loop"]
ADAPTIVE = {"FrictionMass_tsit5"}  # dt is the initial step; dt_out need not be a multiple


@pytest.fixture(scope="module")
def hosts():
    built = _hosts()          # the models are built once for the module
    assert list(built) == HOST_IDS
    return built


def _case_list():
    for host in HOST_IDS:
        for dt in BAD_DT:
            yield pytest.param(host, "dt", (T_END, dt, None), id=f"{host}-dt={dt:g}")
        for t_end in BAD_T_END:
            yield pytest.param(host, "t_end", (t_end, H, None), id=f"{host}-t_end={t_end:g}")
        for dt_out in BAD_DT_OUT:
            if host in ADAPTIVE and dt_out == 1.5 * H:
                continue
            yield pytest.param(host, "dt_out", (T_END, H, dt_out),
                               id=f"{host}-dt_out={dt_out:g}")


def _refused(run, owner, argument, monkeypatch):
    with _jax_work(monkeypatch) as work, _alarm(ALARM), \
            pytest.raises(ss.errors.ParameterError) as info:
        run()
    message = str(info.value)
    assert f"`{owner}.{argument}`" in message, message
    assert not work, f"the check came after JAX work: {sorted(set(work))}"


@pytest.mark.parametrize("host, argument, args", list(_case_list()))
def test_bad_time_argument_raises_the_same_named_error_before_any_compile(
        hosts, host, argument, args, monkeypatch):
    owner, run = hosts[host]
    _refused(lambda: run(*args), owner, argument, monkeypatch)


CLOSED_LOOP_CASES = (
    [("t_end", {"t_end": t_end}) for t_end in BAD_T_END]
    + [("t0", {"t0": t0}) for t0 in (math.nan, math.inf)]
    # the closed loop's step is T / substeps (T: the controller's, checked by it)
    + [("substeps", {"substeps": n}) for n in (0, -1, math.nan, math.inf, 1.5)])


@pytest.mark.parametrize("argument, kwargs", CLOSED_LOOP_CASES,
                         ids=[f"{a}={next(iter(k.values())):g}" for a, k in CLOSED_LOOP_CASES])
def test_closed_loop_refuses_a_bad_time_argument_before_any_compile(argument, kwargs,
                                                                    monkeypatch):
    plant = ss.control.MassPlant(M=1.0)
    controllers = [ss.control.PIDParams(K=100.0, L=0.0, B=1.0, T=1e-3),
                   ss.control.PIDParams(K=200.0, L=0.0, B=1.0, T=1e-3)]   # stacked: a batch
    kwargs = {"t_end": T_END, **kwargs}
    t_end = kwargs.pop("t_end")
    _refused(lambda: ss.control.simulate_closed_loop(plant, controllers, t_end, **kwargs),
             "simulate_closed_loop", argument, monkeypatch)


# --- issue 23 item 2: the sweep's time axis is simulate's ----------------------------------

def test_sweep_vmap_time_axis_equals_simulates_when_dt_out_does_not_divide_the_span():
    run = {"t_end": 1.05, "dt": 1e-3, "dt_out": 0.1}
    design = grid(F=[0.3, 0.9], amplitude=[0.6])
    table = ss.sweep(friction_mass, design, "max_abs(p)", trajectories=True, **run)
    assert table.attrs["mode"] == "vmap"
    for i, point in design.iterrows():
        alone = ss.simulate(friction_mass(**point.to_dict()), **run)
        swept = table.loc[i, "trajectory"]
        assert alone.t[-1] == 1.05
        np.testing.assert_array_equal(swept.t, alone.t)       # exactly: one output grid
        np.testing.assert_allclose(swept["p"], alone["p"], rtol=1e-12, atol=1e-15)
