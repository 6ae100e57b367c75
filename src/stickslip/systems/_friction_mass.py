"""A point mass with friction under an applied force (SPEC §2, eq. 10)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from .._parameters import INITIAL, MASS, NORMAL_FORCE, AbstractParametrised, Rule
from .._validation import check_finite_matrix
from ..errors import ParameterError
from ..integrate import EVENT_METHODS, AbstractEventHost, AbstractTimeSteppingHost, impulse
from ..laws import AbstractFrictionLaw
from .._parameter_arrays import as_parameter
from .._time_functions import Constant, zero_force
from ._base import AbstractSystem, check_law_scalars, check_time_function, finite_modes
from ._event_modes import friction_event
from ._time_stepping import (
    check_friction_step,
    friction_route_refusal,
    implicit_friction,
    time_stepping_law,
)

__all__ = ["FrictionMass"]


def _takes_state(fn: Callable) -> bool:
    """True when `fn` is a force of ``(t, p, v)``, False for a force of ``t`` alone."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):      # builtins, some C callables: a force of t
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return True
    return len([p for p in positional if p.default is p.empty]) >= 3


def _as_time_function(value: Callable | ArrayLike | None) -> Any:
    """A number becomes a constant function of t; callables and None pass through (and so
    does anything else, for the parameter rule to refuse naming the field)."""
    if value is None or callable(value) or isinstance(value, (str, bytes)):
        return value
    return Constant(value)


# The friction law's state rows as FrictionMass channels: CoulombODE's `a` is the offset of
# the body from its proxy [m] (SPEC §2: the proxy sits at p − a), not an acceleration.
_CHANNEL_NAMES = {"a": "proxy_offset"}


class FrictionMass(AbstractSystem, AbstractParametrised, AbstractTimeSteppingHost,
                   AbstractEventHost):
    """A mass on a rough surface, pushed by a force, on a spring and a damper, with the
    surface possibly moving (a belt) (SPEC §2, eq. 10 for `CoulombODE`).

    With ``u(t)`` the surface velocity and ``w = v − u(t)`` the sliding velocity::

        M dv/dt = force(t, p, v) + f(w) − stiffness·(p − anchor) − damping·v,   dp/dt = v

    plus the friction law's own state rows, where ``f`` is the friction force on the mass
    from `law`, driven by the sliding velocity relative to the surface (``−K·sat(F/K, a +
    β·w)`` for `CoulombODE`, eq. 9-10).

    Parameters
    ----------
    M : float
        Mass [kg] > 0.
    law : AbstractFrictionLaw
        Any friction law (`CoulombODE`, `LuGre`, `TanhCoulomb`, …).
    force : callable, optional
        Applied force f_e [N], a callable written with ``jax.numpy`` of the time t [s]
        — ``force=lambda t: ...`` — or of the time and the state — ``force=lambda t, p, v:
        ...`` (position [m], velocity [m/s]); default none. Branch with ``jnp.where``, not
        ``if``: the callable is checked at construction.
    N : float, optional
        Normal force [N] handed to the law (default 1): it sets `LuGre`'s levels
        (F_s = mu_s·N) and the level of a ``CoulombODE(mu=...)``; a ``CoulombODE(F=...)``
        uses its own F.
    p0, v0 : float, optional
        Initial position [m] and velocity [m/s].
    stiffness : float, optional
        Spring from the mass to a fixed `anchor` [N/m] ≥ 0 (default none).
    anchor : float, optional
        Where that spring is relaxed [m] (default 0).
    damping : float, optional
        Viscous damper from the mass to the ground [N·s/m] ≥ 0 (default none).
    surface_velocity : float or callable, optional
        The surface (belt) velocity u [m/s], a number or a callable of t
        (default none: a fixed surface).

    Notes
    -----
    Channels: ``p`` [m], ``v`` [m/s], ``f`` friction force on the mass [N], ``fe`` applied
    force [N], the law's states — ``proxy_offset`` for CoulombODE (``a`` of eq. 10: the
    body's offset from its Coulomb proxy [m]; the proxy sits at ``p − proxy_offset``),
    ``z`` for LuGre [m] — and ``slip`` [m/s]: the sliding velocity of the friction contact
    relative to the surface. For `CoulombODE` it is the proxy's, ``w − da/dt`` — the
    argument of sgn in eq. 8, **exactly 0 while the contact sticks** (the body itself sits
    on the proxy spring and moves by at most F/K while stuck); for other laws it is ``w``.
    With a spring, a damper or a moving surface also ``fs`` (spring plus damper force on
    the mass [N]) and ``u`` (surface velocity [m/s]). ``res["a"]`` still reads
    ``proxy_offset``, with a ``DeprecationWarning`` (a deprecated alias,
    :data:`stickslip.results.DEPRECATED_CHANNELS`: not in ``res.names``, the files or
    ``to_pandas()``; it will be removed).

    Under ``simulate(..., method="moreau_jean")`` (with a `CoulombODE` law) the friction is
    the set-valued Coulomb law of the law's levels, solved exactly at every step
    (:mod:`stickslip.systems._time_stepping`: stick is tried first and kept while the force
    it needs is within the static level): ``slip`` is exactly 0 at every stuck sample,
    ``proxy_offset`` is 0 (there is no proxy), and ``f`` is the mean friction force over
    the step that ended at the sample (over the first step at t0). Under
    ``method="events"`` the same law alternates exact stick and slip phases, each transition
    located in time (:mod:`stickslip.systems._event_modes`; ``Results.events`` rows named
    "friction"), and ``f`` is the friction force at the sample.

    Examples
    --------
    >>> import stickslip as ss, jax.numpy as jnp
    >>> law = ss.laws.CoulombODE.tuned(mass=1.0, K=1e4, F=0.5)   # critically damped proxy
    >>> block = ss.systems.FrictionMass(M=1.0, law=law, force=lambda t: 0.4 * jnp.ones_like(t))
    >>> res = ss.simulate(block, 1.0, dt=1e-4, dt_out=1e-2)
    >>> bool(abs(res["p"]).max() <= 0.4 / 1e4)   # 0.4 N < F = 0.5 N: held by the proxy spring
    True
    >>> belt = ss.systems.FrictionMass(M=1.0, law=law, stiffness=10.0, surface_velocity=0.1,
    ...                                 v0=0.1)
    >>> res = ss.simulate(belt, 0.2, dt=1e-4, dt_out=0.1)
    >>> float(abs(res["slip"][-1])) < 1e-9       # carried along by the belt: stuck to it
    True
    """

    M: jnp.ndarray = eqx.field(converter=as_parameter)
    law: AbstractFrictionLaw
    force: Callable = zero_force
    N: jnp.ndarray = eqx.field(converter=as_parameter, default=1.0)
    p0: jnp.ndarray = eqx.field(converter=as_parameter, default=0.0)
    v0: jnp.ndarray = eqx.field(converter=as_parameter, default=0.0)
    stiffness: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    anchor: jnp.ndarray = eqx.field(converter=as_parameter, default=0.0)
    damping: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    surface_velocity: Callable | None = eqx.field(converter=_as_time_function, default=None)

    parameter_rules: ClassVar[dict[str, Rule]] = {
        "M": MASS, "N": NORMAL_FORCE.but(scalar=True),
        "p0": INITIAL.but(scalar=True), "v0": INITIAL.but(scalar=True),
        "stiffness": Rule("nonnegative", "Pass the spring stiffness in N/m (>= 0).",
                          scalar=True),
        "anchor": Rule("finite", "Pass the spring's anchor position in metres.", scalar=True),
        "damping": Rule("nonnegative", "Pass the damper coefficient in N·s/m (>= 0).",
                        scalar=True)}

    def __check_init__(self):
        if not isinstance(self.law, AbstractFrictionLaw):
            raise ParameterError(
                f"`FrictionMass.law` must be a friction law (CoulombODE, LuGre, TanhCoulomb); "
                f"got {type(self.law).__name__}. Contact laws go in ContactMass.")
        check_law_scalars("FrictionMass", "law", self.law)
        if callable(self.force) and _takes_state(self.force):
            check_time_function("FrictionMass", "force", self.force, (), signature="t, p, v",
                                example_args=(0.0, self.p0, self.v0))
        else:
            check_time_function("FrictionMass", "force", self.force, ())
        if self.surface_velocity is not None:
            check_time_function("FrictionMass", "surface_velocity", self.surface_velocity, ())

    @property
    def _has_belt_terms(self) -> bool:
        return (self.stiffness is not None or self.damping is not None
                or self.surface_velocity is not None)

    @property
    def state_names(self):
        return ("p", "v", *(_CHANNEL_NAMES.get(n, n) for n in self.law.state_names))

    @property
    def units(self):
        return {"p": "m", "v": "m/s", "f": "N", "fe": "N", "a": "m", "proxy_offset": "m",
                "z": "m", "slip": "m/s", "fs": "N", "u": "m/s"}

    def initial_state(self):
        return jnp.concatenate([jnp.stack([self.p0, self.v0]),
                                jnp.zeros(self.law.n_states)])

    def _surface(self, t):
        return 0.0 * t if self.surface_velocity is None else self.surface_velocity(t)

    def _applied(self, t, x):
        return self._applied_pv(t, x[0], x[1])

    def _applied_pv(self, t, p, v):
        if _takes_state(self.force):
            return self.force(t, p, v)
        return self.force(t)

    def _spring(self, x):
        return self._spring_pv(x[0], x[1])

    def _spring_pv(self, p, v):
        fs = 0.0 * p
        if self.stiffness is not None:
            fs = fs - self.stiffness * (p - self.anchor)
        if self.damping is not None:
            fs = fs - self.damping * v
        return fs

    def _friction(self, t, x):
        return self.law.force_and_rate(x[2:], x[1] - self._surface(t), self.N)

    def vector_field(self, t, x):
        f, law_rate = self._friction(t, x)
        acc = (self._applied(t, x) + f + self._spring(x)) / self.M      # eq. 10, first row
        return jnp.concatenate([jnp.stack([x[1], acc]), law_rate])

    def outputs(self, t, x):
        f, law_rate = self._friction(t, x)
        slip = x[1] - self._surface(t)
        if "a" in self.law.state_names:      # CoulombODE: the proxy's velocity (eq. 8)
            i = self.law.state_names.index("a")
            slip = slip - law_rate[i]
        out = {"f": f, "fe": self._applied(t, x), "slip": slip}
        if self._has_belt_terms:
            out.update(fs=self._spring(x), u=self._surface(t))
        return out          # res["a"]: a deprecated alias of proxy_offset (Results.aliases)

    # --- method="moreau_jean" (stickslip.integrate._moreau_jean) -------------------------

    def route_refusal(self, method):
        if method in EVENT_METHODS:
            return friction_event.refusal(self.law)
        return friction_route_refusal(self.law, method)

    def check_time_step(self, dt):
        check_friction_step("FrictionMass", self.law, self.M, self.N, dt)

    def _smooth_force(self, t, p, v):
        """Every force on the mass but friction [N]: applied, spring and damper."""
        return self._applied_pv(t, p, v) + self._spring_pv(p, v)

    def moreau_jean_step(self, t, x, h, theta):
        """θ-method for the smooth forces, linearised at the start of the step (exact for
        the spring and the damper), with the applied load's impulse by quadrature; friction
        fully implicit and exact (:func:`._time_stepping.implicit_friction`)::

            Ŵ·(v⁺ − v) = ∫G(τ, p, v)dτ + h²θ·G_p·v + P,   Ŵ = M − hθ·(G_v + hθ·G_p)
            p⁺ = p + h·(θ·v⁺ + (1 − θ)·v)
        """
        p, v = x[0], x[1]
        t_end = t + h
        smooth_impulse = impulse(lambda tau: self._smooth_force(tau, p, v), t, h)
        g_p, g_v = jax.grad(self._smooth_force, argnums=(1, 2))(t_end, p, v)
        W = self.M - h * theta * (g_v + h * theta * g_p)        # effective mass of the step
        v_free = v + (smooth_impulse + h * h * theta * g_p * v) / W
        u_end = self._surface(t_end)
        w_plus, f = implicit_friction(time_stepping_law(self.law), v_free - u_end, W / h, self.N)
        v_new = u_end + w_plus                                   # = u_end exactly when stuck
        p_new = p + h * (theta * v_new + (1.0 - theta) * v)
        x_new = jnp.concatenate([jnp.stack([p_new, v_new]), jnp.zeros_like(x[2:])])
        return x_new, {"f": f}

    def moreau_jean_outputs(self, t, x, forces):
        out = {"f": forces["f"], "fe": self._applied(t, x), "slip": x[1] - self._surface(t)}
        if self._has_belt_terms:
            out.update(fs=self._spring(x), u=self._surface(t))
        return out

    # --- method="events" (stickslip.integrate._event_route; bodies in ._event_modes) -------

    event_name: ClassVar[str] = "friction"

    def event_mode(self, t, x):
        return friction_event.mode(self, t, x)

    def event_field(self, t, x, mode):
        return friction_event.field(self, t, x, mode)

    def event_guard(self, t, x, mode):
        return friction_event.guard(self, t, x, mode)

    def event_jump(self, t, x, mode):
        return friction_event.jump(self, t, x, mode)

    def event_settle(self, t, x, mode):
        return friction_event.settle(self, t, x, mode)

    def event_outputs(self, t, x, mode):
        return friction_event.outputs(self, t, x, mode)

    def state_bounds(self):
        return {_CHANNEL_NAMES.get(n, n): bound
                for n, bound in self.law.state_bounds(np.asarray(self.N)).items()}

    def linear_modes(self):
        M = check_finite_matrix("FrictionMass", "M", np.asarray(self.M))
        modes = [(f"{type(self.law).__name__} {label}", eig)
                 for label, eig in self.law.linear_modes(M, np.asarray(self.N))]
        if self.stiffness is not None or self.damping is not None:
            k = np.asarray(0.0 if self.stiffness is None else self.stiffness, dtype=float)
            c = np.asarray(0.0 if self.damping is None else self.damping, dtype=float)
            disc = np.sqrt(c ** 2 - 4 * M * k + 0j)
            modes.append(("spring-damper (M s² + c s + k = 0)",
                          np.array([(-c + disc) / (2 * M), (-c - disc) / (2 * M)])))
        return finite_modes("FrictionMass", modes)
