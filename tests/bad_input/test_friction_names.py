"""One spelling of the friction parameters on every element (issue 22, item 2): `mu_s` (static)
and `mu_k` (kinetic). Each old spelling (`mus`/`mud` of LuGre, `mu_d` of the spatial model and
ground) still works, with a DeprecationWarning naming the new one, and gives the same numbers;
an old and a new spelling of one quantity together are refused naming both; and every element
with a static/kinetic pair refuses mu_s < mu_k with a message naming both (one validator,
`stickslip._rules.check_friction_pair`)."""

import warnings

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.planar import examples as planar_examples
from stickslip.studies import lugre_block
from stickslip.studies._fit_problem import _Problem


def _deprecated(old, new):
    """pytest.warns for a DeprecationWarning naming both spellings, old first."""
    return pytest.warns(DeprecationWarning, match=rf"{old}.*deprecated; use .*{new}")


def _slide():
    m = ss.planar.Model(gravity=(0.0, -9.8))
    block = m.add_body("block", mass=1.0, inertia=0.1)
    return m, block, m.add(ss.planar.TranslationalJoint(m.ground, block, name="slide"))


def _force(law):
    """The law's force and state rate at a sliding and a sticking input (numbers to compare)."""
    out = []
    for v in (1e-4, 0.3):
        f, rate = law.force_and_rate(jnp.asarray([1e-7]), jnp.asarray(v), jnp.asarray(9.8))
        out += [float(f), float(rate[0])]
    return np.array(out)


# --- each old spelling warns, names the new one and gives the same numbers -----------------

def test_lugre_mus_mud_keywords_warn_and_build_the_same_law():
    new = ss.laws.LuGre(mu_s=0.45, mu_k=0.25)
    with _deprecated(r"`LuGre\(mus=", r"`mu_s=") as record:
        old = ss.laws.LuGre(mus=0.45, mu_k=0.25)
    assert record[0].filename == __file__          # points at the user's line
    assert float(old.mu_s) == 0.45 and np.array_equal(_force(old), _force(new))
    with _deprecated(r"`LuGre\(mud=", r"`mu_k="):
        old = ss.laws.LuGre(mu_s=0.45, mud=0.25)
    assert float(old.mu_k) == 0.25 and np.array_equal(_force(old), _force(new))


def test_lugre_mus_mud_attributes_and_replace_warn_and_read_the_new_fields():
    law = ss.laws.LuGre(mu_s=0.45, mu_k=0.25)
    with _deprecated(r"`LuGre.mus`", r"`LuGre.mu_s`") as record:
        assert float(law.mus) == 0.45
    assert record[0].filename == __file__
    with _deprecated(r"`LuGre.mud`", r"`LuGre.mu_k`"):
        assert float(law.mud) == 0.25
    with _deprecated(r"`LuGre.mus`", r"`LuGre.mu_s`"):
        raised = law.replace(mus=0.5)
    assert np.array_equal(_force(raised), _force(law.replace(mu_s=0.5)))


def test_lugre_friction_element_old_spellings_warn_and_give_the_same_law():
    m, _, slide = _slide()
    new = ss.planar.LuGreFriction(slide, mu_s=0.4, mu_k=0.3)
    with pytest.warns(DeprecationWarning) as record:
        old = m.add(ss.planar.LuGreFriction(slide, mus=0.4, mud=0.3))
    assert [str(w.message).split(";")[0] for w in record] == [
        "`LuGreFriction(mus=...)` is deprecated", "`LuGreFriction(mud=...)` is deprecated"]
    assert "use `mu_s=...`" in str(record[0].message)
    assert "use `mu_k=...`" in str(record[1].message)
    assert (old.mu_s, old.mu_k) == (new.mu_s, new.mu_k) == (0.4, 0.3)
    with _deprecated(r"`LuGreFriction.mus`", r"`LuGreFriction.mu_s`"):
        assert old.mus == 0.4
    with _deprecated(r"Model.replace\(.*mus=", r"`mu_s="):
        m.replace(old, mus=0.5)
    assert m.element(old.name).mu_s == 0.5


def test_planar_sliding_block_and_studies_builder_take_the_old_keywords_with_a_warning():
    with _deprecated(r"`sliding_block\(mus=", r"`mu_s="):
        m = planar_examples.sliding_block("lugre", mus=0.35)
    assert m.element("lugre").mu_s == 0.35
    with _deprecated(r"`lugre_block\(mud=", r"`mu_k="):
        old = lugre_block(mu_s=0.3, mud=0.15)
    new = lugre_block(mu_s=0.3, mu_k=0.15)
    assert np.array_equal(_force(old.law), _force(new.law))


def test_fit_path_law_mus_warns_names_law_mu_s_and_fits_the_same_field():
    block = lugre_block()
    data = {"t": np.linspace(0.0, 0.01, 11), "p": np.zeros(11)}
    kw = {"initial": None, "fixed": None, "channels": ["p"], "dt": 1e-3, "method": "rk4",
          "bounds": None, "weights": None}
    with _deprecated(r"'law.mus'", r"'law.mu_s'"):
        old = _Problem(block, data, ["law.mus"], **kw)
    new = _Problem(block, data, ["law.mu_s"], **kw)
    assert old.start == {"law.mus": 0.3} and old.transforms == new.transforms   # same rule
    assert float(old.system_at([0.42]).law.mu_s) == 0.42
    with pytest.raises(ss.ParameterError, match=r"twice.*law.mus.*law.mu_s"), \
            pytest.warns(DeprecationWarning):
        _Problem(block, data, ["law.mus", "law.mu_s"], **kw)


def test_spatial_mu_d_keyword_and_attribute_warn_and_give_the_same_model():
    new = ss.spatial.SpatialModel(mu_s=0.6, mu_k=0.4).add_ground(mu_s=0.5, mu_k=0.3)
    with _deprecated(r"`Model\(mu_d=", r"`mu_k="):
        old = ss.spatial.SpatialModel(mu_s=0.6, mu_d=0.4)
    with _deprecated(r"`ground\(mu_d=", r"`mu_k="):
        old.add_ground(mu_s=0.5, mu_d=0.3)
    assert old.mu_k == 0.4 and old.ground == new.ground and old._pairs_e() == new._pairs_e()
    with _deprecated(r"`SpatialModel.mu_d`", r"`SpatialModel.mu_k`"):
        assert old.mu_d == 0.4


def test_the_new_spellings_and_aliases_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        law = ss.laws.LuGre(mu_s=0.3, mu_k=0.2).replace(mu_k=0.1)
        coulomb = ss.laws.CoulombODE(mu_k=0.2, mu_s=0.3, K=1e4, beta=1e-3)
        assert float(coulomb.mu) == float(coulomb.mu_k) == 0.2      # mu_k: the same field
        assert float(coulomb.replace(mu_k=0.25).mu) == 0.25
        m, block, _ = _slide()
        contact = ss.planar.PointLineContact(m.ground, block, mu_k=0.2, mu_s=0.3)
        assert contact.mu == contact.mu_k == 0.2
        pair = ss.spatial.ContactPair("ground", "box", mu_k=0.2, mu_s=0.3)
        assert pair.mu == pair.mu_k == 0.2
        ss.spatial.SpatialModel(mu_s=0.5, mu_k=0.3).add_ground(mu_s=0.5, mu_k=0.3)
        assert float(law.mu_k) == 0.1


# --- an old and a new spelling of one quantity together: refused, naming both ---------------

def _planar_contact(**kw):
    m, block, _ = _slide()
    return ss.planar.PointLineContact(m.ground, block, **kw)


def _clearance_slider(**kw):
    m, block, _ = _slide()
    return ss.planar.ClearanceSlider(m.ground, block, half_length=0.05, half_height=0.02,
                                     clearance=1e-3, **kw)


MIXED = [
    ("LuGre mu_s+mus", lambda: ss.laws.LuGre(mu_s=0.3, mus=0.3), "mu_s", "mus"),
    ("LuGre mu_k+mud", lambda: ss.laws.LuGre(mu_k=0.2, mud=0.2), "mu_k", "mud"),
    ("LuGre.replace", lambda: ss.laws.LuGre().replace(mu_s=0.4, mus=0.4), "mu_s", "mus"),
    ("LuGreFriction", lambda: ss.planar.LuGreFriction(_slide()[2], mu_k=0.2, mud=0.2),
     "mu_k", "mud"),
    ("lugre_block", lambda: lugre_block(mu_s=0.3, mus=0.3), "mu_s", "mus"),
    ("sliding_block", lambda: planar_examples.sliding_block(mu_k=0.2, mud=0.2), "mu_k", "mud"),
    ("SpatialModel", lambda: ss.spatial.SpatialModel(mu_k=0.3, mu_d=0.3), "mu_k", "mu_d"),
    ("add_ground", lambda: ss.spatial.SpatialModel().add_ground(mu_s=0.5, mu_k=0.3, mu_d=0.3),
     "mu_k", "mu_d"),
    ("CoulombODE", lambda: ss.laws.CoulombODE(mu=0.3, mu_k=0.3, K=1e4, beta=1e-3), "mu",
     "mu_k"),
    ("CoulombODE.replace", lambda: ss.laws.CoulombODE(mu=0.3, K=1e4, beta=1e-3).replace(
        mu=0.2, mu_k=0.2), "mu", "mu_k"),
    ("PointLineContact", lambda: _planar_contact(mu=0.3, mu_k=0.3), "mu", "mu_k"),
    ("ClearanceSlider", lambda: _clearance_slider(mu=0.3, mu_k=0.3), "mu", "mu_k"),
    ("ContactPair", lambda: ss.spatial.ContactPair("ground", "box", mu=0.3, mu_k=0.3), "mu",
     "mu_k"),
]


@pytest.mark.parametrize("label, build, new, old", MIXED, ids=[c[0] for c in MIXED])
def test_two_spellings_of_one_coefficient_are_refused_naming_both(label, build, new, old):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(ss.ParameterError) as info:
            build()
    message = str(info.value)
    assert f"`{new}`" in message or f"'{new}'" in message, message
    assert f"`{old}`" in message or f"'{old}'" in message, message


# --- mu_s < mu_k is refused at every element, naming both -----------------------------------

def _spatial_link_model_with_low_static_pair():
    m = ss.spatial.SpatialModel(gravity=(0.0, 0.0, -9.81))
    m.add_body("box", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1), position=(0, 0, 0.05))
    m.add_ground(mu_s=0.5, mu_k=0.4)
    m.add(ss.spatial.ContactPair("ground", "box", mu_s=0.3))     # mu_k: the ground's 0.4
    return m.link_system()


INVERTED = [
    ("LuGre", lambda: ss.laws.LuGre(mu_s=0.2, mu_k=0.3), "LuGre", "mu_k", "mu_s"),
    ("LuGre.replace", lambda: ss.laws.LuGre().replace(mu_k=0.5), "LuGre", "mu_k", "mu_s"),
    ("LuGreFriction", lambda: ss.planar.LuGreFriction(_slide()[2], mu_s=0.2, mu_k=0.3,
                                                      name="lg"), "lg", "mu_k", "mu_s"),
    ("lugre_block", lambda: lugre_block(mu_s=0.1), "LuGre", "mu_k", "mu_s"),
    ("CoulombODE mu", lambda: ss.laws.CoulombODE(mu_k=0.3, mu_s=0.2, K=1e4, beta=1e-3),
     "CoulombODE", "mu", "mu_s"),
    ("CoulombODE F", lambda: ss.laws.CoulombODE(F=0.3, F_s=0.2, K=1e4, beta=1e-3),
     "CoulombODE", "F", "F_s"),
    ("joint friction", lambda: ss.planar.TranslationalJoint(
        "ground", "block", friction=ss.laws.CoulombODE(mu=0.3, mu_s=0.2, K=1e4, beta=1e-3)),
     "CoulombODE", "mu", "mu_s"),
    ("PointLineContact", lambda: _planar_contact(mu_k=0.3, mu_s=0.2), "PointLineContact",
     "mu", "mu_s"),
    ("ClearanceSlider", lambda: _clearance_slider(mu=0.3, mu_s=0.2), "ClearanceSlider", "mu",
     "mu_s"),
    ("ContactPair", lambda: ss.spatial.ContactPair("ground", "box", mu_k=0.3, mu_s=0.2),
     "ContactPair", "mu", "mu_s"),
    ("ContactPair vs ground", _spatial_link_model_with_low_static_pair, "ContactPair", "mu_k",
     "mu_s"),
    ("add_ground", lambda: ss.spatial.SpatialModel().add_ground(mu_s=0.2, mu_k=0.3), "ground",
     "mu_k", "mu_s"),
    ("SpatialModel", lambda: ss.spatial.SpatialModel(mu_s=0.2, mu_k=0.3), "Model", "mu_k",
     "mu_s"),
    ("CoulombMass", lambda: ss.discrete.CoulombMass(M=1.0, F=0.3, T=1e-3, F_s=0.2),
     "CoulombMass", "F", "F_s"),
]


@pytest.mark.parametrize("label, build, owner, kinetic, static", INVERTED,
                         ids=[c[0] for c in INVERTED])
def test_static_below_kinetic_is_refused_naming_both(label, build, owner, kinetic, static):
    with pytest.raises((ss.ParameterError, ss.ModelError)) as info:
        build()
    message = str(info.value)
    assert owner in message, message
    assert f"{kinetic}=" in message and f"{static}=" in message, message


def test_one_message_form_for_the_pair_check():
    """The laws, the contacts and the spatial ground say it the same way."""
    messages = []
    for build in (lambda: ss.laws.LuGre(mu_s=0.2, mu_k=0.3),
                  lambda: _planar_contact(mu=0.3, mu_s=0.2),
                  lambda: ss.spatial.ContactPair("ground", "box", mu=0.3, mu_s=0.2),
                  lambda: ss.spatial.SpatialModel().add_ground(mu_s=0.2, mu_k=0.3)):
        with pytest.raises(ss.ParameterError) as info:
            build()
        messages.append(str(info.value))
    for message in messages:
        assert "must be <=" in message and "got " in message
        assert message.endswith("The static friction must be at least the kinetic: lower "
                                + message.split("`")[1].split(".")[1] + " or raise mu_s.")


def test_pair_validator_checks_each_value_and_warns_on_implausible_ones():
    from stickslip._rules import check_friction_pair

    assert check_friction_pair("X", 0.5, 0.3) == (0.5, 0.3)
    assert check_friction_pair("X", None, 0.3) == (None, 0.3)      # not given: no order check
    for mu_s, mu_k, needle in ((np.nan, 0.3, "`X.mu_s` must be finite"),
                               (0.5, -0.1, "`X.mu_k` must be >= 0"),
                               ("0.5", 0.3, "`X.mu_s` must be a number")):
        with pytest.raises(ss.ParameterError, match=needle):
            check_friction_pair("X", mu_s, mu_k)
    with pytest.warns(ss.errors.ImplausibleParameterWarning, match=r"`X.mu_s`=50"):
        check_friction_pair("X", 50, 0.3)
