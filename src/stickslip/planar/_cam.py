"""Cam–follower joint (SPEC §9: common contact point and common tangent with a profile ρ(α)).

The cam profile is given in polar form about the cam centre (point_i of the cam body, in its
frame): r'(α) = ρ(α) (cos α, sin α) — as a ``jax.numpy`` callable ρ(α) (2π-periodic) or as
sampled points (α_k, ρ_k), turned into a smooth periodic interpolant (a trigonometric
series through the samples).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._rules import Rule
from ..errors import ParameterError
from ._base import unit_direction
from ._body import global_point, rotation
from ._constraint_base import POINT, AbstractConstraint, _name

__all__ = ["CamFollowerJoint", "trigonometric_profile"]


def trigonometric_profile(alphas, radii) -> Callable:
    """A smooth 2π-periodic ρ(α) through samples (α_k, ρ_k) [rad, m], α_k evenly spaced over
    one turn: the trigonometric interpolant (its FFT coefficients)."""
    alphas, radii = np.asarray(alphas, dtype=float), np.asarray(radii, dtype=float)
    n = radii.size
    if alphas.shape != radii.shape or n < 3 or not np.all(np.isfinite(radii)) or \
            np.any(radii <= 0):
        raise ParameterError("a sampled cam profile needs matching arrays of ≥ 3 angles [rad] "
                             "and positive finite radii [m].")
    spacing = 2 * np.pi / n
    if not np.allclose(np.diff(alphas), spacing, atol=1e-9 * n):
        raise ParameterError(f"sampled cam profile: the angles must be evenly spaced over one "
                             f"turn (step 2π/{n}); resample the profile.")
    coeffs = np.fft.rfft(radii) / n
    k = np.arange(coeffs.size)
    weight = np.where((k == 0) | ((n % 2 == 0) & (k == n // 2)), 1.0, 2.0)
    a, b = weight * coeffs.real, -weight * coeffs.imag
    phase0 = alphas[0]

    def profile(alpha):
        # jax's stub types outer's b as Array; jnp.outer takes any ArrayLike (as its source)
        arg = jnp.outer(jnp.atleast_1d(alpha) - phase0, k)  # pyright: ignore[reportArgumentType]
        out = jnp.cos(arg) @ a + jnp.sin(arg) @ b
        return out.reshape(jnp.shape(alpha))
    return profile


def _check_kind(owner: str, kind: str) -> str:
    if kind not in ("roller", "flat"):
        raise ParameterError(f"`{owner}.kind` must be 'roller' or 'flat'; got {kind!r}.")
    return kind


def _example_profile(alpha):
    return 0.05 + 0.01 * jnp.cos(alpha)


class CamFollowerJoint(AbstractConstraint):
    """A follower kept in contact with a cam (removes 1 DOF).

    Parameters
    ----------
    cam, follower
        the bodies (i and j).
    profile
        ρ(α) [m] — a ``jax.numpy`` callable of the polar angle α [rad] in the cam frame,
        about ``point_i`` — or a pair (angles, radii) of evenly spaced samples. For a roller
        follower give the **pitch curve** (the path of the roller centre, i.e. the cam
        surface offset by the roller radius); for a flat-faced follower the cam surface
        (convex).
    kind : str, optional
        ``"roller"`` — point_j (the roller centre) lies on the pitch curve:
        ‖d‖ − ρ(α_d) = 0 with α_d the polar angle of d = r_jᴾ − r_iᴾ in the cam frame;
        ``"flat"`` — the face through point_j with unit normal ``normal_j`` (follower frame,
        pointing toward the cam) is tangent to the cam: n·(r_iᴾ − r_jᴾ) − h(w) = 0, where
        h(w) = max_α r'(α)·w is the cam's support function in the direction w = −A_iᵀn
        (the contact angle by Newton iterations, differentiated through).

    Notes
    -----
    Reaction: on the cam, ``Fx``/``Fy`` in the cam frame, ``T`` about the cam centre; the
    multiplier is the contact force (≤ 0 means the follower is pulled: it would lift off,
    which this bilateral joint does not model).
    """

    n_equations: ClassVar[int] = 1
    prefix: ClassVar[str] = "cam"
    config_fields: ClassVar[tuple[str, ...]] = ("kind", "profile")
    body_i: Any = eqx.field(static=True)
    body_j: Any = eqx.field(static=True)
    point_i: Any
    point_j: Any
    profile: Callable = eqx.field(static=True)
    kind: str = eqx.field(static=True)
    normal_j: Any
    name: str | None = eqx.field(static=True)
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "point_i": POINT, "point_j": POINT,
        "normal_j": Rule("direction", "Pass the face normal (nx, ny) in the follower frame, "
                         "pointing toward the cam, e.g. normal_j=(0, -1).", shape=(2,))}

    def __init__(self, cam, follower, profile, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 kind: str = "roller", normal_j=(0.0, -1.0), name: str | None = None):
        self.body_i, self.body_j, self.point_i, self.point_j = cam, follower, point_i, point_j
        self.name = _name(type(self).__name__, name)
        self.kind = _check_kind(self.owner, kind)     # before the profile is traced
        self.normal_j = unit_direction(normal_j)
        if callable(profile):
            self.profile = profile
        else:
            try:
                alphas, radii = profile
            except (TypeError, ValueError):
                raise ParameterError(f"`{self.owner}.profile` must be a callable ρ(α) or a "
                                     "pair (angles, radii).") from None
            self.profile = trigonometric_profile(alphas, radii)
        try:
            value = np.asarray(self.profile(jnp.asarray(0.3)))
        except Exception as exc:  # noqa: BLE001 - the user's function failed: say which
            raise ParameterError(f"`{self.owner}.profile(α)` failed at α = 0.3: {exc!r}. "
                                 "Write it with jax.numpy.") from None
        if value.shape != () or not np.isfinite(value) or value <= 0:
            raise ParameterError(f"`{self.owner}.profile(α)` must return one positive radius "
                                 f"[m]; got {value!r} at α = 0.3.")
        from .._validation import check_traceable
        check_traceable(self.owner, "profile", self.profile, (0.3,), shape=(),
                        signature="alpha")

    def __check_init__(self) -> None:
        _check_kind(self.owner, self.kind)

    @classmethod
    def example(cls) -> CamFollowerJoint:
        """A roller follower (body ``"link"``) on an eccentric ground cam
        ρ(α) = 0.05 + 0.01 cos α [m]."""
        return cls("ground", "link", _example_profile, point_j=(0.0, 0.0), kind="roller")

    def residual(self, qi, qj, t):
        if self.kind == "roller":
            d = self._d(qi, qj)
            local = rotation(qi[2]).T @ d
            alpha = jnp.arctan2(local[1], local[0])
            return jnp.atleast_1d(jnp.sqrt(d @ d) - self.profile(alpha))
        n = rotation(qj[2]) @ self.normal_j
        w = -(rotation(qi[2]).T @ n)
        beta = jnp.arctan2(w[1], w[0])
        rho = self.profile
        d1 = jax.grad(rho)
        d2 = jax.grad(d1)

        def newton(_, alpha):                 # Newton on d/dα [ρ(α) cos(α − β)] = 0
            c, s = jnp.cos(alpha - beta), jnp.sin(alpha - beta)
            g = d1(alpha) * c - rho(alpha) * s
            dg = d2(alpha) * c - 2 * d1(alpha) * s - rho(alpha) * c
            return alpha - g / dg
        alpha = jax.lax.fori_loop(0, 5, newton, beta)   # traced once, not unrolled
        support = rho(alpha) * jnp.cos(alpha - beta)
        centre = global_point(qi, self.point_i)
        face = global_point(qj, self.point_j)
        return jnp.atleast_1d(n @ (centre - face) - support)

