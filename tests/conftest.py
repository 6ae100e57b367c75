"""Shared test setup: float64 everywhere (importing stickslip enables it), JAX's persistent
compilation cache shared by every test process, XLA's classic CPU fusion emitters (below), and
hypothesis profiles sized for the 2-core CI machine.

The compile cache: stickslip's program store is on by default, JAX's persistent cache for
every program is opt-in (:mod:`stickslip._compile.jax_cache`); the suite opts in
(``STICKSLIP_JAX_CACHE_ALL=1``, unless the environment says otherwise), so every pytest
process — a rerun, each ``pytest-xdist`` worker, the subprocesses tests start, which inherit
the variable — loads the programs an earlier one compiled, the many small ones outside the
program store included, instead of compiling them again. Both live in the user cache
directory (``~/.cache/stickslip/jax``). ``STICKSLIP_JAX_CACHE=<dir>`` points the suite at
another directory, ``STICKSLIP_JAX_CACHE=0`` measures the suite cold,
``STICKSLIP_JAX_CACHE_ALL=0`` runs it as a user's process runs by default."""

import os
import pathlib

os.environ.setdefault("STICKSLIP_JAX_CACHE_ALL", "1")
# XLA's classic CPU fusion emitters for every program the suite compiles: the setting
# stickslip already gives the programs it compiles itself (``_compile/options.py``: about
# half the compile time, the same results), here also for the
# programs compiled outside it — eager operations, the tests' own ``jax.jit``, gradients,
# ``vmap``s. Measured 2026-11-26 on the conformance suite and three link-system tests from an
# empty cache: 76–78 s CPU with the default emitters, 53–60 s with these. Read when JAX starts
# its backend (no computation has run yet), inherited by the subprocesses tests start;
# an ``XLA_FLAGS`` that names the option already is left as it is.
if "xla_cpu_use_fusion_emitters" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                               + " --xla_cpu_use_fusion_emitters=false").strip()

import jax  # noqa: E402
import stickslip  # noqa: F401,E402  (enables float64)
from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=200, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

assert jax.config.jax_enable_x64, "stickslip must enable float64 at import"
if os.environ.get("STICKSLIP_JAX_CACHE", "").strip().lower() not in ("0", "off", "false", "no") \
        and os.environ["STICKSLIP_JAX_CACHE_ALL"].strip().lower() in ("1", "on", "true", "yes"):
    assert jax.config.jax_compilation_cache_dir, "the suite opts in to JAX's compile cache"


import pytest  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _free_compiled_programs():
    """Drop the compiled programs held in memory after each test module (the disk caches
    keep them, so a later module that needs one loads it): one process runs the whole suite,
    and it held every program it ever compiled. Measured on tests/planar + tests/spatial
    (2026-11-25, warm caches): peak 4.5 GB without this, 1.9 GB with it, no slower."""
    yield
    from stickslip.integrate import _program_store
    _program_store.clear_memory()
    jax.clear_caches()


_SLOW_FOR_CI = frozenset(
    line.split("#")[0].strip()
    for line in (pathlib.Path(__file__).parent / "slow_tests.txt").read_text().splitlines()
    if line.split("#")[0].strip())


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` the tests listed in ``tests/slow_tests.txt`` (CI's time budget; written
    by ``.ci/slow_tests.py``), before ``-m`` selects: README's command skips them,
    ``-m slow`` runs them."""
    for item in items:
        if item.nodeid in _SLOW_FOR_CI:
            item.add_marker(pytest.mark.slow)
