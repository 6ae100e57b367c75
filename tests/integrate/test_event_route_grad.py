"""Reverse-mode gradients through the event route (issue 21):
:func:`stickslip.integrate.event_trajectory` — the forward values are ``simulate(...,
method="events")``'s, and ``jax.grad`` gives the closed-form derivatives of the bouncing
ball's apex heights and impact times, and the finite differences of a friction block's
stick/slip times."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.errors import ParameterError
from stickslip.integrate import event_trajectory

G, E, H0 = 9.81, 0.8, 1.0                       # AP3: the bouncing ball


def _ball(e=E, h0=H0):
    return ss.systems.ContactMass(M=1.0, law=ss.laws.NewtonImpact(e=e), g=G, p0=h0)


def _ball_run(e=E, h0=H0):
    return event_trajectory(_ball(e, h0), 3.0, dt=0.1, max_events=8)


# --- the forward values are the route's ------------------------------------------------------

def test_forward_values_equal_the_event_route():
    res = ss.simulate(_ball(), 3.0, method="events", dt=0.1)
    run = _ball_run()
    n = int(run.n_events)
    assert n == len(res.events) == 6
    np.testing.assert_array_equal(np.asarray(run.event_t[:n]), res.events["t"])
    np.testing.assert_array_equal(np.asarray(run.event_x[:n, 1]), res.events["v"])
    np.testing.assert_array_equal(np.asarray(run.ts), res.t)
    np.testing.assert_array_equal(np.asarray(run.xs[:, 0]), res["p"])


# --- AP3: closed forms ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ball_vjp():
    """The ball's run as a function of p = (e, h0) and its reverse-mode derivative
    (``jax.vjp``): ``(values, pullback)``, values = (event_t, event_x); ``pullback(which,
    k, column)`` is the gradient in p of event_t[k] (which "t") or event_x[k, column] ("x").
    One backward program serves every derivative below (a ``jax.grad`` per quantity and
    parameter compiled its own)."""
    def run(p):
        out = _ball_run(e=p[0], h0=p[1])
        return out.event_t, out.event_x

    values, vjp = jax.vjp(run, jnp.asarray([E, H0]))

    def pullback(which, k, column=None):
        t_bar, x_bar = jnp.zeros_like(values[0]), jnp.zeros_like(values[1])
        if which == "t":
            t_bar = t_bar.at[k].set(1.0)
        else:
            x_bar = x_bar.at[k, column].set(1.0)
        return np.asarray(vjp((t_bar, x_bar))[0])

    return values, pullback


@pytest.mark.parametrize("k", [1, 3])
def test_apex_height_derivative_in_restitution_is_the_closed_form(k, ball_vjp):
    # apex after impact k: h_k = v_k⁺²/(2g) = e^(2k)·h0  ⇒  dh_k/de = 2k·e^(2k−1)·h0
    # (dh_k/de = v_k⁺/g · dv_k⁺/de, dv_k⁺/de by reverse mode)
    (_, event_x), pullback = ball_vjp
    v = float(event_x[k - 1, 1])
    value, slope = v ** 2 / (2 * G), v / G * pullback("x", k - 1, 1)[0]
    assert value == pytest.approx(E ** (2 * k) * H0, rel=1e-12)
    assert float(slope) == pytest.approx(2 * k * E ** (2 * k - 1) * H0, rel=1e-8)


@pytest.mark.parametrize("k", [1, 3])
def test_impact_time_derivative_in_drop_height_is_the_closed_form(k, ball_vjp):
    # t_k = t_1 + 2 v_1 e (1 − e^(k−1)) / (g (1 − e)),  t_1 = √(2h0/g),  v_1 = √(2 g h0):
    # dt_k/dh0 = 1/√(2 g h0) + 2 e (1 − e^(k−1)) / ((1 − e) v_1)
    _, pullback = ball_vjp
    slope = float(pullback("t", k - 1)[1])
    v1 = math.sqrt(2 * G * H0)
    exact = 1.0 / v1 + 2 * E * (1 - E ** (k - 1)) / ((1 - E) * v1)
    assert slope == pytest.approx(exact, rel=1e-8)


@pytest.mark.slow


def test_sampled_state_derivative_through_impacts():
    # the sample at t = 1 s lies after the first impact (t_1 = 0.4515 s): p(t) = v⁺τ − gτ²/2
    # with v⁺ = e·v_1 and τ = t − t_1, so dp/de = v_1·τ
    def p_at_one(e):
        run = event_trajectory(_ball(e), 1.0, dt=0.1, max_events=4)
        return run.xs[-1, 0]

    t1, v1 = math.sqrt(2 * H0 / G), math.sqrt(2 * G * H0)
    assert float(jax.grad(p_at_one)(E)) == pytest.approx(v1 * (1.0 - t1), rel=1e-8)


# --- a friction block: stick → slip → stick, against finite differences ------------------------

W, FS, F, BIAS = 2.0, 0.6, 0.5, 0.3


def _block(amplitude):
    law = ss.laws.CoulombODE(F=F, F_s=FS, K=1e4, beta=1e-3)
    return ss.systems.FrictionMass(M=1.0, law=law,
                                   force=lambda t: amplitude * jnp.sin(W * t) + BIAS)


def _forward_event_times(amplitude):
    res = ss.simulate(_block(amplitude), 4.0, method="events", dt=0.05)
    return res.events["t"].to_numpy()


@pytest.mark.slow
def test_stick_slip_times_match_central_differences_of_the_forward_route():
    # starts stuck; breaks loose when A·sin(ωt) + b = F_s, t = asin((F_s − b)/A)/ω (closed
    # form), slides, reverses (slip, slip) and sticks: events 0, 1, 2 = slip, slip, stick
    assert list(ss.simulate(_block(1.0), 4.0, method="events", dt=0.05).events["kind"]) \
        == ["slip", "slip", "stick", "slip"]
    a, delta = 1.0, 1e-5
    central = (_forward_event_times(a + delta) - _forward_event_times(a - delta)) / (2 * delta)
    r = (FS - BIAS) / a
    breakaway = -r / (a * W * math.sqrt(1 - r * r))
    for k in (0, 1, 2):
        slope = float(jax.grad(lambda amp, k=k: event_trajectory(
            _block(amp), 4.0, dt=0.05, max_events=8).event_t[k])(a))
        assert slope == pytest.approx(central[k], rel=1e-6)
        if k == 0:
            assert slope == pytest.approx(breakaway, rel=1e-10)


# --- input checks -----------------------------------------------------------------------------

def test_bad_state_and_host_are_named():
    with pytest.raises(ParameterError, match="event_trajectory.x0"):
        event_trajectory(_ball(), 1.0, dt=0.1, x0=jnp.zeros(3))
    compliant = ss.systems.ContactMass(M=1.0, law=ss.laws.UnilateralODE(K=1e4, beta=1e-3, alpha=5e-4),
                                       g=G, p0=H0)
    with pytest.raises(ParameterError, match="method='events'"):
        event_trajectory(compliant, 1.0, dt=0.1)


def test_a_full_event_buffer_is_reported_and_the_checkpoints_are_budgeted():
    run = event_trajectory(_ball(), 3.0, dt=0.1, max_events=3)
    assert bool(run.overflowed) and int(run.n_events) == 3
    assert not bool(_ball_run().overflowed)
    # a million event rows, each checkpoint holding them: ~1400 × 56 MB, refused up front
    with pytest.raises(ss.errors.MemoryBudgetError, match="event_trajectory"):
        event_trajectory(_ball(), 3.0, dt=0.1, max_events=10**6)
