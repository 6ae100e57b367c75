"""A point mass on a frictional plane in 3-D (SPEC §5, example 1, eq. 19-22)."""

from __future__ import annotations

from typing import Callable, ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .._parameters import GRAVITY, MASS, AbstractParametrised, Rule
from .._validation import check_finite_matrix, check_shape
from ..errors import ParameterError
from ..laws import AbstractContactLaw, AbstractFrictionLaw, CoulombODE, UnilateralODE
from ..laws._base import as_parameter
from ._base import AbstractSystem, check_law_scalars, check_time_function, finite_modes

__all__ = ["PointOnPlane"]


def _no_force(t):
    return jnp.zeros(3) * t


class PointOnPlane(AbstractSystem, AbstractParametrised):
    """A point mass on the plane z = 0 with Coulomb friction and rigid contact (eq. 20-22).

    With p = [x, y, z] and the contact force ``f_z`` from `contact` (eq. 22), the friction
    law gets the tangential velocity ``[ẋ, ẏ]`` and the normal force ``f_z``, so its level is
    ``μ·f_z`` (eq. 21 with the [fix] that friction opposes motion)::

        M p̈ = force(t) + [f_x, f_y, f_z] − [0, 0, M g]

    Parameters
    ----------
    M: mass [kg] > 0.
    friction: a friction law with ``mu=`` (default ``CoulombODE(mu=0.5, K=1e4, beta=2e-2)``,
        K2, β2 of eq. 21: the stick mode is critically damped for M = 1 kg, see
        :meth:`CoulombODE.tuned`).
    contact: a contact law (default ``UnilateralODE(K=1e5, beta=2e-3, alpha=1e-3)``;
        K1, β1, α of eq. 22).
    g: gravity [m/s²] along −z (default 9.81).
    force: applied force [N] as a callable of t returning a 3-vector (default none).
    p0, v0: initial position [m] and velocity [m/s], 3-vectors (default at rest on the
        plane at its static penetration).

    Channels: ``x, y, z`` [m], ``vx, vy, vz`` [m/s], ``e`` [m] (contact proxy), ``ax, ay``
    [m] (friction proxy), ``fx, fy`` friction force on the mass [N], ``fz`` contact force [N],
    ``fex, fey, fez`` applied force [N]. State order is eq. 20's: [p; ṗ; e; a].
    """

    M: jnp.ndarray = eqx.field(converter=as_parameter)
    friction: AbstractFrictionLaw = eqx.field(
        default_factory=lambda: CoulombODE(mu=0.5, K=1e4, beta=2e-2))
    contact: AbstractContactLaw = eqx.field(
        default_factory=lambda: UnilateralODE(K=1e5, beta=2e-3, alpha=1e-3))
    g: jnp.ndarray = eqx.field(converter=as_parameter, default=9.81)
    force: Callable = _no_force
    p0: jnp.ndarray | None = eqx.field(converter=as_parameter, default=None)
    v0: jnp.ndarray = eqx.field(converter=as_parameter, default=(0.0, 0.0, 0.0))

    parameter_rules: ClassVar[dict[str, Rule]] = {
        "M": MASS, "g": GRAVITY,
        "p0": Rule("finite", "Pass a finite initial position [x, y, z] in metres."),
        "v0": Rule("finite", "Pass a finite initial velocity [vx, vy, vz] in m/s.")}

    def __check_init__(self):
        if self.p0 is not None:
            check_shape("PointOnPlane", "p0", self.p0, (3,))
        check_shape("PointOnPlane", "v0", self.v0, (3,))
        if not isinstance(self.friction, AbstractFrictionLaw):
            raise ParameterError(f"`PointOnPlane.friction` must be a friction law; got "
                                 f"{type(self.friction).__name__}.")
        if not isinstance(self.contact, AbstractContactLaw):
            raise ParameterError(f"`PointOnPlane.contact` must be a contact law; got "
                                 f"{type(self.contact).__name__}.")
        check_law_scalars("PointOnPlane", "friction", self.friction)
        check_law_scalars("PointOnPlane", "contact", self.contact)
        check_time_function("PointOnPlane", "force", self.force, (3,))

    @property
    def state_names(self):
        names = ("x", "y", "z", "vx", "vy", "vz")
        names += tuple(self.contact.state_names)
        names += tuple(f"{s}{axis}" for s in self.friction.state_names for axis in "xy")
        return names

    @property
    def units(self):
        u = {n: "m" for n in ("x", "y", "z", "e", "ax", "ay", "zx", "zy")}
        u.update({n: "m/s" for n in ("vx", "vy", "vz")})
        u.update({n: "N" for n in ("fx", "fy", "fz", "fex", "fey", "fez")})
        return u

    def initial_state(self):
        if self.p0 is None:   # resting on the plane under its weight
            gap, contact_state = self.contact.resting_state(self.M * self.g)
            p0 = jnp.stack([jnp.zeros_like(gap), jnp.zeros_like(gap), gap])
        else:
            p0, contact_state = self.p0, jnp.zeros(self.contact.n_states)
        return jnp.concatenate([p0, self.v0, contact_state,
                                jnp.zeros(2 * self.friction.n_states)])

    def _split(self, x):
        nc = self.contact.n_states
        p, v = x[0:3], x[3:6]
        e = x[6:6 + nc]
        a = x[6 + nc:].reshape(self.friction.n_states, 2)
        return p, v, e, a

    def _forces(self, x):
        p, v, e, a = self._split(x)
        fz, e_rate = self.contact.force_and_rate(e, p[2], v[2])            # eq. 22, 20
        fxy, a_rate = self.friction.force_and_rate(a, v[:2], fz)          # eq. 21, 20
        return fxy, fz, e_rate, a_rate

    def vector_field(self, t, x):
        p, v, e, a = self._split(x)
        fxy, fz, e_rate, a_rate = self._forces(x)
        total = self.force(t) + jnp.concatenate([fxy, fz[None]])
        acc = total / self.M - jnp.stack([0.0, 0.0, self.g])
        return jnp.concatenate([v, acc, e_rate, a_rate.reshape(-1)])

    def outputs(self, t, x):
        fxy, fz, _, _ = self._forces(x)
        fe = self.force(t)
        return {"fx": fxy[0], "fy": fxy[1], "fz": fz,
                "fex": fe[0], "fey": fe[1], "fez": fe[2]}

    def linear_modes(self):
        M = check_finite_matrix("PointOnPlane", "M", np.asarray(self.M))
        normal = M * np.asarray(self.g)
        modes = [(f"contact {type(self.contact).__name__} {label}", eig)
                 for label, eig in self.contact.linear_modes(M)]
        modes += [(f"friction {type(self.friction).__name__} {label}", eig)
                  for label, eig in self.friction.linear_modes(M, normal)]
        return finite_modes("PointOnPlane", modes)
