"""`_compile.traced_once`: a function whose shapes a program asks for before calling it is
traced in Python once, gives what the plain function gives, and leaves no call in the
program (``inline``: XLA sees the operations as if the function had been called directly)."""

import jax
import jax.numpy as jnp
import numpy as np

from stickslip._compile.traced_once import traced_once


def _program(wrap, calls):
    def run(a, x0):
        def step(t, x):                   # closes over the traced `a`, as a system does
            calls.append(1)
            return x * a + t, {"f": jnp.sin(x[:2]) * a[0]}

        step = wrap(step)
        t0 = jnp.float64(0.0)             # not weakly typed, as the loop's times are
        shapes = jax.eval_shape(step, t0, x0)[1]
        forces = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)

        def body(i, carry):
            x, _ = carry
            return step(t0 + i * 0.1, x)

        return jax.lax.fori_loop(0, 4, body, (x0, forces))
    return run


def test_the_shapes_and_the_loop_share_one_trace_and_give_the_plain_results():
    a, x0 = jnp.array([1.5, 0.5, 2.0]), jnp.arange(3.0)
    plain_calls, once_calls = [], []
    plain = jax.jit(_program(lambda f: f, plain_calls))(a, x0)
    once = jax.jit(_program(traced_once, once_calls))(a, x0)
    assert len(plain_calls) == 2          # eval_shape, then the loop's body
    assert len(once_calls) == 1
    for p, o in zip(jax.tree.leaves(plain), jax.tree.leaves(once)):
        np.testing.assert_array_equal(np.asarray(p), np.asarray(o))


def test_no_call_is_left_in_the_program():
    a, x0 = jnp.array([1.5, 0.5, 2.0]), jnp.arange(3.0)
    inlined = str(jax.make_jaxpr(_program(traced_once, []))(a, x0))
    called = str(jax.make_jaxpr(_program(jax.jit, []))(a, x0))   # a plain inner jit
    assert "name=step" in called
    assert "name=step" not in inlined
