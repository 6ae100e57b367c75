"""One conformance suite run on every law (STYLE.md, "Elements")."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip._parameters import rules_of
from stickslip.laws import ALL_LAWS, AbstractFrictionLaw

LAWS = pytest.mark.parametrize("cls", ALL_LAWS, ids=lambda c: c.__name__)


def _call(law, state, x, y):
    return law.force_and_rate(state, x, y)


def _inputs(law):
    """A few (input, second input) pairs covering both regimes of every law."""
    if isinstance(law, AbstractFrictionLaw):
        return [(v, 2.0) for v in (-1.0, -1e-4, 0.0, 3e-5, 0.7)]
    return [(gap, rate) for gap in (0.01, 0.0, -1e-4, -0.01) for rate in (-1.0, 0.5)]


@LAWS
def test_example_builds_and_is_a_law(cls):
    law = cls.example()
    assert isinstance(law, ss.laws.AbstractLaw)
    assert law.initial_state().shape == (cls.n_states,)
    assert len(cls.state_names) == cls.n_states


@LAWS
def test_jit_equals_eager(cls):
    law = cls.example()
    state = law.initial_state() + 1e-5
    for x, y in _inputs(law):
        eager = _call(law, state, jnp.asarray(x), jnp.asarray(y))
        jitted = jax.jit(_call)(law, state, jnp.asarray(x), jnp.asarray(y))
        for a, b in zip(eager, jitted):
            np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-14)


@LAWS
def test_vmap_equals_loop(cls):
    law = cls.example()
    xs, ys = map(jnp.asarray, zip(*_inputs(law)))
    states = jnp.tile(law.initial_state(), (len(xs), 1)) + 1e-5
    batched = jax.vmap(_call, in_axes=(None, 0, 0, 0))(law, states, xs, ys)
    for i in range(len(xs)):
        single = _call(law, states[i], xs[i], ys[i])
        for a, b in zip(batched, single):
            np.testing.assert_allclose(a[i], b, rtol=1e-14, atol=1e-14)


@LAWS
def test_outputs_finite_and_shaped(cls):
    law = cls.example()
    for x, y in _inputs(law):
        force, rate = _call(law, law.initial_state(), jnp.asarray(x), jnp.asarray(y))
        assert np.isfinite(force) and np.all(np.isfinite(rate))
        assert np.shape(force) == () and rate.shape == (cls.n_states,)


@LAWS
def test_grad_through_parameters_is_finite(cls):
    law = cls.example()
    x, y = _inputs(law)[-1]

    def force(law):
        return _call(law, law.initial_state() + 1e-5, jnp.asarray(x), jnp.asarray(y))[0]

    grads = jax.grad(force)(law)
    assert all(np.all(np.isfinite(g)) for g in jax.tree.leaves(grads))


@LAWS
@pytest.mark.parametrize("bad", ["negative", "zero", "nan"])
def test_each_parameter_rule_rejects_bad_values(cls, bad):
    law = cls.example()
    fields = {f.name: getattr(law, f.name) for f in dataclasses.fields(law)}
    for name, rule in rules_of(cls).items():
        if fields.get(name) is None:
            continue
        value = {"negative": -1.0, "zero": 0.0, "nan": float("nan")}[bad]
        rule = rule.kind
        if (rule == "finite" and bad != "nan") or (rule == "nonnegative" and bad == "zero"):
            continue     # allowed values for that rule
        kwargs = {k: float(v) for k, v in fields.items() if v is not None}
        kwargs[name] = value
        with pytest.raises(ss.ParameterError, match=rf"`{cls.__name__}\.{name}`"):
            cls(**kwargs)


@LAWS
def test_repr_shows_parameter_values(cls):
    text = repr(cls.example())
    assert text.startswith(cls.__name__ + "(") and "=" in text and "f64" not in text


@pytest.mark.parametrize("cls", [c for c in ALL_LAWS if issubclass(c, ss.laws.AbstractContactLaw)],
                         ids=lambda c: c.__name__)
def test_contact_resting_state_is_an_equilibrium(cls):
    law = cls.example()
    for load in (0.0, 9.81, 250.0):
        gap, state = law.resting_state(jnp.asarray(load))
        force, rate = law.force_and_rate(state, gap, jnp.asarray(0.0))
        assert float(force) == pytest.approx(load, rel=1e-12, abs=1e-12)
        np.testing.assert_allclose(rate, 0.0, atol=1e-12)
