"""A point mass above a rigid wall, under gravity (SPEC §3, eq. 16)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .._parameters import GRAVITY, INITIAL, MASS, AbstractParametrised, Rule
from .._validation import check_finite_matrix
from ..errors import ParameterError
from ..integrate import (
    EVENT_METHODS,
    TIME_STEPPING_METHODS,
    AbstractEventHost,
    AbstractTimeSteppingHost,
    impulse,
)
from ..laws import AbstractContactLaw, HuntCrossley, NewtonImpact
from .._parameter_arrays import as_parameter
from .._time_functions import zero_force
from ._base import AbstractSystem, check_law_scalars, check_time_function
from ._event_modes import contact_event

__all__ = ["ContactMass"]


class ContactMass(AbstractSystem, AbstractParametrised, AbstractTimeSteppingHost,
                  AbstractEventHost):
    """A mass moving along p above a rigid wall at p ≤ 0, under gravity (SPEC §3, eq. 16).

    ``M dv/dt = force(t) + f − M g``,  ``dp/dt = v``, plus the contact law's state rows,
    where ``f`` ≥ 0 is the contact force on the mass (eq. 15b for `UnilateralODE`).

    Parameters
    ----------
    M : float
        Mass [kg] > 0.
    law : AbstractContactLaw
        Any contact law (`UnilateralODE`, `KelvinVoigt`, `HuntCrossley`) for the ODE
        methods; `NewtonImpact` (rigid, with restitution) for ``method="moreau_jean"`` and
        ``method="events"``.
    g : float, optional
        Gravitational acceleration towards the wall [m/s²] (default 9.81; 0 for none).
    p0, v0 : float, optional
        Initial height above the wall [m] and velocity [m/s] (default 0, 0).
    force : callable, optional
        Extra applied force [N] along +p as a callable of t (default none).

    Notes
    -----
    Channels: ``p`` [m], ``v`` [m/s], ``f`` contact force on the mass [N], ``fe`` [N], and
    the law's state (``e`` for UnilateralODE) [m]. Under ``method="moreau_jean"`` ``f`` is
    the mean contact force over the step that ended at the sample (impulse / step). Under
    ``method="events"`` each impact is located in time and the Zeno accumulation of bounces
    ends in exact rest (:mod:`stickslip.systems._event_modes`; ``Results.events`` rows named
    "floor"); ``f`` is the contact force at the sample (0 in flight).

    Examples
    --------
    >>> import stickslip as ss
    >>> ball = ss.systems.ContactMass(M=1.0, law=ss.laws.NewtonImpact(e=0.8), g=9.81, p0=1.0)
    >>> res = ss.simulate(ball, 6.0, method="moreau_jean", dt=1e-3)
    >>> float(res["v"][-1]), bool(res["p"].min() > -1e-3)   # at rest, no visible penetration
    (0.0, True)
    """

    M: jnp.ndarray = eqx.field(converter=as_parameter)
    law: AbstractContactLaw
    g: jnp.ndarray = eqx.field(converter=as_parameter, default=9.81)
    p0: jnp.ndarray = eqx.field(converter=as_parameter, default=0.0)
    v0: jnp.ndarray = eqx.field(converter=as_parameter, default=0.0)
    force: Callable = zero_force

    parameter_rules: ClassVar[dict[str, Rule]] = {
        "M": MASS, "g": GRAVITY.but(hint="Pass the gravitational acceleration towards the "
                                         "wall in m/s² (e.g. 9.81; 0 for none)."),
        "p0": INITIAL.but(scalar=True), "v0": INITIAL.but(scalar=True)}

    def __check_init__(self):
        if not isinstance(self.law, AbstractContactLaw):
            raise ParameterError(
                f"`ContactMass.law` must be a contact law (UnilateralODE, KelvinVoigt, "
                f"HuntCrossley); got {type(self.law).__name__}. Friction laws go in "
                "FrictionMass.")
        check_law_scalars("ContactMass", "law", self.law)
        check_time_function("ContactMass", "force", self.force, ())

    @property
    def state_names(self):
        return ("p", "v", *self.law.state_names)

    @property
    def units(self):
        return {"p": "m", "v": "m/s", "f": "N", "fe": "N", "e": "m"}

    def initial_state(self):
        return jnp.concatenate([jnp.stack([self.p0, self.v0]),
                                jnp.zeros(self.law.n_states)])

    def vector_field(self, t, x):
        f, law_rate = self.law.force_and_rate(x[2:], x[0], x[1])
        acc = (self.force(t) + f) / self.M - self.g                 # eq. 16, first row
        return jnp.concatenate([jnp.stack([x[1], acc]), law_rate])

    def passive_energy(self, t, x):
        """½·M·v² + M·g·p + the contact's stored energy [J], when nothing else feeds energy
        in (no applied `force`) and the law has a potential (penalty laws); else None."""
        stored = self.law.potential(x[0])
        if self.force is not zero_force or stored is None:
            return None
        return 0.5 * self.M * x[1] ** 2 + self.M * self.g * x[0] + stored

    def outputs(self, t, x):
        f, _ = self.law.force_and_rate(x[2:], x[0], x[1])
        return {"f": f, "fe": self.force(t)}

    # --- method="moreau_jean" (stickslip.integrate._moreau_jean) -------------------------

    def route_refusal(self, method):
        if method in EVENT_METHODS:
            return contact_event.refusal(self.law)
        rigid = isinstance(self.law, NewtonImpact)
        if method in TIME_STEPPING_METHODS and not rigid:
            return (f"its contact law {type(self.law).__name__} is compliant (an ODE law); "
                    "time stepping needs the rigid law ss.laws.NewtonImpact(e=...)")
        if method not in TIME_STEPPING_METHODS and rigid:
            return ("NewtonImpact is a rigid impact law without a force as a function of "
                    "the gap: it runs only under method='moreau_jean' or 'events'; for an ODE "
                    "method use UnilateralODE or a penalty law")
        return None

    def moreau_jean_step(self, t, x, h, theta):
        """θ-method with the load's impulse by quadrature; the contact is active when the
        free end-of-step gap ``p + h·(θ·v_free + (1 − θ)·v)`` is ≤ 0, and then the Newton
        law at the velocity level (:meth:`NewtonImpact.velocity_after`) sets v⁺."""
        p, v = x[0], x[1]
        v_free = v + impulse(lambda tau: self.force(tau) - self.M * self.g, t, h) / self.M
        active = p + h * (theta * v_free + (1.0 - theta) * v) <= 0.0
        v_new = jnp.where(active, self.law.velocity_after(v_free, v), v_free)
        p_new = p + h * (theta * v_new + (1.0 - theta) * v)
        x_new = jnp.concatenate([jnp.stack([p_new, v_new]), x[2:]])
        return x_new, {"f": self.M * (v_new - v_free) / h}

    def moreau_jean_outputs(self, t, x, forces):
        return {"f": forces["f"], "fe": self.force(t)}

    # --- method="events" (stickslip.integrate._event_route; bodies in ._event_modes) -------

    event_name: ClassVar[str] = "floor"

    def event_mode(self, t, x):
        return contact_event.mode(self, t, x)

    def event_field(self, t, x, mode):
        return contact_event.field(self, t, x, mode)

    def event_guard(self, t, x, mode):
        return contact_event.guard(self, t, x, mode)

    def event_jump(self, t, x, mode):
        return contact_event.jump(self, t, x, mode)

    def event_settle(self, t, x, mode):
        return contact_event.settle(self, t, x, mode)

    def event_outputs(self, t, x, mode):
        return contact_event.outputs(self, t, x, mode)

    def peak_load(self) -> float:
        """The largest contact force [N] to expect, for the step check of nonlinear laws:
        the weight, or the peak of an undamped linear impact from the drop energy
        (M g p0 + M v0²/2), whichever is larger (a nonlinear law's own peak is close)."""
        M, g, p0, v0 = (np.asarray(x, dtype=float) for x in (self.M, self.g, self.p0, self.v0))
        energy = 0.5 * M * v0 ** 2 + M * g * np.maximum(p0, 0.0)    # (per batch member)
        peak = M * g
        if isinstance(self.law, HuntCrossley):              # δmax from k δ^(n+1)/(n+1) = E
            k, n = np.asarray(self.law.k, dtype=float), np.asarray(self.law.n, dtype=float)
            depth = ((n + 1.0) * energy / k) ** (1.0 / (n + 1.0))
            peak = np.maximum(peak, k * depth ** n)
        return max(float(np.max(peak)), 1e-12)

    def linear_modes(self):
        M = check_finite_matrix("ContactMass", "M", np.asarray(self.M))
        modes = [(f"{type(self.law).__name__} {label}", eig)
                 for label, eig in self.law.linear_modes(M, self.peak_load())]
        return [(label, check_finite_matrix("ContactMass", f"linear_modes ({label})", eig))
                for label, eig in modes]
