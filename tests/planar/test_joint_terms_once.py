"""Each planar constraint's terms against forward mode of its own Φ (issue 23 item 4).

Every public constraint class (its ``example()``, bound in a model with body ``"link"``,
plus variants for the branches an example does not reach) is evaluated at seeded random
poses, velocities and times: ``kinematic_terms`` — the one place the revolute and
translational joints write their hand derivatives — must give Φ_q = ``jax.jacfwd`` of Φ,
Φ_t = ∂Φ/∂t and γ = −d²/ds² Φ(q + s q̇, t + s) at s = 0 (SPEC §9: γ = −(Φ_q q̇)_q q̇ −
2Φ_qt q̇ − Φ_tt) to 1e-12, the separate ``residual`` / ``jacobians`` / ``time_derivative``
/ ``gamma`` must equal it, and a joint's ``slide_jacobians`` must be the forward-mode
gradient of its ``slide``. A deliberately wrong hand derivative fails the same check.
"""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss

jax.config.update("jax_enable_x64", True)

P = ss.planar
TOL = 1e-12

# the constraint classes of tests/test_every_element_conformance.py's REGISTRY
REGISTERED = {"RevoluteJoint", "TranslationalJoint", "RevoluteRevoluteJoint",
              "RevoluteTranslationalJoint", "GearJoint", "CamFollowerJoint",
              "AbsoluteDistance", "AbsoluteX", "AbsoluteY", "AbsoluteAngle",
              "RotationalDriver", "TranslationalDriver", "AbsoluteDriver", "RelativeDriver",
              "DistanceDriver"}


def _constraint_classes() -> list[type]:
    found = [getattr(P, name) for name in P.__all__]
    return sorted((c for c in found if inspect.isclass(c)
                   and issubclass(c, P.AbstractConstraint)
                   and not c.__name__.startswith("Abstract")), key=lambda c: c.__name__)


def _flat_profile(alpha):
    return 0.05 + 0.01 * jnp.cos(alpha) + 0.002 * jnp.sin(2 * alpha)


def _variants() -> dict[str, object]:
    """Elements beyond the examples: the other branches (flat cam, internal gear, the
    "phi" and "y" coordinates) and motions with Φ_tt ≠ 0."""
    ramp = P.smooth_ramp(0.1, 0.6, 0.0, 1.0)
    return {
        "CamFollowerJoint[flat]": P.CamFollowerJoint("ground", "link", _flat_profile,
                                                     kind="flat", normal_j=(0.3, -1.0)),
        "GearJoint[internal]": P.GearJoint("ground", "link", (0.1, 0.0), (0.0, 0.05),
                                           radius_i=0.1, radius_j=0.4, internal=True),
        "AbsoluteDriver[phi]": P.AbsoluteDriver("link", "phi", ramp),
        "AbsoluteDriver[x]": P.AbsoluteDriver("link", "x", ramp, point=(0.1, -0.2)),
        "RelativeDriver[phi]": P.RelativeDriver("ground", "link", "phi", ramp),
        "RelativeDriver[y]": P.RelativeDriver("ground", "link", "y", ramp, (0.2, 0.1),
                                              (-0.1, 0.3)),
        "TranslationalDriver[ramp]": P.TranslationalDriver("ground", "link", (0.1, 0.2),
                                                           (0.3, -0.1), axis_i=(0.6, 0.8),
                                                           distance=ramp),
        "DistanceDriver[ramp]": P.DistanceDriver("ground", "link", (0.1, 0.0), (0.0, 0.2),
                                                 distance=ramp),
        "RevoluteJoint[pin]": P.RevoluteJoint("ground", "link", (0.2, -0.1), (-0.3, 0.05)),
        "TranslationalJoint[angle]": P.TranslationalJoint("ground", "link", (0.1, 0.0),
                                                          (0.0, 0.2), axis_i=(-0.2, 1.0),
                                                          angle=0.4),
    }


def _bound(element):
    model = P.Model()
    model.add_body("link", mass=1.0, inertia=0.1, x=0.7, y=0.3, phi=-0.9)
    return model.add(element)


CASES = {c.__name__: c.example for c in _constraint_classes()}
CASES.update({name: (lambda e=e: e) for name, e in _variants().items()})


def _inputs(seed):
    rng = np.random.default_rng(seed)
    qi, qdi, qdj = (jnp.asarray(rng.uniform(-1.0, 1.0, 3)) for _ in range(3))
    qj = jnp.asarray([0.7, 0.3, -0.9] + rng.uniform(-0.2, 0.2, 3))
    qi = qi * jnp.asarray([0.2, 0.2, 1.0])          # keep body j off body i's point
    return qi, qj, qdi * 2.0, qdj * 2.0, jnp.asarray(rng.uniform(0.1, 0.9))


def _forward_gamma(c, qi, qj, qdi, qdj, t):
    """−d²/ds² Φ(q_i + s q̇_i, q_j + s q̇_j, t + s) at s = 0, by nested forward mode."""
    def along(s):
        return c.residual(qi + s * qdi, qj + s * qdj, t + s)

    def rate(s):
        return jax.jvp(along, (s,), (jnp.ones_like(s),))[1]

    zero = jnp.zeros_like(t)
    return -jax.jvp(rate, (zero,), (jnp.ones_like(zero),))[1]


def _check(c, seed):
    qi, qj, qdi, qdj, t = _inputs(seed)
    phi, Ji, Jj, phi_t, gamma = c.kinematic_terms(qi, qj, qdi, qdj, t)
    n = c.n_equations
    assert phi.shape == phi_t.shape == gamma.shape == (n,)
    assert Ji.shape == Jj.shape == (n, 3)
    auto_i, auto_j = jax.jacfwd(c.residual, argnums=(0, 1))(qi, qj, t)
    auto_t = jax.jvp(lambda s: c.residual(qi, qj, s), (t,), (jnp.ones_like(t),))[1]
    close = {"rtol": TOL, "atol": TOL}
    np.testing.assert_allclose(Ji, auto_i, **close, err_msg="Φ_qi")
    np.testing.assert_allclose(Jj, auto_j, **close, err_msg="Φ_qj")
    np.testing.assert_allclose(phi_t, auto_t, **close, err_msg="Φ_t")
    np.testing.assert_allclose(gamma, _forward_gamma(c, qi, qj, qdi, qdj, t), **close,
                               err_msg="γ")
    separate = (c.residual(qi, qj, t), *c.jacobians(qi, qj, t),
                c.time_derivative(qi, qj, t), c.gamma(qi, qj, qdi, qdj, t))
    for what, a, b in zip(("Φ", "Φ_qi", "Φ_qj", "Φ_t", "γ"), separate,
                          (phi, Ji, Jj, phi_t, gamma)):
        np.testing.assert_allclose(a, b, **close, err_msg=f"separate {what}")
    assert np.all(np.isfinite(np.concatenate([phi, Ji.ravel(), Jj.ravel(), gamma])))
    if c.slide_unit is not None:
        auto = jax.jacfwd(c.slide, argnums=(0, 1))(qi, qj)
        for what, a, b in zip(("∂s/∂q_i", "∂s/∂q_j"), c.slide_jacobians(qi, qj), auto):
            np.testing.assert_allclose(a, b, **close, err_msg=what)


def test_every_registered_constraint_class_is_covered():
    names = {c.__name__ for c in _constraint_classes()}
    assert REGISTERED <= names, REGISTERED - names


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", sorted(CASES))
def test_terms_equal_forward_mode_of_phi(name, seed):
    _check(_bound(CASES[name]()), seed)


@pytest.mark.parametrize("cls", [P.RevoluteJoint, P.TranslationalJoint])
@pytest.mark.parametrize("term", [2, 4])          # Φ_qj, γ
def test_a_wrong_hand_derivative_fails_the_check(monkeypatch, cls, term):
    right = cls.kinematic_terms

    def wrong(self, qi, qj, qdi, qdj, t):
        terms = list(right(self, qi, qj, qdi, qdj, t))
        # a slip the size of a dropped term: 1e-6 × a velocity (γ) or in one entry (Φ_qj)
        terms[term] = terms[term] + (1e-6 * qdi[2] if term == 4 else
                                     jnp.zeros_like(terms[term]).at[0, 2].set(1e-6))
        return tuple(terms)

    c = _bound(cls.example())
    _check(c, 0)
    monkeypatch.setattr(cls, "kinematic_terms", wrong)
    with pytest.raises(AssertionError):
        _check(c, 0)
