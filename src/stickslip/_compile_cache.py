"""The compile-cache settings, now in :mod:`stickslip._compile.jax_cache` (this module
re-exports its names for the code and tests that import them from here).

JAX's persistent compilation cache is opt-in: ``STICKSLIP_JAX_CACHE_ALL=1`` before importing
stickslip, or :func:`enable_compile_cache`. ``STICKSLIP_JAX_CACHE=<dir>`` moves stickslip's
cache directory (its program store), ``STICKSLIP_JAX_CACHE=0`` turns it off.
"""

from ._compile.jax_cache import ALL_ENV_VAR as ALL_ENV_VAR
from ._compile.jax_cache import ENV_VAR as ENV_VAR
from ._compile.jax_cache import compile_cache_dir as compile_cache_dir
from ._compile.jax_cache import configure_at_import as configure_at_import
from ._compile.jax_cache import enable_compile_cache as enable_compile_cache
from ._compile.jax_cache import jax_cache_dir as jax_cache_dir

__all__ = ["enable_compile_cache", "compile_cache_dir", "jax_cache_dir", "configure_at_import",
           "ENV_VAR", "ALL_ENV_VAR"]
