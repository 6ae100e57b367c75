"""The contact impulse problem of a link system's Moreau–Jean step (:mod:`stickslip.spatial.
_link_step`, ``_proximal_solve``): where the contacts carry a body in many ways (a box on
four corners: A = J M⁻¹Jᵀ singular) the impulses picked must not depend on round-off —
the refined Newton steps (``solve_lambda(..., refine=1)``, constraints._iterative,
*Refined steps*) — and the solver options it uses (``warm``, ``tolerance``) keep their
meaning."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from stickslip.constraints import ProductSet, SpatialContact, solve_lambda
from stickslip.errors import ParameterError
from stickslip.spatial import _link_step

HALF = np.array([0.1, 0.07, 0.05])          # box half extents [m]
CORNERS = [np.array([sx * HALF[0], sy * HALF[1], -HALF[2]]) for sx in (-1, 1)
           for sy in (-1, 1)]
FSET = ProductSet([SpatialContact(mu=0.5) for _ in range(4)])


def _box_on_corners(order, push=0.3, tilt=0.02):
    """(A, b) of one 1 ms step of a 1 kg box on its four bottom corners (rows t₁, t₂, n per
    corner, corners in `order`), pushed sideways and tilting: A has rank 6 of 12."""
    m = 1.0
    inertia = m / 3 * np.diag([HALF[1] ** 2 + HALF[2] ** 2, HALF[0] ** 2 + HALF[2] ** 2,
                               HALF[0] ** 2 + HALF[1] ** 2])
    minv = np.zeros((6, 6))
    minv[:3, :3] = np.eye(3) / m
    minv[3:, 3:] = np.linalg.inv(inertia)
    J = np.array([np.concatenate([e, np.cross(CORNERS[k], e)]) for k in order
                  for e in np.eye(3)])
    h, g = 1e-3, 9.81
    nu_free = np.array([push * h, 0.0, -g * h, 0.0, tilt, 0.0])
    A = J @ minv @ J.T
    return jnp.asarray(0.5 * (A + A.T)), jnp.asarray(-(J @ nu_free))


@pytest.fixture(scope="module")
def proximal():
    return jax.jit(lambda A, b: _link_step._proximal_solve(FSET, A, b, "kikuuwe"))


def test_split_of_a_box_on_four_corners_does_not_depend_on_the_contacts_order(proximal):
    # the same problem with the corners listed in three orders: the impulses per corner
    # agree to round-off of the refined solve (unrefined, the near-null part of the
    # normal-equation steps moved them by 2e-4 of their size)
    found = []
    for order in ([0, 1, 2, 3], [2, 0, 3, 1], [3, 2, 1, 0]):
        p, residual = proximal(*_box_on_corners(order))
        assert float(residual) < 1e-12
        per_corner = np.empty((4, 3))
        per_corner[order] = np.asarray(p).reshape(4, 3)
        found.append(per_corner)
    scale = np.abs(found[0]).max()
    for other in found[1:]:
        np.testing.assert_allclose(other, found[0], rtol=0, atol=1e-6 * scale)
    # the weight carried: Σ pₙ = m g h less what the tilt takes, and the two corners of
    # each side (mirror images across the push's plane) carry the same
    normal = found[0][:, 2]
    np.testing.assert_allclose(normal[0], normal[1], rtol=1e-6)
    np.testing.assert_allclose(normal[2], normal[3], rtol=1e-6)


def test_a_guess_kept_with_warm_inf_reaches_the_cold_solution():
    # the proximal pattern: the second problem is the first's b shifted by ε p₁; started
    # from p₁ (warm=inf) it ends where a cold start ends, in one round instead of two
    A, b = _box_on_corners([0, 1, 2, 3])
    eps = 1e-8 * jnp.trace(A) / 12
    A = A + eps * jnp.eye(12)
    first = solve_lambda(FSET, A, b, certify="none", fallback=False, refine=1)
    shifted = b + eps * first.lam
    cold = solve_lambda(FSET, A, shifted, certify="none", fallback=False, refine=1)
    warm = solve_lambda(FSET, A, shifted, certify="none", fallback=False, init=first.lam,
                        warm=float("inf"))
    assert float(cold.residual) < 1e-13 and float(warm.residual) < 1e-13
    np.testing.assert_allclose(warm.lam, cold.lam, rtol=0,
                               atol=1e-6 * float(jnp.max(jnp.abs(cold.lam))))


def test_a_looser_tolerance_stops_earlier_but_within_it():
    A, b = _box_on_corners([0, 1, 2, 3])
    A = A + 1e-8 * jnp.trace(A) / 12 * jnp.eye(12)
    loose = solve_lambda(FSET, A, b, certify="none", fallback=False, tolerance=1e-10)
    assert float(loose.residual) <= 1e-10


@pytest.mark.parametrize("option", [{"refine": -1}, {"refine": 0.5}, {"warm": -1.0},
                                    {"tolerance": 0.0}])
def test_bad_solver_options_are_refused_by_name(option):
    A, b = _box_on_corners([0, 1, 2, 3])
    with pytest.raises(ParameterError, match=next(iter(option))):
        solve_lambda(FSET, A, b, **option)
