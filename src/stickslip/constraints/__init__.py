"""Frictional unilateral constraints: the λ-problem of SPEC §6 (Kikuuwe's slides, seed 001).

At every evaluation of a host's vector field, the forces λ of its joints and contacts solve

    λ − A⁻¹b ∈ −lim_{ε→+0} A⁻¹ N_F^{U_ε}(λ),     A = J M⁻¹ Jᵀ,

with the Baumgarte-like b of the relaxation (δ, ζ); then q̈ = M⁻¹(Jᵀλ − Φ). F is a product
of blocks (:class:`Bilateral` ℝⁿ, :class:`Unilateral` ℝ₊, :class:`CoulombBound` [−F, F],
:class:`PlanarContact` and :class:`SpatialContact` friction cones). :func:`solve_lambda`
solves it for the formulations ``"kikuuwe"`` (default), ``"anitescu"`` and ``"nakaoka"``;
:func:`lambda_stage` is the step every host's vector field takes through it (Q ↦ λ, q̈);
:func:`relaxation_restitution` gives the restitution that (δ, ζ) imply; a host checks its
settings with :func:`check_formulation` / :func:`check_uniqueness` and asks
:func:`enumerates_each_evaluation` whether a solve may enumerate to certify uniqueness; the exact
time-stepping reference (Moreau–Jean) is :func:`stickslip.planar.moreau_jean`.
"""

from ._sets import AbstractBlock as AbstractBlock
from ._sets import Bilateral as Bilateral
from ._sets import CoulombBound as CoulombBound
from ._sets import PlanarContact as PlanarContact
from ._sets import ProductSet as ProductSet
from ._sets import SpatialContact as SpatialContact
from ._sets import Unilateral as Unilateral
from ._linear import eliminate_solve as eliminate_solve
from ._linear import spd_solve as spd_solve
from ._lambda_problem import FORMULATIONS as FORMULATIONS
from ._lambda_problem import LambdaSolution as LambdaSolution
from ._lambda_problem import STATUS_NONE as STATUS_NONE
from ._lambda_problem import STATUS_SEVERAL as STATUS_SEVERAL
from ._lambda_problem import STATUS_TEXT as STATUS_TEXT
from ._lambda_problem import STATUS_UNIQUE as STATUS_UNIQUE
from ._lambda_problem import check_formulation as check_formulation
from ._lambda_problem import check_uniqueness as check_uniqueness
from ._lambda_problem import enumerates_each_evaluation as enumerates_each_evaluation
from ._lambda_problem import solve_lambda as solve_lambda
from ._lambda_stage import lambda_stage as lambda_stage
from ._restitution import relaxation_restitution as relaxation_restitution

__all__ = [
    "AbstractBlock", "Bilateral", "Unilateral", "CoulombBound", "PlanarContact",
    "SpatialContact", "ProductSet", "FORMULATIONS", "LambdaSolution", "solve_lambda",
    "lambda_stage",
    "STATUS_UNIQUE", "STATUS_NONE", "STATUS_SEVERAL", "STATUS_TEXT", "relaxation_restitution",
    "spd_solve", "eliminate_solve", "check_formulation", "check_uniqueness",
    "enumerates_each_evaluation",
]
