"""Parameter rules as data: one validation dialect for every element of stickslip.

Laws, systems, controllers, the brush tire, the discrete algorithms — and planar or spatial
elements that adopt it — declare what each parameter may be as *data*, and one checker
applies it with one message form (STYLE.md, "Errors")::

    `CoulombMass.F` must be >= 0; got F=-1.0. Pass the friction force level in newtons.

Contract
--------
* A :class:`Rule` says what one parameter may be: its ``kind`` (``"finite"``,
  ``"positive"`` > 0, ``"nonnegative"`` ≥ 0, or ``"any"``: no sign check), whether it must
  be a ``scalar`` (a 0-d value: a mass given as an array is rejected at construction, not
  deep inside ``jit``), whether ``None`` is allowed (``optional``, the default: ``None``
  means "not given" and is skipped), and a ``hint`` — the sentence that tells the user how
  to fix a bad value. Optionally a ``plausible`` range ``(low, high)`` and what is ``usual``:
  a valid value outside it (``mu=50``, a percentage by mistake) is accepted but warns with
  :class:`~stickslip.errors.ImplausibleParameterWarning`, naming the value and the likely
  slip (:func:`~stickslip._validation.check_plausible`). Hosts that validate by hand call
  ``rule.check_plausible(owner, name, value)``, so the range is declared once.
* A quantity that appears in several places has **one** rule, defined once (in
  :mod:`stickslip._rules`, which imports no JAX; re-exported here) and used everywhere it
  appears: :data:`MASS`, :data:`FRICTION_LEVEL` (F ≥ 0: theorem (4) holds for
  Z ≥ 0, SPEC §1 eq. 2/4, and every update computes ``sat(F, ·)``, defined at F = 0),
  :data:`FRICTION_COEFFICIENT`, :data:`SAMPLE_PERIOD`, :data:`GRAVITY`, :data:`INITIAL`…
  Specialise the hint, never the condition: ``MASS.but(hint="Pass the cart mass in kg.")``.
* An ``equinox.Module`` element subclasses :class:`AbstractParametrised` and sets the class
  variable ``parameter_rules = {field: Rule | kind-string}`` (a plain string is the
  ``kind``; its hint then comes from the optional ``parameter_help = {field: hint}``). Its
  ``__check_init__`` checks every concrete field at construction; ``owner_name`` (default:
  the class name) is the name messages use. Cross-field checks (Routh–
  Hurwitz) go in the final class's own ``__check_init__``, which equinox runs as well —
  after the field rules (:func:`~stickslip._rules.rules_before_checks`), so it only meets
  values that passed them.
* A static/kinetic friction pair is declared as data too: ``friction_pairs = (("mu_s",
  "mu_k"),)`` runs :func:`~stickslip._rules.check_friction_pair` (kinetic ≤ static, one
  message form) after the field rules. Parameter spellings: ``renamed_parameters = {"mus":
  "mu_s"}`` (old names: accepted with a ``DeprecationWarning`` naming the new one, when read
  as attributes, in ``replace`` and in fit paths; the element's ``__init__`` accepts the old
  keywords with :func:`~stickslip._validation.keyword_alias`) and ``parameter_aliases =
  {"mu_k": "mu"}`` (other accepted spellings, silent); :meth:`AbstractParametrised.field_name`
  maps either to the field.
* A plain class or a function calls :func:`check_parameters(owner, rules, **values)`.
* Traced values (inside ``jit``/``vmap``/``grad``) are skipped: they cannot be inspected, and
  they were checked when first built. Stacking elements for a batch (``jax.tree.map``)
  does not re-run the checks, so ``scalar`` rules do not stop ``simulate_batch``.
* A rule may also fix a ``shape`` (``(2,)`` a planar point, ``(3,)`` a spatial vector), a
  ``unit`` shown in messages (```RevoluteJoint.pin_radius` must be > 0 [m]; got …``), a
  ``range`` that must hold (a restitution in [0, 1]; ``plausible`` only warns), ``kind=
  "direction"`` (a unit vector) and ``named`` (a string names a point resolved later).
* Copies made with :func:`evolve` (``planar._base.evolve``, which the planar model uses to
  bind elements) run every ``__check_init__`` again: ``evolve(joint, pin_radius=-1.0)``
  raises what the constructor raises. Plain frozen dataclasses (the spatial elements, which
  load without JAX) take the same rules through :class:`~stickslip._rules.RuleChecked`.
* :func:`rules_of` returns an element's rules normalised to :class:`Rule` (for conformance
  suites: each rule rejects its bad values with a message naming ``Owner.field``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import equinox as eqx

from ._rules import (
    DAMPING,
    FRICTION_COEFFICIENT,
    FRICTION_LEVEL,
    GRAVITY,
    INERTIA,
    INITIAL,
    MASS,
    NORMAL_FORCE,
    SAMPLE_PERIOD,
    STIFFNESS,
    TIME_CONSTANT,
    Rule,
    RuleChecked,
    _first_checker,
    check_friction_pair,
    check_rules,
    evolve,
    rules_before_checks,
)
from ._validation import concrete, warn_renamed

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
    "AbstractParametrised",
    "Rule",
    "RuleChecked",
    "check_friction_pair",
    "check_parameters",
    "check_rules",
    "evolve",
    "rules_of",
]

def _as_rule(rule: Rule | str, hint: str = "") -> Rule:
    if isinstance(rule, Rule):
        return rule
    return Rule(kind=rule, hint=hint)


def rules_of(element: Any) -> dict[str, Rule]:
    """``{field: Rule}`` of an element class or instance (strings normalised)."""
    helps = getattr(element, "parameter_help", {}) or {}
    return {name: _as_rule(rule, helps.get(name, ""))
            for name, rule in (getattr(element, "parameter_rules", {}) or {}).items()}


def check_parameters(owner: str, rules: Mapping[str, Rule | str], /, **values: Any) -> None:
    """Check each ``values[name]`` against ``rules[name]`` (names without a rule: no check).

    >>> from stickslip._parameters import check_parameters, MASS
    >>> check_parameters("Cart", {"M": MASS}, M=-1.0)
    Traceback (most recent call last):
    ...
    stickslip.errors.ParameterError: `Cart.M` must be > 0; got M=-1.0. Pass the mass in kg (> 0).
    """
    for name, value in values.items():
        rule = rules.get(name)
        if rule is not None:
            _as_rule(rule).check(owner, name, value)


class AbstractParametrised(eqx.Module):
    """Base of every ``equinox.Module`` element whose parameters follow rules (module docstring).

    Subclasses set ``parameter_rules`` (and optionally ``parameter_help`` and
    ``owner_name``); construction then checks every concrete field.
    """

    parameter_rules: ClassVar[dict[str, Rule | str]] = {}
    parameter_help: ClassVar[dict[str, str]] = {}
    owner_name: ClassVar[str | None] = None
    friction_pairs: ClassVar[tuple[tuple[str, str], ...]] = ()
    renamed_parameters: ClassVar[dict[str, str]] = {}
    parameter_aliases: ClassVar[dict[str, str]] = {}

    def parameter_owner(self) -> str:
        """The name messages use: ``owner_name``, else the class name (elements with a
        ``name`` use it)."""
        return self.owner_name or type(self).__name__

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        rules_before_checks(cls, AbstractParametrised)     # rules before cross-field checks

    def __check_init__(self) -> None:
        if _first_checker(type(self)) is AbstractParametrised:   # else a subclass's ran them
            check_rules(self, self.parameter_owner())

    @classmethod
    def field_name(cls, name: str, *, warn: bool = True) -> str:
        """The field that parameter `name` is: itself, the field of an alias (``mu_k`` →
        ``mu`` on a ``CoulombODE``), or of a deprecated spelling (``mus`` → ``mu_s`` on a
        ``LuGre``; warns when `warn`)."""
        if name in cls.renamed_parameters:
            new = cls.renamed_parameters[name]
            if warn:
                owner = cls.owner_name or cls.__name__
                warn_renamed(f"`{owner}.{name}`", f"`{owner}.{new}`")
            return new
        return cls.parameter_aliases.get(name, name)

    def __getattr__(self, name: str) -> Any:
        # only reached when `name` is not a field or attribute: old spellings and aliases
        cls = type(self)
        if name in cls.renamed_parameters or name in cls.parameter_aliases:
            return getattr(self, cls.field_name(name))
        raise AttributeError(f"{cls.__name__!r} object has no attribute {name!r}")


def is_concrete_scalar(value: Any) -> bool:
    """True when `value` is a concrete 0-d number (False for traced or array values)."""
    arr = concrete(value)
    return arr is not None and arr.ndim == 0
