"""What each parameter may be, as data: :class:`Rule` and the shared rule of each quantity.

The rules are applied by :mod:`stickslip._parameters` (``AbstractParametrised``,
``check_parameters``), which re-exports everything here; this module imports no JAX, so the
hosts that run without it (the spatial volume route) read the same rules, e.g.
``FRICTION_COEFFICIENT.check_plausible(owner, "mu_k", mu_k)``; and the one validator of a
static/kinetic friction pair, :func:`check_friction_pair`, used by every element that has one.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from ._validation import (
    _numeric,
    check_at_most,
    check_direction,
    check_finite,
    check_in_range,
    check_nonnegative,
    check_plausible,
    check_positive,
    check_scalar,
    check_shape,
)

__all__ = [
    "DAMPING",
    "FRICTION_COEFFICIENT",
    "FRICTION_LEVEL",
    "GRAVITY",
    "INERTIA",
    "INITIAL",
    "MASS",
    "NORMAL_FORCE",
    "SAMPLE_PERIOD",
    "STIFFNESS",
    "TIME_CONSTANT",
    "Rule",
    "RuleChecked",
    "check_friction_pair",
    "check_rules",
    "copied",
    "evolve",
    "rules_before_checks",
    "run_checks",
]

_KINDS = ("finite", "positive", "nonnegative", "direction", "any")


@dataclasses.dataclass(frozen=True)
class Rule:
    """What one parameter may be (see :mod:`stickslip._parameters` for the contract).

    Parameters
    ----------
    kind : str
        ``"finite"``, ``"positive"`` (> 0), ``"nonnegative"`` (≥ 0), ``"direction"`` (a
        finite vector of norm 1: constructors normalise what the user gives, a zero vector
        is rejected) or ``"any"`` (no sign check).
    hint : str
        How to fix a bad value, one sentence (appended to the message).
    scalar : bool
        The value must be 0-d (one number), not an array (the same as ``shape=()``).
    optional : bool
        ``None`` is accepted (means "not given").
    plausible : tuple of float or None
        ``(low, high)``: valid values outside it warn (``ImplausibleParameterWarning``)
        instead of passing silently; None: no such check.
    usual : str
        What the value usually is, for that warning ("a friction coefficient is usually
        0–1.5").
    shape : tuple of int or None
        The shape the value must have, e.g. ``(2,)`` for a planar point, ``(3,)`` for a
        spatial vector; checked on concrete values, the message names the shape got and
        the one expected. None: any shape.
    unit : str
        The unit shown in messages: ```RevoluteJoint.pin_radius` must be > 0 [m]; got …``.
    range : tuple of float or None
        ``(low, high)``: a closed interval the value *must* lie in (a restitution in
        [0, 1]); unlike ``plausible``, which only warns.
    named : bool
        A string is accepted as is: the name of something resolved later (a named body
        point, ``point_i="pin"``).
    """

    kind: str = "finite"
    hint: str = ""
    scalar: bool = False
    optional: bool = True
    plausible: tuple[float, float] | None = None
    usual: str = ""
    shape: tuple[int, ...] | None = None
    unit: str = ""
    range: tuple[float, float] | None = None
    named: bool = False

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"Rule.kind must be one of {_KINDS}; got {self.kind!r}.")
        if self.range is not None and not self.range[0] <= self.range[1]:
            raise ValueError(f"Rule.range must be (low, high) with low <= high; got "
                             f"{self.range!r}.")

    def but(self, **changes: Any) -> Rule:
        """The same rule with some fields changed (typically a more specific ``hint``)."""
        return dataclasses.replace(self, **changes)

    def check(self, owner: str, name: str, value: Any) -> None:
        """Raise :class:`~stickslip.errors.ParameterError` if `value` breaks this rule."""
        from .errors import ParameterError

        if value is None:
            if self.optional:
                return
            raise ParameterError(f"`{owner}.{name}` is required; got None."
                                 + (f" {self.hint}" if self.hint else ""))
        if isinstance(value, str) and self.named:
            return
        if callable(value) and not hasattr(value, "shape"):
            raise ParameterError(f"`{owner}.{name}` must be a number; got a callable "
                                 f"{getattr(value, '__name__', type(value).__name__)}."
                                 + (f" {self.hint}" if self.hint else ""))
        if isinstance(value, (str, bytes)):
            raise ParameterError(f"`{owner}.{name}` must be a number; got the string "
                                 f"{value!r}." + (f" {self.hint}" if self.hint else
                                                  f" Pass {name} as a float."))
        value = _numeric(owner, name, value, self.hint)    # one host copy for every check
        if value is None:                                   # traced: checked when built
            return
        if self.scalar or self.shape == ():
            check_scalar(owner, name, value, self.hint)
        elif self.shape is not None:
            check_shape(owner, name, value, self.shape, self.hint, self.unit)
        if self.kind == "positive":
            check_positive(owner, name, value, self.hint, self.unit)
        elif self.kind == "nonnegative":
            check_nonnegative(owner, name, value, self.hint, self.unit)
        elif self.kind == "finite":
            check_finite(owner, name, value, self.hint, self.unit)
        elif self.kind == "direction":
            check_direction(owner, name, value, self.hint)
        if self.range is not None:
            check_in_range(owner, name, value, self.range, self.hint, self.unit)
        self.check_plausible(owner, name, value)

    def check_plausible(self, owner: str, name: str, value: Any) -> None:
        """Warn when a concrete `value` is outside the ``plausible`` range (if declared)."""
        if self.plausible is not None and value is not None:
            check_plausible(owner, name, value, self.plausible, self.usual)


def check_rules(element: Any, owner: str) -> None:
    """Check every field of `element` that has a rule in its ``parameter_rules`` (a rule
    or a kind string, whose hint then comes from ``parameter_help``), then its
    ``friction_pairs`` — what ``__check_init__`` runs, for ``equinox`` modules
    (:class:`~stickslip._parameters.AbstractParametrised`) and plain frozen dataclasses
    (:class:`RuleChecked`) alike.

    Parameters
    ----------
    element : object
        The element (its class variables ``parameter_rules``, ``parameter_help`` and
        ``friction_pairs`` are read).
    owner : str
        The name messages use (``"RevoluteJoint"``, or the element's name).

    Raises
    ------
    ParameterError
        The first field that breaks its rule, named ``owner.field``.
    """
    helps = getattr(element, "parameter_help", {}) or {}
    for name, rule in (getattr(element, "parameter_rules", {}) or {}).items():
        if not isinstance(rule, Rule):
            rule = Rule(kind=rule, hint=helps.get(name, ""))
        rule.check(owner, name, getattr(element, name))
    for static, kinetic in getattr(element, "friction_pairs", ()):
        check_friction_pair(owner, getattr(element, static), getattr(element, kinetic),
                            names=(static, kinetic), each=False)


class RuleChecked:
    """Parameter rules as data for plain frozen dataclasses (the spatial elements, which
    load without JAX; the planar contacts): set ``parameter_rules = {field: Rule}`` and end
    ``__init__`` with ``run_checks(self)`` (every ``__check_init__`` of the class and its
    bases, as ``equinox`` runs them); :func:`evolve` runs them on every copy too.

    ``parameter_owner()`` is the name messages use (default: the class name).
    """

    parameter_rules: ClassVar[dict[str, Rule | str]] = {}
    parameter_help: ClassVar[dict[str, str]] = {}
    friction_pairs: ClassVar[tuple[tuple[str, str], ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        rules_before_checks(cls, RuleChecked)

    def parameter_owner(self) -> str:
        """The name messages use for this element."""
        return type(self).__name__

    def __check_init__(self) -> None:
        if _first_checker(type(self)) is RuleChecked:      # else a subclass's check ran them
            check_rules(self, self.parameter_owner())


def evolve(element: Any, **changes: Any) -> Any:
    """A copy of the dataclass `element` (an ``equinox`` module or a frozen dataclass) with
    the named fields replaced — static fields (bodies, name) included, which
    ``eqx.tree_at`` cannot reach — and its checks run on the copy: every
    ``__check_init__`` in the class's MRO, as ``equinox`` runs them after ``__init__``. So
    ``evolve(joint, pin_radius=-1.0)`` raises the ParameterError the constructor raises.
    ``__init__`` is not called again (its arguments are not the fields: a direction is not
    normalised, a named point not resolved); `element` itself is not modified.

    Parameters
    ----------
    element : object
        A dataclass instance (a planar or spatial element, a law).
    **changes
        Field name → new value.

    Returns
    -------
    object
        The checked copy.

    Raises
    ------
    TypeError
        A name in `changes` is not a field of `element`.
    ParameterError
        A new value breaks the element's rules.
    """
    new = copied(element, **changes)
    run_checks(new)
    return new


def copied(element: Any, **changes: Any) -> Any:
    """:func:`evolve` without the checks: for a copy that is checked once its last fields
    are set (``bind`` sets the points, then the constants frozen from them).

    Parameters
    ----------
    element : object
        A dataclass instance or a plain object.
    **changes
        Field name → new value.

    Returns
    -------
    object
        The unchecked copy.

    Raises
    ------
    TypeError
        A name in `changes` is not a field of `element`.
    """
    if dataclasses.is_dataclass(element):
        names = [f.name for f in dataclasses.fields(element)]
    else:                                   # a plain object (the planar contacts)
        names = list(vars(element))
    unknown = set(changes) - set(names)
    if unknown:
        raise TypeError(f"{type(element).__name__} has no field(s) {sorted(unknown)}; its "
                        f"fields are {sorted(names)}.")
    new = object.__new__(type(element))
    for name in names:
        object.__setattr__(new, name, changes.get(name, getattr(element, name)))
    return new


def run_checks(element: Any) -> None:
    """Run every ``__check_init__`` of `element`'s class and its bases, most derived first,
    as ``equinox`` does after ``__init__`` (plain classes call it at the end of theirs); the
    ``parameter_rules`` run first of all (:func:`rules_before_checks`).

    Parameters
    ----------
    element : object
        The element to check.

    Raises
    ------
    ParameterError
        From the first check that fails.
    """
    for cls in type(element).__mro__:
        check = cls.__dict__.get("__check_init__")
        if check is not None:
            check(element)


def _first_checker(cls: type) -> type:
    """The most derived class in `cls`'s MRO that defines ``__check_init__`` (the first
    one ``equinox`` and :func:`run_checks` call)."""
    return next(c for c in cls.__mro__ if "__check_init__" in c.__dict__)


def rules_before_checks(cls: type, base: type) -> None:
    """Make `cls`'s own ``__check_init__`` (a cross-field check: ``alpha <= beta``,
    ``lower < upper``) run after the element's ``parameter_rules`` — called from
    ``__init_subclass__`` of :class:`RuleChecked` and ``AbstractParametrised`` (`base`).

    ``equinox`` (and :func:`run_checks`) call the checks most derived first, so without
    this a cross-field check would meet a string, NaN or an array before the rule that
    names it (``NewtonImpact(e="one")`` raised a bare TypeError). The rules run once, in
    the first check called; `base`'s own check runs them only when no subclass has one.
    """
    own = cls.__dict__.get("__check_init__")
    if own is None or getattr(own, "after_rules", False):
        return

    def __check_init__(self, _own=own, _cls=cls) -> None:
        if _first_checker(type(self)) is _cls:
            check_rules(self, self.parameter_owner())
        _own(self)

    __check_init__.after_rules = True
    __check_init__.__doc__ = own.__doc__
    type.__setattr__(cls, "__check_init__", __check_init__)


# --- the shared rules: one per quantity, wherever it appears -------------------------------

MASS = Rule("positive", "Pass the mass in kg (> 0).", scalar=True)
INERTIA = Rule("positive", "Pass the moment of inertia in kg·m² (> 0).", scalar=True)
FRICTION_LEVEL = Rule("nonnegative", "Pass the friction force level in newtons (>= 0; 0 is "
                      "frictionless).")
FRICTION_COEFFICIENT = Rule("nonnegative", "Pass a friction coefficient >= 0.",
                            plausible=(0.0, 2.0),
                            usual="a friction coefficient is usually 0–1.5")
NORMAL_FORCE = Rule("nonnegative", "Pass the normal force in newtons (>= 0).")
SAMPLE_PERIOD = Rule("positive", "Pass the sample period in seconds (e.g. 1e-3).")
GRAVITY = Rule("nonnegative", "Pass the gravitational acceleration in m/s² (e.g. 9.81; 0 "
               "for none).", scalar=True)
INITIAL = Rule("finite", "Pass a finite initial value.")
STIFFNESS = Rule("positive", "Pass a positive stiffness in N/m.")
DAMPING = Rule("nonnegative", "Pass a damping >= 0 in N·s/m.")
TIME_CONSTANT = Rule("positive", "Pass a positive time constant in seconds.")


def check_friction_pair(owner: str, mu_s: Any, mu_k: Any, *,
                        names: tuple[str, str] = ("mu_s", "mu_k"),
                        rule: Rule = FRICTION_COEFFICIENT, each: bool = True
                        ) -> tuple[Any, Any]:
    """Check a static/kinetic friction pair — the one validator every element uses (laws,
    joints, planar and spatial contacts, the spatial ground) — and return it unchanged.

    Each value must be finite and >= 0 (a value outside `rule`'s plausible range, e.g.
    ``mu_s=50`` for 0.5, warns with :class:`~stickslip.errors.ImplausibleParameterWarning`),
    and the kinetic one at most the static one::

        `ground.mu_k` must be <= `ground.mu_s`; got mu_k=0.5, mu_s=0.3. The static friction
        must be at least the kinetic: lower mu_k or raise mu_s.

    Parameters
    ----------
    owner : str
        The element named in messages (``"LuGre"``, ``"ground"``, a contact's name).
    mu_s, mu_k : float or array or None
        Static and kinetic values (numbers or arrays, compared element-wise); None (not
        given) skips that value and the comparison; traced values are skipped.
    names : tuple of str
        How the element spells them (``("mu_s", "mu")`` for a contact whose kinetic
        coefficient is ``mu``; ``("F_s", "F")`` for force levels).
    rule : Rule
        The rule of each value (:data:`FRICTION_COEFFICIENT`; :data:`FRICTION_LEVEL` for
        force levels [N]).
    each : bool
        False when the element's ``parameter_rules`` check each value already (then only
        the order is checked here).

    Returns
    -------
    tuple
        ``(mu_s, mu_k)`` unchanged.

    Raises
    ------
    ParameterError
        A value breaks `rule`, or the kinetic one exceeds the static one.

    Examples
    --------
    >>> from stickslip._rules import check_friction_pair
    >>> check_friction_pair("ground", 0.5, 0.3)
    (0.5, 0.3)
    >>> check_friction_pair("ground", 0.3, 0.5)
    Traceback (most recent call last):
    ...
    stickslip.errors.ParameterError: `ground.mu_k` must be <= `ground.mu_s`; got mu_k=0.5, \
mu_s=0.3. The static friction must be at least the kinetic: lower mu_k or raise mu_s.
    """
    static, kinetic = names
    if each:
        rule.check(owner, static, mu_s)
        rule.check(owner, kinetic, mu_k)
    check_at_most(owner, kinetic, mu_k, static, mu_s, "The static friction must be at least "
                  f"the kinetic: lower {kinetic} or raise {static}.")
    return mu_s, mu_k
