"""The tolerance of one contact channel when a JAX volume run is compared with the numba host
loop on the same arguments (tests/spatial/test_volume_jax_*.py): each test file states its
bounds (a dict with "p", "n", "volume" and "force" entries) and the force scale of its run;
states and the active/stick flags stay with the callers, whose rules differ."""


def contact_tolerance(field: str, bounds: dict, force_scale: float) -> float:
    """The absolute tolerance of contact channel `field` (``px`` … ``volume``, ``fx`` …):
    the contact point [m], the normal, the contact volume [m³], else a force or torque,
    relative to `force_scale`."""
    if field in ("px", "py", "pz"):
        return bounds["p"]
    if field in ("nx", "ny", "nz"):
        return bounds["n"]
    if field == "volume":
        return bounds["volume"]
    return bounds["force"] * force_scale
