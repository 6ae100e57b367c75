"""The warm start of ``solve_lambda`` (``init=``, issue 20): the iterative solver of spatial
friction cones starts its Newton rounds from a guess near a solution (natural residual
≤ ``WARM``), else from 0 as without one.

On the spatial instances of the λ-bank (tests/constraints/lambda_bank: boxes held, pushed,
sliding, spinning and landing on four corners, with Siconos 4.4's solutions):

* started from its own cold solution the solver returns it again (to 1e-12 of the
  instance's scales), with the same status;
* a deliberately wrong guess — far (random, normal forces negative), slightly off (the cold
  solution perturbed by 1e-10: used, it is near), or NaN inside ``jit`` — still ends at a
  solution that meets the law read directly (``lambda_bank/law.py``) and, where the bank
  says the solution is unique, at Siconos' w;
* and the Moreau–Jean step of :class:`stickslip.spatial.PointContacts`, which warm-starts
  every step from the previous one, holds a pushed box still to round-off.
"""

import equinox as eqx
import jax.numpy as jnp
import numpy as np
import pytest
from lambda_bank import load_bank, product_set
from lambda_bank.law import law_violations, scales

import stickslip as ss
from stickslip import constraints as C
from stickslip.errors import ParameterError

TOL_ITERATIVE = 1e-6        # the iterative solver accepts a natural residual up to 1e-6
# a warm start from the cold solution: that solution again, to its own stopping error (the
# cold solve stops at natural residuals up to 1e-13; the warm round polishes that: measured
# up to 6e-12 of the scale on the gripper)
SAME = 1e-11
SPATIAL = [i for i in load_bank() if i.spatial]
_solve = eqx.filter_jit(C.solve_lambda)


@eqx.filter_jit
def _solve_traced_guess(fset, A, b, formulation, guess):
    """solve_lambda with the guess a traced argument (a compiled run's previous step): one
    program per problem shape, shared by the instances of that shape."""
    return C.solve_lambda(fset, A, b, formulation, init=guess)


# the gripper's structure (a bilateral block and 16 contacts, 58 rows) compiles for 3-4 s CPU
# per case: `slow` (the suite's budget, issue 23); the boxes on four corners and the random
# two-contact structures cover the warm start in the default run
SLOW_STRUCTURES = ("gripper",)


def _cases():
    for inst in SPATIAL:
        marks = [pytest.mark.slow] if inst.name.startswith(SLOW_STRUCTURES) else []
        for formulation in ("kikuuwe", "anitescu"):
            yield pytest.param(inst, formulation, marks=marks, id=f"{inst.name}-{formulation}")


def _cold(inst, formulation):
    fset = product_set(inst.blocks)
    A, b = jnp.asarray(inst.A), jnp.asarray(inst.b)
    return fset, A, b, _solve(fset, A, b, formulation)


def test_the_bank_has_spatial_instances():
    assert len(SPATIAL) >= 4


@pytest.mark.parametrize("inst, formulation", list(_cases()))
def test_warm_start_from_the_cold_solution_returns_it(inst, formulation):
    fset, A, b, cold = _cold(inst, formulation)
    warm = _solve(fset, A, b, formulation, init=cold.lam)
    _, s_l, s_w = scales(inst.A, inst.b, np.asarray(cold.lam))
    np.testing.assert_allclose(np.asarray(warm.lam), np.asarray(cold.lam), rtol=0,
                               atol=SAME * s_l)
    np.testing.assert_allclose(np.asarray(warm.w), np.asarray(cold.w), rtol=0,
                               atol=SAME * s_w)
    assert int(warm.status) == int(cold.status)


def _check_solution(inst, formulation, sol, what):
    assert int(sol.status) == C.STATUS_UNIQUE, f"{inst.name}: {what} guess: no solution"
    lam = np.asarray(sol.lam)
    bad = law_violations(inst.blocks, inst.A, inst.b, lam, formulation, TOL_ITERATIVE)
    assert not bad, f"{inst.name} ({formulation}, {what} guess):\n" + "\n".join(bad)
    ref = inst.siconos.get(formulation)
    if (inst.solution_set[formulation]["status"] == "unique" and ref is not None
            and ref["info"] == 0):
        _, _, s_w = scales(inst.A, inst.b, lam)
        np.testing.assert_allclose(inst.A @ lam - inst.b, np.asarray(ref["w"]), rtol=0,
                                   atol=TOL_ITERATIVE * s_w)


@pytest.mark.parametrize("inst, formulation", list(_cases()))
def test_a_wrong_warm_start_still_solves_the_problem(inst, formulation):
    fset, A, b, cold = _cold(inst, formulation)
    if int(cold.status) != C.STATUS_UNIQUE:
        pytest.skip(f"{inst.name} ({formulation}): the cold solve reports no solution either "
                    "(test_lambda_bank's KNOWN_FAILURES)")
    _, s_l, _ = scales(inst.A, inst.b, np.asarray(cold.lam))
    rng = np.random.default_rng(7)
    far = rng.normal(size=b.shape) * 10.0 * s_l
    far[2::3] = -np.abs(far[2::3])                     # normal forces pulling: far outside F
    near = np.asarray(cold.lam) * (1.0 + 1e-10 * rng.normal(size=b.shape))
    for what, guess in (("far", far), ("near", near)):
        _check_solution(inst, formulation, _solve(fset, A, b, formulation,
                                                  init=jnp.asarray(guess)), what)
    # a NaN guess inside a compiled run (a failed previous step) is ignored: the cold solve
    # (another program: where λ is not unique its round-off may pick another solution)
    _check_solution(inst, formulation,
                    _solve_traced_guess(fset, A, b, formulation, jnp.full(b.shape, jnp.nan)),
                    "NaN")


def test_a_concrete_guess_is_checked():
    inst = SPATIAL[0]
    fset, A, b, _ = _cold(inst, "kikuuwe")
    with pytest.raises(ParameterError, match="init"):
        C.solve_lambda(fset, A, b, init=np.zeros(b.shape[0] + 1))
    with pytest.raises(ParameterError, match="init"):
        C.solve_lambda(fset, A, b, init=np.full(b.shape, np.nan))


def test_the_planar_routes_ignore_the_guess():
    F = C.ProductSet([C.PlanarContact(mu=0.5)])
    A, b = jnp.eye(2), jnp.array([-3.0, 10.0])
    cold = C.solve_lambda(F, A, b)
    warm = C.solve_lambda(F, A, b, init=jnp.array([5.0, -1.0]))
    assert np.array_equal(np.asarray(cold.lam), np.asarray(warm.lam))


def test_moreau_jean_holds_a_pushed_box_to_round_off():
    # 3 N at the bottom face of a 1 kg cube, μ m g = 4.905 N: it holds. Started from 0 at
    # every step the solver stopped at natural residuals up to 1e-13, and the box crept
    # 1.25e-12 m in 1 s; warm-started every step after the first ends solved to round-off
    # (the first, from 0, leaves 9e-13 m/s for one step: 9e-15 m)
    model = ss.spatial.Model(gravity=(0.0, 0.0, -9.81))
    model.add_body("box", mass=1.0, inertia=None, shape=ss.spatial.Box(0.1, 0.1, 0.1),
                   position=(0.0, 0.0, 0.05))
    model.add_ground(mu_s=0.5, mu_k=0.5)
    box = ss.spatial.PointContacts.from_model(model, force=(3.0, 0.0, 0.0),
                                              force_point=(0.0, 0.0, -0.05))
    res = box.simulate(1.0, dt=1e-2, dt_out=0.1, method="moreau_jean")
    assert np.max(np.abs(res["box.x"])) < 1e-13
    assert np.max(np.abs(res["box.vx"][1:])) < 1e-14
    # the forces of the last step (the guess of the next one) balance the push
    fx = sum(res[f"box.fx.{k}"][-1] for k in range(1, 9))
    assert fx == pytest.approx(-3.0, abs=1e-12)
