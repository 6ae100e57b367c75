"""Spec files validated where they enter (issue 25, item 6): the encoding is detected or
refused with the file and the fix, random bytes give a SpecError (never a traceback),
duplicate keys are refused by name, parameter names must be identifiers, seeds >= 0."""

from __future__ import annotations

import random

import pytest

from stickslip.studies import SpecError, load_spec

SWEEP = """model: friction_mass
parameters:
  F: [0.2, 0.4]
simulate: {t_end: 1.0, dt: 1.0e-3}
outputs: [stick_fraction]
"""

TOML = """model = "friction_mass"
outputs = ["stick_fraction"]

[simulate]
t_end = 1.0
dt = 1.0e-3

[parameters]
F = [0.2, 0.4]
"""


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
@pytest.mark.parametrize(("name", "text"), [("sweep.yaml", SWEEP), ("sweep.toml", TOML)])
def test_a_spec_in_utf16_or_utf32_with_a_byte_order_mark_loads(tmp_path, codec, name, text):
    boms = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}
    data = boms.get(codec, b"") + text.encode(codec)     # "utf-16"/"utf-32" write a BOM
    spec = load_spec(write(tmp_path, name, data))
    assert list(spec["design"]["F"]) == [0.2, 0.4]


def test_a_latin1_spec_names_the_file_the_byte_and_utf8(tmp_path):
    path = write(tmp_path, "sweep.yaml", ("# café\n" + SWEEP).encode("latin-1"))
    with pytest.raises(SpecError, match=r"sweep\.yaml:1: is not UTF-8 text \(byte 0xe9 at "
                                        r"offset 5.*Save the spec as UTF-8") as info:
        load_spec(path)
    assert info.value.file == str(path)


def test_utf16_without_a_byte_order_mark_is_refused_as_not_text(tmp_path):
    path = write(tmp_path, "sweep.yaml", SWEEP.encode("utf-16-le"))
    with pytest.raises(SpecError, match="NUL bytes.*UTF-16 without a byte-order mark.*UTF-8"):
        load_spec(path)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("suffix", [".yaml", ".toml"])
def test_random_bytes_give_a_spec_error_not_a_traceback(tmp_path, seed, suffix):
    data = random.Random(seed).randbytes(300)
    with pytest.raises(SpecError) as info:
        load_spec(write(tmp_path, "noise" + suffix, data))
    assert str(info.value).startswith(str(tmp_path / ("noise" + suffix)))


def test_a_duplicate_key_is_refused_naming_it_and_both_lines(tmp_path):
    path = write(tmp_path, "sweep.yaml", SWEEP + "outputs: [energy_loss]\n")
    with pytest.raises(SpecError, match=r"sweep\.yaml:6: `outputs` is given twice \(lines 5 "
                                        r"and 6\); keep one") as info:
        load_spec(path)
    assert info.value.key == "outputs"


def test_a_duplicate_nested_key_is_refused_naming_its_path(tmp_path):
    path = write(tmp_path, "sweep.yaml", SWEEP.replace("  F: [0.2, 0.4]",
                                                       "  F: [0.2]\n  F: [0.4]"))
    with pytest.raises(SpecError, match=r":4: `parameters\.F` is given twice"):
        load_spec(path)


@pytest.mark.parametrize(("text", "key"), [
    (TOML.replace('outputs = ["stick_fraction"]',
                  'outputs = ["stick_fraction"]\noutputs = ["energy_loss"]'), "outputs"),
    (TOML + "\n[simulate]\ndt_out = 1.0e-2\n", "simulate")])
def test_a_duplicate_toml_key_or_table_is_refused_naming_it(tmp_path, text, key):
    with pytest.raises(SpecError, match=f"`{key}` is given twice; keep one"):
        load_spec(write(tmp_path, "sweep.toml", text))


@pytest.mark.parametrize(("name", "shown"), [("1", "the number 1"), ("2.5", "the number 2.5"),
                                             ("true", "True")])
def test_a_numeric_or_boolean_parameter_name_is_refused(tmp_path, name, shown):
    path = write(tmp_path, "sweep.yaml", SWEEP.replace("  F:", f"  {name}:"))
    with pytest.raises(SpecError, match=f"is not a parameter name: .*identifiers.*got {shown}"):
        load_spec(path)


def test_a_numeric_parameter_name_of_a_fit_is_refused(tmp_path):
    (tmp_path / "data.csv").write_text("t,p\n0,0\n1,0\n")
    path = write(tmp_path, "fit.yaml", "model: friction_mass\ndata: data.csv\n"
                                       "parameters: {1: 0.3}\nsimulate: {dt: 1.0e-3}\n")
    with pytest.raises(SpecError, match=r"`parameters\.1` is not a parameter name"):
        load_spec(path)


def test_a_quoted_numeric_parameter_name_in_toml_is_refused(tmp_path):
    path = write(tmp_path, "sweep.toml", TOML.replace("F = [0.2, 0.4]", '"1" = [0.2]'))
    with pytest.raises(SpecError, match=r"sweep\.toml:\d+: `parameters\.1` is not a "
                                        r"parameter name"):
        load_spec(path)


@pytest.mark.parametrize("design", ["random", "latin_hypercube"])
def test_a_negative_seed_is_refused(tmp_path, design):
    path = write(tmp_path, "sweep.yaml", SWEEP.replace("[0.2, 0.4]", "{low: 0.1, high: 0.5}")
                 + f"design: {design}\nsamples: 4\nseed: -3\n")
    with pytest.raises(SpecError, match=r":8: `seed` must be a whole number >= 0.*got -3"):
        load_spec(path)


def test_a_spec_file_of_megabytes_is_refused_before_it_is_parsed(tmp_path):
    path = write(tmp_path, "sweep.yaml", SWEEP + "# " + "x" * 2_000_000 + "\n")
    with pytest.raises(SpecError, match="a spec file is a few kB"):
        load_spec(path)


def test_a_spec_nested_thousands_deep_is_a_spec_error(tmp_path):
    path = write(tmp_path, "sweep.yaml", SWEEP + "fixed: " + "[" * 50_000 + "]" * 50_000 + "\n")
    with pytest.raises(SpecError, match="nests its values too deeply"):
        load_spec(path)
