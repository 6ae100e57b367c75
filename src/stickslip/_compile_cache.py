"""JAX's persistent compilation cache, on by default: compiled programs survive the process.

A stickslip run is mostly XLA compile time the first time a model structure is seen (seconds)
and milliseconds after. JAX can keep compiled programs on disk; ``import stickslip`` turns
that on, so the second process that runs the same model (a script run again, a CLI call, a
test worker) loads the program instead of compiling it.

Where: ``$STICKSLIP_JAX_CACHE`` when it names a directory; else the user cache directory
(``platformdirs.user_cache_dir("stickslip")/jax``: ``$XDG_CACHE_HOME/stickslip/jax`` or
``~/.cache/stickslip/jax`` on Linux, ``~/Library/Caches/stickslip/jax`` on macOS,
``%LOCALAPPDATA%\\stickslip\\Cache\\jax`` on Windows). Entries are small (tens of kB to a few
MB each); delete the directory to clear it.

Turn it off with the environment variable ``STICKSLIP_JAX_CACHE=0`` (also ``off``,
``false``, ``no``) before importing stickslip. When JAX's own cache is already configured
(``JAX_COMPILATION_CACHE_DIR`` or ``jax.config.update("jax_compilation_cache_dir", …)``
before the import) stickslip leaves it as it is.

Every program is cached, however small or fast to compile (JAX's defaults skip programs
that compile in under a second, which are most of a small model's): the minimum compile
time is set to 0 s and the minimum entry size to 0 bytes. The cache key covers the
program, JAX/jaxlib versions and the device, so an upgrade never loads a stale program.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

__all__ = ["enable_compile_cache", "compile_cache_dir", "ENV_VAR"]

ENV_VAR = "STICKSLIP_JAX_CACHE"
_OFF = {"0", "off", "false", "no"}
_ON = {"", "1", "on", "true", "yes"}


# JAX reads each config option from the environment variable of its upper-cased name when
# it is first imported; stickslip sets them before that so that `import stickslip` does not
# have to import JAX (the command line starts in a fraction of a second).
_JAX_SETTINGS = {
    "jax_persistent_cache_min_compile_time_secs": 0.0,
    "jax_persistent_cache_min_entry_size_bytes": 0,
}


def compile_cache_dir() -> Path | None:
    """The directory the cache uses now (None when it is off)."""
    jax = sys.modules.get("jax")
    if jax is not None and hasattr(jax, "config"):
        value = jax.config.jax_compilation_cache_dir
    else:
        value = os.environ.get("JAX_COMPILATION_CACHE_DIR")
    return Path(value) if value else None


def _configure(name: str, value) -> None:
    jax = sys.modules.get("jax")
    if jax is not None and hasattr(jax, "config"):
        jax.config.update(name, value)
    else:
        os.environ[name.upper()] = str(value)


def _default_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("stickslip", appauthor=False)) / "jax"


def enable_compile_cache() -> Path | None:
    """Turn the persistent cache on (see the module docstring); returns its directory or
    None when it is off. Called once by ``import stickslip``."""
    setting = os.environ.get(ENV_VAR, "").strip()
    if setting.lower() in _OFF:
        return None
    if compile_cache_dir() is not None:             # the user configured JAX's cache
        return compile_cache_dir()
    path = _default_dir() if setting.lower() in _ON else Path(setting).expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        warnings.warn(f"stickslip could not create its compile cache directory {path} "
                      f"({exc}); compiled programs will not be kept between runs. Set "
                      f"{ENV_VAR} to a writable directory or to 0.", stacklevel=3)
        return None
    _configure("jax_compilation_cache_dir", str(path))
    for name, value in _JAX_SETTINGS.items():
        _configure(name, value)
    return path
