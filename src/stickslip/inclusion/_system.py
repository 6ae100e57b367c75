"""`CompiledInclusion`: the ODE of SPEC §4 eq. 18 as a stickslip system."""

from __future__ import annotations

from typing import Any, ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import sympy as sp

from .._validation import check_finite, is_traced
from ..errors import InclusionError, ParameterError
from ..laws import CoulombODE, UnilateralODE
from .._parameter_arrays import as_parameter
from ..integrate import module_parameters
from ..systems import AbstractSystem
from ._bounds import bound_problem
from ._functions import matrix_entries, sat

__all__ = ["CompiledInclusion", "CompiledInclusionTracedOnce", "build_program"]


class _Program:
    """Everything static about a compiled inclusion: names, SymPy forms, lambdified code.

    Hashed by identity, so a system and its variants (``with_parameters``) share one jit
    cache entry and stack into one batch.
    """

    def __init__(self, di, rates, contacts, frictions, name):
        self.name = name
        self.di = di
        self.time = di.time if di.time is not None else sp.Dummy("t")
        self.user_states = tuple(di.states)
        self.parameter_symbols = tuple(di.parameters)
        self.input_symbols = tuple(di.inputs)
        self.contacts = contacts
        self.frictions = frictions
        self.rates = rates
        self.n_user = len(di.states)
        names = [str(s) for s in di.states] + [c.name for c in contacts]
        friction_slices = []
        offset = len(names)
        for f in frictions:
            comps = [f.name + ax for ax in "xy"] if f.planar else [f.name]
            names += comps
            friction_slices.append((offset, len(comps)))
            offset += len(comps)
        self.state_names = tuple(names)
        self.friction_slices = tuple(friction_slices)
        self.friction_channels = tuple(
            tuple(f"f_{f.name}{ax}" for ax in "xy") if f.planar else (f"f_{f.name}",)
            for f in frictions)
        self.units = _units(di, contacts, frictions)

        t, xs, ps, us = self.time, list(self.user_states), list(self.parameter_symbols), \
            list(self.input_symbols)
        fs = [c.force for c in contacts]
        ss_ = [s for f in frictions for s in f.forces]
        geometry = [c.psi for c in contacts] + [th for f in frictions for th in f.theta]
        self.n_geometry = len(geometry)
        self.geometry = _lambdify([t, xs, ps, us], geometry)
        self.bounds = _lambdify([t, xs, ps, us, fs], [f.chi_forces for f in frictions])
        self.rates_fn = _lambdify([t, xs, ps, us, fs, ss_], rates)
        self.inverse_masses = _inverse_masses([t, xs, ps, us, fs, ss_], xs, rates,
                                              contacts, frictions)

    def __repr__(self) -> str:
        return f"<compiled program of {self.name!r}: states {list(self.state_names)}>"

    # --- display --------------------------------------------------------------------------

    def display(self, system: "CompiledInclusion"):
        """SymPy equations of eq. 18 for this system: (rows, definitions, constants)."""
        t = self.time
        reps, definitions, constants = {}, [], []
        for c, law in zip(self.contacts, system.contacts):
            e, f = sp.Symbol(c.name), sp.Symbol(f"f_{c.name}")
            K, b, a = (sp.Symbol(f"{k}_{c.name}") for k in ("K", "beta", "alpha"))
            reps[c.force] = f
            definitions.append((f, K * sp.Max(0, e - b * (c.psi + e) / a),
                                f"Step 1: replaces Dio({sp.sstr(c.psi)})"))
            constants += [(K, law.K), (b, law.beta), (a, law.alpha)]
        e_rows = [(sp.Symbol(c.name), sp.Max(-sp.Symbol(c.name) / sp.Symbol(f"beta_{c.name}"),
                   -(c.psi + sp.Symbol(c.name)) / sp.Symbol(f"alpha_{c.name}")))
                  for c in self.contacts]
        a_rows = []
        for f, law in zip(self.frictions, system.frictions):
            K, b = sp.Symbol(f"K_{f.name}"), sp.Symbol(f"beta_{f.name}")
            constants += [(K, law.K), (b, law.beta)]
            chi = f.chi_forces.xreplace(reps)
            comps = [f.name + ax for ax in "xy"] if f.planar else [f.name]
            a = [sp.Symbol(n) for n in comps]
            s = [sp.Symbol(f"s_{n}") for n in comps]
            for dummy, sym in zip(f.forces, s):
                reps[dummy] = sym
            theta = ", ".join(map(sp.sstr, f.theta))
            note = (f"Step 2: replaces {sp.sstr(f.chi)}·Sgn("
                    + (f"[{theta}])" if f.planar else f"{theta})"))
            if f.planar:
                arg = sp.Matrix(a) + b * sp.Matrix(f.theta)
                definitions.append((sp.Matrix(s), K * sat(chi / K, arg), note))
            else:
                definitions.append((s[0], K * sat(chi / K, a[0] + b * f.theta[0]), note))
            a_rows += [(ai, (si / K - ai) / b) for ai, si in zip(a, s)]
        rows = [(x, r.xreplace(reps)) for x, r in zip(self.user_states, self.rates)]
        rows += e_rows + a_rows
        params = [(p, v) for p, v in zip(self.parameter_symbols,
                                          np.asarray(system.parameter_values).tolist())]
        return rows, definitions, constants, params, t


def _common_unit(di, exprs) -> str | None:
    units = {di.units.get(str(sym)) for e in exprs for sym in e.free_symbols
             if sym in di.states}
    return units.pop() if len(units) == 1 and None not in units else None


def _units(di, contacts, frictions) -> dict[str, str]:
    """The user's units plus those of the proxies: e_i has the unit of its gap ψ_i, a_j the
    unit of its slip θ_j times seconds (eq. 9: a + β θ is a displacement)."""
    out = {str(s): u for s, u in di.units.items()}
    for c in contacts:
        unit = _common_unit(di, [c.psi])
        if unit and c.name not in out:
            out[c.name] = unit
    for f in frictions:
        unit = _common_unit(di, f.theta)
        if unit and unit.endswith("/s"):
            for name in ([f.name + ax for ax in "xy"] if f.planar else [f.name]):
                out.setdefault(name, unit[:-2])
    return out


def _lambdify(args, exprs):
    if not exprs:
        return None
    return sp.lambdify(args, list(exprs), modules="jax", cse=True, docstring_limit=0)


def _inverse_masses(args, xs, rates, contacts, frictions):
    """Host-side (NumPy) function of the effective inverse masses of every law (SPEC §4).

    Contact i: ∂ψ̈_i/∂f_i, how its own force accelerates its gap. Friction j: −∂θ̇_j/∂s_j.
    Symbolic, so that ``linear_modes`` (called by every ``simulate``) costs microseconds.
    """
    def d_dt(expr):
        return sum((sp.diff(expr, x) * r for x, r in zip(xs, rates)), sp.Integer(0))

    try:
        weights = [sp.diff(d_dt(d_dt(c.psi)), c.force) for c in contacts]
        weights += [-sp.diff(d_dt(f.theta[0]), f.forces[0]) for f in frictions]
    except Exception:  # noqa: BLE001 - exotic rates: linear_modes falls back
        return None
    if not weights:
        return None
    return sp.lambdify(args, weights, modules="numpy", docstring_limit=0)


def build_program(di, rates, contacts, frictions, name) -> _Program:
    return _Program(di, rates, contacts, frictions, name)


def _stack(values) -> jnp.ndarray:
    return jnp.stack([jnp.asarray(v, dtype=float) for v in values])


class CompiledInclusion(AbstractSystem):
    """A differential inclusion compiled to a Lipschitz ODE (SPEC §4, eq. 18).

    Build it with :func:`~stickslip.inclusion.compile_inclusion`. State order:
    ``[x; e_1..e_m; a_1..a_n]`` — the inclusion's states, the contact proxies (one per
    distinct ``Dio`` argument) and the friction proxies (one per ``χ·Sgn(θ)``; two
    components ``…x``, ``…y`` for planar sliding).

    Fields (arrays may be traced, batched with ``vmap`` and differentiated):

    parameter_values: the inclusion's parameters, in ``parameter_names`` order.
    x0: the initial state.
    contacts: one :class:`~stickslip.laws.UnilateralODE` per contact (K_d, β_d, α).
    frictions: one :class:`~stickslip.laws.CoulombODE` (``mu=1``: the level is the bound
        χ) per friction term (K_s, β_s).

    Channels: the states; ``f_e…`` contact forces (≥ 0, the value that replaced Dio(ψ));
    ``f_a…`` friction forces in the law convention — the force opposing the slip θ, i.e.
    minus the value that replaced χ·Sgn(θ); and one channel per input.
    """

    parameter_values: jnp.ndarray = eqx.field(converter=as_parameter)
    x0: jnp.ndarray = eqx.field(converter=as_parameter)
    contacts: tuple
    frictions: tuple
    inputs: tuple = eqx.field(static=True)
    program: _Program = eqx.field(static=True)

    def __check_init__(self):
        n = len(self.program.state_names)
        if not is_traced(self.x0) and np.shape(self.x0) != (n,):
            raise ParameterError(f"`CompiledInclusion.x0` must have {n} values "
                                 f"({', '.join(self.program.state_names)}); got shape "
                                 f"{np.shape(self.x0)}.")
        for field, kind, expected in (("contacts", UnilateralODE, self.program.contacts),
                                      ("frictions", CoulombODE, self.program.frictions)):
            laws = getattr(self, field)
            if (not isinstance(laws, tuple) or len(laws) != len(expected)
                    or not all(isinstance(law, kind) for law in laws)):
                raise ParameterError(
                    f"`CompiledInclusion.{field}` must be a tuple of {len(expected)} "
                    f"{kind.__name__} (one per {'Dio' if kind is UnilateralODE else 'Sgn'} "
                    f"instance: {[x.name for x in expected]}); got {laws!r}.")
        n_p = len(self.program.parameter_symbols)
        if not is_traced(self.parameter_values) and np.shape(self.parameter_values) != (n_p,):
            raise ParameterError(f"`CompiledInclusion.parameter_values` must have {n_p} "
                                 f"values; got shape {np.shape(self.parameter_values)}.")
        if not is_traced(self.parameter_values):
            for name, value in zip(self.parameter_names, np.ravel(self.parameter_values)):
                check_finite(self.program.name, name, value,
                             "Pass a finite value for every parameter of the inclusion.")
        if not is_traced(self.x0):
            for name, value in zip(self.state_names, np.ravel(self.x0)):
                check_finite(self.program.name, f"initial[{name}]", value,
                             "Pass a finite initial value for every state.")

    # --- the system contract -----------------------------------------------------------

    @property
    def state_names(self) -> tuple[str, ...]:
        return self.program.state_names

    @property
    def parameter_names(self) -> tuple[str, ...]:
        return tuple(str(s) for s in self.program.parameter_symbols)

    @property
    def units(self) -> dict[str, str]:
        return dict(self.program.units)

    def initial_state(self) -> jnp.ndarray:
        return self.x0

    def _evaluate(self, t, x):
        prog = self.program
        n, m = prog.n_user, len(prog.contacts)
        xu = [x[i] for i in range(n)]            # unpacked once, shared by the three stages
        p = [self.parameter_values[i] for i in range(len(prog.parameter_symbols))]
        u = [jnp.asarray(fn(t), dtype=float) for fn in self.inputs]
        geometry = prog.geometry(t, xu, p, u) if prog.geometry else []
        forces, e_rates = [], []
        for i, law in enumerate(self.contacts):
            f, rate = law.force_and_rate(x[n + i:n + i + 1], jnp.asarray(geometry[i], float),
                                         0.0)                                     # eq. 15
            forces.append(f)
            e_rates.append(rate)
        chi = prog.bounds(t, xu, p, u, forces) if prog.bounds else []
        k = m
        values, friction_forces, a_rates = [], [], []
        for j, (law, (offset, width)) in enumerate(zip(self.frictions, prog.friction_slices)):
            if width == 2:
                theta = _stack(geometry[k:k + 2])
                state = x[offset:offset + 2][None]
            else:
                theta = jnp.asarray(geometry[k], dtype=float)
                state = x[offset:offset + 1]
            k += width
            force, rate = law.force_and_rate(state, theta, chi[j])               # eq. 9
            force = jnp.reshape(force, (width,))
            friction_forces.append(force)
            values += [-force[c] for c in range(width)]      # the value of χ·Sgn(θ)
            a_rates.append(jnp.reshape(rate, (width,)))
        return xu, p, u, forces, values, friction_forces, e_rates, a_rates

    def vector_field(self, t, x):
        xu, p, u, forces, values, _, e_rates, a_rates = self._evaluate(t, x)
        rates_fn = self.program.rates_fn
        if rates_fn is None:        # DifferentialInclusion refuses an empty `states`
            raise InclusionError(f"`{self.program.name}` has no state equations to integrate; "
                                 "give DifferentialInclusion at least one state and its rate.")
        rates = _stack(rates_fn(t, xu, p, u, forces, values))                   # eq. 18
        return jnp.concatenate([rates, *e_rates, *a_rates])

    def outputs(self, t, x):
        _, _, u, forces, _, friction_forces, _, _ = self._evaluate(t, x)
        out = {f"f_{c.name}": f for c, f in zip(self.program.contacts, forces)}
        for names, force in zip(self.program.friction_channels, friction_forces):
            for c, name in enumerate(names):
                out[name] = force[c]
        for sym, value in zip(self.program.input_symbols, u):
            out[str(sym)] = value
        return out

    def linear_modes(self):
        """Stiff modes of every contact and friction law on its effective mass.

        The effective inverse mass of contact i is ∂ψ̈_i/∂f_i (how its own force accelerates
        its gap), of friction j it is −∂θ̇_j/∂s_j, both at the initial state — e.g. 1/M1 +
        1/M2 for the contact between two blocks, as in the hand-written systems. Where one
        cannot be found, the linearisation at the initial state is added.
        """
        prog = self.program
        if np.ndim(self.x0) == 2:   # a stacked batch: the modes of every member
            members = [jax.tree.map(lambda a, i=i: a[i] if eqx.is_array(a) else a, self)
                       for i in range(np.shape(self.x0)[0])]
            per_member = [member.linear_modes() for member in members]
            if len({len(m) for m in per_member}) > 1:
                return [mode for m in per_member for mode in m]
            return [(label, np.concatenate([np.ravel(m[k][1]) for m in per_member]))
                    for k, (label, _) in enumerate(per_member[0])]
        modes: list[tuple[str, np.ndarray]] = []
        inverse_masses = prog.inverse_masses
        unresolved = inverse_masses is None
        if inverse_masses is not None:
            x0 = np.asarray(self.x0, dtype=float)
            u = [float(fn(jnp.asarray(0.0))) for fn in self.inputs]
            n_s = sum(w for _, w in prog.friction_slices)
            with np.errstate(all="ignore"):
                weights = np.asarray(inverse_masses(
                    0.0, x0[:prog.n_user], np.asarray(self.parameter_values, dtype=float), u,
                    np.zeros(len(prog.contacts)), np.zeros(n_s)), dtype=float)
            labels = ([f"contact {c.name}" for c in prog.contacts]
                      + [f"friction {f.name}" for f in prog.frictions])
            for w, label, law in zip(weights, labels, (*self.contacts, *self.frictions)):
                if np.isfinite(w) and w > 0:
                    modes += [(f"{label} {type(law).__name__} {regime}", eig)
                              for regime, eig in law.linear_modes(1.0 / w)]
                else:
                    unresolved = True
        if unresolved or not modes:
            modes += self._linearisation_modes()
        return [(label, self._finite_modes(label, eig)) for label, eig in modes]

    def _suspects(self) -> str:
        """The parameters and initial values that are zero or not finite, for messages."""
        values = dict(zip(self.parameter_names, np.ravel(np.asarray(self.parameter_values))))
        values.update(zip(self.state_names, np.ravel(np.asarray(self.x0))))
        bad = [f"{k}={v:g}" for k, v in values.items() if not np.isfinite(v)]
        zero = [f"{k}=0" for k, v in values.items() if v == 0 and k in self.parameter_names]
        return ", ".join(bad + zero) or "none is zero or non-finite"

    def _finite_modes(self, label, eig):
        eig = np.asarray(eig)
        if not np.all(np.isfinite(eig)):
            raise ParameterError(
                f"`{self.program.name}`: the {label} mode is not finite ({eig}): a parameter "
                f"is NaN, infinite, or zero where it divides (a mass?). Suspects: "
                f"{self._suspects()}. Fix them with with_parameters(...)/with_initial(...).")
        return eig

    def _linearisation_modes(self):
        """Eigenvalues of the Jacobian at the initial state, after checking it is finite
        (``numpy.linalg.eigvals`` would raise a bare LinAlgError on NaN/inf)."""
        x0 = self.initial_state()
        jac = np.asarray(jax.jacfwd(lambda x: self.vector_field(jnp.asarray(0.0), x))(x0))
        if not np.all(np.isfinite(jac)):
            rows = [n for n, row in zip(self.state_names, jac) if not np.all(np.isfinite(row))]
            raise ParameterError(
                f"`{self.program.name}`: the vector field is not finite at the initial state "
                f"(rows {rows}), so its stiffness cannot be checked: a parameter is NaN, "
                f"infinite, or zero where it divides (a mass?). Suspects: {self._suspects()}. "
                "Fix them with with_parameters(...)/with_initial(...).")
        return [("linearisation at the initial state", np.linalg.eigvals(jac))]

    def parameters(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if not is_traced(self.parameter_values):
            out.update(zip(self.parameter_names, np.asarray(self.parameter_values).tolist()))
        for c, law in zip(self.program.contacts, self.contacts):
            out.update(module_parameters(c.name, law))
        for f, law in zip(self.program.frictions, self.frictions):
            out.update(module_parameters(f.name, law))
        for sym, fn in zip(self.program.input_symbols, self.inputs):
            out[str(sym)] = getattr(fn, "__name__", type(fn).__name__)
        return out

    # --- variants ----------------------------------------------------------------------

    def with_parameters(self, **values: float) -> "CompiledInclusion":
        """A copy with some parameters changed (by name), e.g. ``sys.with_parameters(mu=0.4)``.

        The bounds χ are re-checked: a value that makes a bound possibly negative raises
        :class:`~stickslip.errors.InclusionError`.
        """
        names = self.parameter_names
        unknown = sorted(set(values) - set(names))
        if unknown:
            raise ParameterError(f"unknown parameter(s) {unknown}; this system's parameters "
                                 f"are {list(names)}.")
        new = jnp.asarray(self.parameter_values)
        for key, value in values.items():
            check_finite(self.program.name, key, value,
                         "Pass a finite value for every parameter of the inclusion.")
            new = new.at[names.index(key)].set(value)
        concrete = dict(zip(self.program.parameter_symbols, np.asarray(new).tolist()))
        problems = [bound_problem(f.chi, f.term, f.first_seen, self.program.di, concrete)
                    for f in self.program.frictions]
        problems = [p for p in problems if p]
        if problems:
            raise InclusionError("with_parameters: " + "\n".join(problems))
        return eqx.tree_at(lambda s: s.parameter_values, self, new)

    def with_initial(self, **values: float) -> "CompiledInclusion":
        """A copy starting from another state (by state name, e.g. ``z=-1e-4, e=1e-4``)."""
        names = self.state_names
        unknown = sorted(set(values) - set(names))
        if unknown:
            raise ParameterError(f"unknown state(s) {unknown}; the states are {list(names)}.")
        new = jnp.asarray(self.x0)
        for key, value in values.items():
            new = new.at[names.index(key)].set(value)
        return eqx.tree_at(lambda s: s.x0, self, new)

    # --- printing ------------------------------------------------------------------------

    def text(self) -> str:
        """The compiled ODE (eq. 18) as readable text, with its definitions and constants."""
        rows, definitions, constants, params, t = self.program.display(self)
        width = max(len(str(x)) for x, _ in rows)
        lines = [f"{self.program.name} compiled to an ODE (Xiong, Kikuuwe & Yamamoto, eq. 18):"]
        for x, r in rows:
            lines.append(f"  d({x})/dt{' ' * (width - len(str(x)))} = {sp.sstr(r)}")
        if definitions:
            lines.append("where")
            for lhs, rhs, note in definitions:
                if isinstance(lhs, sp.MatrixBase):   # planar: K*sat(chi/K, [..., ...])
                    lhs_s = sp.sstr(matrix_entries(lhs))
                    K, (Z, vec) = rhs.args[0], rhs.args[1].args
                    rhs_s = f"{sp.sstr(K)}*sat({sp.sstr(Z)}, {sp.sstr(list(vec))})"
                else:
                    lhs_s, rhs_s = sp.sstr(lhs), sp.sstr(rhs)
                lines.append(f"  {lhs_s} = {rhs_s}    ({note})")
        const = ", ".join(f"{k} = {_num(v)}" for k, v in constants + params)
        if const:
            lines.append("with " + const)
        if self.program.friction_channels:
            lines.append("channels f_a… = −s_a… (friction force opposing the slip θ)")
        return "\n".join(lines)

    def latex(self) -> str:
        """The compiled ODE (eq. 18) as a LaTeX ``aligned`` block plus its definitions."""
        rows, definitions, constants, params, t = self.program.display(self)
        out = [rf"\frac{{d}}{{dt}} {sp.latex(x)} &= {sp.latex(r)}" for x, r in rows]
        for lhs, rhs, _ in definitions:
            out.append(rf"{sp.latex(lhs)} &= {sp.latex(rhs)}")
        body = " \\\\\n".join(out)
        const = ", ".join(f"{sp.latex(k)} = {_num(v)}" for k, v in constants + params)
        return ("\\begin{aligned}\n" + body + "\n\\end{aligned}"
                + (f"\n\\quad\\text{{with }} {const}" if const else ""))

    def __str__(self) -> str:
        return self.text()


def _num(value) -> str:
    if is_traced(value):
        return "(traced)"
    arr = np.asarray(value)
    return f"{float(arr):g}" if arr.ndim == 0 else np.array2string(arr, precision=4)


class CompiledInclusionTracedOnce(CompiledInclusion):
    """A :class:`CompiledInclusion` whose Runge–Kutta stages run in a loop, so the vector
    field is traced and XLA-compiled once per step instead of once per stage (less compile
    time for large inclusions, slightly slower steps for small ones). Built by
    ``compile_inclusion(..., trace_stages_once=True)``."""

    trace_stages_once: ClassVar[bool] = True
