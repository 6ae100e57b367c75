"""One conformance suite over every public element class (issue 23, item 5; STYLE.md,
"Elements"): the laws, the planar elements (joints, drivers, force elements, LuGre joint
friction, stops, contacts) and the spatial elements.

For each class: ``example()`` builds a valid instance; its ``repr`` shows the parameter
values; each parameter rule (``parameter_rules``, the one validation dialect) rejects its bad
values — negative where positive, NaN, wrong shape, out of range, an array for a scalar —
with a message naming ``Owner.field``, through the constructor and through ``evolve`` alike
(the same ParameterError); and, where the element has a pure function of state (a law's
force, a joint's constraint and Jacobians, a force element's generalised force, a stop's
gap, a LuGre friction's normal force and law), jit equals eager, vmap over stacked examples
equals a loop and ``jax.grad`` through its parameters is finite. An element without such a
function says why in :data:`REGISTRY` (a named reason, not a silent skip). The registry is
checked against the public namespaces ``ss.laws``, ``ss.planar`` and ``ss.spatial``: a new
class that is not listed fails :func:`test_registry_lists_every_public_element_class`.
(The per-family suites tests/laws/test_conformance.py and
tests/planar/test_element_conformance.py stay; this one spans the families.)
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import warnings
from collections.abc import Callable
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
import stickslip.spatial as sp
from stickslip._parameters import rules_of
from stickslip._rules import Rule, evolve
from stickslip.laws import ALL_LAWS  # the laws' list of tests/laws/test_conformance.py
from stickslip.planar._base import AbstractElement
from stickslip.planar._contact import AbstractFrictionalContact
from stickslip.spatial._element_base import _SpatialElement

P = ss.planar

# --- pure functions of state, one per family ---------------------------------------------


def _inputs(seed: int = 0):
    rng = np.random.default_rng(seed)
    qi, qj, qdi, qdj = (jnp.asarray(rng.standard_normal(3) * 0.3) for _ in range(4))
    return qi, qj + jnp.asarray([0.8, 0.4, 0.0]), qdi, qdj, jnp.asarray(0.4 + 0.1 * seed)


def _constraint(c, qi, qj, qdi, qdj, t):
    """Φ, Φ_q (both bodies), γ and Φ_t (SPEC §9)."""
    return (c.residual(qi, qj, t), *c.jacobians(qi, qj, t), c.gamma(qi, qj, qdi, qdj, t),
            c.time_derivative(qi, qj, t))


def _force(f, qi, qj, qdi, qdj, t):
    """The generalised forces on its bodies, the reported scalar and the potential."""
    qs, qds = ([qi, qj], [qdi, qdj]) if len(f.bodies()) == 2 else ([qj], [qdj])
    generalised, value = f.generalized_force(qs, qds, t)
    return (*generalised, value, f.potential(qs))


def _gap(stop, qi, qj, qdi, qdj, t):
    """g(q) of a stop, the ground at qi's pose, body "link" at qj's."""
    return (stop.gaps(lambda body: qj if getattr(body, "name", body) == "link" else qi),)


def _lugre(friction, qi, qj, qdi, qdj, t):
    """The normal force the LuGre law sees from a reaction, then the law's force and rate."""
    normal = friction.normal(30.0 * qdi[:2], qdj[2], qi[2], qj[:2])
    force, rate = friction.law.force_and_rate(1e-5 * qi[:1], qdj[0], normal)
    return normal, force, rate


def _contact(contact, qi, qj, qdi, qdj, t):
    """A frictional contact's pairs (SPEC §6): gaps, sliding velocities, the friction bound
    μ(v_t) and the relaxation's normal target, body i at qi's pose, body j at qj's."""
    return contact.relaxation_terms(qi, qj, qdi, qdj)


def _law(law, qi, qj, qdi, qdj, t):
    """force_and_rate in both regimes (SPEC §2–§3); NewtonImpact's velocity update."""
    if isinstance(law, ss.laws.NewtonImpact):
        return (law.velocity_after(qi[0], qj[0] - 1.0),)
    state = law.initial_state() + 1e-5
    if isinstance(law, ss.laws.AbstractFrictionLaw):
        return law.force_and_rate(state, qdj[0], 2.0 + qi[0] ** 2)
    return law.force_and_rate(state, -0.01 * qi[0] ** 2, qdj[1])


# --- the registry ---------------------------------------------------------------------------

_HOST_SIDE_SPATIAL = ("a host-side description (names, world points, numbers): its rows or "
                      "wrench are computed by the frozen link system (spatial._link_*), not "
                      "by the element")


@dataclasses.dataclass(frozen=True)
class Entry:
    """One element class: `function` its pure function of state (None: `reason` says why),
    `traced` False where the element has no array parameter to differentiate (with why)."""

    cls: type
    function: Callable | None = None
    reason: str = ""
    no_parameter: str = ""
    constant: str = ""          # why its function does not depend on its array parameters
    renamed: dict = dataclasses.field(default_factory=dict)   # init keyword → field
    skipped: tuple = ()                                         # init keywords not fields

    @property
    def id(self) -> str:
        return f"{self.cls.__module__.split('.')[1]}.{self.cls.__name__}"


def _entries() -> list[Entry]:
    laws = [Entry(c, _law) for c in (*ALL_LAWS, ss.laws.NewtonImpact)]
    on_body = {"body": "body_i", "point": "point_i"}
    constraints = [Entry(c, _constraint) for c in (
        P.RevoluteJoint, P.TranslationalJoint, P.RevoluteRevoluteJoint,
        P.RevoluteTranslationalJoint, P.GearJoint)]
    constraints += [Entry(P.CamFollowerJoint, _constraint,
                          renamed={"cam": "body_i", "follower": "body_j"}),
                    Entry(P.AbsoluteDistance, _constraint, renamed=on_body),
                    Entry(P.AbsoluteX, _constraint, renamed={**on_body, "x": "value"}),
                    Entry(P.AbsoluteY, _constraint, renamed={**on_body, "y": "value"}),
                    Entry(P.AbsoluteAngle, _constraint, renamed={**on_body, "phi": "value"}),
                    Entry(P.RotationalDriver, _constraint, skipped=("angle",),
                          constant="φ_j − φ_i − C(t) uses no point: its points are unused"),
                    Entry(P.TranslationalDriver, _constraint, skipped=("distance",)),
                    Entry(P.AbsoluteDriver, _constraint, renamed=on_body, skipped=("value",)),
                    Entry(P.RelativeDriver, _constraint, skipped=("value",)),
                    Entry(P.DistanceDriver, _constraint, skipped=("distance",))]
    forces = [Entry(c, _force) for c in (P.TranslationalSpringDamper,
                                         P.RotationalSpringDamper, P.PointForce)]
    forces += [Entry(P.BodyTorque, _force, no_parameter="its torque is a static callable of "
                     "(t, q, qd): no array parameter to differentiate"),
               Entry(P.JointActuator, _force, reason="")]
    stops = [Entry(P.PointLineStop, _gap), Entry(P.TranslationalStop, _gap),
             Entry(P.RevoluteStop, _gap)]
    friction = [Entry(P.LuGreFriction, _lugre, skipped=("mus", "mud"))]
    contacts = [Entry(P.PointLineContact, _contact, skipped=("mu_k",)),
                Entry(P.ClearanceSlider, _contact, skipped=("mu_k",),
                      renamed={"guide": "body_i", "slider": "body_j"})]
    spatial = [Entry(c, reason=_HOST_SIDE_SPATIAL) for c in (
        sp.RevoluteJoint, sp.PrismaticJoint, sp.SphericalJoint, sp.FixedJoint,
        sp.PointForce, sp.BodyTorque, sp.SpringDamper)]
    spatial += [Entry(sp.FreeJoint, reason=_HOST_SIDE_SPATIAL, renamed={"body": "body_j"}),
                Entry(sp.JointDriver, reason=_HOST_SIDE_SPATIAL,
                      skipped=("position", "velocity", "effort")),
                Entry(sp.ContactPair, reason=_HOST_SIDE_SPATIAL, skipped=("mu_k",))]
    return laws + constraints + forces + stops + friction + contacts + spatial


REGISTRY = _entries()
EXAMPLE_OUTSIDE = {P.JointActuator: "defined in planar/_plant.py, outside this change: the "
                                    "suite builds it on RevoluteJoint.example()"}
ALL = pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.id)
WITH_FUNCTION = pytest.mark.parametrize("entry", [e for e in REGISTRY if e.function],
                                        ids=lambda e: e.id)


def _public_element_classes() -> set[type]:
    found = set()
    for name in dir(ss.laws):
        obj = getattr(ss.laws, name)
        if inspect.isclass(obj) and issubclass(obj, ss.laws.AbstractLaw) \
                and not inspect.isabstract(obj) and not name.startswith("Abstract"):
            found.add(obj)
    for name in P.__all__:
        obj = getattr(P, name)
        if inspect.isclass(obj) and issubclass(obj, (AbstractElement, AbstractFrictionalContact)) \
                and not name.startswith("Abstract"):
            found.add(obj)
    element_modules = ("stickslip.spatial._elements", "stickslip.spatial._contact_pair",
                       "stickslip.spatial._element_base")
    for name in sp.__all__:
        obj = getattr(sp, name)
        if inspect.isclass(obj) and (issubclass(obj, _SpatialElement)
                                     or obj.__module__ in element_modules):
            found.add(obj)
    return found


def test_registry_lists_every_public_element_class():
    listed = [e.cls for e in REGISTRY]
    assert len(listed) == len(set(listed)), "a class is listed twice"
    missing = _public_element_classes() - set(listed)
    assert not missing, f"public element classes missing from REGISTRY: {missing}"
    assert all(e.function or e.reason for e in REGISTRY)


# --- building, repr ----------------------------------------------------------------------

def _example(cls):
    if cls is P.JointActuator:
        return cls(P.RevoluteJoint.example(), tau=0.3)
    return cls.example()


def _bound(cls):
    """The example bound in a model with body "link" (its joint added first for a stop,
    a friction or an actuator); laws and host-side elements as built."""
    element = _example(cls)
    if not isinstance(element, AbstractElement):
        return element
    model = P.Model()
    model.add_body("link", mass=1.0, inertia=0.1, x=0.7, y=0.3, phi=-0.9)
    if "joint" in {f.name for f in dataclasses.fields(element)}:
        element = evolve(element, joint=model.add(element.joint))
    return model.add(element)


@ALL
def test_example_builds_a_valid_instance(entry):
    cls = entry.cls
    if cls in EXAMPLE_OUTSIDE:
        assert "example" not in cls.__dict__, "remove the EXAMPLE_OUTSIDE note"
    else:
        assert "example" in cls.__dict__, f"{cls.__name__} has no example() of its own"
    element = _example(cls)
    assert type(element) is cls
    bound = _bound(cls)
    assert type(bound) is cls
    if isinstance(bound, AbstractElement):
        # bound in a model: named from the class's prefix, and frozen like every module
        assert bound.name.startswith(cls.prefix), (bound.name, cls.prefix)
    fields = [f.name for f in dataclasses.fields(bound)] if dataclasses.is_dataclass(bound) else []
    if fields:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(bound, fields[0], None)


@ALL
def test_repr_shows_the_parameter_values(entry):
    element = _example(entry.cls)
    text = repr(element)
    assert text.startswith(entry.cls.__name__ + "("), text
    assert "f64[" not in text and "object at 0x" not in text, text
    for name in _rules(entry.cls):
        value = getattr(element, name)
        if value is None or isinstance(value, str):
            continue
        first = np.ravel(np.asarray(value, dtype=float))[0]
        assert f"{name}=" in text, f"{name} missing from {text}"
        shown = re.search(rf"(?<![A-Za-z_]){name}=\(?(?:array\(\[?)?\s*([-+0-9.e]+)", text)
        assert shown and float(shown.group(1)) == pytest.approx(first, rel=1e-5), text


# --- parameter rules: constructor and evolve reject bad values alike -------------------------

def _rules(cls) -> dict[str, Rule]:
    return rules_of(cls)


def _bad_values(rule: Rule, value: Any) -> list[tuple[str, Any, bool]]:
    """(what, bad value, also through the constructor) for one rule and a valid value."""
    shape = np.shape(np.asarray(value, dtype=float)) if value is not None else ()
    def like(x):
        return np.full(shape, x) if shape else x
    cases = [("nan", like(np.nan), True), ("inf", like(np.inf), True)]
    if rule.kind == "positive":
        cases += [("negative", like(-1.0), True), ("zero", like(0.0), True)]
    if rule.kind == "nonnegative":
        cases += [("negative", like(-1.0), True)]
    if rule.kind == "direction":
        cases += [("zero", np.zeros(shape), True), ("not unit", 2.0 * np.eye(shape[0])[0],
                                                   False)]
    if rule.range is not None:
        low, high = rule.range
        cases += [("above range", like(high + 0.5), True), ("below range", like(low - 0.5),
                                                            True)]
    if rule.scalar or rule.shape == ():
        cases += [("array for a scalar", np.array([1.0, 2.0]), True)]
    elif rule.shape is not None:
        cases += [("wrong shape", np.zeros(rule.shape[0] + 1), True)]
    if not rule.optional:
        cases += [("None", None, True)]
    if not rule.named:
        cases.append(("string", "one", True))
    return cases


def _other_spellings(cls) -> set[str]:
    """Init keywords that are second spellings of a field (``mus``, ``mu_k``…)."""
    return set(getattr(cls, "renamed_parameters", {})) | set(
        getattr(cls, "parameter_aliases", {}))


def _constructor_kwargs(entry: Entry, element) -> dict[str, Any]:
    """Keyword arguments that rebuild `element` (init keywords read back from its fields;
    second spellings and the keywords in ``entry.skipped`` left out)."""
    signature = inspect.signature(entry.cls.__init__)
    kwargs = {}
    for name, p in list(signature.parameters.items())[1:]:
        if name in entry.skipped or name in _other_spellings(entry.cls) or \
                p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        field = entry.renamed.get(name, name)
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            value = getattr(element, field)
        kwargs[name] = value
    return kwargs


def _field_to_keyword(entry: Entry) -> dict[str, str]:
    """field → the constructor keyword that sets it."""
    names = list(inspect.signature(entry.cls.__init__).parameters)[1:]
    return {entry.renamed.get(n, n): n for n in names
            if n not in entry.skipped and n not in _other_spellings(entry.cls)}


def _rebuild(entry: Entry, element, keyword: str, value):
    kwargs = _constructor_kwargs(entry, element)
    kwargs[keyword] = value
    cls = entry.cls
    if cls in (P.AbsoluteDriver, P.RelativeDriver):          # value: the motion C(t)
        kwargs["value"] = element.motion
    if cls in (P.RotationalDriver,):
        kwargs["angle"] = element.motion
    if cls in (P.TranslationalDriver, P.DistanceDriver):
        kwargs["distance"] = element.motion
    if cls is sp.JointDriver:
        kwargs[element.mode] = element.value
    return cls(**kwargs)


def _message(call, *args, **kwargs) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ss.ParameterError) as info:
            call(*args, **kwargs)
    return str(info.value)


@ALL
def test_each_rule_rejects_bad_values_in_the_constructor_and_in_evolve_alike(entry):
    cls = entry.cls
    element = _example(cls)
    rules = _rules(cls)
    if not rules:
        pytest.skip(f"{cls.__name__} has no parameter rules")   # listed: BodyTorque, …
    owner = getattr(cls, "owner_name", None) or cls.__name__
    keywords = _field_to_keyword(entry)
    checked = 0
    for field, rule in rules.items():
        value = getattr(element, field)
        for what, bad, through_constructor in _bad_values(rule, value):
            by_evolve = _message(evolve, element, **{field: bad})
            assert f"`{owner}.{field}`" in by_evolve, (field, what, by_evolve)
            keyword = keywords.get(field)
            if through_constructor and keyword is not None and value is not None:
                by_init = _message(_rebuild, entry, element, keyword, bad)
                assert by_init == by_evolve, (field, what)
            checked += 1
    assert checked >= len(rules)


def test_classes_without_rules_are_the_listed_ones():
    without = {e.cls for e in REGISTRY if not _rules(e.cls)}
    assert without == {P.BodyTorque, P.JointActuator, sp.FreeJoint, sp.JointDriver,
                       sp.BodyTorque}, without
    # their checks are of callables, names and modes, in __check_init__ (and evolve):
    with pytest.raises(ss.ParameterError, match=r"`BodyTorque.torque`"):
        evolve(sp.BodyTorque.example(), torque=np.array([1.0, np.nan, 0.0]))
    with pytest.raises(ss.ParameterError, match=r"`JointDriver.effort`"):
        evolve(sp.JointDriver.example(), value=np.array(np.nan))


def test_evolve_of_a_joint_raises_the_constructors_error():
    """The issue's case: `evolve(joint, pin_radius=-1.0)` used to pass silently."""
    joint = P.RevoluteJoint.example()
    message = "`RevoluteJoint.pin_radius` must be > 0 [m]; got pin_radius=-1.0."
    with pytest.raises(ss.ParameterError, match=re.escape(message)):
        evolve(joint, pin_radius=-1.0)
    with pytest.raises(ss.ParameterError, match=re.escape(message)):
        P.RevoluteJoint("ground", "link", pin_radius=-1.0)
    with pytest.raises(ss.ParameterError, match=r"`PointLineStop.restitution` must be in "
                                                r"\[0, 1\]; got restitution=1.5"):
        evolve(P.PointLineStop.example(), restitution=1.5)
    assert float(evolve(joint, pin_radius=0.02).pin_radius) == 0.02     # a valid change


# --- pure functions: jit = eager, vmap = loop, finite gradients ----------------------------

def _members(element):
    """Three members whose array parameters differ (scaled by 1, 1.1, 0.9)."""
    return [jax.tree.map(lambda x, s=s: x * s if eqx.is_inexact_array(x) else x, element)
            for s in (1.0, 1.1, 0.9)]


@WITH_FUNCTION
def test_jit_equals_eager(entry):
    element = _bound(entry.cls)
    args = _inputs()
    eager = entry.function(element, *args)
    jitted = eqx.filter_jit(entry.function)(element, *args)
    for a, b in zip(eager, jitted, strict=True):
        assert np.all(np.isfinite(a))
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)


@WITH_FUNCTION
def test_vmap_over_stacked_examples_equals_a_loop(entry):
    members = _members(_bound(entry.cls))
    parts = [eqx.partition(m, eqx.is_array) for m in members]
    static = parts[0][1]
    stacked = jax.tree.map(lambda *xs: jnp.stack(xs), *[a for a, _ in parts])
    args = [_inputs(seed) for seed in range(3)]
    batched = jax.vmap(lambda a, *z: entry.function(eqx.combine(a, static), *z))(
        stacked, *(jnp.stack(col) for col in zip(*args)))
    for k, member in enumerate(members):
        for b, single in zip(batched, entry.function(member, *args[k]), strict=True):
            np.testing.assert_allclose(b[k], single, rtol=1e-12, atol=1e-12)


@WITH_FUNCTION
def test_grad_through_the_parameters_is_finite(entry):
    element = _bound(entry.cls)
    args = _inputs()
    leaves = jax.tree.leaves(eqx.filter(element, eqx.is_inexact_array))
    if entry.no_parameter:
        assert not leaves, f"{entry.cls.__name__} has array parameters now: drop its note"
        return
    assert leaves

    def scalar(e):
        return sum(jnp.sum(jnp.asarray(o) ** 2) for o in entry.function(e, *args))

    grads = jax.tree.leaves(eqx.filter(eqx.filter_grad(scalar)(element), eqx.is_array))
    assert len(grads) == len(leaves)
    assert all(np.all(np.isfinite(g)) for g in grads)
    depends = any(np.any(g != 0) for g in grads)
    assert depends != bool(entry.constant), entry.constant or "zero gradient"


# --- the dialect itself -------------------------------------------------------------------

@pytest.mark.parametrize(("rule", "value", "message"), [
    (Rule("positive", scalar=True, unit="m"), -1.0, r"`J.x` must be > 0 \[m\]; got x=-1\.0\."),
    (Rule("finite", range=(0.0, 1.0)), 1.5, r"`J.x` must be in \[0, 1\]; got x=1\.5\."),
    (Rule("finite", shape=(3,), unit="m"), (1.0, 2.0),
     r"`J.x` must be an array of shape \(3,\) \[m\]; got shape \(2,\)"),
    (Rule("direction", shape=(2,)), (0.0, 0.0), r"`J.x` must be a non-zero direction"),
    (Rule("direction", shape=(2,)), (0.0, 3.0), r"`J.x` must be a unit direction \(norm 1\)"),
    (Rule("finite", shape=(2,), named=False), "pin", r"`J.x` must be a number; got the string"),
    (Rule("positive", optional=False), None, r"`J.x` is required; got None\."),
])
def test_a_rule_names_the_field_the_unit_the_shape_and_the_range(rule, value, message):
    with pytest.raises(ss.ParameterError, match=message):
        rule.check("J", "x", value)


def test_a_rule_passes_good_values_names_and_traced_values():
    Rule("finite", shape=(2,), named=True).check("J", "x", "pin")        # a named point
    Rule("finite", range=(0.0, 1.0), scalar=True).check("J", "x", 1.0)  # closed interval
    jax.jit(lambda v: Rule("positive").check("J", "x", v) or v)(-1.0)   # traced: skipped
    with pytest.raises(ValueError, match="low <= high"):
        Rule("finite", range=(1.0, 0.0))
