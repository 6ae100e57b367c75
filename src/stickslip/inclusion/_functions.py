"""The set-valued functions of SPEC §1 as SymPy objects: ``Sgn`` and ``Dio``.

They only *mark* where the nonsmooth terms sit in a differential inclusion; they never
evaluate to numbers. :func:`~stickslip.inclusion.compile_inclusion` finds them and replaces
them by the Lipschitz ODE laws (SPEC §4, Steps 1 and 2).
"""

from __future__ import annotations

import re
from typing import Any, TypeGuard, cast

import sympy as sp
from sympy.core.symbol import Str
from sympy.matrices import MatrixBase

__all__ = ["Sgn", "Dio", "SgnComponent", "sat", "is_sgn", "is_dio", "label_of",
           "matrix_entries"]


def _label(name) -> tuple:
    """``()`` or ``(Str(name),)``: the optional instance label as a SymPy argument."""
    if name is None:
        return ()
    if isinstance(name, Str):
        return (name,)
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        from ..errors import InclusionError
        raise InclusionError(f"an instance name must be an identifier such as 'wall'; got "
                             f"{name!r}.")
    return (Str(name),)


def label_of(expr) -> str | None:
    """The label given with ``name=`` to a Dio/Sgn instance, or None."""
    last = expr.args[-1]
    return last.name if isinstance(last, Str) else None


class Dio(sp.Function):
    """The ideal diode ``dio(ψ)`` (SPEC §1, eq. 3): 0 for ψ > 0, [0, ∞) at ψ = 0.

    Write ``Dio(gap)`` wherever a rigid unilateral contact force on the gap ``gap`` enters
    the rates (``gap`` ≥ 0 is the admissible side; the wall occupies gap ≤ 0). Step 1 of
    SPEC §4 replaces every distinct argument by a :class:`~stickslip.laws.UnilateralODE`
    force with its own proxy state ``e``.

    ``Dio(gap, name="floor")`` labels the instance: its proxy state is then ``e_floor`` and
    its force channel ``f_e_floor`` (instead of ``e1``, ``f_e1``).

    Examples
    --------
    >>> import sympy as sp
    >>> from stickslip.inclusion import Dio
    >>> z = sp.Symbol("z")
    >>> Dio(z)
    Dio(z)
    >>> Dio(z, name="floor").args[0]
    z
    """

    nargs = (1, 2)
    is_real = True
    is_nonnegative = True

    def __new__(cls, arg, name=None, **options) -> sp.Expr:
        return cast(sp.Expr, super().__new__(cls, arg, *_label(name), **options))

    def _sympystr(self, printer):
        label = label_of(self)
        return "Dio(%s%s)" % (printer._print(self.args[0]),
                              f", name='{label}'" if label else "")

    def _latex(self, printer):
        return r"\operatorname{dio}\left(%s\right)" % printer._print(self.args[0])

    def fdiff(self, argindex=1):  # pragma: no cover - set-valued: no derivative
        raise TypeError("Dio is set-valued and has no derivative.")


class SgnComponent(sp.Function):
    """Component ``i`` of the planar ``sgn([θx, θy])`` (SPEC §1, eq. 1 with r = 2; eq. 19).

    Arguments: ``(Tuple(θx, θy), i[, label])``. Build it with ``Sgn(Matrix([θx, θy]))``,
    which returns the 2-vector of both components.
    """

    nargs = (2, 3)
    is_real = True

    @classmethod
    def eval(cls, theta, index, *label):
        if not isinstance(theta, sp.Tuple) or len(theta) != 2:
            raise TypeError("SgnComponent needs a Tuple of two components; use "
                            "Sgn(Matrix([...])).")
        lead = theta[0] if theta[0] != 0 else theta[1]
        if lead.could_extract_minus_sign():
            return -cls(sp.Tuple(*[-cast(sp.Expr, c) for c in theta]), index, *label)
        return None

    @property
    def theta(self) -> sp.Tuple:
        return cast(sp.Tuple, self.args[0])

    @property
    def index(self) -> int:
        return int(cast(sp.Integer, self.args[1]))

    def _latex(self, printer):
        inner = ", ".join(printer._print(c) for c in self.theta)
        return r"\operatorname{sgn}\left(\left[%s\right]\right)_{%s}" % (inner, "xy"[self.index])

    def _sympystr(self, printer):
        inner = ", ".join(printer._print(c) for c in self.theta)
        label = label_of(self)
        return "Sgn([%s]%s)[%d]" % (inner, f", name='{label}'" if label else "", self.index)

    def fdiff(self, argindex=1):  # pragma: no cover
        raise TypeError("Sgn is set-valued and has no derivative.")


class Sgn(sp.Function):
    """The set-valued sign ``sgn(θ)`` (SPEC §1, eq. 1).

    Scalar: ``Sgn(v)`` is ``v/|v|``, or the interval [−1, 1] at v = 0. Planar (r = 2, eq. 19):
    ``Sgn(Matrix([vx, vy]))`` (or a list/tuple of two expressions) returns the 2×1 matrix of
    the components of ``v/‖v‖`` (the unit disc at v = 0), for isotropic Coulomb friction.

    Write a Coulomb friction term as ``χ·Sgn(θ)`` with a bound χ ≥ 0 (a constant, or a
    contact force such as ``mu*Dio(z)``) and θ the sliding velocity; friction opposing the
    motion is ``-χ·Sgn(θ)``. Step 2 of SPEC §4 replaces each such term by a
    :class:`~stickslip.laws.CoulombODE` force with its own proxy state ``a``.
    ``Sgn(v, name="belt")`` labels the instance (state ``a_belt``, channel ``f_a_belt``).

    Examples
    --------
    >>> import sympy as sp
    >>> from stickslip.inclusion import Sgn
    >>> v1, v2 = sp.symbols("v1 v2")
    >>> Sgn(v2 - v1)   # one canonical sign: sgn(-θ) = -sgn(θ)
    -Sgn(v1 - v2)
    >>> Sgn([v1, v2]).shape
    (2, 1)
    """

    nargs = (1, 2)
    is_real = True

    def __new__(cls, arg, name=None, **options) -> Any:   # an expression, or a 2×1 Matrix
        if isinstance(arg, (list, tuple, MatrixBase)):
            comps = list(arg) if isinstance(arg, (list, tuple)) else matrix_entries(sp.Matrix(arg))
            if len(comps) != 2:
                from ..errors import InclusionError
                raise InclusionError(
                    f"`Sgn` takes a scalar or a 2-vector (planar sliding, eq. 19); got "
                    f"{len(comps)} components {comps}. Split a 3-D problem into a planar "
                    "tangential part and a normal part.")
            theta = sp.Tuple(*[sp.sympify(c) for c in comps])
            label = _label(name)
            return sp.Matrix([SgnComponent(theta, 0, *label), SgnComponent(theta, 1, *label)])
        return super().__new__(cls, arg, *_label(name), **options)

    @classmethod
    def eval(cls, arg, *label):
        # sgn(-θ) = -sgn(θ) as sets: one canonical sign, so that action and reaction
        # (Sgn(v1 - v2) and Sgn(v2 - v1)) share one friction proxy.
        if arg.could_extract_minus_sign():
            return -cls(-arg, *label)
        return None

    def _sympystr(self, printer):
        label = label_of(self)
        return "Sgn(%s%s)" % (printer._print(self.args[0]),
                              f", name='{label}'" if label else "")

    def _latex(self, printer):
        return r"\operatorname{sgn}\left(%s\right)" % printer._print(self.args[0])

    def fdiff(self, argindex=1):  # pragma: no cover
        raise TypeError("Sgn is set-valued and has no derivative.")


class sat(sp.Function):
    """``sat(Z, x)`` (SPEC §1, eq. 2), for printing the compiled ODE only."""

    nargs = 2

    def _latex(self, printer):
        return r"\operatorname{sat}\left(%s, %s\right)" % tuple(printer._print(a)
                                                                 for a in self.args)


def is_sgn(expr) -> bool:
    """True for a scalar Sgn or a component of a planar Sgn."""
    return isinstance(expr, (Sgn, SgnComponent))


def is_dio(expr) -> TypeGuard[Dio]:
    return isinstance(expr, Dio)


def matrix_entries(matrix: MatrixBase) -> list[Any]:
    """The entries of a SymPy matrix, row by row (what ``list(matrix)`` gives)."""
    return [matrix[i] for i in range(len(matrix))]
