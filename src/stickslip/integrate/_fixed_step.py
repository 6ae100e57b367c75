"""Fixed-step explicit Runge–Kutta integration as one jitted loop over the steps of a run.

The compiled program depends on the system's structure, the :class:`StepRule` (method,
``trace_stages_once``, ``projection``) and the number of output slots (`capacity`, a power of
two) only. Everything else is traced data — the step `dt`, the steps per output `n_sub`, the
number of outputs used, the last interval's steps and its short final step (the grid rule of
:mod:`._grid`) — so a new `t_end`, `dt` or `dt_out` reuses the compiled program.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._compile.packed import Packed, SampleLayout, unpacked
from .._compile.traced_once import traced_once
from ._grid import StepGrid
from ._rk_step import rk_step, rk_step_sampled, tableau_of

__all__ = [
    "Segment",
    "StepRule",
    "integrate_batch",
    "integrate_padded",
    "padded_length",
    "rk_step",
    "segment",
    "solve_fixed_step",
    "solve_fixed_step_batch",
    "solve_fixed_step_padded",
]


class StepRule(NamedTuple):
    """How one step is taken (static: it fixes the compiled program).

    method: a fixed-step method name.   trace_stages_once: run the stages in a loop (see
    :func:`rk_step`).   projection: call ``system.project(t, x)`` after every step.
    """

    method: str = "rk4"
    trace_stages_once: bool = False
    projection: bool = False

    @classmethod
    def for_system(cls, system, method: str, trace_stages_once=None,
                   projection=None) -> StepRule:
        """The rule for `system`: unset options default to its declared capabilities
        (``trace_stages_once``, ``projects_after_step``: class variables, or static fields
        of the instance — read from the instance, so a wrapper or a field can set them)."""
        looped = system.trace_stages_once if trace_stages_once is None \
            else trace_stages_once
        projects = system.projects_after_step if projection is None else projection
        looped, projects = bool(looped), bool(projects)
        return cls(method, bool(looped), bool(projects))

    def stepper(self, system):
        """``step(t, x, h)`` for `system` under this rule."""
        tableau = tableau_of(self.method)
        project = system.project if self.projection else None
        return lambda t, x, h: rk_step(system.vector_field, tableau, t, x, h,
                                       stages_in_loop=self.trace_stages_once, project=project)


class Segment(NamedTuple):
    """The traced part of a grid for one compiled call (all JAX scalars).

    dt: step [s].   n_sub: steps per output.   n_valid: outputs computed (the slots after it
    repeat the last state).   n_last, h_last: whole steps and the short final step [s] of
    output `n_valid` (``n_sub`` and 0 except in a run's last call).   t_last: the time of
    output `n_valid` [s] (exactly `t_end` in the last call).
    """

    # Any: each is a NumPy scalar (or 0-d array) when built, a JAX scalar when traced
    dt: Any
    n_sub: Any
    n_valid: Any
    n_last: Any
    h_last: Any
    t_last: Any


def segment(grid: StepGrid, done: int, keep: int) -> Segment:
    """The `Segment` for outputs ``done+1 … done+keep`` of `grid`."""
    final = done + keep == grid.n_out
    t_last = grid.t_end if final else grid.t0 + (done + keep) * grid.dt_out
    # NumPy scalars, not jnp.asarray: each of those would compile a small conversion program
    # in a new process (a few ms apiece, before the run starts)
    real, whole = np.float64, np.int64
    return Segment(real(grid.dt), whole(grid.n_sub), whole(keep),
                   whole(grid.n_last if final else grid.n_sub),
                   real(grid.h_last if final else 0.0), real(t_last))


def _samples(system, ts, xs, n_valid=None):
    """The system's extra channels and its energy (None unless it reports one) at samples;
    with `n_valid`, only the first ``n_valid + 1`` are computed (:func:`sample_loop`; the
    channels then come packed).

    A loop, not a ``vmap``: a batched ``outputs`` compiles 25–40 % longer (friction
    slider–crank 9.6 → 7.1 s CPU for the whole first call) and turns every ``lax.cond``
    inside it (a contact solver's fallback branch) into "run both branches". The loop costs
    ≤ 20 % more per output sample, which is small beside the steps between samples."""
    @traced_once                   # traced for its shapes, then called with the same ones
    def sample(t, x):
        return system.outputs(t, x), system.passive_energy(t, x)

    if n_valid is None:
        return jax.lax.map(lambda tx: sample(*tx), (ts, xs))
    return sample_loop(sample, (ts, xs), n_valid)


def sample_loop(sample, args, n_valid):
    """``sample(*(a[k] for a in args))`` (each a pytree) for k = 0 … `n_valid`, by a loop of that many passes
    into slots as long as the args (the padding slots after them hold zeros: a short run in
    a large compiled capacity pays for its own samples only — no pass, no branch per padding
    slot). `sample` returns ``(outputs, energy)``.

    Returns ``(outputs, energy)``: the outputs as a :class:`~stickslip._compile.packed.Packed`
    (each sample one row, written in one update a pass; the program store hands its caller
    the channels), the energy (or None) in slots of its own."""
    shapes = jax.eval_shape(sample, *jax.tree.map(lambda a: a[0], args))
    layout = SampleLayout.of(shapes[0])
    n = jax.tree.leaves(args)[0].shape[0]
    rows = jnp.zeros((n, layout.width), layout.dtype)
    energy = jax.tree.map(lambda s: jnp.zeros((n, *s.shape), s.dtype), shapes[1])

    def one(k, slots):
        rows, energy = slots
        outputs, e = sample(*jax.tree.map(
            lambda a: jax.lax.dynamic_index_in_dim(a, k, keepdims=False), args))
        rows = jax.lax.dynamic_update_slice_in_dim(rows, layout.row(outputs)[None], k, 0)
        energy = jax.tree.map(lambda slot, v: jax.lax.dynamic_update_slice_in_dim(
            slot, v[None], k, 0), energy, e)
        return rows, energy

    rows, energy = jax.lax.fori_loop(0, n_valid + 1, one, (rows, energy))
    return Packed(rows, layout), energy


def _integrate_padded(dynamic, static, t0, x0, seg: Segment, rule: StepRule, capacity: int):
    """One loop over every step of the call, each step writing its state into the slot of
    its output (the last step of an output interval writes it last); the short final step
    ``h_last`` is step number ``(n_valid − 1)·n_sub + n_last`` (none when ``h_last`` is 0).

    Not a scan over outputs with a loop of steps inside (as before): XLA's CPU runtime runs
    a loop as one compiled function only when one pass of its body touches less than 1 KiB
    (``xla_cpu_small_while_loop_byte_threshold``), else operation by operation. The loop
    over outputs held the loop of steps, so it never qualified: its operations cost about
    0.25 µs per output sample, and an output every step made AP1 2.7× as slow as the same
    steps with sparse output (`benchmarks/results/output_cost.md`). One loop is also one
    program less to compile."""
    system = eqx.combine(dynamic, static)
    if rule.trace_stages_once and system.samples_in_stages:
        return _integrate_sampled(system, t0, x0, seg, rule, capacity)
    step = rule.stepper(system)
    short = (seg.n_valid - 1) * seg.n_sub + seg.n_last      # the short final step's number
    n_steps = short + (seg.h_last > 0)
    # the output of step s is s // n_sub, computed as floor((s + ½)/n_sub) in float64: exact
    # for s < 2⁵¹ (the fraction (s mod n_sub + ½)/n_sub stays ½/n_sub away from an integer),
    # and it fuses into the slot's update, where an integer division is an operation of its
    # own in every step (+0.4 µs a step for a LuGre block run operation by operation)
    per_output = 1.0 / seg.n_sub.astype(seg.dt.dtype)

    def body(s, carry):
        x, xs = carry
        x = step(t0 + s * seg.dt, x, jnp.where(s == short, seg.h_last, seg.dt))
        output = jnp.floor((s.astype(seg.dt.dtype) + 0.5) * per_output).astype(s.dtype)
        return x, jax.lax.dynamic_update_slice_in_dim(xs, x[None], output + 1, 0)

    xs = jnp.zeros((capacity + 1, *x0.shape), x0.dtype).at[0].set(x0)
    x, xs = jax.lax.fori_loop(0, n_steps, body, (x0, xs))  # unrolling measured 4x slower on CPU
    index = jnp.arange(capacity + 1)
    xs = jnp.where((index > seg.n_valid).reshape(-1, *(1,) * x0.ndim), x, xs)  # padding: last
    ts = jnp.where(index == seg.n_valid, seg.t_last, t0 + index * (seg.n_sub * seg.dt))
    outputs, energy = _samples(system, ts, xs, seg.n_valid)
    return xs, outputs, energy


def _integrate_sampled(system, t0, x0, seg: Segment, rule: StepRule, capacity: int):
    """:func:`_integrate_padded` for a system with ``samples_in_stages``: each output sample
    comes from the first stage of the step that starts at it (:func:`rk_step_sampled`), and
    the last one from one more pass of the loop with a step of length 0 at ``t_last`` whose
    state is not kept — so the program holds one copy of the system's dynamics (the outputs
    after the loop held a second: ~40 % of the first call of a 3-D link system with
    contacts). Sample j < n_valid starts step j·n_sub (the grid of :mod:`._grid`); sample
    n_valid is the end state. Non-sample passes write into a spare slot, dropped after."""
    project = system.project if rule.projection else None

    @traced_once    # traced here for the samples' shapes, then reused by the stages' call
    def evaluate_tree(t, x, want):
        rates, outputs = system.vector_field_and_outputs(t, x, want)
        return rates, (outputs, system.passive_energy(t, x))

    shapes = jax.eval_shape(evaluate_tree, t0, x0, jnp.asarray(True))[1]
    # a sample travels as one flat vector: the loops carry one array, not one per channel
    # (a loop carrying dozens of small arrays runs operation by operation on XLA's CPU
    # runtime: +35–150 % per step measured on a box and a four-bar); its outputs leave the
    # program packed (stickslip._compile.packed: no slice per channel after the loop)
    layout = SampleLayout.of(shapes)
    flat = jax.ShapeDtypeStruct((layout.width,), layout.dtype)

    def evaluate(t, x, want):
        rates, sample = evaluate_tree(t, x, want)
        return rates, layout.row(sample)

    short = (seg.n_valid - 1) * seg.n_sub + seg.n_last      # the short final step's number
    n_steps = short + (seg.h_last > 0)
    per_output = 1.0 / seg.n_sub.astype(seg.dt.dtype)
    spare = capacity + 1                                     # the slot of non-sample passes
    slots = jnp.zeros((capacity + 2, *flat.shape), flat.dtype)

    def body(s, carry):
        x, xs, slots = carry
        last = s == n_steps
        t = jnp.where(last, seg.t_last, t0 + s * seg.dt)
        h = jnp.where(last, 0.0, jnp.where(s == short, seg.h_last, seg.dt))
        output = jnp.floor((s.astype(seg.dt.dtype) + 0.5) * per_output).astype(s.dtype)
        slot = jnp.where(last, seg.n_valid, jnp.where(s == output * seg.n_sub, output, spare))
        x_next, sample = rk_step_sampled(evaluate, rule.method, t, x, h, template=flat,
                                         keep=slot != spare, project=project)
        slots = jax.lax.dynamic_update_slice_in_dim(slots, sample[None], slot, 0)
        xs = jax.lax.dynamic_update_slice_in_dim(xs, x_next[None],
                                                 jnp.where(last, spare, output + 1), 0)
        return jnp.where(last, x, x_next), xs, slots

    xs = jnp.zeros((capacity + 2, *x0.shape), x0.dtype).at[0].set(x0)
    x, xs, slots = jax.lax.fori_loop(0, n_steps + 1, body, (x0, xs, slots))
    xs = xs[:capacity + 1]
    index = jnp.arange(capacity + 1)
    xs = jnp.where((index > seg.n_valid).reshape(-1, *(1,) * x0.ndim), x, xs)  # padding: last
    slots = slots[:capacity + 1]
    return xs, Packed(slots, layout.child(0)), layout.child(1).unpack(slots)


def integrate_padded(static, rule: StepRule, capacity: int, dynamic, t0, x0, seg: Segment):
    """The kernel of :func:`solve_fixed_step_padded` with the static arguments first: what
    ``simulate`` hands to :func:`._program_store.call`, which compiles it once per model
    structure and keeps the lowered program across processes."""
    return _integrate_padded(dynamic, static, t0, x0, seg, rule, capacity)


@functools.partial(jax.jit, static_argnames=("static", "rule", "capacity"))
def solve_fixed_step_padded(dynamic, static, t0, x0, seg: Segment, *, rule: StepRule,
                            capacity: int):
    """Integrate from (t0, x0) over `seg`: ``seg.n_valid`` outputs in `capacity` (>= n_valid)
    slots; slots after `n_valid` repeat the last state — slice them off.

    `dynamic`/`static` are the system split by ``eqx.partition(system, eqx.is_array)``.
    Returns ``(xs, outputs, energy)``: states of shape (capacity + 1, n_states), the initial
    state first; the system's extra channels and energy (or None) at the same instants.
    Times are ``t0 + k·n_sub·dt`` from the step index (no drift), the last `seg.t_last`.
    One compile serves every grid whose output count fits the capacity.
    """
    return unpacked(_integrate_padded(dynamic, static, t0, x0, seg, rule, capacity))


def integrate_batch(static, rule: StepRule, capacity: int, dynamic, t0, x0, seg: Segment):
    """The kernel of :func:`solve_fixed_step_batch` with the static arguments first (what
    ``simulate_batch`` hands to :func:`._program_store.call`)."""
    run = functools.partial(_integrate_padded, static=static, t0=t0, seg=seg, rule=rule,
                            capacity=capacity)
    return jax.vmap(lambda d, x: run(d, x0=x))(dynamic, x0)


@functools.partial(jax.jit, static_argnames=("static", "rule", "capacity"))
def solve_fixed_step_batch(dynamic, static, t0, x0, seg: Segment, *, rule: StepRule,
                           capacity: int):
    """`solve_fixed_step_padded` for a stacked batch: every array leaf of `dynamic` and `x0`
    has a leading member axis. One compile for the whole batch."""
    run = functools.partial(_integrate_padded, static=static, t0=t0, seg=seg, rule=rule,
                            capacity=capacity)
    return unpacked(jax.vmap(lambda d, x: run(d, x0=x))(dynamic, x0))


@functools.partial(jax.jit, static_argnames=("static", "rule", "grid"))
def solve_fixed_step(dynamic, static, t0, x0, dt, *, rule: StepRule, grid: StepGrid):
    """The whole `grid` with static loop bounds, so reverse-mode ``jax.grad`` works through
    it (used by :func:`stickslip.integrate.trajectory`). Returns ``(xs, outputs)``; `dt` is
    traced (``grid.dt`` is used only for the counts)."""
    system = eqx.combine(dynamic, static)
    step = rule.stepper(system)
    tail = grid.n_last < grid.n_sub or grid.h_last > 0
    n_full = grid.n_out - 1 if tail else grid.n_out

    def steps(x, base, n):
        return jax.lax.fori_loop(0, n, lambda j, x: step(t0 + (base + j) * dt, x, dt), x)

    def one_output(x, i_out):
        x = steps(x, i_out * grid.n_sub, grid.n_sub)
        return x, x

    x_end, xs = jax.lax.scan(one_output, x0, jnp.arange(n_full))
    parts = [x0[None], xs]
    if tail:
        base = n_full * grid.n_sub
        x = steps(x_end, base, grid.n_last)
        if grid.h_last > 0:
            x = step(t0 + (base + grid.n_last) * dt, x, grid.h_last)
        parts.append(x[None])
    xs = jnp.concatenate(parts)
    index = jnp.arange(grid.n_out + 1)
    ts = jnp.where(index == grid.n_out, t0 + (grid.t_end - grid.t0),
                   t0 + index * (grid.n_sub * dt))
    outputs, _ = _samples(system, ts, xs)
    return xs, outputs


def padded_length(n_out: int) -> int:
    """The number of output slots compiled for `n_out` outputs: the next power of two, at
    least 64 — so runs of different lengths share a handful of compiled programs."""
    return max(64, 1 << max(0, (int(n_out) - 1).bit_length()))


# the output capacities of one `simulate` call (see run_capacity)
RUN_CAPACITIES = (256, 4096)


def run_capacity(n_out: int) -> int:
    """The output slots compiled for one call of a `simulate` run of `n_out` outputs (a
    chunk of them): 256 up to 256 outputs, 4096 up to 4096, then the next power of two.

    A run with another `t_end`, `dt` or `dt_out` therefore reuses its model's program unless
    it crosses a tier — the first call of a study pays one compile, not one per octave of
    run lengths (a gripper held for 1 s then released for 0.3 s compiled twice, 9.4 s each,
    with one slot count per power of two). Empty slots take no step (the loop runs over
    steps, not slots) and their output samples are skipped (:func:`_samples`). Batches keep
    :func:`padded_length`: their slots are paid in memory per member."""
    n = int(n_out)
    for capacity in RUN_CAPACITIES:
        if n <= capacity:
            return capacity
    return padded_length(n)
