"""A point mass with friction under an applied force (SPEC §2, eq. 10)."""

from __future__ import annotations

from typing import Callable, ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .._parameters import INITIAL, MASS, NORMAL_FORCE, AbstractParametrised, Rule
from ..errors import ParameterError
from ..laws import AbstractFrictionLaw
from ..laws._base import as_parameter
from ._base import AbstractSystem, check_law_scalars, check_time_function

__all__ = ["FrictionMass"]


def _zero_force(t):
    return jnp.zeros_like(t)


class FrictionMass(AbstractSystem, AbstractParametrised):
    """A mass on a rough surface pushed by ``force(t)`` (SPEC §2, eq. 10 for `CoulombODE`).

    ``M dv/dt = force(t) + f``,  ``dp/dt = v``, plus the friction law's own state rows,
    where ``f`` is the friction force on the mass from `law` (``−K·sat(F/K, a + βv)`` for
    `CoulombODE`, eq. 9-10).

    Parameters
    ----------
    M: mass [kg] > 0.
    law: any friction law (`CoulombODE`, `LuGre`, `TanhCoulomb`, …).
    force: applied force f_e [N] as a callable of t [s] written with ``jax.numpy``
        (default none).
    N: normal force [N] handed to the law (default 1): it sets `LuGre`'s levels
        (F_s = mus·N) and the level of a ``CoulombODE(mu=...)``; a ``CoulombODE(F=...)``
        uses its own F.
    p0, v0: initial position [m] and velocity [m/s].

    Channels: ``p`` [m], ``v`` [m/s], ``f`` friction force on the mass [N], ``fe`` applied
    force [N], and the law's states (``a`` for CoulombODE, ``z`` for LuGre) [m].

    Examples
    --------
    >>> import stickslip as ss, jax.numpy as jnp
    >>> law = ss.laws.CoulombODE.tuned(mass=1.0, K=1e4, F=0.5)   # critically damped proxy
    >>> block = ss.systems.FrictionMass(M=1.0, law=law, force=lambda t: 0.4 * jnp.ones_like(t))
    >>> res = ss.simulate(block, 1.0, dt=1e-4, dt_out=1e-2)
    >>> bool(abs(res["p"]).max() <= 0.4 / 1e4)   # 0.4 N < F = 0.5 N: held by the proxy spring
    True
    """

    M: jnp.ndarray = eqx.field(converter=as_parameter)
    law: AbstractFrictionLaw
    force: Callable = _zero_force
    N: jnp.ndarray = eqx.field(converter=as_parameter, default=1.0)
    p0: jnp.ndarray = eqx.field(converter=as_parameter, default=0.0)
    v0: jnp.ndarray = eqx.field(converter=as_parameter, default=0.0)

    parameter_rules: ClassVar[dict[str, Rule]] = {
        "M": MASS, "N": NORMAL_FORCE.but(scalar=True),
        "p0": INITIAL.but(scalar=True), "v0": INITIAL.but(scalar=True)}

    def __check_init__(self):
        if not isinstance(self.law, AbstractFrictionLaw):
            raise ParameterError(
                f"`FrictionMass.law` must be a friction law (CoulombODE, LuGre, TanhCoulomb); "
                f"got {type(self.law).__name__}. Contact laws go in ContactMass.")
        check_law_scalars("FrictionMass", "law", self.law)
        check_time_function("FrictionMass", "force", self.force, ())

    @property
    def state_names(self):
        return ("p", "v", *self.law.state_names)

    @property
    def units(self):
        return {"p": "m", "v": "m/s", "f": "N", "fe": "N", "a": "m", "z": "m"}

    def initial_state(self):
        return jnp.concatenate([jnp.stack([self.p0, self.v0]),
                                jnp.zeros(self.law.n_states)])

    def _friction(self, x):
        return self.law.force_and_rate(x[2:], x[1], self.N)

    def vector_field(self, t, x):
        f, law_rate = self._friction(x)
        acc = (self.force(t) + f) / self.M                       # eq. 10, first row
        return jnp.concatenate([jnp.stack([x[1], acc]), law_rate])

    def outputs(self, t, x):
        f, _ = self._friction(x)
        return {"f": f, "fe": self.force(t)}

    def linear_modes(self):
        return [(f"{type(self.law).__name__} {label}", eig)
                for label, eig in self.law.linear_modes(np.asarray(self.M), np.asarray(self.N))]
