"""Bad input to the λ-problem's entry (issue 25): `solve_lambda` and the block constructors
(`Bilateral`, `CoulombBound`, `PlanarContact`, `SpatialContact`, `ProductSet`).

Each case must raise a `ParameterError` whose message names the argument; the checks of A
and b run on concrete arrays only — the hosts call `solve_lambda` with traced ones, which
are neither inspected nor slowed.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

C = ss.constraints
F = C.ProductSet([C.PlanarContact(mu=0.5)])
F_JOINT = C.ProductSet([C.Bilateral(1), C.PlanarContact(mu=0.5)])
B = np.array([-3.0, 10.0])
SKEWED = np.array([[1.0, 0.2], [0.0, 1.0]])
EYE = np.eye(2)


def solve(fset=F, A=EYE, b=B, **kw):
    return lambda: C.solve_lambda(fset, A, b, **kw)


CASES = {
    # the admissible set
    "fset a list": (solve(fset=[C.PlanarContact(mu=0.5)]),
                    ["solve_lambda.fset", "ProductSet", "list"]),
    "fset a block": (solve(fset=C.PlanarContact(mu=0.5)),
                     ["solve_lambda.fset", "PlanarContact"]),
    "ProductSet of one block, unwrapped": (lambda: C.ProductSet(C.PlanarContact(mu=0.5)),
                                           ["ProductSet.blocks", "list"]),
    "ProductSet names a string": (lambda: C.ProductSet([C.Unilateral()], names="floor"),
                                  ["ProductSet.names", "'floor'"]),
    "Bilateral(None)": (lambda: C.Bilateral(None), ["Bilateral.size", "None"]),
    "Bilateral(2.5)": (lambda: C.Bilateral(2.5), ["Bilateral.size", "whole number"]),
    "Bilateral(True)": (lambda: C.Bilateral(True), ["Bilateral.size"]),
    "Bilateral('2')": (lambda: C.Bilateral("2"), ["Bilateral.size"]),
    "CoulombBound(None)": (lambda: C.CoulombBound(None), ["CoulombBound.bound", "None"]),
    "CoulombBound NaN": (lambda: C.CoulombBound(float("nan")),
                         ["CoulombBound.bound", "finite"]),
    "CoulombBound a vector": (lambda: C.CoulombBound(bound=[1.0, 2.0]),
                              ["CoulombBound.bound", "scalar", "shape (2,)"]),
    "PlanarContact mu a vector": (lambda: C.PlanarContact(mu=np.array([0.1, 0.2])),
                                  ["PlanarContact.mu", "scalar", "shape (2,)"]),
    "PlanarContact mu None": (lambda: C.PlanarContact(mu=None), ["PlanarContact.mu", "None"]),
    "PlanarContact mu inf": (lambda: C.PlanarContact(mu=float("inf")),
                             ["PlanarContact.mu", "finite"]),
    "SpatialContact mu a string": (lambda: C.SpatialContact(mu="0.5"),
                                   ["SpatialContact.mu", "number", "'0.5'"]),
    "SpatialContact mu a matrix": (lambda: C.SpatialContact(mu=np.ones((2, 2))),
                                   ["SpatialContact.mu", "scalar"]),
    # A and b
    "A not symmetric": (solve(A=SKEWED),
                        ["solve_lambda.A", "symmetric", "0.2", "(A + A.T) / 2"]),
    "A not symmetric beside joint rows": (
        solve(fset=F_JOINT, A=np.array([[2.0, 0.5, 0.0], [0.4, 1.0, 0.0], [0.0, 0.0, 1.0]]),
              b=np.zeros(3)),
        ["solve_lambda.A", "A[0, 1] = 0.5", "A[1, 0] = 0.4"]),
    "A with NaN": (solve(A=np.array([[1.0, np.nan], [np.nan, 1.0]])),
                   ["solve_lambda.A", "finite", "A[0, 1]=nan"]),
    "A with inf": (solve(A=np.array([[np.inf, 0.0], [0.0, 1.0]])),
                   ["solve_lambda.A", "finite", "inf"]),
    "b with NaN": (solve(b=np.array([0.0, np.nan])), ["solve_lambda.b", "b[1]=nan"]),
    "A text": (solve(A="eye"), ["solve_lambda.A", "numbers", "str"]),
    "b of the wrong shape": (solve(b=np.zeros(3)), ["A of shape (2, 2)", "b(3,)"]),
    "formulation unknown": (solve(formulation="lcp"), ["contact_formulation", "'lcp'"]),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_bad_lambda_input_raises_a_parameter_error_naming_it(case):
    call, needles = CASES[case]
    with pytest.raises(ss.ParameterError) as err:
        call()
    for needle in needles:
        assert needle in str(err.value), f"{case}: message {str(err.value)!r} lacks {needle!r}"


def test_round_off_asymmetry_is_accepted():
    # A = J M⁻¹ Jᵀ computed in floating point is symmetric only to round-off
    A = np.array([[1.0, 0.2], [0.2 * (1 + 1e-13), 1.0]])
    sol = C.solve_lambda(F, A, B)
    np.testing.assert_allclose(sol.w, A @ np.asarray(sol.lam) - B, atol=1e-12)
    with pytest.raises(ss.ParameterError, match="symmetric"):
        C.solve_lambda(F, np.array([[1.0, 0.2], [0.2 * (1 + 1e-8), 1.0]]), B)


def test_traced_inputs_are_not_inspected():
    # inside jit (as the hosts call it) nothing is checked or transferred: a skewed or NaN A
    # gives numbers, not an error, and the program holds no host callback
    solve_jit = jax.jit(lambda A, b: C.solve_lambda(F, A, b).lam)
    assert np.all(np.isfinite(solve_jit(jnp.asarray(SKEWED), jnp.asarray(B))))
    assert solve_jit(jnp.full((2, 2), jnp.nan), jnp.asarray(B)).shape == (2,)
    jaxpr = str(jax.make_jaxpr(lambda A, b: C.solve_lambda(F, A, b).lam)(SKEWED, B))
    assert "callback" not in jaxpr
    # a concrete A closed over by a vmapped call is checked once, when traced
    with pytest.raises(ss.ParameterError, match="solve_lambda.A"):
        jax.vmap(lambda b: C.solve_lambda(F, SKEWED, b).lam)(jnp.stack([B, B]))


def test_traced_coefficients_build_blocks():
    # hosts build blocks from traced μ inside jit: the constructor checks are skipped there
    lam = jax.jit(lambda mu: C.solve_lambda(C.ProductSet([C.PlanarContact(mu=mu)]),
                                            jnp.eye(2), jnp.asarray(B)).lam)(0.5)
    np.testing.assert_allclose(lam, [-3.0, 10.0], atol=1e-12)
