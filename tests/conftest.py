"""Shared test setup: float64 everywhere (importing stickslip enables it) and hypothesis
profiles sized for the 2-core CI machine."""

import os

import jax
import stickslip  # noqa: F401  (enables float64)
from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=200, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

assert jax.config.jax_enable_x64, "stickslip must enable float64 at import"
