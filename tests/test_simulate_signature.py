"""One `simulate` signature and option set on every host (issue 23, item 2).

For every host — the core ``ss.simulate``, the planar ``Model``, the spatial
``SpatialModel`` on each route, ``PointContacts``, the closed-loop hosts and ``ss.sweep`` —
the shared keywords ``dt, method, dt_out, t0, initial, output, guard, steps, progress`` are
keyword-only, with the core's defaults (``method`` excepted where a host has several routes:
``SpatialModel.simulate(method=None)`` is the route's default, documented there); a small
model on each host gives the same run with the option objects (``ss.Output``, ``ss.Guard``,
``ss.Steps``) as with their flat keywords; an option a route cannot honour is refused by a
ParameterError naming the option and the route. The bad-step/bad-span checks on every host
are in ``tests/integrate/test_every_host_checks_time.py``.
"""

from __future__ import annotations

import inspect
import warnings
from typing import ClassVar

import numpy as np
import pytest

import stickslip as ss

SHARED = ("dt", "method", "dt_out", "t0", "initial", "output", "guard", "steps", "progress")
CORE = {name: p.default for name, p in inspect.signature(ss.simulate).parameters.items()
        if name in SHARED}

HOSTS = {
    "simulate": ss.simulate,
    "planar.Model.simulate": ss.planar.Model.simulate,
    "SpatialModel.simulate": ss.spatial.SpatialModel.simulate,
    "PointContacts.simulate": ss.spatial.PointContacts.simulate,
    "simulate_closed_loop": ss.control.simulate_closed_loop,
    "simulate_host_loop": ss.control.simulate_host_loop,
}
# the hosts with several routes: method=None is the route's default (documented per host)
ROUTE_DEFAULT_METHOD = {"SpatialModel.simulate"}


def _equal(a, b):
    assert a.names == b.names
    for name in a.names:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_core_defaults_are_the_reference():
    assert CORE == {"dt": None, "method": "rk4", "dt_out": None, "t0": None, "initial": None,
                    "output": None, "guard": None, "steps": None, "progress": None}


@pytest.mark.parametrize("host", list(HOSTS))
def test_every_host_has_the_shared_keywords_keyword_only_with_the_core_defaults(host):
    parameters = inspect.signature(HOSTS[host]).parameters
    for name in SHARED:
        assert name in parameters, f"{host} lacks `{name}`"
        assert parameters[name].kind is inspect.Parameter.KEYWORD_ONLY, (host, name)
        expected = None if (name == "method" and host in ROUTE_DEFAULT_METHOD) else CORE[name]
        assert parameters[name].default == expected, (host, name)
    # every host takes ss.simulate's flat keywords too
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()), host


def test_sweep_takes_the_time_keywords_and_forwards_the_rest():
    parameters = inspect.signature(ss.sweep).parameters
    for name in ("dt", "dt_out"):
        assert parameters[name].default is None
    assert parameters["method"].default == "rk4"
    assert parameters["progress"].default is None          # the sweep's own bar
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def test_core_warns_about_an_option_its_route_does_not_read():
    law = ss.laws.CoulombODE(F=1.0, K=1e4, beta=1e-3)
    block = ss.systems.FrictionMass(M=1.0, law=law, v0=0.3)
    with pytest.warns(UserWarning, match=r"ignores `rtol` for method='rk4'"):
        ss.simulate(block, 0.01, dt=1e-3, steps=ss.Steps(rtol=1e-9))


# --- small models, one per host ------------------------------------------------------------

def _ball() -> ss.planar.Model:
    m = ss.planar.Model(gravity=(0.0, -9.81), name="ball")
    m.add_body("ball", mass=0.2, inertia=1e-4, y=1.0)
    return m


def _pendulum(shape=None, ground=False) -> ss.spatial.SpatialModel:
    m = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
    if ground:
        m.add_ground(mu_s=0.5, mu_k=0.4)
    m.add_body("link", mass=1.0, inertia=(0.1, 0.1, 0.01), shape=shape,
               position=(0, 0, 0.5))
    m.add(ss.spatial.RevoluteJoint("ground", "link", point=(0, 0, 1.0), axis=(0, 1, 0),
                                   name="hinge"))
    return m


def _box() -> ss.spatial.SpatialModel:
    m = ss.spatial.SpatialModel(gravity=(0, 0, -9.81))
    m.add_ground(mu_s=0.5, mu_k=0.4)
    m.add_body("box", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    return m


OBJECTS = {"steps": ss.Steps(check=False), "guard": ss.Guard(max_state=1e6),
           "output": ss.Output(chunk=8)}
FLAT = {"check_step": False, "max_state": 1e6, "chunk": 8}


def test_planar_model_takes_the_objects():
    # written against the agreed signature (issue 23 item 2: planar/_model.py)
    ball = _ball()
    _equal(ball.simulate(0.02, dt=1e-3, **OBJECTS), ball.simulate(0.02, dt=1e-3, **FLAT))


def test_spatial_link_route_forwards_the_objects_to_the_core():
    pendulum = _pendulum()
    a = pendulum.simulate(0.02, dt=1e-3, **OBJECTS)
    _equal(a, pendulum.simulate(0.02, dt=1e-3, **FLAT))
    assert a.meta["method"] == "rk4"                       # the link route's default
    with pytest.raises(ss.SimulationError, match="max_state"):
        pendulum.simulate(0.02, dt=1e-3, guard=ss.Guard(max_state=0.1))   # |z| = 0.5 m


def test_point_contacts_take_the_objects_and_positional_dt_is_deprecated():
    points = ss.spatial.PointContacts.from_model(_box())
    a = points.simulate(0.01, dt=1e-3, **OBJECTS)
    _equal(a, points.simulate(0.01, dt=1e-3, **FLAT))
    with pytest.warns(DeprecationWarning, match="pass dt by keyword"):
        _equal(a, points.simulate(0.01, 1e-3, **FLAT))


# --- the volume routes: what they cannot honour is refused by name ------------------------

VOLUME_ROUTES = {
    "volume route (the numba host loop": (_box, {}),
    "volume route (engine='jax'": (_box, {"engine": "jax"}),
    "volume route with joints": (lambda: _pendulum(ss.spatial.Box(0.1, 0.1, 0.1), True),
                                 {"contact": "volume"}),
}
UNHONOURED = [  # (keywords, option named) — each as an object and as its flat keyword
    ({"guard": ss.Guard(max_state=1e6)}, "max_state"),
    ({"max_state": 1e6}, "max_state"),
    ({"steps": ss.Steps(rtol=1e-9)}, "rtol"),
    ({"check_step": False}, "check_step"),
    ({"output": ss.Output(stream_to="run.csv")}, "stream_to"),
    ({"output": ss.Output(chunk=8)}, "chunk"),
    ({"progress": True}, "progress=True"),
]


@pytest.mark.parametrize("route", list(VOLUME_ROUTES))
@pytest.mark.parametrize("kwargs, option", UNHONOURED,
                         ids=[f"{next(iter(k))}-{o}" for k, o in UNHONOURED])
def test_volume_routes_refuse_what_they_cannot_honour_by_name(route, kwargs, option):
    make, extra = VOLUME_ROUTES[route]
    with pytest.raises(ss.ParameterError) as info:
        make().simulate(0.01, dt=1e-3, **extra, **kwargs)
    assert f"`{option}`" in str(info.value) and route in str(info.value), str(info.value)


def test_volume_route_takes_empty_objects_and_warns_about_the_default_step():
    box = _box()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = box.simulate(0.01, dt=1e-3)
        _equal(plain, box.simulate(0.01, dt=1e-3, output=ss.Output(), steps=ss.Steps(),
                                   progress=False))
    with pytest.warns(DeprecationWarning, match="pass dt= explicitly"):
        _equal(plain, box.simulate(0.01))
    assert plain.meta["method"] == "rk_gill"                # the volume route's default


# --- the closed-loop hosts -------------------------------------------------------------------

PLANT = ss.control.MassPlant(M=1.0)
PID = {"K": 100.0, "L": 0.0, "B": 1.0, "T": 1e-3}


def test_closed_loop_hosts_take_dt_and_the_objects():
    loop = ss.control.simulate_closed_loop
    controller = ss.control.PIDParams(**PID)
    old = loop(PLANT, controller, 0.02, 0.01, substeps=4)
    objects = loop(PLANT, controller, 0.02, 0.01, dt=2.5e-4, dt_out=1e-3,
                   steps=ss.Steps(check=True), guard=ss.Guard(max_state=1e6))
    flat = loop(PLANT, controller, 0.02, 0.01, dt=2.5e-4, check_step=True, max_state=1e6)
    _equal(old, objects)
    _equal(objects, flat)
    host = ss.control.simulate_host_loop(PLANT, ss.control.PID(**PID).step, 0.02, 0.01,
                                         dt=2.5e-4, guard=ss.Guard(max_state=1e6))
    np.testing.assert_allclose(host["p"], old["p"], rtol=0, atol=1e-15)
    # initial: continue from Results, as ss.simulate does
    more = loop(PLANT, controller, 0.04, 0.01, substeps=4, initial=old)
    assert more.t[0] == old.t[-1]
    np.testing.assert_array_equal(more["p"][0], old["p"][-1])
    with pytest.raises(ss.SimulationError, match="max_state"):
        loop(PLANT, controller, 0.02, 0.01, substeps=4, guard=ss.Guard(max_state=1e-3))


@pytest.mark.parametrize("kwargs, option", [
    ({"steps": ss.Steps(rtol=1e-9)}, "`rtol`"),
    ({"steps": ss.Steps(projection=True)}, "`projection`"),
    ({"output": ss.Output(chunk=8)}, "`chunk`"),
    ({"chunk": 8}, "`chunk`"),
    ({"progress": True}, "progress=True"),
    ({"dt_out": 2e-3}, "`simulate_closed_loop.dt_out`"),
    ({"dt": 3e-4}, "`simulate_closed_loop.dt`"),
    ({"dt": 2.5e-4, "substeps": 2}, "substeps=2 disagree"),
])
def test_closed_loop_refuses_what_it_cannot_honour_by_name(kwargs, option):
    with pytest.raises(ss.ParameterError, match=option.replace("(", r"\(")) as info:
        ss.control.simulate_closed_loop(PLANT, ss.control.PIDParams(**PID), 0.02, 0.01,
                                        **kwargs)
    assert "simulate_closed_loop" in str(info.value)


# --- ss.sweep ----------------------------------------------------------------------------------

class _Recorder:
    """A model whose simulate records what it was given (the sweep's per-point mode)."""

    seen: ClassVar[list[dict]] = []

    def __init__(self, a):
        self.a = a

    def simulate(self, t_end, *, dt=None, method=None, dt_out=None, t0=None, initial=None,
                 output=None, guard=None, steps=None, progress=None, **options):
        self.seen.append({"output": output, "guard": guard, "steps": steps,
                          "progress": progress, **options})
        t = np.array([0.0, t_end])
        return ss.Results(t, {"p": self.a * t})


def test_sweep_forwards_the_objects_unchanged_to_a_models_simulate():
    _Recorder.seen.clear()
    table = ss.sweep(_Recorder, {"a": [1.0, 2.0]}, {"p_end": lambda r: r["p"][..., -1]},
                     t_end=1.0, dt=0.1, progress=False, **OBJECTS)
    assert table["error"].isna().all() and list(table["p_end"]) == [1.0, 2.0]
    assert len(_Recorder.seen) == 2
    for given in _Recorder.seen:
        for name, obj in OBJECTS.items():
            assert given[name] is obj                       # unchanged: the same object
        assert given["progress"] is None                    # the sweep's bar is its own


def test_sweep_vmapped_chunks_refuse_output_chunk_by_name():
    def build(v0):
        law = ss.laws.CoulombODE(F=1.0, K=1e4, beta=1e-3)
        return ss.systems.FrictionMass(M=1.0, law=law, v0=v0)

    with pytest.raises(ss.ParameterError, match=r"`Output.chunk`.*vmapped"):
        ss.sweep(build, {"v0": [0.1, 0.2]}, "max_abs(p)", t_end=0.1, dt=1e-3,
                 output=ss.Output(chunk=8))
    with pytest.raises(ss.ParameterError, match="`Output.stream_to`"):
        ss.sweep(build, {"v0": [0.1, 0.2]}, "max_abs(p)", t_end=0.1, dt=1e-3,
                 output=ss.Output(stream_to="run.csv"))
