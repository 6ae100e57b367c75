"""JAX's persistent compilation cache (issue 13 item 5): on by default in the user cache
directory, off with STICKSLIP_JAX_CACHE=0, and a second process with a warm cache runs a
model without a single XLA compile and without tracing its run again (the program store,
counted by `ss.integrate.traces`).

An XLA compile is counted from JAX's own monitoring events: each program JAX hands to its
backend records a backend-compile event, and one served by JAX's persistent cache records a
cache hit as well, so compiles = backend-compile events − cache hits. (Cache-miss events
alone undercount: the program store compiles its programs without JAX's cache — it keeps
them itself — so they raise no miss; the slider–crank's every program is the store's.)
A program the store loads from its directory is not handed to the backend at all."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")
TESTS = str(Path(__file__).resolve().parents[1])

# counts the programs handed to XLA's backend and those JAX's persistent cache served while a
# model runs (module docstring); prints them and the compiles (the difference) as JSON
PROBE = textwrap.dedent("""
    import json, sys
    from jax import monitoring
    counts = {"backend": 0, "hits": 0}
    def count(event, **kwargs):
        if event == "/jax/compilation_cache/cache_hits":
            counts["hits"] += 1
    def count_duration(event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            counts["backend"] += 1
    monitoring.register_event_listener(count)
    monitoring.register_event_duration_secs_listener(count_duration)
    import jax, stickslip as ss
    MODEL
    counts["compiles"] = counts["backend"] - counts["hits"]
    counts["dir"] = jax.config.jax_compilation_cache_dir
    counts["traces"] = ss.integrate.traces("integrate_padded")
    print(json.dumps(counts))
""")

FRICTION_MASS = """
from models import sliding_block
res = ss.simulate(sliding_block(), 1.0, dt=1e-3, dt_out=1e-2)
assert res.t[-1] == 1.0
"""

SLIDER_CRANK = """
from stickslip.planar import examples
res = examples.slider_crank().simulate(1.0, dt=1e-3, dt_out=1e-2)
assert res.t[-1] == 1.0
"""


def run_probe(model: str, env: dict) -> dict:
    code = PROBE.replace("MODEL", model.strip())
    full_env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, TESTS]), **env}
    full_env.pop("JAX_COMPILATION_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def check_second_process_compiles_nothing(model, tmp_path):
    env = {"STICKSLIP_JAX_CACHE": str(tmp_path / "jax")}
    cold = run_probe(model, env)
    warm = run_probe(model, env)
    assert cold["dir"] == str(tmp_path / "jax")
    assert cold["compiles"] > 0                     # the first process compiled and stored
    assert warm["compiles"] == 0, warm
    # and without tracing the run again: the program store keeps the lowered kernel
    assert cold["traces"] == 1 and warm["traces"] == 0


def test_second_process_with_a_warm_cache_compiles_nothing(tmp_path):
    # FrictionMass: quick enough for the default suite (the slider–crank variant is slow)
    check_second_process_compiles_nothing(FRICTION_MASS, tmp_path)


@pytest.mark.slow
def test_second_process_runs_the_slider_crank_without_compiling(tmp_path):
    check_second_process_compiles_nothing(SLIDER_CRANK, tmp_path)


def test_opting_in_puts_the_cache_in_the_user_cache_directory_and_0_turns_it_off(
        tmp_path, monkeypatch):
    import jax

    from stickslip import _compile_cache

    before = jax.config.jax_compilation_cache_dir
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    try:
        jax.config.update("jax_compilation_cache_dir", None)
        monkeypatch.setenv("STICKSLIP_JAX_CACHE", "0")
        assert _compile_cache.enable_compile_cache() is None
        assert jax.config.jax_compilation_cache_dir is None
        monkeypatch.delenv("STICKSLIP_JAX_CACHE")
        path = _compile_cache.enable_compile_cache()
        assert path == tmp_path / "xdg" / "stickslip" / "jax" and path.is_dir()
        assert jax.config.jax_compilation_cache_dir == str(path)
        assert jax.config.jax_persistent_cache_min_compile_time_secs == 0.0
        # a cache the user configured is left alone
        assert _compile_cache.enable_compile_cache() == path
    finally:
        jax.config.update("jax_compilation_cache_dir", before)
