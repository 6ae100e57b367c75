"""`ss.export_fmu` refuses bad input with a stickslip error that names the argument: an
unknown algorithm, missing or invalid parameters, a path that does not end in .fmu or cannot
be written, and a missing compiler (which suggests binaries=False)."""

import pytest

import stickslip as ss

DA = {"F": 2.0, "K": 1e4, "B": 50.0, "T": 1e-3}


def _da():
    return ss.discrete.DARelaxation(**DA)


@pytest.mark.parametrize("call, error, match", [
    (lambda p: ss.export_fmu("lugre", p / "x.fmu"), ss.ParameterError,
     "unknown algorithm 'lugre' for `export_fmu`"),
    (lambda p: ss.export_fmu(3.0, p / "x.fmu"), ss.ParameterError,
     "`export_fmu` cannot export 3.0"),
    (lambda p: ss.export_fmu(ss.laws.UnilateralODE.example(), p / "x.fmu"),
     ss.ParameterError, "cannot export"),
    (lambda p: ss.export_fmu("psmc", p / "x.fmu"), ss.ParameterError,
     r"need start values.*'F', 'H', 'K', 'B', 'L', 'T'"),
    (lambda p: ss.export_fmu("da_relaxation", p / "x.fmu", params={**DA, "k": 1.0}),
     ss.ParameterError, "has no parameter 'k'.*Did you mean 'K'"),
    (lambda p: ss.export_fmu("da_relaxation", p / "x.fmu", params={**DA, "K": -1.0}),
     ss.ParameterError, r"DARelaxation\.K` must be >= 0"),
    (lambda p: ss.export_fmu(_da(), p / "x.fmu", params={"T": float("nan")}),
     ss.ParameterError, "parameter 'T' of 'da_relaxation' must be finite"),
    (lambda p: ss.export_fmu(_da(), p / "x.fmu", params={"B": "fast"}),
     ss.ParameterError, "parameter 'B' must be a number"),
    (lambda p: ss.export_fmu(_da(), p / "x.fmu", params=[1.0]), ss.ParameterError,
     "must be a mapping"),
    (lambda p: ss.export_fmu(_da(), p / "friction.zip"), ss.ParameterError,
     r"must end in \.fmu"),
    (lambda p: ss.export_fmu(_da(), p), ss.ParameterError, r"must end in \.fmu"),
    (lambda p: ss.export_fmu(_da(), p / "missing" / "x.fmu"), ss.ParameterError,
     "does not exist"),
    (lambda p: ss.export_fmu(_da(), p / "a_file" / "x.fmu"), ss.ParameterError,
     "does not exist \\(or is not a directory\\)"),
    (lambda p: ss.export_fmu(_da(), p / "a_dir.fmu"), ss.ParameterError, "is a directory"),
    (lambda p: ss.export_fmu(_da(), p / "x.fmu", compiler="no-such-cc-stickslip"),
     ss.MissingDependencyError, "'no-such-cc-stickslip' was not found on PATH.*binaries=False"),
], ids=["unknown name", "number", "a law", "no params for a name", "misspelt parameter",
        "invalid parameter", "non-finite parameter", "non-numeric parameter",
        "params not a mapping", "not .fmu", "a directory path", "missing directory",
        "parent is a file", "target is a directory", "no compiler"])
def test_export_fmu_bad_input_raises_named_error(call, error, match, tmp_path):
    (tmp_path / "a_file").write_text("not a directory")
    (tmp_path / "a_dir.fmu").mkdir()
    with pytest.raises(error, match=match):
        call(tmp_path)
    assert not (tmp_path / "x.fmu").exists()


def test_export_fmu_errors_are_stickslip_errors():
    with pytest.raises(ss.StickslipError):
        ss.export_fmu("lugre", "x.fmu")
