"""Bodies of a planar mechanism and the planar geometry helpers (SPEC §9).

Each body i has the generalised coordinates q_i = [x_i, y_i, φ_i]: the position of its centre
of mass in the ground frame [m] and its rotation [rad]. A body-fixed point s'ᴾ (in the body
frame, origin at the centre of mass) lies at rᴾ = r_i + A(φ_i) s'ᴾ in the ground frame.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp
import numpy as np

from ..errors import ParameterError

__all__ = ["Body", "Ground", "cross2", "global_point", "perp", "rotation"]


def rotation(phi: jnp.ndarray) -> jnp.ndarray:
    """A(φ), the 2×2 rotation matrix of a body at angle φ [rad] (SPEC §9)."""
    c, s = jnp.cos(phi), jnp.sin(phi)
    return jnp.array([[c, -s], [s, c]])


def global_point(q: jnp.ndarray, s: jnp.ndarray) -> jnp.ndarray:
    """rᴾ = r + A(φ) s'ᴾ: a body-fixed point `s` of the body at pose `q` = (x, y, φ)."""
    c, sn = jnp.cos(q[2]), jnp.sin(q[2])
    sx, sy = s[0], s[1]
    return jnp.stack([q[0] + c * sx - sn * sy, q[1] + sn * sx + c * sy])


def cross2(a: jnp.ndarray, b: jnp.ndarray) -> jnp.ndarray:
    """The planar cross product a_x b_y − a_y b_x."""
    return a[0] * b[1] - a[1] * b[0]


def perp(v: jnp.ndarray) -> jnp.ndarray:
    """R v with R = [[0, −1], [1, 0]]: `v` turned by +90°."""
    return jnp.array([-v[1], v[0]])


def _vector(owner: str, name: str, value: Sequence[float]) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if arr.shape != (2,) or not np.all(np.isfinite(arr)):
        raise ParameterError(f"`{owner}.{name}` must be two finite numbers (x, y) [m]; got "
                             f"{value!r}. Pass e.g. {name}=(0.1, 0.0).")
    return arr


class Body:
    """A rigid body of a planar mechanism (created by :meth:`Model.add_body`).

    Attributes
    ----------
    name : str
        the body's name; its Results channels are ``<name>.x`` … ``<name>.phidd``.
    mass : float
        m [kg] (> 0).
    inertia : float
        centroidal moment of inertia J [kg·m²] (> 0).
    x, y, phi : float, optional
        initial pose (centre of mass [m], rotation [rad]); :meth:`Model.assemble`
        replaces a rough guess by a pose that satisfies the constraints.
    xd, yd, phid : float, optional
        initial velocities [m/s, rad/s] (made consistent with the constraints
        before a dynamic run).
    points
        named body-fixed points ``{name: (x', y')}`` [m], usable wherever an element asks
        for a point (``point_i="pin"``).
    """

    is_ground = False

    def __init__(self, name: str, mass: float, inertia: float, x: float = 0.0, y: float = 0.0,
                 phi: float = 0.0, xd: float = 0.0, yd: float = 0.0, phid: float = 0.0,
                 points: dict[str, Sequence[float]] | None = None):
        if not isinstance(name, str) or not name or "." in name:
            raise ParameterError(f"a body name must be a non-empty string without '.'; got "
                                 f"{name!r}.")
        self.name = name
        for field, value in (("mass", mass), ("inertia", inertia)):
            arr = np.asarray(value, dtype=float)
            if arr.shape != () or not np.isfinite(arr) or arr <= 0:
                unit = "kg" if field == "mass" else "kg·m²"
                raise ParameterError(f"body {name!r}: `{field}` must be a finite number > 0 "
                                     f"[{unit}]; got {field}={value!r}. Give the body a "
                                     f"positive {field} (a massless link is a "
                                     "RevoluteRevoluteJoint).")
        self.mass = float(mass)
        self.inertia = float(inertia)
        for field, value in (("x", x), ("y", y), ("phi", phi), ("xd", xd), ("yd", yd),
                             ("phid", phid)):
            if not np.isfinite(float(value)):
                raise ParameterError(f"body {name!r}: `{field}` must be finite; got {value!r}.")
        self.x, self.y, self.phi = float(x), float(y), float(phi)
        self.xd, self.yd, self.phid = float(xd), float(yd), float(phid)
        self.points: dict[str, np.ndarray] = {}
        for key, value in (points or {}).items():
            self.add_point(key, value)

    def add_point(self, name: str, position: Sequence[float]) -> Body:
        """Name a body-fixed point (x', y') [m] in the body frame; returns the body."""
        self.points[name] = _vector(f"{self.name}.points", name, position)
        return self

    def resolve_point(self, owner: str, field: str, point) -> np.ndarray:
        """A point given as (x', y') or as the name of one of this body's points."""
        if isinstance(point, str):
            if point not in self.points:
                raise ParameterError(f"`{owner}.{field}`: body {self.name!r} has no point "
                                     f"{point!r}; its points are {sorted(self.points)}. Add "
                                     f"it with body.add_point({point!r}, (x, y)).")
            return self.points[point]
        return _vector(owner, field, point)

    # Bodies are static fields of the elements in a compiled PlanarSystem. Two bodies of the
    # same name are interchangeable there (the masses and poses are traced arrays), so
    # equal models built twice share one compiled program.
    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.name == self.name

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.name))

    def __stickslip_key__(self):
        """What ``__eq__`` compares, for the stored-program fingerprint
        (:mod:`stickslip.integrate._fingerprint`)."""
        return self.name

    @property
    def pose(self) -> np.ndarray:
        return np.array([self.x, self.y, self.phi])

    @property
    def velocity(self) -> np.ndarray:
        return np.array([self.xd, self.yd, self.phid])

    def __repr__(self) -> str:
        return (f"Body({self.name!r}, mass={self.mass:g}, inertia={self.inertia:g}, "
                f"x={self.x:g}, y={self.y:g}, phi={self.phi:g})")


class Ground(Body):
    """The fixed frame: pose (0, 0, 0) always, no coordinates of its own."""

    is_ground = True

    def __init__(self):
        self.name = "ground"
        self.mass = self.inertia = float("inf")
        self.x = self.y = self.phi = self.xd = self.yd = self.phid = 0.0
        self.points = {}

    def __repr__(self) -> str:
        return "Ground()"
