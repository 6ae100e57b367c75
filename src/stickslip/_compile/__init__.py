"""Compiled programs: stickslip's program store and its JAX compile-cache settings.

:mod:`.store` — :class:`~.store.ProgramStore`: compiled programs kept on disk, keyed by what
their trace reads (the model's structure), checked on load (header, checksum, recorded key),
safe for processes filling one directory at once. stickslip's own instance, with its
fingerprint of models, is :data:`stickslip.integrate._program_store.STORE`.

:mod:`.jax_cache` — where the store lives (``STICKSLIP_JAX_CACHE``) and JAX's persistent
compilation cache, which ``import stickslip`` leaves alone unless ``STICKSLIP_JAX_CACHE_ALL=1``
opts in.

:mod:`.packed` — a run's output samples packed one row per sample (:class:`~.packed.Packed`),
written in one update per sample and unpacked as NumPy views where the result arrives.

:mod:`.options` — the XLA options of every program stickslip compiles itself (XLA's
elemental CPU emitters: about half the compile time), passed per program, never process-wide.

This package imports nothing else of stickslip: the layers above (:mod:`stickslip.integrate`)
hand it what it needs.
"""
