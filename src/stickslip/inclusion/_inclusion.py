"""`DifferentialInclusion`: the user's ``ẋ ∈ Φ(x)`` (SPEC §4, eq. 17), written with SymPy."""

from __future__ import annotations

import math
from typing import Any, Callable, ClassVar, Mapping, Sequence

import jax.numpy as jnp
import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.matrices import MatrixBase

from ..errors import InclusionError
from ._functions import matrix_entries

__all__ = ["DifferentialInclusion"]


def _flatten(items, what: str) -> list:
    if isinstance(items, MatrixBase):
        return matrix_entries(items)
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise InclusionError(f"`DifferentialInclusion.{what}` must be a list (or a SymPy "
                             f"Matrix); got {type(items).__name__}.")
    out = []
    for item in items:
        if isinstance(item, MatrixBase):
            out.extend(matrix_entries(item))
        else:
            out.append(item)
    return out


class DifferentialInclusion:
    """A mechanical system ``ẋ ∈ Φ(x)`` with Coulomb friction and rigid contact (SPEC §4, eq. 17).

    The rates are SymPy expressions in which the set-valued terms are written with
    :class:`~stickslip.inclusion.Dio` (a rigid unilateral contact force, eq. 3) and
    :class:`~stickslip.inclusion.Sgn` (Coulomb friction ``χ·Sgn(θ)``, eq. 1). Turn it into
    a Lipschitz ODE that :func:`stickslip.simulate` runs with
    :func:`~stickslip.inclusion.compile_inclusion` (or :meth:`to_ode`).

    Parameters
    ----------
    states
        The state symbols x (SymPy ``Symbol`` objects), in order; their names become the
        state channels. A SymPy Matrix of symbols is accepted too.
    rates
        One SymPy expression per state: dx/dt. Vector expressions (a Matrix, e.g. from the
        planar ``Sgn([vx, vy])``) are flattened in order.
    parameters : Mapping, optional
        ``{symbol: value}`` — constants (masses [kg], friction coefficients [-], gravity
        [m/s²], ...). They become arrays of the compiled system, so they can be changed
        per run (:meth:`CompiledInclusion.with_parameters`) and batched with ``vmap``.
    inputs
        ``{symbol: callable}`` — named functions of time ``t`` [s] written with
        ``jax.numpy`` returning a scalar (a conveyor speed u(t), an applied force).
    time : sp.Symbol, optional
        The symbol for time, when the rates use it explicitly (optional).
    initial : Mapping, optional
        ``{state symbol: value}`` at t = 0 (states left out start at 0).
    units : Mapping, optional
        ``{state symbol or channel name: unit}`` for the Results (optional). Units of the
        added proxies ``e…``/``a…`` are inferred from their arguments' states (``a`` of a
        slip in "m/s" is in "m"); name a force channel (``"f_e1": "N"``) to give its unit.
    name : str, optional
        A name for the system (shown in the printed ODE and the Results metadata).

    Raises
    ------
    InclusionError
        one message listing every problem: a symbol that is neither a state, a
        parameter, an input nor time; a state listed twice; a rate count that differs from
        the state count; non-numeric parameter values; undefined functions such as ``u(t)``.

    Examples
    --------
    A block on a belt moving at ``u``, pulled back by a spring (stick-slip, eq. 6):

    >>> import sympy as sp
    >>> from stickslip.inclusion import DifferentialInclusion, Sgn
    >>> x, v, m, k, F, u = sp.symbols("x v m k F u")
    >>> di = DifferentialInclusion(states=[x, v],
    ...                            rates=[v, (-k * x - F * Sgn(v - u)) / m],
    ...                            parameters={m: 1.0, k: 100.0, F: 5.0, u: 0.1})
    >>> di.state_names
    ('x', 'v')
    """

    def __init__(self, states, rates, parameters: Mapping | None = None,
                 inputs: Mapping[Any, Callable] | None = None, *, time: sp.Symbol | None = None,
                 initial: Mapping | None = None, units: Mapping | None = None,
                 name: str = "DifferentialInclusion"):
        problems: list[str] = []
        states = _flatten(states, "states")
        rates = [sp.sympify(r) for r in _flatten(rates, "rates")]
        parameters = dict(parameters or {})
        inputs = dict(inputs or {})
        initial = dict(initial or {})
        units = dict(units or {})

        for i, s in enumerate(states):
            if not isinstance(s, sp.Symbol):
                problems.append(f"states[{i}] = {s!r} is not a SymPy Symbol; declare states "
                                "with sympy.symbols('x v ...').")
        seen = set()
        for s in states:
            if s in seen:
                problems.append(f"state `{s}` is listed twice in `states`.")
            seen.add(s)
        if not states:
            problems.append("`states` is empty; list the state symbols.")
        if len(rates) != len(states):
            problems.append(f"{len(states)} states but {len(rates)} rates; give one rate "
                            "(dx/dt) per state, in the same order.")

        clean_params = {}
        for key, value in parameters.items():
            if not isinstance(key, sp.Symbol):
                problems.append(f"parameter key {key!r} is not a SymPy Symbol.")
                continue
            if key in seen:
                problems.append(f"`{key}` is both a state and a parameter; rename one.")
            try:
                number = float(value)
            except (TypeError, ValueError):
                problems.append(f"parameter `{key}` = {value!r} is not a real number; pass a "
                                "float (parameters are constants; use `inputs` for functions "
                                "of time).")
                continue
            if not math.isfinite(number):
                problems.append(f"parameter `{key}` = {number} must be finite.")
            clean_params[key] = number

        for key, fn in inputs.items():
            if not isinstance(key, sp.Symbol):
                problems.append(f"input key {key!r} is not a SymPy Symbol.")
                continue
            if key in seen or key in clean_params:
                problems.append(f"`{key}` is an input and also a state or parameter; rename one.")
            problem = _check_input(key, fn)
            if problem:
                problems.append(problem)

        if time is not None and not isinstance(time, sp.Symbol):
            problems.append(f"`time` must be a SymPy Symbol; got {time!r}.")
        if time is not None and (time in seen or time in clean_params or time in inputs):
            problems.append(f"the time symbol `{time}` is also a state, parameter or input.")

        known = set(states) | set(clean_params) | set(inputs) | ({time} if time else set())
        names = [str(s) for s in known]
        for dup in sorted({n for n in names if names.count(n) > 1}):
            problems.append(f"two different symbols are both named `{dup}` (e.g. one with "
                            "assumptions); use one symbol per name.")
        for state, rate in zip(states, rates):
            where = f"the rate of `{state}`"
            unknown = sorted(rate.free_symbols - known, key=str)
            if unknown:
                listed = ", ".join(f"`{s}`" for s in unknown)
                problems.append(
                    f"{where} uses unknown symbol(s) {listed}: declare each as a state, a "
                    "parameter (`parameters={sym: value}`), an input (`inputs={sym: "
                    "lambda t: ...}`) or the time symbol (`time=t`).")
            undefined = sorted(rate.atoms(AppliedUndef), key=str)
            if undefined:
                listed = ", ".join(f"`{f}`" for f in undefined)
                problems.append(
                    f"{where} uses undefined function(s) {listed}: write a time function as "
                    "an input symbol, e.g. `u = Symbol('u')` with `inputs={u: lambda t: ...}`.")
            if rate.atoms(sp.Derivative):
                problems.append(f"{where} contains a derivative; write first-order rates "
                                "(add the velocity as a state).")

        clean_initial = {}
        for key, value in initial.items():
            sym = key if isinstance(key, sp.Symbol) else None
            if sym is None or sym not in seen:
                problems.append(f"`initial` key {key!r} is not one of the states.")
                continue
            try:
                clean_initial[sym] = float(value)
            except (TypeError, ValueError):
                problems.append(f"`initial[{sym}]` = {value!r} is not a real number.")
        if problems:
            raise InclusionError(_join(f"{name} is not a valid differential inclusion", problems))

        self.states: tuple[sp.Symbol, ...] = tuple(states)
        self.rates: tuple[sp.Expr, ...] = tuple(rates)
        self.parameters: dict[sp.Symbol, float] = clean_params
        self.inputs: dict[sp.Symbol, Callable] = inputs
        self.time = time
        self.initial: dict[sp.Symbol, float] = clean_initial
        self.units = {str(k): str(v) for k, v in units.items()}
        self.name = name

    @property
    def state_names(self) -> tuple[str, ...]:
        return tuple(str(s) for s in self.states)

    # Set by stickslip.inclusion._compile, which imports this module (so this module cannot
    # import it); importing anything from stickslip.inclusion runs the package __init__,
    # which imports _compile, so it is always set before a user can call to_ode.
    _compiler: ClassVar[Callable]

    def to_ode(self, **options):
        """Same as ``compile_inclusion(self, **options)``."""
        return type(self)._compiler(self, **options)

    def text(self) -> str:
        """The inclusion as lines ``d(x)/dt ∈ ...`` (eq. 17)."""
        width = max(len(n) for n in self.state_names)
        lines = [f"{self.name}:"]
        for s, r in zip(self.state_names, self.rates):
            rel = "∈" if _has_set_valued(r) else "="
            lines.append(f"  d({s})/dt{' ' * (width - len(s))} {rel} {sp.sstr(r)}")
        return "\n".join(lines)

    def latex(self) -> str:
        """The inclusion as a LaTeX ``aligned`` block (eq. 17)."""
        rows = []
        for s, r in zip(self.states, self.rates):
            rel = r"\in" if _has_set_valued(r) else "="
            rows.append(rf"\dot{{{sp.latex(s)}}} &{rel} {sp.latex(r)}")
        return "\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}"

    def __repr__(self) -> str:
        return (f"DifferentialInclusion(states={list(self.state_names)}, "
                f"{len(self.parameters)} parameters, {len(self.inputs)} inputs)")

    def __str__(self) -> str:
        return self.text()


def _has_set_valued(expr) -> bool:
    from ._functions import Dio, Sgn, SgnComponent

    return bool(expr.atoms(Dio, Sgn, SgnComponent))


def _check_input(key, fn) -> str | None:
    if not callable(fn):
        return (f"input `{key}` must be a callable of time t [s] written with jax.numpy; got "
                f"{type(fn).__name__}. Pass e.g. `lambda t: 0.1 * jnp.ones_like(t)`.")
    try:
        value = np.asarray(fn(jnp.asarray(0.0)))
    except Exception as exc:  # the user's function failed: say which one and why
        return (f"input `{key}(t)` failed at t=0: {exc!r}. It must take the time t [s] and "
                "use jax.numpy (no float() or `if` on t).")
    if value.shape != ():
        return f"input `{key}(t)` must return a scalar; got shape {value.shape} at t=0."
    if not np.all(np.isfinite(value)):
        return f"input `{key}(t)` returned a non-finite value at t=0: {value}."
    return None


def _join(head: str, problems: list[str]) -> str:
    if len(problems) == 1:
        return f"{head}: {problems[0]}"
    return f"{head} ({len(problems)} problems):\n" + "\n".join(f"  - {p}" for p in problems)
