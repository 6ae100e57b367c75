"""The shared run options of :meth:`SpatialModel.simulate` (issue 23, item 2): the route a
model runs on, its default step, and the option objects of ``ss.simulate`` (``output=``,
``guard=``, ``steps=``, ``progress=``) each route honours — or refuses by name.

* The link-system route runs on the core (``ss.simulate``): the objects go to it unchanged,
  and it honours all of them as ``ss.simulate`` does.
* The volume routes (the numba host loop, ``engine="jax"``, and ``contact="volume"`` with
  joints) run SPEC §7's fixed Runge–Kutta steps with their own guards (tunnelling, the
  energy balance of :mod:`._volume_host`): they keep every sample in memory and write no
  file, have no thresholds to set, no stability check, projection, tolerances, θ or event
  buffer, and show no bar. An option object that asks for any of that — or the same option
  as a flat keyword (``max_state=``, ``rtol=`` …) — is a `ParameterError` naming the option
  and the route; an empty ``Output()`` / ``Steps()`` and ``progress=False`` ask for nothing
  and are accepted.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..errors import ParameterError
from ..integrate import KNOWN_OPTIONS, merge_options

__all__ = ["DEFAULT_DT", "ROUTES", "default_step", "route_name", "route_options"]

DEFAULT_DT = 1e-3          # [s] the deprecated default step of SpatialModel.simulate

# route key -> how a message names it
ROUTES = {"link": "link-system route (ss.simulate)",
          "volume_links": "volume route with joints (contact='volume', one jitted run)",
          "volume_numba": "volume route (the numba host loop, engine='numba')",
          "volume_jax": "volume route (engine='jax', one jitted run)"}

# why a volume route cannot honour an option, per option
_WHY = {
    "chunk": "it runs in one piece and keeps every sample in memory",
    "stream_to": "it writes no file as it goes; save the Results with res.save(path)",
    "max_state": "its divergence guard is its own (tunnelling and the energy balance of "
                 "SPEC §7's host loop), with no thresholds to set",
    "energy_tol": "its divergence guard is its own (tunnelling and the energy balance of "
                  "SPEC §7's host loop), with no thresholds to set",
    "progress": "it shows no progress bar",
}
_STEPS_WHY = ("it steps with fixed Runge–Kutta steps of dt (method 'rk_gill', 'rk4' or "
              "'euler') and its own checks: no stability check, projection, tolerances, θ or "
              "event buffer")
_OBJECT_OF = {"chunk": "output=Output", "stream_to": "output=Output",
              "max_state": "guard=Guard", "energy_tol": "guard=Guard",
              "progress": "progress"}


def route_name(model, contact, engine) -> str | None:
    """The route `model` runs on (a key of `ROUTES`): the one rule, which
    :func:`._model_routes.route_simulate` dispatches on; None for a `contact` value that
    routing refuses itself."""
    if contact == "point" or (contact is None and model.uses_link_route()):
        return "link"
    if contact == "volume" and model.elements:
        return "volume_links"
    if contact not in (None, "volume"):
        return None
    return "volume_jax" if engine == "jax" else "volume_numba"


def _adaptive(method) -> bool:
    """Whether `method` runs an adaptive step (a diffrax solver object, or a name that is
    neither fixed-step nor exact): there dt=None means "the solver's first step"."""
    if method is None:
        return False
    if not isinstance(method, str):
        return True
    return method in ("tsit5", "dopri5", "kvaerno5")


def default_step(dt, route, method):
    """`dt`, or the deprecated default ``DEFAULT_DT`` with a DeprecationWarning (an adaptive
    method on the link route keeps None: the core chooses its first step)."""
    if dt is not None:
        return dt
    if route == "link" and _adaptive(method):
        return None
    warnings.warn("SpatialModel.simulate: pass dt= explicitly; the default dt=1e-3 s is "
                  "deprecated and a later release requires it.", DeprecationWarning,
                  stacklevel=3)
    return DEFAULT_DT


def route_options(route, options: dict[str, Any], *, output=None, guard=None, steps=None,
                  progress=None) -> dict[str, Any]:
    """The options dict `route` gets: on the link route `options` with the objects added
    unchanged (the core reads them); on a volume route `options` as they are, after refusing
    every option object field, flat option or ``progress=True`` it cannot honour."""
    objects = {k: v for k, v in (("output", output), ("guard", guard), ("steps", steps),
                                 ("progress", progress)) if v is not None}
    if route in ("link", None):
        return {**options, **objects}
    # the objects' types and fields, checked as the core checks them
    asked = merge_options("SpatialModel.simulate", {}, output=output, guard=guard,
                          steps=steps, progress=progress, check_names=False)
    if asked.get("progress") is False:
        del asked["progress"]
    where = {k: (_field(k), f"in {_OBJECT_OF.get(k, 'steps=Steps')}(...)") for k in asked}
    where.update({k: (k, f"the keyword `{k}=`") for k in options if k in KNOWN_OPTIONS})
    if "progress" in where:
        where["progress"] = ("progress=True", "a bar")
    for name, (field, given) in where.items():
        why = _WHY.get(name, _STEPS_WHY)
        raise ParameterError(
            f"`SpatialModel.simulate`: the option `{field}` ({given}) is not honoured by the "
            f"{ROUTES[route]}: {why}. Drop it, or run the model as a link system "
            "(contact='point'), which takes every option of ss.simulate.")
    return options


def _field(name: str) -> str:
    """The option object's field for a flat option name (``check_step`` is ``check``)."""
    return "check" if name == "check_step" else name

