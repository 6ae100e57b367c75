"""The λ-problem of SPEC §6 and its three formulations: one pure JAX function.

With the Baumgarte-like relaxation (SPEC §6, slide "提案手法")

    J q̈ + J̇ q̇ + (2ζ/δ) J q̇ + (1/δ²)[0; Ψ_p] ∈ −lim_{ε→+0} N_F^{U_ε}(λ),   M q̈ + Φ = Jᵀλ,

eliminating q̈ leaves, at every evaluation of the vector field, the algebraic problem

    λ − A⁻¹b ∈ −lim_{ε→+0} A⁻¹ N_F^{U_ε}(λ),      A = J M⁻¹ Jᵀ,
    b = J M⁻¹ Φ − J̇ q̇ − (2ζ/δ) J q̇ − (1/δ²)[0; Ψ_p],

equivalently, with w = Aλ − b (the relaxed constraint value), w ∈ −lim N_F^{U_ε}(λ).
The formulations (SPEC §6, "過去の研究をこの表現であらわすと"):

* ``"kikuuwe"`` — the seed's: w ∈ −lim_{ε→+0} N_F^{U_ε}(λ) (Coulomb's law exactly: no
  separation while sliding, friction opposite to the sliding w_t);
* ``"anitescu"`` — Anitescu–Tasora: w ∈ −N_F(λ) (a convex cone complementarity problem;
  sliding contacts drift apart at w_n = μ‖w_t‖);
* ``"nakaoka"`` — Nakaoka et al.: A⁻¹w ∈ −lim N_F^{U_ε}(λ), i.e. λ = lim P_F^{U_ε}(A⁻¹b),
  each contact's unconstrained force cut to its cone independently (A⁺ where A is singular).

Bilateral rows (F = ℝⁿ) are eliminated first by a Schur complement. Piecewise-linear
contact rows (planar contacts, ℝ₊, [−F, F]) are then solved exactly by an active-set method
(:mod:`._active_set`: a guessed combination of block modes, pivoted until its linear system's
solution meets its inequalities — a certificate that λ solves the problem). Whether that
solution is the only one (Painlevé, SPEC §6) is decided, per evaluation, by

1. a monotonicity bound: if λ_min(A) > μ_max ‖A_T‖_F (A_T: the tangential rows of A), two
   solutions λ, λ' would give (λ − λ')ᵀA(λ − λ') ≤ Σ μ_k |Δλ_n,k| |Δw_t,k| < λ_min‖Δλ‖²,
   so the solution is unique (the Anitescu law is monotone: always unique);
2. otherwise, where the problem is small (``certify="auto"``: at most
   ``VERIFY_COMBINATIONS`` mode combinations) or always (``certify="full"``), by enumerating
   every combination (:mod:`._enumeration`): several feasible combinations with different w
   mean several solutions.

With ``certify="auto"`` a larger problem whose bound fails (e.g. the four corners of a
clearance slider: A is singular there) is solved and its existence certified, but its
uniqueness is not checked (``LambdaSolution.verified`` is False). Where the active-set loop
finds no feasible combination within its cap, the enumeration decides (no solution, several,
or the one it finds). Spatial cones (whose sliding directions are not finitely many modes)
use semismooth Newton rounds on the natural map, safeguarded by projected Gauss–Seidel
(:mod:`._iterative`); their ``status`` is STATUS_UNIQUE where the residual is below
``RESIDUAL_TOLERANCE`` — existence, not uniqueness (``verified`` False).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.core  # jax.core.Tracer below (a submodule: named for static checkers)
import jax.numpy as jnp
import jax.scipy.linalg
import numpy as np
from jax.typing import ArrayLike

from ..errors import ParameterError
from ._active_set import active_set_solve, combination_count
from ._enumeration import (
    MAX_COMBINATIONS,
    STATUS_NONE,
    STATUS_SEVERAL,
    STATUS_UNIQUE,
    enumerate_solutions,
)
from ._iterative import solve_iteratively
from ._sets import ProductSet

__all__ = ["FORMULATIONS", "STATUS_NONE", "STATUS_SEVERAL", "STATUS_TEXT", "STATUS_UNIQUE",
           "LambdaSolution", "check_formulation", "enumerates_each_evaluation", "solve_lambda"]

FORMULATIONS = ("kikuuwe", "anitescu", "nakaoka")
STATUS_TEXT = {STATUS_UNIQUE: "unique solution",
               STATUS_NONE: "no solution (inconsistency)",
               STATUS_SEVERAL: "several solutions (non-uniqueness)"}

# a solution is accepted (``status == STATUS_UNIQUE`` for iterative solves) below this
# normalised fixed-point residual
RESIDUAL_TOLERANCE = 1e-6
# a concrete A more asymmetric than this (max|A − Aᵀ| relative to max|A|) is refused
SYMMETRY_TOLERANCE = 1e-10
# certify="auto" enumerates (to check uniqueness) problems of at most this many combinations
VERIFY_COMBINATIONS = 16
CERTIFY = ("auto", "full", "none")


class LambdaSolution(NamedTuple):
    """The solution of one λ-problem.

    lam: forces along the rows of J [N, N·m], shape (m,).
    w: the relaxed constraint values Aλ − b [m/s², rad/s²], shape (m,).
    status: ``STATUS_UNIQUE`` (0), ``STATUS_NONE`` (1: no solution) or ``STATUS_SEVERAL``
        (2: solutions with different accelerations — the Painlevé paradox).
    residual: for enumeration, the chosen combination's normalised violation of its
        inequalities; for the iterative solver, the normalised fixed-point residual
        ‖λ − P_F(λ − ρŵ)‖ of the formulation's law; 0 for Nakaoka's projection.
    n_feasible: number of feasible mode combinations (enumeration; 1 otherwise).
    verified: whether the status is proven — existence and uniqueness (the monotonicity
        bound or the enumeration, module docstring); False where only existence was
        certified (``certify="auto"`` on a large problem, ``"none"``) or for spatial cones.
    """

    lam: jnp.ndarray
    w: jnp.ndarray
    status: jnp.ndarray
    residual: jnp.ndarray
    n_feasible: jnp.ndarray
    verified: jnp.ndarray | bool = True


def check_formulation(formulation: str, owner: str = "contact_formulation") -> str:
    """The formulation's name, or a ParameterError naming the choices."""
    if formulation not in FORMULATIONS:
        raise ParameterError(f"`{owner}` must be one of {list(FORMULATIONS)}; got "
                             f"{formulation!r}. 'kikuuwe' is the seed's exact limit law.")
    return formulation


def check_uniqueness(certify: str, owner: str = "certify") -> str:
    """The uniqueness policy's name, or a ParameterError naming the choices."""
    if certify not in CERTIFY:
        raise ParameterError(f"`{owner}` must be one of {list(CERTIFY)}; got {certify!r}.")
    return certify


def solve_lambda(fset: ProductSet, A: ArrayLike, b: ArrayLike,
                 formulation: str = "kikuuwe", certify: str = "auto",
                 fallback: bool = True, init=None, warm: float | None = None,
                 refine: int = 0, tolerance: float | None = None,
                 safeguard: bool = True) -> LambdaSolution:
    """Solve λ − A⁻¹b ∈ −lim A⁻¹ N_F^{U_ε}(λ) (SPEC §6) for the admissible set `fset`.

    Parameters
    ----------
    fset : ProductSet
        The admissible set F as a :class:`ProductSet` of blocks (static topology; friction
        coefficients and bounds may be traced).
    A : Array
        J M⁻¹ Jᵀ, symmetric positive semi-definite, shape (m, m); its bilateral block must be
        invertible (independent joint rows). Symmetric up to round-off (|A − Aᵀ| at most
        ``SYMMETRY_TOLERANCE`` = 1e-10 of max|A|): a more asymmetric A is refused, not
        symmetrised.
    b : Array
        J M⁻¹ Φ − J̇q̇ − (2ζ/δ) J q̇ − (1/δ²)[0; Ψ_p], shape (m,).
    formulation : str, optional
        ``"kikuuwe"`` (default), ``"anitescu"`` or ``"nakaoka"`` (module docstring).
    certify : str, optional
        how uniqueness (Painlevé) is checked when the monotonicity bound fails:
        ``"auto"`` (default) enumerates problems of at most ``VERIFY_COMBINATIONS`` mode
        combinations, ``"full"`` every problem (up to the enumeration's limit), ``"none"``
        never (module docstring).
    fallback : bool, optional
        whether the enumeration takes over where the active-set loop finds no feasible
        combination (default). ``False`` (with ``certify="none"``) keeps the solve free of
        the enumeration — for a ``vmap`` over many states, where ``lax.cond`` runs both
        branches — and reports ``STATUS_NONE`` (``verified`` False) where the loop failed.
    init : Array, optional
        a guess of λ, shape (m,) (e.g. the previous time step's): a warm start for spatial
        friction cones. Where it solves the problem to about the solver's own stopping error
        (natural residual ≤ 1e-12: a box held or sliding steadily) the Newton rounds start
        from it — one round then, two from 0 — else from 0, as without it (so a guess never
        changes which of several λ a non-unique problem gets, beyond that round-off). A
        guess with NaN/inf entries is refused when concrete, ignored when traced (a failed
        previous step inside a compiled run). The piecewise-linear routes (planar contacts, ℝ₊, [−F, F])
        and Nakaoka's projection do not use it. Default None: from λ = 0, as before.
    warm : float, optional
        spatial cones: the guess is used where its natural residual is at most this
        (default ``_iterative.WARM`` = 1e-12). ``inf``: always start from it — only for a
        guess that solves a nearby problem (e.g. the same A with b shifted by a small
        multiple of the guess): along a nearly singular A's near-null directions the
        Newton rounds move λ only slowly, so a far guess keeps its own split there.
    refine : int, optional
        spatial cones: steps of iterative refinement in each Newton step (default 0). One
        makes the λ reached along the near-null directions of a nearly singular A
        independent of round-off (``_iterative``'s module docstring, *Refined steps*).
    tolerance : float, optional
        spatial cones: the natural residual at which the Newton rounds stop (default
        ``_iterative.CONVERGED`` = 1e-13). A looser one suits a solve whose λ only starts
        another solve of a nearby problem (the status still reads ``RESIDUAL_TOLERANCE``).
    safeguard : bool, optional
        spatial cones: whether Gauss–Seidel sweeps take over where the Newton rounds stop
        short of `tolerance` (default). ``False`` leaves them out of the program altogether:
        for a solve whose λ only starts another solve that keeps them (the first of a link
        step's proximal solves), where they would be compiled and loaded for nothing.

    Returns
    -------
    LambdaSolution
        LambdaSolution — pure JAX: works under ``jit``, ``vmap`` and inside the integrators;
        ``grad`` flows through the selected mode's linear solve.

    Raises
    ------
    ParameterError
        `fset` not a :class:`ProductSet`, an unknown `formulation` or
        `certify`, A or b of the wrong shape, and — for concrete (not traced) A and b —
        NaN/inf entries or an A that is not symmetric. Traced A and b (inside ``jit``,
        ``vmap``, ``grad``: the hosts' calls) are not inspected, at no cost.

    Examples
    --------
    A block pressed on the floor by 10 N with 3 N pushing sideways, μ = 0.5: it sticks.

    >>> import jax.numpy as jnp, stickslip as ss
    >>> F = ss.constraints.ProductSet([ss.constraints.PlanarContact(mu=0.5)])
    >>> sol = ss.constraints.solve_lambda(F, jnp.eye(2), jnp.array([-3.0, 10.0]))
    >>> [round(float(v), 6) for v in sol.lam], int(sol.status)
    ([-3.0, 10.0], 0)
    """
    if not isinstance(fset, ProductSet):
        raise ParameterError(f"`solve_lambda.fset` must be a ProductSet of constraint blocks; "
                             f"got {type(fset).__name__}. Wrap the blocks: "
                             "solve_lambda(ProductSet([...]), A, b).")
    check_formulation(formulation)
    check_uniqueness(certify)
    if not (isinstance(refine, int) and refine >= 0):
        raise ParameterError(f"`solve_lambda.refine` must be a whole number ≥ 0 (steps of "
                             f"iterative refinement); got {refine!r}. Use 0 or 1.")
    if tolerance is not None and not float(tolerance) > 0:
        raise ParameterError(f"`solve_lambda.tolerance` must be > 0 (a natural residual) or "
                             f"None; got {tolerance!r}. The default is 1e-13.")
    if warm is not None and not float(warm) >= 0:
        raise ParameterError(f"`solve_lambda.warm` must be ≥ 0 (a natural residual) or "
                             f"None; got {warm!r}. Use inf to always start from `init`.")
    A, b = _concrete_checked("A", A), _concrete_checked("b", b)
    A = jnp.asarray(A, dtype=float)
    b = jnp.asarray(b, dtype=float)
    m = fset.size
    if A.shape != (m, m) or b.shape != (m,):
        raise ParameterError(f"`solve_lambda` needs A of shape ({m}, {m}) and b of shape "
                             f"({m},) for its {len(fset.blocks)} blocks; got A{A.shape}, "
                             f"b{b.shape}.")
    if not isinstance(A, jax.core.Tracer):
        _check_symmetric(np.asarray(A))
    bil = np.array(fset.bilateral_rows(), dtype=int)
    con = np.array([r for r in range(m) if r not in set(bil.tolist())], dtype=int)
    blocks = [blk for blk in fset.blocks if blk.kind != "bilateral"]
    offsets, start = [], 0
    for blk in blocks:
        offsets.append(start)
        start += blk.size
    # bilateral rows first (static slices below; a permutation only where they are not)
    k = bil.size
    perm = np.concatenate([bil, con])
    permuted = not np.array_equal(perm, np.arange(m))
    if permuted:
        A, b = A[np.ix_(perm, perm)], b[perm]
    # Schur complement onto the contact rows: λ_B = A_BB⁻¹(b_B − A_BC λ_C)
    if k:
        A_CB = A[k:, :k]
        # A_BB = J_b M⁻¹ J_bᵀ is symmetric positive definite (independent joint rows):
        # Cholesky (cheaper to compile than a general solve)
        rhs = jnp.concatenate([A[:k, k:], b[:k, None]], axis=1)
        if any(blk.kind == "spatial_contact" for blk in blocks):
            X = _cholesky_solve(A[:k, :k], rhs)
        else:
            X = jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(A[:k, :k]), rhs)
        A_r = A[k:, k:] - A_CB @ X[:, :-1]
        b_r = b[k:] - A_CB @ X[:, -1]
    else:
        A_r, b_r = A, b
    A_r = 0.5 * (A_r + A_r.T)
    if formulation == "nakaoka":
        unconstrained = jnp.linalg.pinv(A_r, hermitian=True) @ b_r
        lam_c = ProductSet(blocks).project_limit(unconstrained) if blocks else unconstrained
        status, n_feasible = jnp.asarray(STATUS_UNIQUE), jnp.asarray(1)
        residual, verified = jnp.zeros(()), jnp.asarray(True)
    elif any(blk.kind == "spatial_contact" for blk in blocks):
        options = {"refine": refine, **({} if safeguard else {"sweeps": 0}),
                   **({} if warm is None else {"warm": warm}),
                   **({} if tolerance is None else {"tolerance": tolerance})}
        lam_c, _, residual = solve_iteratively(blocks, offsets, A_r, b_r, formulation,
                                               init=_contact_guess(init, m, perm, k),
                                               **options)
        status = jnp.where(residual <= RESIDUAL_TOLERANCE, STATUS_UNIQUE, STATUS_NONE)
        n_feasible, verified = jnp.asarray(1), jnp.asarray(False)
    elif blocks:
        lam_c, status, n_feasible, residual, verified = _solve_piecewise_linear(
            blocks, offsets, A_r, b_r, formulation, check_uniqueness(certify), fallback)
    else:
        lam_c = jnp.zeros(0, dtype=A.dtype)
        status, n_feasible = jnp.asarray(STATUS_UNIQUE), jnp.asarray(1)
        residual, verified = jnp.zeros(()), jnp.asarray(True)
    if blocks and formulation != "nakaoka":
        # the solution lies in F up to the solvers' tolerance; put it in F exactly, so a
        # normal force never reads −1e-17 (a change of round-off size)
        lam_c = ProductSet(blocks).project(lam_c)
    lam = jnp.concatenate([X[:, -1] - X[:, :-1] @ lam_c, lam_c]) if k else lam_c
    w = A @ lam - b
    if permuted:
        inverse = np.argsort(perm)
        lam, w = lam[inverse], w[inverse]
    return LambdaSolution(lam=lam, w=w, status=status, residual=residual,
                          n_feasible=n_feasible, verified=verified)


def _contact_guess(init, m, perm, k):
    """The contact rows of the guess `init` (None stays None), or a ParameterError."""
    if init is None:
        return None
    if not isinstance(init, jax.core.Tracer):
        init = _concrete_checked("init", init)
    if jnp.shape(init) != (m,):
        raise ParameterError(f"`solve_lambda.init` must have shape ({m},), one value per row "
                             f"of A; got shape {jnp.shape(init)}. Pass the previous "
                             "solution's `lam`, or None.")
    rows = perm[k:]
    init = jnp.asarray(init, dtype=float)
    return init[k:] if np.array_equal(rows, np.arange(k, m)) else init[rows]


def _cholesky_solve(S, rhs):
    """S⁻¹ rhs for a symmetric positive definite S by LAPACK's factor of its lower triangle
    and two triangular solves: ``cho_factor``/``cho_solve`` without their symmetrisation and
    masking steps (the same factor up to round-off; fewer steps in a compiled stage). The
    spatial-contact route uses it; the planar route keeps ``cho_factor`` (its results stay
    bit for bit)."""
    L = jax.lax.linalg.cholesky(S, symmetrize_input=False)
    Y = jax.lax.linalg.triangular_solve(L, rhs, left_side=True, lower=True)
    return jax.lax.linalg.triangular_solve(L, Y, left_side=True, lower=True, transpose_a=True)


def _concrete_checked(name: str, value):
    """`value` unchanged when traced (not inspected: no cost in the hosts' jitted calls);
    else as a float NumPy array with finite entries, or a ParameterError naming it."""
    if isinstance(value, jax.core.Tracer):
        return value
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"`solve_lambda.{name}` must be an array of numbers; got "
                             f"{type(value).__name__} {value!r:.60}.") from None
    bad = np.argwhere(~np.isfinite(arr))
    if bad.size:
        where = tuple(int(i) for i in bad[0])
        raise ParameterError(f"`solve_lambda.{name}` must be finite; got {name}"
                             f"{list(where)}={arr[where].item()!r} ({len(bad)} of {arr.size} "
                             "entries are NaN or inf). Check the state and the parameters "
                             "that built it.")
    return arr


def _check_symmetric(A: np.ndarray) -> None:
    """A = J M⁻¹ Jᵀ is symmetric; allow round-off (SYMMETRY_TOLERANCE of max|A|)."""
    if A.size == 0:
        return
    gap = np.abs(A - A.T)
    size, scale = float(np.max(gap)), float(np.max(np.abs(A)))
    if size > SYMMETRY_TOLERANCE * scale:
        i, j = np.unravel_index(int(np.argmax(gap)), A.shape)
        raise ParameterError(
            f"`solve_lambda.A` must be symmetric (A = J M⁻¹ Jᵀ); got max|A − Aᵀ| = {size:.3g} "
            f"(A[{i}, {j}] = {A[i, j]:.6g}, A[{j}, {i}] = {A[j, i]:.6g}), {size / scale:.3g} "
            f"of max|A| (round-off up to {SYMMETRY_TOLERANCE:g} is accepted). If you meant "
            "its symmetric part, pass (A + A.T) / 2.")


def enumerates_each_evaluation(kinds, formulation: str = "kikuuwe",
                               certify: str = "auto") -> bool:
    """Whether :func:`solve_lambda` may enumerate to check *uniqueness* for blocks of these
    `kinds` (``[blk.kind for blk in fset.blocks]``; static: a piecewise-linear problem that
    `certify` asks to check at its size). Where it does not, the enumeration in the solve is
    only the fallback of a failed active set."""
    kinds = [k for k in kinds if k != "bilateral"]
    if formulation == "nakaoka" or not kinds or "spatial_contact" in kinds:
        return False
    count = combination_count(kinds, formulation)
    return {"auto": count <= VERIFY_COMBINATIONS, "full": count <= MAX_COMBINATIONS,
            "none": False}[check_uniqueness(certify)]


def uniqueness_bound(blocks, offsets, A, formulation):
    """Whether λ_min(A) > μ_max ‖A_T‖_F, which proves the solution unique (module docstring).
    The Anitescu law and problems without friction cones are monotone: always True."""
    tangential = [o for blk, o in zip(blocks, offsets) if blk.kind == "planar_contact"]
    if formulation == "anitescu" or not tangential:
        return jnp.asarray(True)
    mu_max = jnp.max(jnp.stack([blk.mu for blk in blocks if blk.kind == "planar_contact"]))
    A_T = A[np.array(tangential)]
    smallest = jnp.linalg.eigvalsh(A)[0]
    return smallest > mu_max * jnp.sqrt(jnp.sum(A_T ** 2))


def _solve_piecewise_linear(blocks, offsets, A, b, formulation, certify, fallback=True):
    """(λ, status, n_feasible, residual, verified) for planar contacts, ℝ₊ and [−F, F] rows:
    the active-set solution, its uniqueness proven by the bound or decided by the
    enumeration, which also takes over where the active set finds no feasible combination."""
    lam, _, found, _ = active_set_solve(blocks, A, b, formulation)
    count = combination_count(blocks, formulation)
    enumerable = count <= MAX_COMBINATIONS
    unique = uniqueness_bound(blocks, offsets, A, formulation)
    may_verify = {"auto": count <= VERIFY_COMBINATIONS, "full": enumerable,
                  "none": False}[certify]
    if not enumerable or not (fallback or may_verify):
        status = jnp.where(found, STATUS_UNIQUE, STATUS_NONE).astype(jnp.int32)
        return (lam, status, jnp.asarray(1, jnp.int32), jnp.zeros((), A.dtype),
                found & unique)
    need = ((~found) & fallback) | ((~unique) & may_verify)

    def enumerate_(lam):
        lam_e, _, status_e, n_e, _, viol_e = enumerate_solutions(blocks, A, b, formulation)
        # a certified active-set solution is kept (it may differ from the enumeration's
        # by a null vector of A); the enumeration says whether there are others
        lam_out = jnp.where(found, lam, lam_e)
        status = jnp.where(found & (status_e == STATUS_NONE), STATUS_UNIQUE, status_e)
        return (lam_out, status.astype(jnp.int32), n_e.astype(jnp.int32),
                jnp.where(found, 0.0, viol_e).astype(A.dtype), jnp.asarray(True))

    def keep(lam):
        return (lam, jnp.where(found, STATUS_UNIQUE, STATUS_NONE).astype(jnp.int32),
                jnp.asarray(1, jnp.int32), jnp.zeros((), A.dtype), found & unique)

    return jax.lax.cond(need, enumerate_, keep, lam)
