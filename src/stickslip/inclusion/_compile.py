"""The inclusion compiler: SPEC §4 Steps 1 and 2, from ``ẋ ∈ Φ(x)`` to a Lipschitz ODE.

Analysis (host side, SymPy):

1. Walk every rate. Each ``Dio(ψ)`` is a contact; distinct arguments ψ_i (in order of first
   appearance) get a proxy state ``e_i`` and a :class:`~stickslip.laws.UnilateralODE`
   (Step 1, eq. 15).
2. Each product ``c·Sgn(θ)`` is a friction term. Its cofactor ``c`` is split into a sign, a
   denominator (masses, inertias: written ``χ·Sgn(θ)/M``) and the bound χ — the rest of
   the numerator, which may contain ``Dio`` terms. Distinct pairs (θ, χ) get a proxy state
   ``a_j`` and a :class:`~stickslip.laws.CoulombODE` with level χ (Step 2, eq. 9).
3. Reject what the procedure does not cover (SPEC §4): Sgn times another discontinuous
   function, a bound χ not provably ≥ 0, Dio/Sgn nested inside other functions or inside
   each other's arguments.

The compiled system evaluates, per step: the gaps ψ and slips θ (one lambdified function),
the contact laws, the bounds χ (lambdified, using the contact forces), the friction laws,
and the rates Φ̂ with every Dio and χ·Sgn replaced by the laws' forces (lambdified).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Mapping, cast

import sympy as sp

from ..errors import InclusionError
from ..laws import CoulombODE, UnilateralODE
from ._functions import Dio, Sgn, SgnComponent, is_dio, is_sgn, label_of
from ._bounds import bound_problem
from ._inclusion import DifferentialInclusion, _join
from ._system import CompiledInclusion, CompiledInclusionTracedOnce, build_program

__all__ = ["compile_inclusion", "DEFAULT_CONSTANTS"]

DEFAULT_CONSTANTS: dict[str, dict[str, float]] = {
    "dio": {"K": 1e5, "beta": 2e-3, "alpha": 1e-3},
    "sgn": {"K": 1e4, "beta": 2e-2},
}
"""Default law constants: Step 1 (``Dio``: K [N/m], β [s], α [s]) and Step 2 (``Sgn``:
K [N/m], β [s]). They equal the defaults of the hand-written ``PointOnPlane`` and
``TwoBlocksConveyor`` (critically damped stick mode for a 1 kg body). When α is not given
for a contact it is half that contact's β (1e-3 s with the default β), so that a smaller β
alone never breaks α ≤ β."""

# discontinuous SymPy functions that may not multiply a Sgn (SPEC §4)
_DISCONTINUOUS = (sp.sign, sp.Heaviside, sp.Piecewise, sp.floor, sp.ceiling, sp.frac,
                  sp.Mod, sp.DiracDelta, sp.KroneckerDelta)


@dataclasses.dataclass
class _Contact:
    psi: sp.Expr
    force: sp.Dummy
    name: str = ""
    first_seen: str = ""
    label: str | None = None


@dataclasses.dataclass
class _Friction:
    theta: tuple[sp.Expr, ...]          # 1 component (scalar) or 2 (planar)
    chi: sp.Expr                        # bound, with Dio terms
    chi_forces: sp.Expr                 # bound, Dio terms replaced by the contact forces
    forces: tuple[sp.Dummy, ...]        # replacement value(s) of χ·Sgn(θ)
    term: sp.Expr                       # a representative χ·Sgn(θ), for messages
    first_seen: str = ""
    used: set = dataclasses.field(default_factory=set)
    name: str = ""
    label: str | None = None

    @property
    def planar(self) -> bool:
        return len(self.theta) == 2


class _Analysis:
    """Step 1 and Step 2 bookkeeping for one inclusion (collects every problem)."""

    def __init__(self, di: DifferentialInclusion):
        self.di = di
        self.contacts: dict[sp.Expr, _Contact] = {}
        self.frictions: dict[tuple, _Friction] = {}
        self.problems: list[str] = []
        self.rates: list[sp.Expr] = []
        for state, rate in zip(di.states, di.rates):
            self.rates.append(self._rewrite(rate, f"the rate of `{state}`"))

    # --- the walk ----------------------------------------------------------------------

    def _rewrite(self, expr, where):
        if not expr.has(Dio, Sgn, SgnComponent):
            return expr
        if is_dio(expr):
            return self._contact(expr, where)
        if is_sgn(expr):
            return self._friction(expr, sp.Integer(1), where)
        if isinstance(expr, sp.Add):
            return sp.Add(*[self._rewrite(a, where) for a in expr.args])
        if isinstance(expr, sp.Mul):
            sgns = [f for f in expr.args if is_sgn(f)]
            if len(sgns) > 1:
                shown = " and ".join(f"`{s}`" for s in sgns)
                self.problems.append(
                    f"{where}: the product `{expr}` multiplies {shown}; Xiong et al. §3.3 cannot "
                    "convert a product of Sgn with another discontinuous function. Write each "
                    "friction force as its own term χ·Sgn(θ) with a continuous bound χ.")
                return expr
            if sgns:
                sgn = sgns[0]
                cofactor = sp.Mul(*[f for f in expr.args if f is not sgn])
                return self._friction(sgn, cofactor, where)
            return sp.Mul(*[self._rewrite(a, where) for a in expr.args])
        inner = sorted(expr.atoms(Dio, Sgn, SgnComponent), key=sp.default_sort_key)
        shown = ", ".join(f"`{s}`" for s in inner)
        self.problems.append(
            f"{where}: {shown} sits inside `{expr}` ({type(expr).__name__}); "
            f"Xiong et al. §3.3 covers "
            "Dio(ψ) and χ·Sgn(θ) only as terms of sums and products (forces entering the "
            "rates linearly). Rewrite so that they are not nested inside other functions, "
            "powers or denominators.")
        return expr

    def _contact(self, dio, where):
        psi = dio.args[0]
        if psi.has(Dio, Sgn, SgnComponent):
            self.problems.append(
                f"{where}: `{dio}` has Dio/Sgn inside its argument; the gap ψ of Dio(ψ) must "
                "be a function of the states, parameters, inputs and time only (unsupported "
                "nesting, Xiong et al. §3.3).")
            return dio
        if psi not in self.contacts:
            self.contacts[psi] = _Contact(psi, sp.Dummy(f"f{len(self.contacts) + 1}"),
                                          first_seen=where)
        self._set_label(self.contacts[psi], label_of(dio), f"Dio({psi})", where)
        return self.contacts[psi].force

    def _set_label(self, instance, label, shown, where):
        if label is None or instance.label == label:
            return
        if instance.label is not None:
            self.problems.append(
                f"{where}: `{shown}` is named both '{instance.label}' and '{label}'; give one "
                "instance one name.")
            return
        instance.label = label

    def _friction(self, sgn, cofactor, where):
        theta = cast(tuple[sp.Expr, ...],   # slip components: expressions (typed Basic)
                     tuple(sgn.theta) if isinstance(sgn, SgnComponent) else (sgn.args[0],))
        component = sgn.index if isinstance(sgn, SgnComponent) else 0
        term = cofactor * sgn
        bad_theta = [c for c in theta if c.has(Dio, Sgn, SgnComponent)]
        if bad_theta:
            self.problems.append(
                f"{where}: `{sgn}` has Dio/Sgn inside its argument; the slip θ of Sgn(θ) must "
                "be a velocity, a function of the states, parameters, inputs and time only "
                "(unsupported nesting, Xiong et al. §3.3).")
            return term
        numer, denom = sp.fraction(cofactor)
        sign = sp.Integer(1)
        if numer.could_extract_minus_sign():
            sign, numer = -sign, -numer
        chi = numer
        if chi.has(Sgn, SgnComponent):
            self.problems.append(
                f"{where}: in `{term}` the bound χ = `{chi}` contains another Sgn; "
                f"Xiong et al. §3.3 "
                "cannot convert a product of Sgn with a discontinuous function. Write each "
                "friction force as its own term χ·Sgn(θ).")
            return term
        if denom.has(Sgn, SgnComponent, Dio):
            self.problems.append(
                f"{where}: in `{term}` the denominator `{denom}` contains Dio/Sgn "
                "(unsupported nesting, Xiong et al. §3.3).")
            return term
        disc = sorted(chi.atoms(*_DISCONTINUOUS), key=sp.default_sort_key)
        if disc:
            shown = ", ".join(f"`{d}`" for d in disc)
            self.problems.append(
                f"{where}: in `{term}` Sgn is multiplied by the discontinuous {shown}; "
                f"Xiong et al. §3.3 "
                "cannot convert a product of Sgn with a discontinuous function other than Dio. "
                "Use Dio for contact forces, or a continuous bound (Abs, Max, sqrt, ...).")
            return term
        key = (theta, chi)
        if key not in self.frictions:
            n = len(self.frictions) + 1
            forces = tuple(sp.Dummy(f"s{n}{'xy'[i] if len(theta) == 2 else ''}")
                           for i in range(len(theta)))
            chi_forces = self._rewrite(chi, where)
            self.frictions[key] = _Friction(theta, chi, chi_forces, forces, term,
                                            first_seen=where)
        friction = self.frictions[key]
        friction.used.add(component)
        self._set_label(friction, label_of(sgn), f"{term}", where)
        return sign * friction.forces[component] / self._rewrite(denom, where)


# --- naming and constants -----------------------------------------------------------------

def _names(prefix: str, instances) -> list[str]:
    """``e`` (one instance), ``e1, e2, …`` (several), ``e_<label>`` for a labelled one."""
    count = len(instances)
    return [f"{prefix}_{inst.label}" if inst.label else prefix if count == 1 else
            f"{prefix}{i}" for i, inst in enumerate(instances, start=1)]


def _family_value(value, family: str, arg: str):
    if value is None:
        return DEFAULT_CONSTANTS[family].get(arg)
    if isinstance(value, Mapping):
        unknown = set(value) - {"dio", "sgn"}
        if unknown:
            raise InclusionError(
                f"`compile_inclusion({arg}=...)` takes a number or a mapping with keys 'dio' "
                f"(Step 1, contacts) and 'sgn' (Step 2, friction); got keys {sorted(unknown)}. "
                "Per-instance values go in `overrides={'e1': dict(K=...)}`.")
        return value.get(family, DEFAULT_CONSTANTS[family].get(arg))
    return value


def _override_dict(key, value, family) -> dict:
    allowed = {"dio": ("K", "beta", "alpha"), "sgn": ("K", "beta")}[family]
    if isinstance(value, UnilateralODE) and family == "dio":
        return {"K": value.K, "beta": value.beta, "alpha": value.alpha}
    if isinstance(value, CoulombODE) and family == "sgn":
        if value.F is not None or (value.mu is not None and float(value.mu) != 1.0):
            raise InclusionError(
                f"override {key!r}: the friction level comes from the bound χ in the "
                "inclusion; pass CoulombODE(mu=1, K=..., beta=...) or dict(K=..., beta=...).")
        return {"K": value.K, "beta": value.beta}
    if not isinstance(value, Mapping):
        raise InclusionError(f"override {key!r} must be a dict of {allowed}; got {value!r}.")
    unknown = set(value) - set(allowed)
    if unknown:
        raise InclusionError(f"override {key!r} has unknown constant(s) {sorted(unknown)}; a "
                             f"{'contact (Dio)' if family == 'dio' else 'friction (Sgn)'} "
                             f"instance takes {allowed}.")
    return dict(value)


# --- the entry point ----------------------------------------------------------------------

def compile_inclusion(di: DifferentialInclusion, K: float | Mapping | None = None,
                      beta: float | Mapping | None = None, alpha: float | None = None, *,
                      overrides: Mapping | None = None, initial: Mapping | None = None,
                      name: str | None = None, trace_stages_once: bool = False):
    """Convert a differential inclusion into a Lipschitz ODE system (SPEC §4, eq. 18).

    Step 1 replaces every distinct ``Dio(ψ_i)`` by the force of a
    :class:`~stickslip.laws.UnilateralODE` on the gap ψ_i and appends its proxy state
    ``e_i`` (eq. 15). Step 2 replaces every term ``χ_j·Sgn(θ_j)`` by the force of a
    :class:`~stickslip.laws.CoulombODE` with level χ_j and sliding velocity θ_j and appends
    its proxy state ``a_j`` (eq. 9); χ_j may contain the Step-1 forces. The state is
    ``[x; e_1..e_m; a_1..a_n]`` (eq. 18).

    Parameters
    ----------
    di : DifferentialInclusion
        The inclusion.
    K : float or Mapping, optional
        Proxy stiffness [N/m]: a number for every law, or ``{"dio": K_d, "sgn": K_s}``
        (default 1e5 for contacts, 1e4 for friction).
    beta : float or Mapping, optional
        Proxy time constant [s]: a number for every law, or ``{"dio": β_d, "sgn": β_s}``
        (default 2e-3 for contacts, 2e-2 for friction).
    alpha : float, optional
        Contact low-pass time constant α [s], 0 < α ≤ β_d (default β_d/2, i.e. 1e-3 with
        the default β_d; α = β_d is elastic, smaller α more damped, SPEC §3 Fig. 5).
    overrides : Mapping, optional
        Per-instance constants ``{key: dict(K=..., beta=..., alpha=...)}`` (or a
        ``UnilateralODE`` / ``CoulombODE(mu=1, ...)``). A key is the instance's added state
        name (``"e2"``, ``"a1"`` — its index), its label (``Dio(ψ, name="wall")`` →
        ``"wall"``), or its argument: the gap ψ of ``Dio(ψ)`` or the slip θ of ``Sgn(θ)``
        as a SymPy expression (or a string SymPy can parse).
    initial : Mapping, optional
        ``{state: value}`` for any state, the added ``e_i``/``a_i`` included (by name or
        symbol); overrides ``di.initial``. Missing states start at 0.
    name : str, optional
        Name of the compiled system (default ``di.name``).
    trace_stages_once : bool, optional
        Run the fixed-step Runge–Kutta stages in a loop so the vector field is compiled once
        (the core's ``trace_stages_once`` capability): less XLA compile time for large
        inclusions, round-off-level differences from the unrolled default.

    Returns
    -------
    CompiledInclusion
        An :class:`~stickslip.systems.AbstractSystem` for :func:`stickslip.simulate`. Its
        channels are the states (the symbols' names, then ``e…``, ``a…``), the contact
        forces ``f_e…`` (≥ 0) and the friction forces ``f_a…`` (the CoulombODE convention:
        the force opposing θ, i.e. ``−(value of χ·Sgn(θ))``), and the inputs. ``.text()``
        and ``.latex()`` print eq. 18 for this system.

    Raises
    ------
    InclusionError
        every SPEC §4 rejection in one message, each naming the offending term
        and the fix — Sgn multiplied by a discontinuous function other than Dio; a bound χ
        not provably ≥ 0; Dio/Sgn nested in other functions or in each other's arguments;
        an unknown override key or constant. Unknown symbols are rejected when the
        inclusion is built.

    Notes
    -----
    Instances are numbered by the states their argument involves: sorted by the ascending
    list of those states' indices, ties by first appearance (rates in state order) — so
    ``Dio(p1x)``, ``Dio(p2x - p1x)``, ``Dio(p2y)`` are e1, e2, e3 whatever order SymPy
    keeps the terms in, and compiling is deterministic. ``Sgn(−θ)`` is
    stored as ``−Sgn(θ)``: an action–reaction pair shares one proxy when both are written
    with the same bound χ. The bound is the numerator of the cofactor without its sign,
    so ``-mu*Dio(z)*Sgn(v)/M`` has χ = ``mu*Dio(z)`` and K keeps force units.

    Examples
    --------
    >>> import sympy as sp, stickslip as ss
    >>> from stickslip.inclusion import DifferentialInclusion, Dio, compile_inclusion
    >>> h, v, m, g = sp.symbols("h v m g")
    >>> ball = DifferentialInclusion([h, v], [v, Dio(h) / m - g],
    ...                              parameters={m: 1.0, g: 9.81}, initial={h: 0.5})
    >>> system = compile_inclusion(ball, K=1e5, beta=2e-3, alpha=2e-3)
    >>> system.state_names
    ('h', 'v', 'e')
    >>> res = ss.simulate(system, 0.5, dt=1e-4)
    >>> bool(res["f_e"].min() >= 0.0)
    True
    """
    if not isinstance(di, DifferentialInclusion):
        raise InclusionError(f"`compile_inclusion` needs a DifferentialInclusion; got "
                             f"{type(di).__name__}.")
    analysis = _Analysis(di)
    problems = list(analysis.problems)
    order = {s: i for i, s in enumerate(di.states)}
    contacts = sorted(analysis.contacts.values(),
                      key=lambda c: _state_key(order, c.psi))
    frictions = sorted(analysis.frictions.values(),
                       key=lambda f: _state_key(order, *f.theta))
    for fr in frictions:
        if fr.planar and fr.used != {0, 1}:
            missing = "xy"[({0, 1} - fr.used).pop()]
            problems.append(
                f"{fr.first_seen}: only one component of the planar `{fr.term}` appears "
                f"with the bound χ = `{fr.chi}`; its {missing} component never does. Write "
                "both components with the same bound (isotropic friction, eq. 19-21).")
        problem = bound_problem(fr.chi, fr.term, fr.first_seen, di, di.parameters)
        if problem:
            problems.append(problem)
    if problems:
        raise InclusionError(_join(f"cannot compile {di.name} (Xiong et al. §3.3)", problems))

    _warn_split_reactions(frictions, di.parameters)

    for c, n in zip(contacts, _names("e", contacts)):
        c.name = n
    for f, n in zip(frictions, _names("a", frictions)):
        f.name = n
    for group, what in ((contacts, "Dio"), (frictions, "Sgn")):
        labels = [x.label for x in group if x.label]
        for dup in sorted({lab for lab in labels if labels.count(lab) > 1}):
            raise InclusionError(f"cannot compile {di.name}: two different {what} instances "
                                 f"are both named '{dup}'; instance names must be unique.")
    taken = {str(s) for s in (*di.states, *di.parameters, *di.inputs)}
    if di.time is not None:
        taken.add(str(di.time))
    generated = [c.name for c in contacts] + [f"f_{c.name}" for c in contacts]
    for f in frictions:
        comps = [f.name + ax for ax in "xy"] if f.planar else [f.name]
        generated += comps + [f"f_{c}" for c in comps]
    clash = sorted(taken & set(generated))
    if clash:
        raise InclusionError(
            f"cannot compile {di.name}: the compiler names its added states and forces "
            f"{generated}, but {', '.join(f'`{c}`' for c in clash)} is already a symbol of "
            "the inclusion. Rename that symbol.")

    constants = _constants(contacts, frictions, K, beta, alpha, overrides, di)
    contact_laws = tuple(UnilateralODE(**constants[c.name]) for c in contacts)
    friction_laws = tuple(CoulombODE(mu=1.0, **constants[f.name]) for f in frictions)
    program = build_program(di, analysis.rates, contacts, frictions, name or di.name)
    x0 = _initial_state(di, program, initial)
    cls = CompiledInclusionTracedOnce if trace_stages_once else CompiledInclusion
    return cls(
        parameter_values=[di.parameters[s] for s in program.parameter_symbols],
        x0=x0, contacts=contact_laws, frictions=friction_laws,
        inputs=tuple(di.inputs[s] for s in program.input_symbols), program=program)


def _state_key(order, *exprs) -> tuple[int, ...]:
    """Sort key of an instance: the indices of the states its argument involves, ascending
    (Python's sort is stable, so ties keep their order of first appearance)."""
    symbols = set().union(*(e.free_symbols for e in exprs))
    return tuple(sorted(order[s] for s in symbols if s in order))


def _warn_split_reactions(frictions, parameters):
    by_theta: dict = {}
    for f in frictions:
        by_theta.setdefault(f.theta, []).append(f)
    for theta, group in by_theta.items():
        if len(group) < 2:
            continue
        for other in group[1:]:
            ratio = sp.simplify(other.chi / group[0].chi)
            if ratio.free_symbols <= set(parameters) and not ratio.has(Dio):
                warnings.warn(
                    f"Sgn({', '.join(map(str, theta))}) appears with bounds `{group[0].chi}` "
                    f"and `{other.chi}`, which differ by the constant factor {ratio}; they get "
                    "separate friction proxies. If they are one friction force acting on two "
                    "bodies, write it once with the same bound χ and divide by the masses "
                    "outside (e.g. `Omega = mu*Dio(gap)*Sgn(v1 - v2)`, then `-Omega/M1` and "
                    "`Omega/M2`).", stacklevel=3)


def _match_key(key, contacts, frictions, di):
    """The added-state name an override key refers to, or None."""
    names = {c.name: c for c in contacts} | {f.name: f for f in frictions}
    if isinstance(key, str) and key in names:
        return key
    labels = {x.label: x.name for x in (*contacts, *frictions) if x.label}
    if isinstance(key, str) and key in labels:
        return labels[key]
    expr = key
    if isinstance(key, str):
        local = {str(s): s for s in (*di.states, *di.parameters, *di.inputs)}
        try:
            # `locals` is a keyword of sympify that its typed overloads leave out
            expr = sp.sympify(key, locals=local)  # pyright: ignore[reportCallIssue]
        except (sp.SympifyError, SyntaxError, TypeError):
            return None
    if isinstance(expr, (list, tuple)) or hasattr(expr, "shape"):
        expr = tuple(sp.sympify(e) for e in (list(expr) if not hasattr(expr, "shape")
                                             else list(expr)))
    if is_dio(expr):
        expr = expr.args[0]
    for c in contacts:
        if isinstance(expr, sp.Basic) and sp.simplify(c.psi - expr) == 0:
            return c.name
    for f in frictions:
        theta = f.theta if f.planar else f.theta[0]
        if isinstance(expr, tuple) and f.planar and len(expr) == 2:
            if all(sp.simplify(a - b) == 0 for a, b in zip(f.theta, expr)) or all(
                    sp.simplify(a + b) == 0 for a, b in zip(f.theta, expr)):
                return f.name
        elif isinstance(expr, sp.Basic) and not f.planar:
            if is_sgn(expr):
                expr = expr.args[0]
            if sp.simplify(theta - expr) == 0 or sp.simplify(theta + expr) == 0:
                return f.name
    return None


def _constants(contacts, frictions, K, beta, alpha, overrides, di) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for c in contacts:
        out[c.name] = {"K": _family_value(K, "dio", "K"),
                       "beta": _family_value(beta, "dio", "beta")}
        if alpha is not None:
            out[c.name]["alpha"] = _family_value(alpha, "dio", "alpha")
    for f in frictions:
        out[f.name] = {"K": _family_value(K, "sgn", "K"),
                       "beta": _family_value(beta, "sgn", "beta")}
    families = {c.name: "dio" for c in contacts} | {f.name: "sgn" for f in frictions}
    problems = []
    for key, value in (overrides or {}).items():
        target = _match_key(key, contacts, frictions, di)
        if target is None:
            available = ", ".join(f"'{n}' ({'Dio(' + str(c.psi) + ')'})" for n, c in
                                  ((c.name, c) for c in contacts))
            available += (", " if contacts and frictions else "") + ", ".join(
                f"'{f.name}' (Sgn({', '.join(map(str, f.theta))}))" for f in frictions)
            problems.append(f"override key {key!r} matches no Dio or Sgn instance; the "
                            f"instances are {available or 'none'}.")
            continue
        out[target].update(_override_dict(key, value, families[target]))
    if problems:
        raise InclusionError(_join(f"cannot compile {di.name}", problems))
    for c in contacts:                    # default α: half the contact's own β
        out[c.name].setdefault("alpha", 0.5 * out[c.name]["beta"])
    return out


def _initial_state(di, program, initial) -> list[float]:
    values = {str(s): v for s, v in di.initial.items()}
    for key, value in (initial or {}).items():
        name = str(key)
        if name not in program.state_names:
            raise InclusionError(f"`initial` key {key!r} is not a state of the compiled "
                                 f"system; the states are {list(program.state_names)}.")
        values[name] = float(value)
    x0 = [values.get(n, 0.0) for n in program.state_names]
    if not all(math.isfinite(v) for v in x0):
        raise InclusionError(f"`initial` values must be finite; got {x0}.")
    return x0


DifferentialInclusion._compiler = staticmethod(compile_inclusion)   # for .to_ode()
