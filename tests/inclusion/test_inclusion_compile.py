"""compile_inclusion: structure, determinism, overrides, printing, jit/vmap, light import."""

import os
import subprocess
import sys

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sympy as sp

import stickslip as ss

inclusion = pytest.importorskip("stickslip.inclusion")
Sgn, Dio = inclusion.Sgn, inclusion.Dio
DI, compile_inclusion = inclusion.DifferentialInclusion, inclusion.compile_inclusion
examples = inclusion.examples


def test_public_names_are_exported():
    for name in ("Sgn", "Dio", "DifferentialInclusion", "compile_inclusion"):
        assert hasattr(ss.inclusion, name)
    assert issubclass(ss.inclusion.CompiledInclusion, ss.systems.AbstractSystem)


def test_state_order_is_x_then_e_then_a_with_channels_for_every_force():
    system = examples.two_blocks_conveyor()
    assert system.state_names[8:] == ("e1", "e2", "e3", "a1", "a2", "a3")
    out = system.outputs(jnp.asarray(0.0), system.initial_state())
    assert set(out) == {"f_e1", "f_e2", "f_e3", "f_a1", "f_a2", "f_a3"}
    res = ss.simulate(examples.belt_stick_slip(), 0.01, dt=1e-4)
    assert set(res.names) >= {"x", "v", "a", "f_a", "u"}       # inputs are channels too


def test_instances_are_numbered_by_the_states_they_involve_not_by_term_order():
    x1, x2, v1, v2 = sp.symbols("x1 x2 v1 v2")
    rates = [v1, v2, -Dio(x2 - x1) + Dio(x1), Dio(x2 - x1) - Sgn(v2) - Sgn(v1)]
    for order in (rates, [v1, v2, Dio(x1) - Dio(x2 - x1), -Sgn(v1) - Sgn(v2) + Dio(x2 - x1)]):
        system = compile_inclusion(DI([x1, x2, v1, v2], order))
        assert [c.psi for c in system.program.contacts] == [x1, x2 - x1]
        assert [f.theta for f in system.program.frictions] == [(v1,), (v2,)]


def test_compile_is_deterministic_in_one_process():
    first = compile_inclusion(examples.two_blocks_conveyor(compiled=False))
    second = compile_inclusion(examples.two_blocks_conveyor(compiled=False))
    assert first.state_names == second.state_names and first.text() == second.text()


@pytest.mark.slow
def test_compile_is_deterministic_across_processes():
    code = ("import stickslip as ss; s = ss.inclusion.examples.two_blocks_conveyor(); "
            "print(s.state_names); print(s.text())")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    outs = []
    for seed in ("0", "123"):
        env["PYTHONHASHSEED"] = seed
        outs.append(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                   capture_output=True, text=True).stdout)
    assert outs[0] == outs[1] and "e3" in outs[0]


def test_action_and_reaction_share_one_proxy():
    x1, x2, v1, v2, N = sp.symbols("x1 x2 v1 v2 N")
    m1, m2 = sp.symbols("m1 m2")
    omega = N * Sgn(v1 - v2)
    system = compile_inclusion(DI([x1, x2, v1, v2], [v1, v2, -omega / m1, -N * Sgn(v2 - v1) / m2],
                                  parameters={N: 1.0, m1: 1.0, m2: 2.0}))
    assert system.state_names[4:] == ("a",)


def test_split_reaction_pair_warns():
    x1, x2, v1, v2, N, m1, m2 = sp.symbols("x1 x2 v1 v2 N m1 m2")
    di = DI([x1, x2, v1, v2], [v1, v2, -N * m1 * Sgn(v1 - v2), N * m2 * Sgn(v1 - v2)],
            parameters={N: 1.0, m1: 1.0, m2: 2.0})
    with pytest.warns(UserWarning, match="separate friction proxies"):
        system = compile_inclusion(di)
    assert system.state_names[4:] == ("a1", "a2")


def test_bound_with_a_denominator_keeps_force_units():
    system = examples.point_on_plane(compiled=True)
    (friction,) = system.program.frictions
    assert str(friction.chi) == "mu*Dio(z)"


def test_defaults_mappings_and_overrides_set_the_law_constants():
    di = examples.two_blocks_conveyor(compiled=False)
    system = compile_inclusion(di)
    assert float(system.contacts[0].K) == 1e5 and float(system.frictions[0].K) == 1e4
    system = compile_inclusion(di, K=3e4, beta=1e-3, alpha=5e-4)
    assert {float(law.K) for law in (*system.contacts, *system.frictions)} == {3e4}
    p1x, p2x, p2y, v2x, u = sp.symbols("p1x p2x p2y v2x u")
    system = compile_inclusion(di, overrides={
        "e1": dict(K=2e5), p2x - p1x: ss.laws.UnilateralODE(K=3e5, beta=1e-3, alpha=1e-3),
        Dio(p2y): dict(alpha=2e-3), v2x + u: dict(beta=5e-3),
        "a2": ss.laws.CoulombODE(mu=1.0, K=5e3, beta=1e-2)})
    assert [float(c.K) for c in system.contacts] == [2e5, 3e5, 1e5]
    assert float(system.contacts[2].alpha) == 2e-3
    assert float(system.frictions[2].beta) == 5e-3 and float(system.frictions[1].K) == 5e3
    with pytest.raises(ss.InclusionError, match="mu=1"):
        compile_inclusion(di, overrides={"a1": ss.laws.CoulombODE(F=1.0, K=1e4, beta=1e-3)})
    with pytest.raises(ss.InclusionError, match="'dio'"):
        compile_inclusion(di, K={"contact": 1.0})
    with pytest.raises(ss.ParameterError, match="alpha"):
        compile_inclusion(di, alpha=1.0)           # alpha > beta: the law's own check
    small = compile_inclusion(di, beta=5e-4, overrides={"e3": dict(beta=1e-4)})
    assert [float(c.alpha) for c in small.contacts] == [2.5e-4, 2.5e-4, 5e-5]   # α = β/2


def test_initial_values_of_added_states():
    system = examples.point_on_plane(compiled=True)
    assert float(system.initial_state()[system.state_names.index("e")]) == pytest.approx(
        9.81e-5)
    moved = system.with_initial(x=0.3, ax=1e-5)
    assert float(moved.initial_state()[0]) == 0.3 and float(moved.initial_state()[7]) == 1e-5
    with pytest.raises(ss.InclusionError, match="not a state"):
        compile_inclusion(examples.point_on_plane(compiled=False), initial={"q": 1.0})


def test_text_and_latex_print_equation_18():
    system = examples.two_blocks_conveyor()
    text = str(system)
    assert "d(e2)/dt" in text and "Max(" in text and "sat(" in text
    assert "Step 1: replaces Dio(-p1x + p2x)" in text
    assert "Step 2: replaces mu2*Dio(-p1x + p2x)·Sgn(v1y - v2y)" in text
    latex = system.latex()
    assert latex.startswith("\\begin{aligned}") and "\\operatorname{sat}" in latex
    assert "\\max" in latex
    di_text = examples.two_blocks_conveyor(compiled=False).text()
    assert "∈" in di_text and "Sgn(v1y - v2y)" in di_text
    assert "\\operatorname{dio}" in examples.two_blocks_conveyor(compiled=False).latex()


def test_compiled_system_jits_vmaps_and_batches():
    system = examples.two_blocks_conveyor()
    x0 = system.initial_state()
    eager = system.vector_field(jnp.asarray(0.0), x0)
    jitted = eqx.filter_jit(lambda s, x: s.vector_field(jnp.asarray(0.0), x))(system, x0)
    np.testing.assert_allclose(jitted, eager, rtol=1e-14, atol=1e-14)
    members = [system.with_parameters(mu3=mu) for mu in (0.3, 0.5, 0.7)]
    stacked = ss.stack_systems(members)
    vmapped = eqx.filter_vmap(lambda s: s.vector_field(jnp.asarray(0.0), s.x0))(stacked)
    for i, member in enumerate(members):
        np.testing.assert_allclose(vmapped[i], member.vector_field(jnp.asarray(0.0), x0),
                                   rtol=1e-14, atol=1e-14)
    batch = ss.simulate_batch(members, 0.05, dt=1e-4, dt_out=1e-3)
    v2x = batch["v2x"][:, -1]
    assert np.all(np.isfinite(v2x)) and v2x[0] != v2x[2]      # the members really differ


def test_gradient_through_a_compiled_run():
    system = examples.belt_stick_slip()

    def final_x(F):
        s = eqx.tree_at(lambda s: s.parameter_values, system,
                        system.parameter_values.at[2].set(F))
        _, xs = ss.integrate.trajectory(s, 0.2, dt=1e-4)
        return xs[-1, 0]

    grad = float(jax.grad(final_x)(5.0))
    fd = float((final_x(5.0 + 1e-4) - final_x(5.0 - 1e-4)) / 2e-4)
    assert np.isfinite(grad) and grad == pytest.approx(fd, rel=1e-4)


def test_time_symbol_and_inputs_enter_the_rates():
    t, x, v, u = sp.symbols("t x v u")
    di = DI([x, v], [v, sp.sin(t) + u - Sgn(v)], inputs={u: lambda tt: 2.0 + 0 * tt}, time=t)
    system = compile_inclusion(di)
    rate = system.vector_field(jnp.asarray(1.0), jnp.array([0.0, 0.5, 0.0]))
    # sliding at v = 0.5 m/s with the default proxy: the friction saturates at level 1
    assert float(rate[1]) == pytest.approx(np.sin(1.0) + 2.0 - 1.0)


def test_simulate_rejects_steps_too_large_for_the_compiled_stiffness():
    with pytest.raises(ss.ParameterError, match="contact e"):
        ss.simulate(examples.two_blocks_conveyor(), 0.01, dt=5e-3)


def test_importing_stickslip_does_not_import_sympy():
    code = "import sys, stickslip; assert 'sympy' not in sys.modules; stickslip.inclusion.Sgn"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, "-c", code], env=env, check=True)


def test_units_of_proxies_are_inferred_and_channels_can_be_named():
    system = examples.two_blocks_conveyor()
    hand = ss.systems.TwoBlocksConveyor()
    assert {n: system.units[n] for n in system.state_names} == \
        {n: hand.units[n] for n in hand.state_names}          # e… and a… in m, inferred
    assert system.units["f_a1"] == "N"                          # a channel named by the user


def test_named_instances_give_named_states_channels_and_override_keys():
    x, v, h, w, m = sp.symbols("x v h w m")
    rates = [v, w, -Dio(x, name="wall") / m - Sgn(v, name="air"),
             Dio(h, name="floor") + Dio(x) - 1]        # Dio(x) again: the same instance
    system = compile_inclusion(DI([x, h, v, w], rates, parameters={m: 1.0}),
                               overrides={"floor": dict(K=2e5), "air": dict(beta=1e-2)})
    assert system.state_names[4:] == ("e_wall", "e_floor", "a_air")
    assert float(system.contacts[1].K) == 2e5 and float(system.frictions[0].beta) == 1e-2
    out = system.outputs(jnp.asarray(0.0), system.initial_state())
    assert set(out) == {"f_e_wall", "f_e_floor", "f_a_air"}
    assert str(Sgn(-v, name="air")) == "-Sgn(v, name='air')"
    with pytest.raises(ss.InclusionError, match="named both '(wall|door)' and"):
        compile_inclusion(DI([x, v], [v, Dio(x, name="wall") + Dio(x, name="door")]))
    with pytest.raises(ss.InclusionError, match="both named 'wall'"):
        compile_inclusion(DI([x, v], [v, Dio(x, name="wall") + Dio(v, name="wall")]))
    with pytest.raises(ss.InclusionError, match="identifier"):
        Dio(x, name="a wall")


def test_parameter_variants_reuse_the_compiled_run_without_retracing():
    from stickslip.integrate._fixed_step import solve_fixed_step

    system = examples.belt_stick_slip()
    ss.simulate(system, 0.01, dt=1e-4)
    before = solve_fixed_step._cache_size()
    ss.simulate(system.with_parameters(F=4.0).with_initial(x=0.01), 0.01, dt=1e-4)
    assert solve_fixed_step._cache_size() == before
