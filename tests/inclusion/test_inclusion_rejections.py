"""Every SPEC §4 rejection raises InclusionError naming the offending term and the fix."""

import jax.numpy as jnp
import pytest
import sympy as sp

import stickslip as ss

inclusion = pytest.importorskip("stickslip.inclusion")
Sgn, Dio = inclusion.Sgn, inclusion.Dio
DI, compile_inclusion = inclusion.DifferentialInclusion, inclusion.compile_inclusion

x, v, z, vz, m, mu, c = sp.symbols("x v z vz m mu c")
PARAMS = {m: 1.0, mu: 0.5}


def _compile(rate_v, rate_vz=None, params=PARAMS, **kw):
    rates = [v, rate_v, vz, rate_vz if rate_vz is not None else Dio(z) / m - 9.81]
    return compile_inclusion(DI([x, v, z, vz], rates, parameters=params, **kw))


@pytest.mark.parametrize("discontinuous", [sp.sign(x), sp.Heaviside(x), sp.floor(x),
                                           sp.Piecewise((1, x > 0), (2, True))])
def test_sgn_times_a_discontinuous_function_is_rejected(discontinuous):
    with pytest.raises(ss.InclusionError, match="discontinuous") as info:
        _compile(-discontinuous * Sgn(v) / m)
    assert "rate of `v`" in str(info.value)
    assert str(discontinuous) in str(info.value)


def test_product_of_two_sgn_is_rejected():
    with pytest.raises(ss.InclusionError, match=r"Sgn\(v\).*Sgn\(x\)|Sgn\(x\).*Sgn\(v\)"):
        _compile(-mu * Sgn(x) * Sgn(v))


def test_sgn_inside_the_bound_is_rejected():
    with pytest.raises(ss.InclusionError, match="contains another Sgn"):
        _compile(-(1 + Sgn(x)) * Sgn(v))


def test_bound_not_provably_nonnegative_names_the_term_and_the_fix():
    with pytest.raises(ss.InclusionError) as info:
        _compile(-mu * x * Sgn(v) / m)
    msg = str(info.value)
    assert "mu*x" in msg and "Sgn(v)" in msg and "`x`" in msg
    assert "Dio(" in msg and "Abs(" in msg           # how to make it so


def test_bound_fixed_with_abs_or_dio_compiles():
    _compile(-mu * sp.Abs(x) * Sgn(v) / m)
    _compile(-mu * Dio(z) * Sgn(v) / m)


def test_bound_with_a_negative_parameter_is_rejected_and_names_it():
    with pytest.raises(ss.InclusionError, match=r"`mu` = -0.5"):
        _compile(-mu * Dio(z) * Sgn(v) / m, params={m: 1.0, mu: -0.5})


def test_bound_check_uses_parameter_values_when_signs_are_not_enough():
    th = sp.Symbol("theta")
    _compile(-mu * m * 9.81 * sp.cos(th) * Sgn(v), params={m: 1.0, mu: 0.5, th: 0.3})
    with pytest.raises(ss.InclusionError, match="cos"):
        _compile(-mu * m * 9.81 * sp.cos(th) * Sgn(v), params={m: 1.0, mu: 0.5, th: 2.0})


def test_with_parameters_rechecks_the_bounds():
    system = _compile(-mu * Dio(z) * Sgn(v) / m)
    assert system.with_parameters(mu=0.1).parameter_values[1] == 0.1
    with pytest.raises(ss.InclusionError, match="mu"):
        system.with_parameters(mu=-0.1)
    with pytest.raises(ss.ParameterError, match="unknown parameter"):
        system.with_parameters(nu=1.0)


@pytest.mark.parametrize("rate, fragment", [
    (Dio(Dio(z)) - 1, "Dio(Dio(z))"),                 # Dio inside a Dio argument
    (Dio(z + Sgn(v)), "inside its argument"),         # Sgn inside a Dio argument
    (-Sgn(v + Dio(z)), "inside its argument"),        # Dio inside a Sgn argument
    (-Sgn(Sgn(v)), "inside its argument"),            # Sgn inside a Sgn argument
    (sp.sin(Sgn(v)), "sin(Sgn(v))"),                  # inside another function
    (Dio(z) ** 2, "Dio(z)**2"),                       # inside a power
    (1 / (1 + Sgn(v)), "Sgn(v)"),                     # inside a denominator
])
def test_unsupported_nesting_is_rejected_and_named(rate, fragment):
    with pytest.raises(ss.InclusionError) as info:
        _compile(rate)
    assert fragment in str(info.value)


def test_unknown_symbols_are_rejected_with_their_names():
    q, w = sp.symbols("q w")
    with pytest.raises(ss.InclusionError) as info:
        DI([x, v], [v, -q * x - w * Sgn(v)], parameters={})
    msg = str(info.value)
    assert "`q`" in msg and "`w`" in msg and "parameters=" in msg


def test_undefined_functions_and_bad_declarations_are_reported_together():
    t = sp.Symbol("t")
    u = sp.Function("u")
    with pytest.raises(ss.InclusionError) as info:
        DI([x, v, x], [v, u(t)], parameters={m: "heavy"}, inputs={mu: 3.0}, time=t)
    msg = str(info.value)
    assert "listed twice" in msg and "3 states but 2 rates" in msg
    assert "`m`" in msg and "input `mu`" in msg and "u(t)" in msg


def test_planar_sgn_with_only_one_component_is_rejected():
    vx, vy = sp.symbols("vx vy")
    S = Sgn([vx, vy])
    di = DI([vx, vy], [-S[0], -vy], parameters={})
    with pytest.raises(ss.InclusionError, match="only one component"):
        compile_inclusion(di)


def test_sgn_rejects_three_components():
    with pytest.raises(ss.InclusionError, match="2-vector"):
        Sgn([x, v, z])


def test_unknown_override_key_lists_the_instances():
    di = DI([x, v], [v, -mu * Sgn(v)], parameters=PARAMS)
    with pytest.raises(ss.InclusionError, match=r"'a' \(Sgn\(v\)\)"):
        compile_inclusion(di, overrides={"e7": dict(K=1.0)})
    with pytest.raises(ss.InclusionError, match="unknown constant"):
        compile_inclusion(di, overrides={"a": dict(alpha=1.0)})


def test_generated_names_may_not_clash_with_user_symbols():
    a = sp.Symbol("a")
    di = DI([a, v], [v, -mu * Sgn(v)], parameters=PARAMS)
    with pytest.raises(ss.InclusionError, match="Rename that symbol"):
        compile_inclusion(di)


def test_input_functions_are_checked():
    u = sp.Symbol("u")
    with pytest.raises(ss.InclusionError, match="must return a scalar"):
        DI([x, v], [v, -Sgn(v - u)], inputs={u: lambda t: jnp.zeros(2)})
