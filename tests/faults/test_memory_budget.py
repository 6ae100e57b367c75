"""Memory budgets (issue 25, item 3): a run, batch or design that would hold more than the
budget is refused before anything is allocated, with the estimate and the fix; a YAML spec
cannot expand without bound through its aliases.

Nothing here allocates gigabytes: the refusals happen before allocation (checked with
tracemalloc, which sees NumPy's buffers), and the cases that must fit use small budgets set
through ``STICKSLIP_MEMORY_BUDGET``.
"""

from __future__ import annotations

import re
import time
import tracemalloc

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.errors import MemoryBudgetError, ParameterError
from stickslip.integrate import _memory, _runners
from stickslip.studies import grid, latin_hypercube, load_spec, random_sample

BUDGET = "STICKSLIP_MEMORY_BUDGET"


def block(F=1.0):
    return ss.systems.FrictionMass(M=1.0, law=ss.laws.CoulombODE(F=F, K=1e4, beta=1e-3))


@pytest.fixture
def budget(monkeypatch):
    def set_budget(value):
        monkeypatch.setenv(BUDGET, value)
    set_budget("4GB")
    return set_budget


def refused_without_allocating(call, limit=64e6):
    """The MemoryBudgetError `call` raises, checked to have cost less than `limit` bytes
    of host memory on the way."""
    tracemalloc.start()
    try:
        with pytest.raises(MemoryBudgetError) as info:
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit, f"{peak / 1e6:.0f} MB allocated before the refusal"
    return str(info.value)


# --- simulate ---------------------------------------------------------------------------

def test_every_step_of_a_long_run_is_refused_before_allocating(budget):
    # t_end = 1e4 s at dt = 1e-5 s, every step kept: 1e9 samples (≈ 41 GB)
    message = refused_without_allocating(
        lambda: ss.simulate(block(), 1e4, dt=1e-5, check_step=False))
    assert "1e+09 samples" in message and "4 GB" in message
    assert "dt_out=" in message and "initial=res" in message and BUDGET in message


def test_the_dt_out_a_refusal_suggests_fits_the_budget(budget):
    budget("20MB")
    with pytest.raises(MemoryBudgetError) as info:
        ss.simulate(block(), 50.0, dt=1e-4)                # 5e5 samples: 20 MB of states
    dt_out = float(re.search(r"dt_out=([0-9.e+-]+) s", str(info.value)).group(1))
    res = ss.simulate(block(), 50.0, dt=1e-4, dt_out=dt_out)     # the advice, followed
    assert res.t[-1] == 50.0 and res.t.size * len(res.names) * 8 < 20e6


def test_a_differentiable_trajectory_of_1e9_steps_is_refused(budget):
    message = refused_without_allocating(lambda: ss.integrate.trajectory(block(), 1e4, 1e-5))
    assert "`trajectory`" in message and "dt_out=" in message


def test_an_adaptive_run_with_a_tiny_dt_out_is_refused(budget):
    message = refused_without_allocating(
        lambda: ss.simulate(block(), 1e4, method="tsit5", dt_out=1e-6))
    assert "1e+10 samples" in message and "dt_out=" in message


def test_an_event_buffer_beyond_the_budget_is_refused(budget):
    ball = ss.systems.ContactMass(M=1.0, law=ss.laws.NewtonImpact(e=0.5), p0=1.0)
    message = refused_without_allocating(
        lambda: ss.simulate(ball, 1.0, dt=1e-3, method="events", max_events=10**9))
    assert "max_events" in message


# --- simulate_batch ---------------------------------------------------------------------

def test_a_batch_of_a_million_members_is_refused_before_allocating(budget):
    two = ss.stack_systems([block(1.0), block(2.0)])
    dynamic, static = eqx.partition(two, eqx.is_array)
    many = jax.tree.map(lambda x: jnp.broadcast_to(x[:1], (10**6,) + x.shape[1:]), dynamic)
    stacked = eqx.combine(many, static)
    message = refused_without_allocating(
        lambda: ss.simulate_batch(stacked, 1.0, dt=1e-3, check_step=False))
    assert "1,000,000 members" in message and "members fit in one call" in message


def test_a_batch_refusal_names_the_members_that_fit(budget):
    budget("2MB")
    systems = [block(1.0 + 0.1 * i) for i in range(100)]
    with pytest.raises(MemoryBudgetError, match=r"about \d+ of its 100 members fit"):
        ss.simulate_batch(systems, 1.0, dt=1e-3)


def test_a_long_batch_runs_in_calls_and_equals_one_call(monkeypatch):
    systems = [block(0.5), block(1.5), block(3.0)]
    whole = ss.simulate_batch(systems, 0.7, dt=1e-3, dt_out=2e-3)
    # calls of 64 outputs: the batch's states above ~1 kB per call
    monkeypatch.setattr(_runners, "_BATCH_CALL_BYTES", 1024)
    assert _runners.batch_capacity(ss.integrate.step_grid(0.0, 0.7, 1e-3, 2e-3), 3, 3) \
        == (64, 64)
    parts = ss.simulate_batch(systems, 0.7, dt=1e-3, dt_out=2e-3)
    np.testing.assert_array_equal(parts.t, whole.t)
    for name in whole.names:
        np.testing.assert_allclose(parts[name], whole[name], rtol=1e-12, atol=1e-12)


# --- designs and spec files -------------------------------------------------------------

def test_a_grid_of_1e8_points_is_refused_before_allocating(budget):
    message = refused_without_allocating(lambda: grid(a=range(10**4), b=range(10**4)))
    assert "100,000,000 points" in message and "10,000 × 10,000" in message


@pytest.mark.parametrize("sample", [random_sample, latin_hypercube])
def test_a_sample_of_1e9_points_is_refused_before_allocating(budget, sample):
    message = refused_without_allocating(lambda: sample(10**9, seed=0, F=(0.0, 1.0)))
    assert "1,000,000,000 points" in message


SPEC = """model: friction_mass
simulate: {t_end: 1.0, dt: 1.0e-3}
outputs: [stick_fraction]
"""


def test_a_spec_asking_for_1e9_samples_is_refused_at_its_line(budget, tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_text(SPEC + "parameters:\n  F: {low: 0.1, high: 0.5}\ndesign: random\n"
                           "samples: 1e9\n")
    message = refused_without_allocating(lambda: load_spec(path))
    assert f"{path}:7: `samples`" in message and "1,000,000,000 points" in message


def test_a_spec_grid_of_1e8_points_is_refused_before_its_axes_are_made(budget, tmp_path):
    path = tmp_path / "grid.yaml"
    path.write_text(SPEC + "parameters:\n  F: {low: 0.1, high: 0.5, num: 10000}\n"
                           "  M: {low: 1.0, high: 2.0, num: 10000}\n")
    message = refused_without_allocating(lambda: load_spec(path))
    assert "`parameters`" in message and "100,000,000 points" in message


def test_a_billion_laughs_spec_is_refused_quickly(tmp_path):
    laughs = "lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"lol{k}: &l{k} [" + ", ".join([f"*l{k - 1}"] * 9) + "]\n" for k in range(1, 10))
    path = tmp_path / "laughs.yaml"
    path.write_text(SPEC + "parameters:\n  F: [0.2]\n" + laughs)
    start = time.perf_counter()
    with pytest.raises(ss.studies.SpecError, match="expands to more than 100,000 values"):
        load_spec(path)
    assert time.perf_counter() - start < 5.0


# --- the budget ---------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("8GB", 8e9), ("512MiB", 512 * 2 ** 20), ("2e9", 2e9), ("1.5 kB", 1500.0),
    ("off", float("inf")), ("0", float("inf"))])
def test_the_budget_variable_takes_sizes_and_off(monkeypatch, text, expected):
    monkeypatch.setenv(BUDGET, text)
    assert _memory.memory_budget()[0] == expected


def test_the_default_budget_is_half_the_available_memory(monkeypatch):
    monkeypatch.delenv(BUDGET, raising=False)
    monkeypatch.setattr(_memory, "available_memory", lambda: 10_000_000_000)
    value, source = _memory.memory_budget()
    assert value == 5e9 and "50% of the 10 GB available" in source
    monkeypatch.setenv(BUDGET, "80%")
    assert _memory.memory_budget()[0] == 8e9


@pytest.mark.parametrize("text", ["lots", "8 parsecs", "-1GB", "150%", "0%"])
def test_a_bad_budget_variable_is_named(monkeypatch, text):
    monkeypatch.setenv(BUDGET, text)
    with pytest.raises(ParameterError, match=BUDGET):
        ss.simulate(block(), 0.01, dt=1e-3)


def test_the_refusal_is_a_memory_error_exported_with_the_others():
    assert issubclass(ss.MemoryBudgetError, MemoryError)
    assert issubclass(ss.MemoryBudgetError, ss.StickslipError)
    assert "MemoryBudgetError" in ss.errors.__all__


# --- the spatial volume route (host loop) ------------------------------------------------

def _box_on_ground():
    model = ss.spatial.SpatialModel()
    model.add_body("box", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    model.add_ground(mu_s=0.5, mu_k=0.3)
    return model


def test_a_long_spatial_volume_run_is_refused_before_allocating(budget):
    # every step of 1e4 s at dt = 1e-5 s kept: 1e9 samples of 29 channels
    message = refused_without_allocating(lambda: _box_on_ground().simulate(1e4, dt=1e-5))
    assert "SpatialModel.simulate" in message and "dt_out=" in message


def test_sparse_samples_of_a_long_spatial_run_store_nothing_per_step(budget):
    # 1e9 steps, 11 samples: nothing per step may be stored before the loop starts (a list of
    # step sizes was 8 GB); the run is stopped at its first sample by a force callable
    class Stop(Exception):
        pass

    def stop(t, states):
        if t > 0.0:
            raise Stop
        return {}

    tracemalloc.start()
    try:
        with pytest.raises(Stop):
            _box_on_ground().simulate(1e4, dt=1e-5, dt_out=1e3, forces=stop)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64e6
