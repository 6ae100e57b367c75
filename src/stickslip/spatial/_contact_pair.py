"""Frictional point contacts between two spatial bodies (SPEC §6): :class:`ContactPair`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._rules import FRICTION_COEFFICIENT, Rule, run_checks
from .._validation import keyword_alias
from ..errors import ParameterError
from ._element_base import (
    _check_vertices_of,
    _joint_name,
    _number,
    _SpatialElement,
    body_name,
)

__all__ = ["STATIC_SPEED", "ContactPair"]

STATIC_SPEED = 1e-3
"""Default Stribeck velocity of point contacts [m/s]: the sliding speed below which a contact
counts as sticking and gets its static coefficient (``ContactPair.v_stribeck``)."""


@dataclass(frozen=True, init=False)
class ContactPair(_SpatialElement):
    """Frictional point contacts between two bodies (or a body and ``"ground"``), solved
    with the joints as one λ-problem (SPEC §6): a sphere touches at its nearest point, a
    polyhedron at its vertices (against the ground plane, a sphere or a box's faces).

    mu, mu_k: the kinetic friction coefficient [-] ≥ 0, under either name (``mu_k`` matches
        ``mu_s`` and the other elements; give one; stored as ``mu``, ``pair.mu_k`` reads it;
        default: the ground's ``mu_k`` for a ground pair, else required).
    mu_s: static coefficient [-] ≥ mu (default: the ground's ``mu_s`` for a ground pair
        without ``mu``, else mu). The λ-problem relaxes sticking (tangential velocities decay
        over δ rather than vanish), so the bound is the curve μ + (μ_s − μ)·exp(−(|v_t|/
        v_stribeck)²) of the contact's sliding speed |v_t| (``ss.laws.friction_curve``):
        μ_s while it sticks, μ once it slides.
    v_stribeck: the sliding speed [m/s] > 0 over which the bound falls from μ_s to μ
        (default :data:`STATIC_SPEED`, 1 mm/s).
    vertices_of: for two boxes, whose vertices touch the other's faces: ``"both"``
        (default), ``"a"`` or ``"b"`` (e.g. the small fingertips of a gripper against the
        held box: fewer contacts to solve). Edge–edge contact is not modelled.
    name: prefix of the channels ``<name>.<k>.gap/.fn/.ft`` (default ``"<a>-<b>"``).
    """

    body_a: str
    body_b: str
    mu: float | None
    name: str | None
    vertices_of: str
    mu_s: float | None = None
    v_stribeck: float | None = None
    parameter_rules: ClassVar[dict[str, Rule]] = {
        "mu": FRICTION_COEFFICIENT.but(scalar=True),
        "mu_s": FRICTION_COEFFICIENT.but(scalar=True),
        "v_stribeck": Rule("positive", "Pass the Stribeck velocity in m/s (e.g. 1e-3).",
                           scalar=True, unit="m/s")}
    friction_pairs: ClassVar[tuple[tuple[str, str], ...]] = (("mu_s", "mu"),)

    def __init__(self, body_a, body_b, *, mu=None, name=None, vertices_of: str = "both",
                 mu_s=None, v_stribeck=None, mu_k=None):
        _check_vertices_of(vertices_of)
        object.__setattr__(self, "vertices_of", vertices_of)
        set_ = object.__setattr__
        set_(self, "body_a", body_name("ContactPair", "body_a", body_a))
        set_(self, "body_b", body_name("ContactPair", "body_b", body_b))
        mu = keyword_alias("ContactPair", "mu", mu, "mu_k", mu_k)
        set_(self, "mu", _number(mu))
        set_(self, "mu_s", _number(mu_s))
        set_(self, "v_stribeck", _number(v_stribeck))
        set_(self, "name", _joint_name("ContactPair", name))
        run_checks(self)

    def __check_init__(self) -> None:
        _check_vertices_of(self.vertices_of)
        _joint_name("ContactPair", self.name)
        if self.body_a == self.body_b:
            raise ParameterError(f"`ContactPair` pairs body {self.body_a!r} with itself.")
        if self.body_b == "ground":
            raise ParameterError("`ContactPair.body_b` must be a body; put 'ground' first "
                                 "(body_a).")

    @classmethod
    def example(cls) -> ContactPair:
        """Contacts of body ``"link"`` with the ground, μ = 0.3, μ_s = 0.4."""
        return cls("ground", "link", mu=0.3, mu_s=0.4)

    @property
    def mu_k(self) -> float | None:
        """The kinetic coefficient (the field ``mu``; None: the ground's)."""
        return self.mu
