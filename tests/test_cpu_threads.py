"""Importing stickslip gives XLA's CPU runtime one worker thread unless the user chose a
size (``PJRT_NPROC``; stickslip/__init__.py's docstring says why), and keeps the user's
choice."""

import os
import subprocess
import sys

import pytest

READ = ("import os, stickslip; import jax.numpy as jnp; jnp.zeros(1).block_until_ready(); "
        "print(os.environ.get('PJRT_NPROC'))")


def _run(env_extra):
    env = {k: v for k, v in os.environ.items() if k != "PJRT_NPROC"}
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", READ], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


def test_import_sets_one_cpu_thread_when_unset():
    assert _run({}) == "1"


@pytest.mark.parametrize("choice", ["2", "8"])
def test_import_keeps_the_users_thread_count(choice):
    assert _run({"PJRT_NPROC": choice}) == choice
