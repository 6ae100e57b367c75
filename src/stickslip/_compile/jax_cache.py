"""Where stickslip keeps compiled programs, and JAX's persistent compilation cache (opt-in).

**stickslip's cache directory.** ``$STICKSLIP_JAX_CACHE`` when it names a directory; else the
user cache directory (``platformdirs.user_cache_dir("stickslip")/jax``:
``$XDG_CACHE_HOME/stickslip/jax`` or ``~/.cache/stickslip/jax`` on Linux,
``~/Library/Caches/stickslip/jax`` on macOS, ``%LOCALAPPDATA%\\stickslip\\Cache\\jax`` on
Windows). ``STICKSLIP_JAX_CACHE=0`` (also ``off``, ``false``, ``no``) turns it off. The
program store (:mod:`stickslip._compile.store`) keeps stickslip's own compiled runs in its
``stickslip-programs/`` folder, so a second process running the same model neither traces
nor compiles them; that needs no JAX setting. Delete the directory to clear it.

**JAX's persistent compilation cache is left alone.** It is a setting of the whole process
(every program of every library in it), so ``import stickslip`` does not touch it: the one
JAX option stickslip changes at import is float64 (``jax_enable_x64``). Opt in with the
environment variable ``STICKSLIP_JAX_CACHE_ALL=1`` (also ``on``, ``true``, ``yes``) before
importing stickslip, or by calling :func:`enable_compile_cache`: JAX's cache then keeps
*every* program of the process in stickslip's cache directory, however small or fast to
compile (minimum compile time 0 s and entry size 0 bytes, where JAX's default skips programs
that compile in under a second). What that adds to the program store: the small programs
stickslip's host code runs eagerly (a ``jnp`` operation outside ``jit``: 8–11 per run, 10–90
ms each to compile) and programs of your own. Measured in a second process (store filled) on
a shared 2-core machine, 2026-11-25: the eq. 10 block, 10 s, 8–9 small programs, 0.14–0.19 s
of compile at load 3 and 0.33–0.38 s at load 5 without the opt-in, 0.02–0.04 s with it;
``stickslip examples run sphere_slip_roll``, 11–12 small programs, 0.15–0.22 s (load 3) and
0.24–0.37 s (load 5) against 0.02–0.07 s. stickslip's own run programs compile in neither
case. The test suite opts in (``tests/conftest.py``). When JAX's cache is already configured
(``JAX_COMPILATION_CACHE_DIR`` or ``jax.config.update("jax_compilation_cache_dir", …)``) the
opt-in leaves it as it is.

Why an opt-in and not a cache scoped to stickslip's programs: JAX holds one persistent cache
per process, opened at the first compile that finds a directory configured and kept until
``jax.experimental.compilation_cache.compilation_cache.reset_cache()``; a directory set only
around stickslip's own compile calls would stay in use for every later compile of the process.
And the programs the opt-in saves are compiled outside stickslip's compile calls (eager
operations) — stickslip's own runs are in the program store either way.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from pathlib import Path

__all__ = ["ENV_VAR", "ALL_ENV_VAR", "compile_cache_dir", "jax_cache_dir",
           "enable_compile_cache", "configure_at_import"]

ENV_VAR = "STICKSLIP_JAX_CACHE"
ALL_ENV_VAR = "STICKSLIP_JAX_CACHE_ALL"
_OFF = {"0", "off", "false", "no"}
_ON = {"", "1", "on", "true", "yes"}

# what the opt-in sets besides the directory (JAX reads each option from the environment
# variable of its upper-cased name when it is first imported: set there when JAX is not
# imported yet, so that `import stickslip` does not have to import it)
_JAX_SETTINGS = {
    "jax_persistent_cache_min_compile_time_secs": 0.0,
    "jax_persistent_cache_min_entry_size_bytes": 0,
}


def compile_cache_dir() -> Path | None:
    """stickslip's cache directory now (None when ``STICKSLIP_JAX_CACHE`` turns it off)."""
    setting = os.environ.get(ENV_VAR, "").strip()
    if setting.lower() in _OFF:
        return None
    if setting.lower() in _ON:
        return _default_dir()
    return Path(setting).expanduser()


def jax_cache_dir() -> Path | None:
    """The directory JAX's persistent cache is configured to use (None when it is off)."""
    jax = sys.modules.get("jax")
    if jax is not None and hasattr(jax, "config"):
        value = jax.config.jax_compilation_cache_dir
    else:
        value = os.environ.get("JAX_COMPILATION_CACHE_DIR")
    return Path(value) if value else None


def enable_compile_cache() -> Path | None:
    """Opt in to JAX's persistent cache for every program of this process (see the module
    docstring); returns its directory, or None when ``STICKSLIP_JAX_CACHE`` turns caching off.

    A cache the user configured for JAX is left as it is (its directory is returned).
    """
    path = compile_cache_dir()
    if path is None:
        return None
    configured = jax_cache_dir()
    if configured is not None:
        return configured
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        warnings.warn(f"stickslip could not create its compile cache directory {path} "
                      f"({exc}); compiled programs will not be kept between runs. Set "
                      f"{ENV_VAR} to a writable directory or to 0.", stacklevel=2)
        return None
    _configure("jax_compilation_cache_dir", str(path))
    for name, value in _JAX_SETTINGS.items():
        _configure(name, value)
    return path


def configure_at_import() -> Path | None:
    """What ``import stickslip`` does with JAX's cache: nothing, unless
    ``STICKSLIP_JAX_CACHE_ALL`` opts in (then :func:`enable_compile_cache`)."""
    if os.environ.get(ALL_ENV_VAR, "").strip().lower() in _ON - {""}:
        return enable_compile_cache()
    return None


def _configure(name: str, value) -> None:
    jax = sys.modules.get("jax")
    if jax is not None and hasattr(jax, "config"):
        jax.config.update(name, value)
    else:
        os.environ[name.upper()] = str(value)


@functools.cache
def _user_cache_dir(xdg: str | None) -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("stickslip", appauthor=False)) / "jax"


def _default_dir() -> Path:
    # keyed by $XDG_CACHE_HOME, which platformdirs reads on Linux (tests move it)
    return _user_cache_dir(os.environ.get("XDG_CACHE_HOME"))
