"""The docstring examples of stickslip.spatial run."""

import doctest

import pytest

import stickslip.spatial._friction as friction
import stickslip.spatial._model as model


@pytest.mark.parametrize("module", [friction, model])
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0
