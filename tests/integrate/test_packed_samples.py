"""Samples packed into one row per sample (stickslip._compile.packed): the channels come back
exactly as written — every dtype, batch axes kept, on the host and inside a trace — and a
run's program writes one row per sample instead of one update per channel."""

import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from stickslip._compile.packed import Packed, SampleLayout, unpacked
from stickslip.integrate import _program_store
from stickslip.integrate._fixed_step import sample_loop


def _sample(t):
    return {"a": jnp.sin(t), "v": jnp.stack([t, 2 * t, 3 * t]), "status": (t > 0.5).astype(int),
            "flag": t > 0.25, "m": jnp.outer(jnp.arange(2.0), jnp.ones(3)) * t}


def test_channels_come_back_exactly_with_their_dtypes():
    ts = jnp.linspace(0.0, 1.0, 5)
    rows = jax.vmap(lambda t: SampleLayout.of(_sample(t)).row(_sample(t)))(ts)
    layout = SampleLayout.of(jax.eval_shape(_sample, ts[0]))
    assert layout.width == 1 + 3 + 1 + 1 + 6 and layout.dtype == np.float64
    back = Packed(rows, layout).unpack()
    want = jax.vmap(_sample)(ts)
    for k, v in want.items():
        assert back[k].dtype == v.dtype and back[k].shape == v.shape, k
        np.testing.assert_array_equal(back[k], np.asarray(v), err_msg=k)
        assert isinstance(back[k], np.ndarray)
    assert np.may_share_memory(back["a"], back["v"])     # views of one buffer: no copy


def test_leading_batch_axes_and_a_traced_unpack_match_the_host_one():
    layout = SampleLayout.of(jax.eval_shape(_sample, 0.0))
    ts = jnp.linspace(0.0, 1.0, 12).reshape(3, 4)
    rows = jax.vmap(jax.vmap(layout.row))(jax.vmap(jax.vmap(_sample))(ts))
    host = Packed(rows, layout).unpack()
    traced = jax.jit(lambda r: Packed(r, layout).unpack())(rows)
    for k in host:
        assert host[k].shape[:2] == (3, 4), k
        np.testing.assert_array_equal(host[k], np.asarray(traced[k]), err_msg=k)


def test_a_packed_output_survives_the_output_tree_pickle_of_a_stored_program():
    layout = SampleLayout.of((jax.eval_shape(_sample, 0.0), None))
    tree = jax.tree.structure((jnp.zeros(2), Packed(jnp.zeros((4, layout.width)), layout)))
    assert pickle.loads(pickle.dumps(tree)) == tree
    assert layout.child(0).offsets == layout.offsets and layout.child(1).treedef.num_leaves == 0


def _kernel(n, ts):
    out, energy = sample_loop(lambda t: (_sample(t), t * t), (ts,), n)
    return out, energy


def test_the_store_hands_back_channels_and_the_loop_fills_only_valid_slots():
    ts = jnp.linspace(0.0, 1.0, 8)
    out, energy = _program_store.call(_kernel, (), (np.int64(4), ts))
    want = jax.vmap(_sample)(ts)
    for k, v in want.items():
        np.testing.assert_array_equal(out[k][:5], np.asarray(v)[:5], err_msg=k)
        assert not np.any(out[k][5:]), k                 # slots after n_valid: zeros
    np.testing.assert_array_equal(np.asarray(energy)[:5], np.asarray(ts[:5] ** 2))


@pytest.mark.parametrize("sample", [{}, {"only": jnp.ones(())}], ids=["empty", "one"])
def test_an_empty_or_single_sample_packs(sample):
    layout = SampleLayout.of(sample)
    rows = jnp.stack([layout.row(sample)] * 3)
    assert rows.shape == (3, len(sample))
    back = unpacked({"samples": Packed(rows, layout)})["samples"]
    assert back.keys() == sample.keys()
    for k in sample:
        np.testing.assert_array_equal(back[k], np.ones(3))


def test_outputs_computed_where_a_sample_is_taken_come_back_exactly_or_as_zeros():
    # computed_where packs the branch's channels in one row (one zeros kernel where no
    # sample is taken instead of one per channel); every dtype and shape comes back
    from stickslip._compile.traced_once import computed_where

    run = jax.jit(lambda want, t: computed_where(want, _sample, t))
    for t in (0.1, 0.3, 0.7):
        got, want = run(True, t), _sample(jnp.asarray(t))
        for k, v in want.items():
            assert got[k].dtype == v.dtype and got[k].shape == v.shape, k
            np.testing.assert_array_equal(np.asarray(got[k]), np.asarray(v))
        for k, v in run(False, t).items():
            assert v.dtype == want[k].dtype and not np.any(np.asarray(v)), k
    # and the branch with no sample sets the channels in one kernel, not one each
    text = run.lower(True, 0.1).compile().as_text()
    assert text.count(" copy(") <= 1
