"""Compiled examples 1 and 2 (SPEC §5) equal the hand-written systems of the core.

Differential test: the inclusion written as on paper (eq. 19, eq. 23-26 with the [fix]es),
compiled by SPEC §4, against `ss.systems.PointOnPlane` / `TwoBlocksConveyor` — same state
names and order, trajectories equal to 1e-10 over the runs of the figures example1_plane
and example2_conveyor (`stickslip figures`).
"""

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

examples = pytest.importorskip("stickslip.inclusion").examples
from stickslip.figures import _example1_plane as fig1  # noqa: E402  (the figure's runs)

TOL = 1e-10


def _assert_same_run(compiled, hand, t_end, pairs=()):
    assert compiled.state_names == hand.state_names
    np.testing.assert_allclose(compiled.initial_state(), hand.initial_state(), rtol=0, atol=0)
    rc = ss.simulate(compiled, t_end, dt=1e-4, dt_out=1e-3)
    rh = ss.simulate(hand, t_end, dt=1e-4, dt_out=1e-3)
    for name in hand.state_names:
        np.testing.assert_allclose(rc[name], rh[name], rtol=0, atol=TOL, err_msg=name)
    for ours, theirs in pairs:
        np.testing.assert_allclose(rc[ours], rh[theirs], rtol=0, atol=TOL, err_msg=ours)
    return rc, rh


def test_point_on_plane_compiled_equals_hand_written_over_the_figure_slide_run():
    # the slide run of figure example1_plane: launched at 1.118 m/s, slides and stops
    rc, _ = _assert_same_run(examples.point_on_plane(M=1.0, v0=fig1.V0),
                             ss.systems.PointOnPlane(M=1.0, v0=fig1.V0), 0.6,
                             pairs=(("f_ax", "fx"), ("f_ay", "fy"), ("f_e", "fz")))
    assert np.hypot(rc["vx"], rc["vy"])[-1] < 1e-6           # it really stopped


def test_point_on_plane_compiled_equals_hand_written_over_the_figure_push_run():
    # the push run of figure example1_plane: a push inside the cone that never moves it
    rc, _ = _assert_same_run(examples.point_on_plane(M=1.0, force=fig1._push),
                             ss.systems.PointOnPlane(M=1.0, force=fig1._push), 3.0,
                             pairs=(("f_ax", "fx"), ("f_ay", "fy"), ("f_e", "fz"),
                                    ("fex", "fex")))
    assert np.hypot(rc["x"], rc["y"]).max() < 0.5 * 9.81 / 1e4


def test_two_blocks_compiled_equals_hand_written_over_the_figure_run():
    # figure example2_conveyor: TwoBlocksConveyor(), 5 s, dt = 1e-4, dt_out = 1e-3
    rc, _ = _assert_same_run(
        examples.two_blocks_conveyor(), ss.systems.TwoBlocksConveyor(), 5.0,
        pairs=(("f_e1", "f_wall"), ("f_e2", "f_blocks"), ("f_e3", "f_belt"),
               ("f_a1", "fr_wall"), ("f_a2", "fr_blocks"), ("f_a3", "fr_belt")))
    assert rc["f_e1"].max() > 1.0 and np.ptp(rc["p1y"]) > 1e-3   # contacts and sliding happen


@pytest.mark.slow
def test_two_blocks_with_stages_traced_once_equal_to_round_off():
    compiled = ss.inclusion.compile_inclusion(examples.two_blocks_conveyor(compiled=False),
                                              K={"dio": 1e5, "sgn": 1e4},
                                              beta={"dio": 2e-3, "sgn": 2e-2},
                                              trace_stages_once=True)
    assert type(compiled).trace_stages_once
    _assert_same_run(compiled, ss.systems.TwoBlocksConveyor(), 5.0)


@pytest.mark.slow
def test_two_blocks_equal_with_other_parameters_and_per_instance_constants():
    laws = dict(contacts=tuple(ss.laws.UnilateralODE(K=K, beta=2e-3, alpha=1e-3)
                               for K in (1e5, 2e5, 1e5)),
                frictions=(ss.laws.CoulombODE(mu=0.2, K=1e4, beta=2e-2),
                           ss.laws.CoulombODE(mu=0.4, K=2e4, beta=1e-2),
                           ss.laws.CoulombODE(mu=0.6, K=1e4, beta=2e-2)))
    hand = ss.systems.TwoBlocksConveyor(M1=1.5, u=0.2, **laws)
    di = examples.two_blocks_conveyor(M1=1.5, u=0.2, mu=(0.2, 0.4, 0.6), compiled=False)
    compiled = ss.inclusion.compile_inclusion(
        di, K={"dio": 1e5, "sgn": 1e4}, beta={"dio": 2e-3, "sgn": 2e-2}, alpha=1e-3,
        overrides={"e2": dict(K=2e5), "v1y - v2y": dict(K=2e4, beta=1e-2)})
    _assert_same_run(compiled, hand, 1.0)


def _state_strategy(n):
    from hypothesis import strategies as st

    return st.lists(st.floats(-0.05, 0.05, allow_nan=False), min_size=n, max_size=n)


@pytest.fixture(scope="module")
def two_block_fields():
    import equinox as eqx

    compiled, hand = examples.two_blocks_conveyor(), ss.systems.TwoBlocksConveyor()
    field = eqx.filter_jit(lambda s, x: s.vector_field(jnp.asarray(0.0), x))
    return lambda x: (field(compiled, x), field(hand, x))


def test_two_blocks_vector_fields_agree_at_arbitrary_states(two_block_fields):
    # every regime (penetrating or not, stuck or sliding proxies) at random states
    from hypothesis import given, settings

    @settings(max_examples=60, deadline=None)
    @given(_state_strategy(14))
    def check(values):
        x = jnp.asarray(values) * jnp.asarray([1.0] * 4 + [100.0] * 4 + [0.01] * 6)
        ours, theirs = two_block_fields(x)
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-9)

    check()


def test_compiled_forces_respect_dio_and_the_friction_bound_at_arbitrary_states():
    # SPEC §3-§4 invariants of the compiled laws: contact forces >= 0, |friction| <= χ
    import equinox as eqx
    from hypothesis import given, settings

    system = examples.two_blocks_conveyor()
    outputs = eqx.filter_jit(lambda s, x: s.outputs(jnp.asarray(0.0), x))
    mus = {"f_a1": ("f_e1", 0.3), "f_a2": ("f_e2", 0.3), "f_a3": ("f_e3", 0.5)}

    @settings(max_examples=60, deadline=None)
    @given(_state_strategy(14))
    def check(values):
        x = jnp.asarray(values) * jnp.asarray([1.0] * 4 + [100.0] * 4 + [0.01] * 6)
        out = {k: float(v) for k, v in outputs(system, x).items()}
        for friction, (contact, mu) in mus.items():
            assert out[contact] >= 0.0
            assert abs(out[friction]) <= mu * out[contact] * (1 + 1e-12) + 1e-12

    check()
