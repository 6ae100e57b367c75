"""PSMC on a planar two-link arm with joint friction (issue 22 item 4; SPEC §6, seed 001).

The seed's two claims, measured on ``stickslip.planar.psmc_arm.two_link_arm`` (vertical plane,
Coulomb pin friction, one PSMC per joint, ``ARM_GAINS``, T = 1 ms), PSMC and the PID with
the same gains run through the same closed loop (``simulate_closed_loop``):

(a) small motion: PSMC never saturates and *is* the PID — same joint angles to round-off;
(b) a large step: PSMC's torque stays within F per joint (exactly) and the joints do not
    overshoot; the PID overshoots with a torque kick thousands of times larger.

And the exported C (``export_c("psmc")``) run in the loop for both joints
(``simulate_host_loop``) against the Python controller.
"""

import ctypes
import shutil
import subprocess

import jax.numpy as jnp
import numpy as np
import pytest

import stickslip as ss
from stickslip.planar import psmc_arm as arm

CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler (cc/gcc/clang) on PATH: "
                              "install one to run the exported PSMC in the arm's loop")
THETA0 = jnp.asarray(arm.HANGING)
F = np.asarray(arm.ARM_GAINS["F"])
STEP = 1.0                                           # large step [rad], both joints


def _small(t):
    """±0.02 rad at 1 Hz about the hanging pose (shoulder and elbow in opposition)."""
    return THETA0 + 0.02 * jnp.sin(2 * jnp.pi * t) * jnp.array([1.0, -1.0])


def _large(t):
    return THETA0 + STEP * (t >= 0.05)


@pytest.fixture(scope="module")
def plant():
    return arm.two_link_arm_plant()


class _Runs(dict):
    """PSMC and PID, small and large reference, each run when a test first asks for it (the
    small runs serve only the slow test: the default run does not pay for them)."""

    def __init__(self, plant):
        super().__init__()
        self.plant = plant

    def __missing__(self, key):
        kind, controller = key
        ref = {"small": _small, "large": _large}[kind]
        make = {"psmc": arm.arm_psmc, "pid": arm.arm_pid}[controller]
        self[key] = ss.control.simulate_closed_loop(self.plant, make(), 2.0, ref)
        return self[key]


@pytest.fixture(scope="module")
def runs(plant):
    """PSMC and PID, small and large reference: one compile per controller type."""
    return _Runs(plant)


def _angles(res):
    return np.stack([res[f"{j}.measured"] for j in ("shoulder", "elbow")])


def _torques(res):
    return np.stack([res[f"{j}.u"] for j in ("shoulder", "elbow")])


@pytest.mark.slow
def test_psmc_is_the_pid_with_the_same_gains_in_small_motion(runs):
    psmc, pid = runs["small", "psmc"], runs["small", "pid"]
    # never saturated (measured: 21 % of F at the shoulder, 10 % at the elbow) ...
    assert np.all(np.max(np.abs(_torques(psmc)), axis=1) < 0.3 * F)
    # ... so the proxy rides on p_d and PSMC's update is the PID's: equal joint angles to
    # round-off (measured 1.3e-15 rad) and torques (measured 9e-12 N·m: B/T = 2e4 N·m/rad
    # times the angles' round-off)
    np.testing.assert_allclose(_angles(psmc), _angles(pid), rtol=0, atol=1e-12)
    np.testing.assert_allclose(_torques(psmc), _torques(pid), rtol=0, atol=1e-9)
    ref = np.stack([psmc[f"{j}.p_d"] for j in ("shoulder", "elbow")])
    rms = [np.sqrt(np.mean((ref - _angles(r)) ** 2, axis=1)) for r in (psmc, pid)]
    np.testing.assert_allclose(rms[0], rms[1], rtol=1e-9)   # measured 5.1e-4, 1.7e-3 rad
    # the pins' friction is in the loop (measured peaks 0.31 and 0.15 N·m)
    assert np.max(np.abs(psmc["shoulder_joint.friction"])) > 0.2
    assert np.max(np.abs(psmc["elbow_joint.friction"])) > 0.1


def test_psmc_saturates_safely_after_a_large_step_where_pid_overshoots(runs):
    psmc, pid = runs["large", "psmc"], runs["large", "pid"]
    target = np.asarray(THETA0)[:, None] + STEP
    u = np.max(np.abs(_torques(psmc)), axis=1)
    assert np.all(u <= F)                        # |τ_j| ≤ F_j exactly: no tolerance
    np.testing.assert_array_equal(u, F)          # and it does saturate
    overshoot = np.max(_angles(psmc) - target, axis=1)
    assert np.all(overshoot < 1e-6)              # measured −1e-8 rad: none (approach from below)
    assert np.all(np.abs(_angles(psmc)[:, -1] - target[:, 0]) < 1e-6)   # there by t = 2 s
    # the PID with the same gains: 15 % (shoulder) and 28 % (elbow) overshoot, torque kick
    # B·STEP/T = 2.0e4 and 3.1e3 N·m
    pid_overshoot = np.max(_angles(pid) - target, axis=1) / STEP
    assert np.all(pid_overshoot > 0.1)
    assert np.all(np.max(np.abs(_torques(pid)), axis=1) > 500 * F)


@pytest.mark.slow
def test_psmc_pushes_a_wall_with_bounded_torque_and_does_not_wind_up():
    """An obstacle: the shoulder's reference goes 1 rad past a wall 0.5 rad away, then
    (t = 1.5 s) comes back to 0.3 rad, inside the free range."""
    limit = 0.5
    plant = arm.two_link_arm_plant(shoulder_limit=float(THETA0[0]) + limit, stop_stiffness=1e5)

    def ref(t):
        return THETA0 + jnp.where(t < 1.5, 1.0, 0.3) * (t >= 0.05) * jnp.array([1.0, 0.0])
    psmc = ss.control.simulate_closed_loop(plant, arm.arm_psmc(), 3.0, ref)
    pid = ss.control.simulate_closed_loop(plant, arm.arm_pid(), 3.0, ref)
    q = {k: r["shoulder.measured"] - float(THETA0[0]) for k, r in (("psmc", psmc),
                                                                     ("pid", pid))}
    held = (psmc.t > 0.8) & (psmc.t < 1.5)          # pressed against the wall
    after = psmc.t > 1.5
    assert np.all(np.abs(_torques(psmc)) <= F[:, None])
    assert np.all(np.abs(psmc["shoulder.u"][held]) == F[0])     # pushes with F, no more
    # PSMC's proxy did not wind up: back to 0.3 rad without passing it (measured 1e-7 rad
    # short of it at t = 3 s)
    assert q["psmc"][after].min() > 0.3 - 1e-6 and abs(q["psmc"][-1] - 0.3) < 1e-5
    # the PID's integral winds up against the wall (torque grows past 100 F), and after the
    # release it first holds on (0.21 rad off at t = 3 s) and then overshoots
    assert np.max(np.abs(pid["shoulder.u"][held])) > 100 * F[0]
    assert q["pid"][-1] - 0.3 > 0.1
    assert pid["wall.force"].max() > 10 * psmc["wall.force"][held].max()


# --- the exported C in the loop ------------------------------------------------------------

class _Params(ctypes.Structure):
    _fields_ = [(name, ctypes.c_double) for name in "FHKBLT"]      # stickslip_psmc_params


class _State(ctypes.Structure):
    _fields_ = [("a1", ctypes.c_double), ("da1", ctypes.c_double),
                ("p_prev", ctypes.c_double), ("pd_prev", ctypes.c_double),
                ("started", ctypes.c_int), ("faults", ctypes.c_ulong)]


def _load_c_psmc(tmp_path):
    """The exported PSMC compiled into a shared library, its step typed for ctypes."""
    _, source = ss.discrete.export_c("psmc", tmp_path)
    library = tmp_path / "libstickslip_psmc.so"
    subprocess.run([CC, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic",
                    "-shared", "-fPIC", str(source), "-o", str(library)], check=True)
    lib = ctypes.CDLL(str(library))
    lib.stickslip_psmc_step.restype = ctypes.c_double
    lib.stickslip_psmc_step.argtypes = [ctypes.POINTER(_State), ctypes.POINTER(_Params),
                                        ctypes.c_double, ctypes.c_double]
    return lib


@needs_cc
def test_exported_c_psmc_drives_the_arm_like_the_python_loop(plant, runs, tmp_path):
    lib = _load_c_psmc(tmp_path)
    gains = [{k: float(np.broadcast_to(v, 2)[j]) for k, v in arm.ARM_GAINS.items()}
             for j in range(2)]
    params = [_Params(*(g[k] for k in "FHKBLT")) for g in gains]
    assert [lib.stickslip_psmc_check(ctypes.byref(p)) for p in params] == [0, 0]
    states = [_State() for _ in params]
    for s in states:
        lib.stickslip_psmc_init(ctypes.byref(s))
    python = [ss.control.PSMC(**g) for g in gains]      # the Python controller, same inputs
    seen = []

    def c_controller(p_d, p):
        u = np.array([lib.stickslip_psmc_step(ctypes.byref(s), ctypes.byref(prm), pd, pk)
                      for s, prm, pd, pk in zip(states, params, p_d, p)])
        seen.append((u, [ctrl.step(pd, pk) for ctrl, pd, pk in zip(python, p_d, p)]))
        return u

    res = ss.control.simulate_host_loop(plant, c_controller, 2.0, _large, T=1e-3)
    c_u, py_u = (np.array(x) for x in zip(*seen))
    # the controller: C = Python on the loop's own inputs, to 1e-12 (relative, floor 1)
    assert np.all(np.abs(c_u - py_u) <= 1e-12 * np.maximum(1.0, np.abs(py_u)))
    assert np.all(np.abs(c_u) <= F) and [s.faults for s in states] == [0, 0]
    # the loop: the C-driven arm follows the compiled Python loop (measured: angles 1.1e-15
    # rad; torques 1.1e-11 N·m, the derivative gain B/T times the angles' round-off)
    python_loop = runs["large", "psmc"]
    np.testing.assert_allclose(_angles(res), _angles(python_loop), rtol=0, atol=1e-12)
    gain = np.asarray(arm.ARM_GAINS["B"]) / arm.ARM_GAINS["T"]         # [N·m/rad]
    assert np.all(np.max(np.abs(_torques(res) - _torques(python_loop)), axis=1)
                  <= 1e-12 * gain)


@pytest.mark.slow
def test_psmc_arm_figure_is_written_with_its_claims(tmp_path):
    from stickslip.figures._psmc_arm import make

    summary = make(tmp_path)
    assert (tmp_path / "psmc_arm.png").stat().st_size > 10_000
    assert (tmp_path / "psmc_arm.csv").stat().st_size > 1_000
    for joint, limit in zip(("shoulder", "elbow"), F):
        psmc, pid = summary[f"{joint}/PSMC"], summary[f"{joint}/PID"]
        assert psmc["peak_torque_Nm"] == limit and psmc["overshoot_rad"] < 1e-6
        assert pid["overshoot_rad"] > 0.1 and pid["peak_torque_Nm"] > 500 * limit
