"""Two blocks between a wall and a conveyor: interacting frictional contacts (SPEC §5, ex. 2)."""

from __future__ import annotations

from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .._parameters import GRAVITY, MASS, AbstractParametrised, Rule
from .._validation import check_finite_matrix, check_shape
from ..errors import ParameterError
from ..laws import AbstractContactLaw, AbstractFrictionLaw, CoulombODE, UnilateralODE
from ..laws._base import as_parameter
from ._base import AbstractSystem, check_law_scalars, finite_modes

__all__ = ["TwoBlocksConveyor"]

_STATE_NAMES = ("p1x", "p1y", "p2x", "p2y", "v1x", "v1y", "v2x", "v2y")


def _default_contacts():
    return tuple(UnilateralODE(K=1e5, beta=2e-3, alpha=1e-3) for _ in range(3))


def _default_frictions():
    return (CoulombODE(mu=0.3, K=1e4, beta=2e-2), CoulombODE(mu=0.3, K=1e4, beta=2e-2),
            CoulombODE(mu=0.5, K=1e4, beta=2e-2))


class TwoBlocksConveyor(AbstractSystem, AbstractParametrised):
    """Two blocks pressed against a wall by a conveyor (SPEC §5 example 2, eq. 23-33).

    Geometry (x horizontal, y vertical): a wall at x = 0; block 1 (mass M1) touches it (gap
    p1x) and hangs on a vertical spring Ks (p1y from the spring's rest length); block 2 (M2)
    touches block 1 (gap p2x − p1x) and stands on a conveyor (gap p2y) whose surface moves
    at −u in x, so the belt drags block 2 against block 1 and block 1 against the wall.
    Three contacts ψ1 = p1x, ψ2 = p2x − p1x, ψ3 = p2y (eq. 27-29) and three friction
    forces (eq. 30-32): wall–block 1 along y (μ1), block 1–block 2 along y (μ2), block 2–belt
    along x (μ3), each bounded by μ times the contact force it lives on::

        M1 p̈1x = f1 − f2                     M1 p̈1y = −θ1 − θ2 − Ks p1y
        M2 p̈2x = −θ3 + f2                    M2 p̈2y = θ2 + f3 − M2 g           (eq. 23, [fix])

    with ``f_i`` the contact forces (eq. 15b) and ``θ_j`` the friction forces (eq. 30-32,
    θ_j = K sat(μ_j f_j / K, a_j + β θ-argument)); the ODE is eq. 33.

    Parameters (defaults chosen so that the run shows an impact, sliding, then sticking:
    the belt presses with about μ3·M2·g = 9.8 N, so the wall and block 2 can hold block 1's
    spring up to (μ1 + μ2)·9.8 ≈ 5.9 N, less than Ks·|p1y(0)| = 10 N at the start)
    ----------
    M1, M2: masses [kg] (1, 2).   Ks: spring stiffness [N/m] (100).   g: gravity [m/s²] (9.81).
    u: belt speed [m/s] (0.1).
    contacts: three contact laws for ψ1, ψ2, ψ3 (default UnilateralODE(K=1e5, β=2e-3, α=1e-3)).
    frictions: three friction laws with ``mu=`` for θ1, θ2, θ3 (default CoulombODE with
        μ = 0.3, 0.3, 0.5, K = 1e4 N/m, β = 2e-2 s: stick modes near critical damping).
    x0: initial [p1x, p1y, p2x, p2y, v1x, v1y, v2x, v2y] (default block 1 at the wall lifted
        0.1 m, block 2 on the belt 0.02 m from block 1, all at rest).

    Channels: the eight positions/velocities, ``e1, e2, e3``, ``a1, a2, a3``, contact forces
    ``f_wall, f_blocks, f_belt`` [N] and friction forces on block 1 from the wall
    ``fr_wall``, on block 1 from block 2 ``fr_blocks`` (both along y) and on block 2 from
    the belt ``fr_belt`` (along x) [N].
    """

    M1: jnp.ndarray = eqx.field(converter=as_parameter, default=1.0)
    M2: jnp.ndarray = eqx.field(converter=as_parameter, default=2.0)
    Ks: jnp.ndarray = eqx.field(converter=as_parameter, default=100.0)
    g: jnp.ndarray = eqx.field(converter=as_parameter, default=9.81)
    u: jnp.ndarray = eqx.field(converter=as_parameter, default=0.1)
    contacts: tuple = eqx.field(default_factory=_default_contacts)
    frictions: tuple = eqx.field(default_factory=_default_frictions)
    x0: jnp.ndarray = eqx.field(converter=as_parameter,
                                default=(0.0, 0.1, 0.02, 0.0, 0.0, 0.0, 0.0, 0.0))

    parameter_rules: ClassVar[dict[str, Rule]] = {
        "M1": MASS, "M2": MASS,
        "Ks": Rule("nonnegative", "Pass the spring stiffness in N/m (>= 0).", scalar=True),
        "g": GRAVITY, "u": Rule("finite", "Pass the belt speed in m/s.", scalar=True),
        "x0": Rule("finite", "Pass a finite initial state (8 numbers).")}

    def __check_init__(self):
        check_shape("TwoBlocksConveyor", "x0", self.x0, (8,))
        for field, kind, n in (("contacts", AbstractContactLaw, 3),
                               ("frictions", AbstractFrictionLaw, 3)):
            laws = getattr(self, field)
            if len(laws) != n or not all(isinstance(law, kind) for law in laws):
                raise ParameterError(f"`TwoBlocksConveyor.{field}` must be a tuple of {n} "
                                     f"{kind.__name__[8:]}s; got {laws!r}.")
            for i, law in enumerate(laws):
                check_law_scalars("TwoBlocksConveyor", f"{field}[{i}]", law)

    @property
    def state_names(self):
        names = _STATE_NAMES
        for i, law in enumerate(self.contacts, start=1):
            names += tuple(f"{s}{i}" for s in law.state_names)
        for j, law in enumerate(self.frictions, start=1):
            names += tuple(f"{s}{j}" for s in law.state_names)
        return names

    @property
    def units(self):
        u = {n: "m" for n in _STATE_NAMES[:4]}
        u.update({n: "m/s" for n in _STATE_NAMES[4:]})
        u.update({f"{s}{i}": "m" for s in "ea" for i in (1, 2, 3)})
        u.update({n: "N" for n in ("f_wall", "f_blocks", "f_belt", "fr_wall", "fr_blocks",
                                   "fr_belt")})
        return u

    def initial_state(self):
        law_states = [jnp.zeros(law.n_states) for law in (*self.contacts, *self.frictions)]
        return jnp.concatenate([self.x0, *law_states])

    def _forces(self, x):
        p, v = x[0:4], x[4:8]
        offset = 8
        states = []
        for law in (*self.contacts, *self.frictions):
            states.append(x[offset:offset + law.n_states])
            offset += law.n_states
        gaps = (p[0], p[2] - p[0], p[3])                                  # eq. 27-29
        gap_rates = (v[0], v[2] - v[0], v[3])
        contact = [law.force_and_rate(s, gap, rate) for law, s, gap, rate
                   in zip(self.contacts, states[:3], gaps, gap_rates)]
        f = [c[0] for c in contact]
        slips = (v[1], v[1] - v[3], v[2] + self.u)                        # sgn arguments
        friction = [law.force_and_rate(s, slip, fn) for law, s, slip, fn
                    in zip(self.frictions, states[3:], slips, f)]         # eq. 30-32
        theta = [fr[0] for fr in friction]    # friction force on the first-named body
        rates = [c[1] for c in contact] + [fr[1] for fr in friction]
        return f, theta, rates

    def vector_field(self, t, x):
        p, v = x[0:4], x[4:8]
        (f1, f2, f3), (th1, th2, th3), rates = self._forces(x)
        acc = jnp.stack([
            (f1 - f2) / self.M1,                                          # eq. 23 [fix]
            (th1 + th2 - self.Ks * p[1]) / self.M1,
            (th3 + f2) / self.M2,
            (-th2 + f3) / self.M2 - self.g,
        ])
        return jnp.concatenate([v, acc, *rates])

    def outputs(self, t, x):
        (f1, f2, f3), (th1, th2, th3), _ = self._forces(x)
        return {"f_wall": f1, "f_blocks": f2, "f_belt": f3,
                "fr_wall": th1, "fr_blocks": th2, "fr_belt": th3}

    def linear_modes(self):
        M1 = check_finite_matrix("TwoBlocksConveyor", "M1", np.asarray(self.M1))
        M2 = check_finite_matrix("TwoBlocksConveyor", "M2", np.asarray(self.M2))
        reduced = M1 * M2 / (M1 + M2)
        masses = (M1, reduced, M2)
        normal = (M1 + M2) * np.asarray(self.g)   # order of the contact forces
        modes = []
        for i, (law, m) in enumerate(zip(self.contacts, masses), start=1):
            modes += [(f"contact {i} {type(law).__name__} {lab}", eig)
                      for lab, eig in law.linear_modes(m)]
        for j, (law, m) in enumerate(zip(self.frictions, (M1, reduced, M2)), start=1):
            modes += [(f"friction {j} {type(law).__name__} {lab}", eig)
                      for lab, eig in law.linear_modes(m, normal)]
        return finite_modes("TwoBlocksConveyor", modes)
