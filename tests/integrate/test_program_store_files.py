"""The program store's files and JAX's settings (issue 23 item 6): a corrupt, truncated or
foreign entry is detected, removed and compiled again; four processes filling one empty
store at once all succeed and leave a store that a fifth process loads without tracing;
``import stickslip`` leaves JAX's persistent-cache options at JAX's defaults (the cache is
opt-in), and the store's compiles write nothing to JAX's cache when it is on."""

import json
import logging
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.integrate import _program_store
from stickslip.integrate._fixed_step import integrate_padded

SRC = str(Path(__file__).resolve().parents[2] / "src")
STORE_LOG = "stickslip._compile.store"

# the persistent-cache options of JAX that stickslip must leave as JAX sets them
JAX_CACHE_OPTIONS = ("jax_compilation_cache_dir", "jax_enable_compilation_cache",
                     "jax_persistent_cache_min_compile_time_secs",
                     "jax_persistent_cache_min_entry_size_bytes",
                     "jax_compilation_cache_max_size", "jax_raise_persistent_cache_errors")


@pytest.fixture
def store(tmp_path, monkeypatch):
    """An empty store in tmp_path and no compiled run held in memory (a 'new process')."""
    monkeypatch.setattr(_program_store, "store_directory", lambda: tmp_path)
    _program_store.clear_memory()
    yield tmp_path
    _program_store.clear_memory()


def block(omega):
    law = ss.laws.CoulombODE(F=1.0, K=1e3, beta=0.02)
    return ss.systems.FrictionMass(M=1.0, law=law, force=lambda t: 0.3 * jnp.sin(omega * t))


def run(system):
    return ss.simulate(system, 0.1, dt=1e-3, dt_out=1e-2)


def entries(directory: Path) -> list[Path]:
    return sorted(directory.glob("integrate_padded-*.jaxexec"))


def _subprocess_env(cache: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("JAX_") and k != "STICKSLIP_JAX_CACHE_ALL"}
    return {**env, "PYTHONPATH": SRC, "STICKSLIP_JAX_CACHE": str(cache), **extra}


# --- unusable entries -----------------------------------------------------------------------

@pytest.mark.parametrize("damage, reason", [
    ("corrupt", "of another store format"),        # random bytes: no header
    ("truncated", "checksum does not match"),       # the first half of a whole entry
    ("foreign", "stored under another key"),        # a whole entry of another program
])
def test_an_unusable_entry_is_removed_and_compiled_again(store, monkeypatch, caplog, damage,
                                                          reason):
    first = run(block(2.0))
    (path,) = entries(store)
    whole = path.read_bytes()
    if damage == "corrupt":
        bad = np.random.default_rng(0).bytes(len(whole))
    elif damage == "truncated":
        bad = whole[: len(whole) // 2]
    else:
        other = run(block(9.0))
        (other_path,) = set(entries(store)) - {path}
        bad = other_path.read_bytes()
        assert not np.allclose(other["p"], first["p"])
    path.write_bytes(bad)

    # the entry is detected and removed (saving is switched off to see it gone) ...
    monkeypatch.setattr(_program_store.STORE, "save", lambda path, blob: None)
    _program_store.clear_memory()                  # a new process
    traced = ss.integrate.traces(integrate_padded)
    with caplog.at_level(logging.INFO, logger=STORE_LOG):
        again = run(block(2.0))
    assert ss.integrate.traces(integrate_padded) == traced + 1        # compiled again
    np.testing.assert_array_equal(again["p"], first["p"])
    np.testing.assert_array_equal(again.final_state, first.final_state)
    assert not path.exists()
    (record,) = [r for r in caplog.records if str(path) in r.getMessage()]
    assert reason in record.getMessage() and "removed" in record.getMessage()
    assert record.levelno == (logging.INFO if damage == "corrupt" else logging.WARNING)

    # ... and, saving again, compiled and stored anew: the next process loads it
    monkeypatch.undo()
    monkeypatch.setattr(_program_store, "store_directory", lambda: store)
    _program_store.clear_memory()
    path.write_bytes(bad)
    run(block(2.0))
    assert path.read_bytes() != bad
    _program_store.clear_memory()
    traced = ss.integrate.traces(integrate_padded)
    np.testing.assert_array_equal(run(block(2.0))["p"], first["p"])
    assert ss.integrate.traces(integrate_padded) == traced              # loaded


def test_an_entry_with_one_flipped_byte_is_not_run(store):
    """A bit flip inside the executable would still unpickle: the checksum refuses it before
    XLA sees it."""
    first = run(block(2.0))
    (path,) = entries(store)
    blob = bytearray(path.read_bytes())
    blob[len(blob) * 3 // 4] ^= 0x01
    path.write_bytes(bytes(blob))
    _program_store.clear_memory()
    traced = ss.integrate.traces(integrate_padded)
    np.testing.assert_array_equal(run(block(2.0))["p"], first["p"])
    assert ss.integrate.traces(integrate_padded) == traced + 1
    assert path.read_bytes() != bytes(blob)


# --- processes filling one store at once ----------------------------------------------------

WORKER = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    import jax.numpy as jnp
    import stickslip as ss
    from stickslip.integrate._fingerprint import code_versions
    from stickslip.integrate._fixed_step import integrate_padded

    ready, go, omegas = Path(sys.argv[1]), Path(sys.argv[2]), [float(w) for w in sys.argv[3:]]

    def block(omega):
        law = ss.laws.CoulombODE(F=1.0, K=1e3, beta=0.02)
        return ss.systems.FrictionMass(M=1.0, law=law,
                                       force=lambda t: 0.3 * jnp.sin(omega * t))

    systems = [block(w) for w in omegas]
    ready.touch()
    while not go.exists():
        time.sleep(0.005)
    p = {str(w): ss.simulate(s, 0.1, dt=1e-3, dt_out=1e-2)["p"].tolist()
         for w, s in zip(omegas, systems)}
    print(json.dumps({"traces": ss.integrate.traces(integrate_padded), "p": p,
                      "source": code_versions()["stickslip source"]}))
""")


def test_four_processes_fill_one_store_at_once_and_a_fifth_loads_it(tmp_path, store):
    """Each of four processes runs one program all four share (the same key, written by
    whichever compile it first) and one of its own (four keys written at once), all started
    together; then a fifth process runs all five programs without tracing one."""
    worker = tmp_path / "worker.py"
    worker.write_text(WORKER)
    cache = tmp_path / "cache"
    env = _subprocess_env(cache, STICKSLIP_JAX_CACHE_ALL="0")
    shared, own = 2.0, [3.0, 4.0, 5.0, 6.0]
    go = tmp_path / "go"
    ready = [tmp_path / f"ready-{i}" for i in range(4)]
    procs = [subprocess.Popen([sys.executable, str(worker), str(ready[i]), str(go), str(shared),
                               str(own[i])], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(4)]
    try:
        deadline = time.monotonic() + 300
        while not all(r.exists() for r in ready):          # all imported, none compiling
            assert time.monotonic() < deadline, "the workers did not start"
            assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
            time.sleep(0.02)
        go.touch()
        outs = [p.communicate(timeout=600) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
    results = [json.loads(out.strip().splitlines()[-1]) for out, _ in outs]
    sources = {r["source"] for r in results}
    if len(sources) > 1:       # stickslip's source hash is in every key
        pytest.skip("stickslip's source files changed while the workers ran")

    # right: each program's result equals the same run in this process (its own store)
    expected = {w: run(block(w))["p"] for w in [shared, *own]}
    for i, result in enumerate(results):
        assert 1 <= result["traces"] <= 2          # its own program at least; the shared one
        for w in (shared, own[i]):                 # compiled, or loaded if another was first
            np.testing.assert_allclose(result["p"][str(w)], expected[w], rtol=0, atol=1e-14)

    programs = cache / "stickslip-programs"
    assert len(entries(programs)) == 5
    assert not [p for p in programs.iterdir() if p.suffix != ".jaxexec"]    # no temp files
    fifth = subprocess.run([sys.executable, str(worker), str(tmp_path / "ready-5"), str(go),
                            str(shared), *map(str, own)], env=env, capture_output=True,
                           text=True, timeout=600, check=False)
    assert fifth.returncode == 0, fifth.stderr[-3000:]
    result = json.loads(fifth.stdout.strip().splitlines()[-1])
    if result["source"] not in sources:
        pytest.skip("stickslip's source files changed before the fifth process ran")
    assert result["traces"] == 0                   # all five loaded from the store
    for w in [shared, *own]:
        np.testing.assert_allclose(result["p"][str(w)], expected[w], rtol=0, atol=1e-14)
    assert "not used" not in fifth.stderr          # no entry was found unusable


# --- JAX's configuration --------------------------------------------------------------------

PROBE = textwrap.dedent("""
    import json, os, sys
    if sys.argv[1] == "jax first":
        import jax
    import stickslip as ss
    import jax, jax.numpy as jnp
    if sys.argv[1] != "jax alone":
        law = ss.laws.CoulombODE(F=1.0, K=1e3, beta=0.02)
        res = ss.simulate(ss.systems.FrictionMass(M=1.0, law=law,
                                                  force=lambda t: 0.3 * jnp.sin(2.0 * t)),
                          0.1, dt=1e-3, dt_out=1e-2)
    print(json.dumps({"config": {name: getattr(jax.config, name) for name in sys.argv[2:]},
                      "env": sorted(k for k in os.environ if k.startswith("JAX_"))}))
""")


def _probe(tmp_path, order: str, **extra) -> dict:
    env = _subprocess_env(tmp_path / "cache", **extra)
    out = subprocess.run([sys.executable, "-c", PROBE, order, *JAX_CACHE_OPTIONS], env=env,
                         capture_output=True, text=True, timeout=600, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("order", ["stickslip first", "jax first"])
def test_import_leaves_jax_persistent_cache_options_at_their_defaults(tmp_path, order):
    defaults = _probe(tmp_path, "jax alone")["config"]
    after = _probe(tmp_path, order)                # imported, and a run stored (compiled)
    assert after["config"] == defaults
    assert defaults["jax_compilation_cache_dir"] is None
    assert after["env"] == ["JAX_ENABLE_X64"] or (order == "jax first" and after["env"] == [])
    assert entries(tmp_path / "cache" / "stickslip-programs")         # the store was used


def test_the_opt_in_turns_on_jax_cache_and_the_store_writes_nothing_there(tmp_path):
    after = _probe(tmp_path, "stickslip first", STICKSLIP_JAX_CACHE_ALL="1")
    cache = tmp_path / "cache"
    assert after["config"]["jax_compilation_cache_dir"] == str(cache)
    assert after["config"]["jax_persistent_cache_min_compile_time_secs"] == 0.0
    jax_entries = [p.name for p in cache.iterdir() if p.is_file()]
    assert jax_entries                             # JAX kept the small eager programs ...
    assert entries(cache / "stickslip-programs")   # ... the store the run ...
    assert not [n for n in jax_entries if "integrate_padded" in n]   # ... and JAX not the run
