"""Admissible force sets F of the λ-problem and their products (SPEC §6, last paragraph).

Each constraint block owns a few consecutive rows of λ (its forces along the rows of J) and of
w = Aλ − b (its relaxed acceleration-level constraint value). The seed's table (SPEC §6):

=====================  ==================  ====================  =========================
block                  F                   U_ε                   rows
=====================  ==================  ====================  =========================
:class:`Bilateral`     ℝⁿ                  I                     n equality rows
:class:`Unilateral`    ℝ₊                  1                     1 frictionless contact row
:class:`CoulombBound`  [−F, F]             1                     1 friction row, bound F
:class:`PlanarContact` 2-D cone |λ_t|≤μλ_n diag(1, 1/ε)          (t, n)
:class:`SpatialContact` 3-D cone ‖λ_t‖≤μλ_n diag(1, 1, 1/ε)      (t1, t2, n)
=====================  ==================  ====================  =========================

The sign convention is the seed's: M q̈ + Φ = Jᵀλ, so λ_n ≥ 0 pushes the bodies apart when
the row of J is ∂ψ/∂q of a gap ψ that grows as they separate.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp

from .._validation import check_finite, check_nonnegative, check_scalar
from ..errors import ParameterError
from .._parameter_arrays import as_parameter

__all__ = ["AbstractBlock", "Bilateral", "Unilateral", "CoulombBound", "PlanarContact",
           "SpatialContact", "ProductSet"]


class AbstractBlock(eqx.Module):
    """One factor of the admissible set F (a few consecutive rows of λ).

    Subclasses declare ``kind`` (a string the solvers dispatch on at trace time) and
    ``size`` (the number of rows), and implement ``project`` — the Euclidean projection
    onto the factor, used by the iterative solver and the Nakaoka formulation.
    """

    kind: ClassVar[str]

    def project(self, x: jnp.ndarray) -> jnp.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def project_limit(self, x: jnp.ndarray) -> jnp.ndarray:
        """lim_{ε→+0} of the projection onto the factor in the metric U_ε (SPEC §6): the
        normal row weighs 1/ε, so it is kept (clipped at 0) and the friction is cut
        radially to its bound. Equals :meth:`project` for the factors without friction."""
        return self.project(x)


class Bilateral(AbstractBlock):
    """F = ℝⁿ: n equality rows (joints, drivers); w = 0 (SPEC §6)."""

    kind: ClassVar[str] = "bilateral"
    size: int = eqx.field(static=True)

    def __init__(self, size: int):
        if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 1:
            raise ParameterError(f"`Bilateral.size` must be a whole number of rows >= 1; got "
                                 f"size={size!r}. Pass the number of equality rows, e.g. "
                                 "Bilateral(2).")
        self.size = int(size)

    def project(self, x):
        return x


class Unilateral(AbstractBlock):
    """F = ℝ₊: a frictionless contact row, 0 ≤ w ⊥ λ ≥ 0 (SPEC §1, dio; §6)."""

    kind: ClassVar[str] = "unilateral"
    size: ClassVar[int] = 1

    def project(self, x):
        return jnp.maximum(x, 0.0)


class CoulombBound(AbstractBlock):
    """F = [−F, F]: a friction row with a given force bound; w ∈ −N_[−F,F](λ) (SPEC §1).

    bound: friction force bound F [N] (or torque [N·m]), >= 0.
    """

    kind: ClassVar[str] = "coulomb"
    bound: jnp.ndarray = eqx.field(converter=as_parameter)
    size: ClassVar[int] = 1

    def __check_init__(self):
        _check_coefficient("CoulombBound", "bound", self.bound, "a force bound [N]")

    def project(self, x):
        return jnp.clip(x, -self.bound, self.bound)


class PlanarContact(AbstractBlock):
    """A frictional point contact in the plane: rows (t, n), F = {|λ_t| ≤ μ λ_n}, U_ε =
    diag(1, 1/ε) (SPEC §6).

    mu: friction coefficient [-], >= 0.
    """

    kind: ClassVar[str] = "planar_contact"
    mu: jnp.ndarray = eqx.field(converter=as_parameter)
    size: ClassVar[int] = 2

    def __check_init__(self):
        _check_coefficient("PlanarContact", "mu", self.mu, "a friction coefficient")

    def project(self, x):
        return _project_cone(x[:1], x[1], self.mu)

    def project_limit(self, x):
        n = jnp.maximum(x[1], 0.0)
        return jnp.concatenate([jnp.clip(x[:1], -self.mu * n, self.mu * n), n[None]])


class SpatialContact(AbstractBlock):
    """A frictional point contact in space: rows (t1, t2, n), F = {‖λ_t‖ ≤ μ λ_n}, U_ε =
    diag(1, 1, 1/ε) (SPEC §6).

    mu: friction coefficient [-], >= 0.
    """

    kind: ClassVar[str] = "spatial_contact"
    mu: jnp.ndarray = eqx.field(converter=as_parameter)
    size: ClassVar[int] = 3

    def __check_init__(self):
        _check_coefficient("SpatialContact", "mu", self.mu, "a friction coefficient")

    def project(self, x):
        return _project_cone(x[:2], x[2], self.mu)

    def project_limit(self, x):
        n = jnp.maximum(x[2], 0.0)
        t = x[:2]
        norm = jnp.sqrt(jnp.sum(t ** 2) + 1e-300)
        scale = jnp.minimum(1.0, self.mu * n / norm)
        return jnp.concatenate([t * scale, n[None]])


def _check_coefficient(owner: str, name: str, value, what: str) -> None:
    """One finite number >= 0 (skipped when traced: hosts build blocks inside ``jit``)."""
    if value is None:
        raise ParameterError(f"`{owner}.{name}` must be {what} (one number >= 0); got None. "
                             f"Pass e.g. {owner}({name}=0.5).")
    check_finite(owner, name, value)
    check_scalar(owner, name, value, "One block is one contact: build one block per value.")
    check_nonnegative(owner, name, value)


def _project_cone(t: jnp.ndarray, n: jnp.ndarray, mu: jnp.ndarray, axis=None) -> jnp.ndarray:
    """Euclidean projection of (t, n) onto the cone ‖t‖ ≤ μ n (closed form). `axis=None`:
    one cone, t (d,); ``axis=1``: k cones at once, t (k, d), n and μ (k,)."""
    if axis is not None:
        n, mu = n[:, None], mu[:, None]
    sq = jnp.sum(t ** 2, axis=axis, keepdims=axis is not None)
    # ‖t‖, with a finite derivative at t = 0 (a separated contact): sqrt'(0) would be inf
    norm = jnp.where(sq > 0, jnp.sqrt(jnp.where(sq > 0, sq, 1.0)), 0.0)
    inside = (norm <= mu * n) & (n >= 0)          # n < 0 is outside even at μ = 0, t = 0
    polar = mu * norm <= -n                       # in the polar cone: project to the apex
    s = (mu * norm + n) / (1.0 + mu ** 2)         # normal force on the cone's surface
    safe = jnp.where(norm > 0, norm, 1.0)
    t_surface = jnp.where(norm > 0, mu * s * t / safe, jnp.zeros_like(t))
    t_out = jnp.where(inside, t, jnp.where(polar, 0.0, t_surface))
    n_out = jnp.where(inside, n, jnp.where(polar, 0.0, s))
    if axis is not None:
        return jnp.concatenate([t_out, n_out], axis=1)
    return jnp.concatenate([t_out, jnp.reshape(n_out, (1,))])


def _tangent_norm(X):
    """‖(x₀, x₁)‖ of the rows of X (k, 3), with derivative 0 (not NaN) at 0 (as the
    iterative solver's ``_safe_norm``), written out: a reduction over two entries would end a fused loop."""
    sq = X[:, 0] * X[:, 0] + X[:, 1] * X[:, 1]
    return jnp.where(sq > 0, jnp.sqrt(jnp.where(sq > 0, sq, 1.0)), 0.0)


def _project_cones(Z, mu):
    """:func:`_project_cone` of k spatial cones (rows of Z (k, 3), μ (k,)), the same
    formulas written out by component (elementwise only: one fused loop)."""
    n = Z[:, 2]
    norm = _tangent_norm(Z)
    inside = (norm <= mu * n) & (n >= 0)
    polar = mu * norm <= -n
    s = (mu * norm + n) / (1.0 + mu ** 2)
    safe = jnp.where(norm > 0, norm, 1.0)

    def tangent(t):
        surface = jnp.where(norm > 0, mu * s * t / safe, 0.0)
        return jnp.where(inside, t, jnp.where(polar, 0.0, surface))
    return jnp.stack([tangent(Z[:, 0]), tangent(Z[:, 1]),
                      jnp.where(inside, n, jnp.where(polar, 0.0, s))], axis=1)


class ProductSet(eqx.Module):
    """F = F_1 × F_2 × …: the blocks in row order (SPEC §6, "products for several contacts").

    blocks: the factors; ``names``: one label per block, used in error messages (the
    contact or joint it belongs to).
    """

    blocks: tuple
    names: tuple = eqx.field(static=True)

    def __init__(self, blocks, names=None):
        if isinstance(blocks, (AbstractBlock, str, bytes)) or not isinstance(blocks, Iterable):
            raise ParameterError(f"`ProductSet.blocks` must be a list of constraint blocks; "
                                 f"got {type(blocks).__name__}. Pass e.g. "
                                 "ProductSet([PlanarContact(mu=0.5)]).")
        if isinstance(names, (str, bytes)):
            raise ParameterError(f"`ProductSet.names` must be a list of names, one per block; "
                                 f"got the string {names!r}. Pass e.g. [{names!r}].")
        self.blocks = tuple(blocks)
        for k, blk in enumerate(self.blocks):
            if not isinstance(blk, AbstractBlock):
                raise ParameterError(f"`ProductSet.blocks[{k}]` must be a constraint block "
                                     f"(Bilateral, Unilateral, CoulombBound, PlanarContact, "
                                     f"SpatialContact); got {type(blk).__name__}.")
        if names is None:
            names = tuple(f"{b.kind}{k}" for k, b in enumerate(self.blocks))
        names = tuple(str(n) for n in names)
        if len(names) != len(self.blocks):
            raise ParameterError(f"`ProductSet.names` needs one name per block "
                                 f"({len(self.blocks)}); got {len(names)}.")
        self.names = names

    @property
    def size(self) -> int:
        return sum(b.size for b in self.blocks)

    @property
    def offsets(self) -> tuple[int, ...]:
        out, start = [], 0
        for b in self.blocks:
            out.append(start)
            start += b.size
        return tuple(out)

    def bilateral_rows(self) -> tuple[int, ...]:
        rows = []
        for b, o in zip(self.blocks, self.offsets):
            if b.kind == "bilateral":
                rows.extend(range(o, o + b.size))
        return tuple(rows)

    def project(self, x: jnp.ndarray) -> jnp.ndarray:
        """Euclidean projection onto F (block by block)."""
        return _blockwise(self, x, "project")

    def project_limit(self, x: jnp.ndarray) -> jnp.ndarray:
        """lim_{ε→+0} projection onto F in the metric U_ε (SPEC §6; Nakaoka's map)."""
        return _blockwise(self, x, "project_limit")


def _blockwise(fset: ProductSet, x, method):
    """Each block's map on its rows; a run of consecutive planar contacts, or of spatial
    contacts, is mapped in one vectorised call (the same formulas, elementwise: fewer
    operations to compile and to run)."""
    if not fset.blocks:
        return x
    parts, run = [], []

    def flush():
        if len(run) > 1:
            o, size = run[0][1], run[0][0].size
            rows = x[o:o + size * len(run)].reshape(len(run), size)
            mu = jnp.stack([jnp.asarray(b.mu, dtype=x.dtype) for b, _ in run])
            if size == 2:
                mapped = (_project_cone(rows[:, :1], rows[:, 1], mu, axis=1)
                          if method == "project" else _project_limit_planar(rows, mu))
            else:
                mapped = (_project_cones(rows, mu) if method == "project"
                          else _project_limit_spatial(rows, mu))
            parts.append(mapped.reshape(-1))
        else:
            parts.extend(getattr(b, method)(x[o:o + b.size]) for b, o in run)
        run.clear()

    for b, o in zip(fset.blocks, fset.offsets):
        if b.kind in ("planar_contact", "spatial_contact") and jnp.ndim(b.mu) == 0:
            if run and run[0][0].kind != b.kind:
                flush()
            run.append((b, o))
            continue
        flush()
        parts.append(getattr(b, method)(x[o:o + b.size]))
    flush()
    return jnp.concatenate(parts)


def _project_limit_spatial(rows, mu):
    """SpatialContact.project_limit on rows (k, 3) with coefficients mu (k,)."""
    n = jnp.maximum(rows[:, 2], 0.0)
    t = rows[:, :2]
    norm = jnp.sqrt(jnp.sum(t ** 2, axis=1) + 1e-300)
    scale = jnp.minimum(1.0, mu * n / norm)
    return jnp.concatenate([t * scale[:, None], n[:, None]], axis=1)


def _project_limit_planar(rows, mu):
    """PlanarContact.project_limit on rows (k, 2) with coefficients mu (k,)."""
    n = jnp.maximum(rows[:, 1], 0.0)
    return jnp.stack([jnp.clip(rows[:, 0], -mu * n, mu * n), n], axis=1)
