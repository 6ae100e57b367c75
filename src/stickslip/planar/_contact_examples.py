"""Ready-made mechanisms with frictional contacts (SPEC §6), for examples, tests and the
benchmark."""

from __future__ import annotations

import math

import numpy as np

from ._contact import ClearanceSlider, PointLineContact
from ._drivers import RotationalDriver
from ._joints import RevoluteJoint
from ._model import Model
from ._motions import constant_speed

__all__ = ["block_on_incline", "clearance_slider_crank", "painleve_rod"]


def clearance_slider_crank(mu: float = 0.01, clearance: float = 1e-3, omega: float | None = 20.0,
                           delta: float = 2e-4, zeta: float = 1.0,
                           theta0: float = 0.0) -> Model:
    """Slider–crank whose slider has clearance in its guide (SPEC §6): crank 0.153 m, rod
    0.306 m, slider half-length 0.05 m, half-height 0.025 m, clearance `clearance`, μ = `mu`
    at the guide's walls, vertical plane (g = 9.81 m/s² along −y).

    Inertias (our modelling choice, uniform steel-like links): crank 0.30 kg, rod 0.21 kg
    (J = m L²/12), slider 0.14 kg (J = m(4a² + 4b²)/12). The crank turns at `omega` rad/s
    (a RotationalDriver) from θ0, or runs free when ``omega=None`` (initial speed 20 rad/s).
    The slider starts centred in the guide (all four gaps = clearance) on the rod's end.
    """
    crank, rod, a, b = 0.153, 0.306, 0.05, 0.025
    m = Model(gravity=(0.0, -9.81), name="clearance_slider_crank")
    bx, by = crank * math.cos(theta0), crank * math.sin(theta0)
    sx = bx + math.sqrt(rod ** 2 - by ** 2)
    beta = math.atan2(-by, sx - bx)
    w0 = 20.0 if omega is None else float(omega)
    # velocities consistent with the joints at the start (slider moving along x only)
    c = m.add_body("crank", mass=0.30, inertia=0.30 * crank ** 2 / 12,
                   x=bx / 2, y=by / 2, phi=theta0, phid=w0,
                   xd=-w0 * by / 2, yd=w0 * bx / 2)
    # rod angular velocity from the loop: by + rod·sin β = 0 ⇒ β̇ = −ẏ_B/(rod cos β)
    yb_d = w0 * bx
    beta_d = -yb_d / (rod * math.cos(beta))
    xb_d = -w0 * by
    sx_d = xb_d - rod * math.sin(beta) * beta_d
    r = m.add_body("rod", mass=0.21, inertia=0.21 * rod ** 2 / 12,
                   x=(bx + sx) / 2, y=by / 2, phi=beta, phid=beta_d,
                   xd=(xb_d + sx_d) / 2, yd=yb_d / 2)
    s = m.add_body("slider", mass=0.14, inertia=0.14 * (4 * a * a + 4 * b * b) / 12,
                   x=sx, y=0.0, xd=sx_d)
    m.add(RevoluteJoint(m.ground, c, (0.0, 0.0), (-crank / 2, 0.0), name="A"))
    m.add(RevoluteJoint(c, r, (crank / 2, 0.0), (-rod / 2, 0.0), name="B"))
    m.add(RevoluteJoint(r, s, (rod / 2, 0.0), (0.0, 0.0), name="C"))
    if omega is not None:
        m.add(RotationalDriver(m.ground, c, angle=constant_speed(omega, start=theta0),
                               name="motor"))
    m.add(ClearanceSlider(m.ground, s, half_length=a, half_height=b, clearance=clearance,
                          mu=mu, delta=delta, zeta=zeta, name="guide"))
    return m


def block_on_incline(theta: float = math.radians(20.0), mu: float = 0.5, mass: float = 2.0,
                     delta: float = 1e-3, zeta: float = 1.0, v0: float = 0.0) -> Model:
    """A block on a slope at angle θ [rad] (a point contact at its centre): it sticks forever
    when μ > tan θ, else slides down at g(sin θ − μ cos θ)."""
    m = Model(gravity=(0.0, -9.81), name="block_on_incline")
    axis = np.array([math.cos(theta), -math.sin(theta)])
    v = v0 * axis
    block = m.add_body("block", mass=mass, inertia=mass * 0.01, xd=v[0], yd=v[1])
    m.add(PointLineContact(m.ground, block, point_j=(0.0, 0.0), line_point_i=(0.0, 0.0),
                           line_axis_i=axis, mu=mu, delta=delta, zeta=zeta, name="slope"))
    return m


def painleve_rod(mu: float = 0.3, theta: float = math.radians(45.0), V: float = -0.5,
                 u: float = 0.0, half_length: float = 0.5, mass: float = 1.0,
                 delta: float = 0.01, zeta: float = 1.0) -> Model:
    """A uniform rod (J = m l²/3) whose lower end slides on the floor at `V` [m/s] (rising at
    `u`), at angle θ; both ends can touch the floor (contacts ``tip`` and ``top``)."""
    l = half_length
    m = Model(gravity=(0.0, -9.81), name="painleve_rod")
    body = m.add_body("rod", mass=mass, inertia=mass * l * l / 3, x=l * math.cos(theta),
                      y=l * math.sin(theta), phi=theta, xd=V, yd=u)
    m.add(PointLineContact(m.ground, body, point_j=(-l, 0.0), mu=mu, delta=delta, zeta=zeta,
                           name="tip"))
    m.add(PointLineContact(m.ground, body, point_j=(l, 0.0), mu=mu, delta=delta, zeta=zeta,
                           name="top"))
    return m


# --- example runners (registered in examples.EXAMPLES) ------------------------------------
def _coinciding(curves, tol=0.015):
    """Group the (label, values) pairs whose curves coincide within `tol` of the panel's
    range (about a line's width on these figures: drawn on top of each other they show as
    one line). Returns (label, values, index of the group's first curve) per group; the
    label names every channel of the group, joined by " = " (equal to rounding) or " ≈ "
    (within `tol`)."""
    everything = np.concatenate([v for _, v in curves]) if curves else np.zeros(1)
    span = float(np.ptp(everything))                     # the panel's range
    scale = max(span, float(np.max(np.abs(everything))), 1e-300)
    groups: list[tuple[int, str, np.ndarray, list]] = []   # (index, label, values, others)
    for index, (label, values) in enumerate(curves):
        for _, _, first, others in groups:
            gap = float(np.max(np.abs(values - first)))
            if gap <= tol * max(span, 1e-12 * scale):
                others.append((" = " if gap <= 1e-9 * scale else " ≈ ") + label)
                break
        else:
            groups.append((index, label, values, []))
    return [(label + "".join(others), values, index) for index, label, values, others in groups]


def _plot_contacts(res, names, path, title, **options):
    """Write :func:`_contacts_figure` to `path` (PNG)."""
    import matplotlib.pyplot as plt

    fig = _contacts_figure(res, names, title, **options)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _contacts_figure(res, names, title, *, caption=None, net_friction=False):
    """Gaps, normal and friction forces of the contacts `names` (``"tip.*"``: the ``*`` is
    replaced by gap, fn, ft) against time; returns the figure.

    Channels whose curves coincide on a panel (e.g. the two corners on one wall of a slider
    that does not tilt) are drawn once and labelled together, so every legend entry is one
    visible line. `caption`: text under the panels (what a reader needs to read them);
    ``net_friction=True`` adds the sum of the friction forces (dashed black).
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(8, 7.5), sharex=True)
    for ax, q, label in zip(axes, ("gap", "fn", "ft"),
                            ("gap [m]", "normal force [N]", "friction force [N]")):
        curves = [(name.replace("*", q), np.asarray(res[name.replace("*", q)]))
                  for name in names]
        for text, values, k in _coinciding(curves):       # one colour per contact
            ax.plot(res.t, values, color=f"C{k}", label=text)
        if q == "ft" and net_friction:
            ax.plot(res.t, sum(v for _, v in curves), "k--", lw=1,
                    label=" + ".join(n for n, _ in curves) + " (net)")
        ax.set_ylabel(label)
        ax.legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel("t [s]")
    axes[0].set_title(title, fontsize="medium")
    bottom = 0.0
    if caption:
        bottom = 0.012 + 0.02 * (caption.count("\n") + 1)
        fig.text(0.02, 0.01, caption, fontsize=8, va="bottom")
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


def _run_clearance_slider(out):
    m = clearance_slider_crank(delta=1e-3)
    res = m.simulate(0.2, dt=2.5e-4, dt_out=5e-4)
    _plot_contacts(res, [f"guide.*.{k}" for k in range(1, 5)],
                   out / "clearance_slider_contacts.png",
                   "slider–crank, slider with 1 mm clearance in its guide (μ = 0.01): corner "
                   "gaps and forces\ncorners 1, 2 face the upper wall, 3, 4 the lower; the "
                   "slider does not tilt,\nso a wall's two corners share one gap and nearly "
                   "the same forces")
    gaps = np.stack([res[f"guide.gap.{k}"] for k in range(1, 5)])
    return m, res, {"min_gap_m": float(gaps.min()), "max_gap_m": float(gaps.max()),
                    "clearance_m": 1e-3}, None, None


def _run_incline(out):
    stick = block_on_incline(math.radians(20.0), 0.5)
    res = stick.simulate(5.0, dt=1e-3, dt_out=0.01)
    slide = block_on_incline(math.radians(35.0), 0.4).simulate(1.0, dt=1e-3, dt_out=0.01)
    _plot_contacts(slide, ["slope.*"], out / "incline_contacts.png",
                   "block sliding at 35°, μ = 0.4")
    theta = math.radians(35.0)
    s = slide["block.x"][-1] * math.cos(theta) - slide["block.y"][-1] * math.sin(theta)
    a = 9.81 * (math.sin(theta) - 0.4 * math.cos(theta))
    return stick, res, {"drift_at_20deg_m": float(np.max(np.abs(res["block.x"]))),
                        "slide_at_35deg_m": float(s), "closed_form_m": 0.5 * a}, None, None


def _run_painleve(out):
    import warnings

    from ..errors import ImplausibleParameterWarning, PainleveError

    caught = None
    try:
        with warnings.catch_warnings():      # μ = 2.5 on purpose: inside the Painlevé window
            warnings.simplefilter("ignore", ImplausibleParameterWarning)
            rod = painleve_rod(mu=2.5, u=0.08)
        rod.simulate(0.05, dt=1e-3)
    except PainleveError as exc:
        caught = str(exc)
    m = painleve_rod(mu=0.3)
    res = m.simulate(1.0, dt=5e-4, dt_out=5e-3)
    flat = (np.abs(res["rod.xd"]) < 1e-5) & (np.abs(res["top.gap"]) < 1e-5)
    t_rest = float(res.t[np.argmax(flat)]) if flat.any() else float("nan")
    share = 0.3 * float(np.median(res["tip.fn"][flat])) if flat.any() else float("nan")
    _plot_contacts(res, ["tip.*", "top.*"], out / "painleve_rod_contacts.png",
                   "rod sliding on a floor, μ = 0.3 (outside the Painlevé window)",
                   caption=f"Friction: from {t_rest:.2f} s the rod lies flat and at rest on "
                   "both ends. Only the net friction is then determined (zero): any pair ±f "
                   "with |f| ≤ μ f_n\nbalances (rigid contact is statically indeterminate "
                   "here), so the split the contact solver picks jumps between 0 and "
                   f"±μ f_n = ±{share:.2f} N\nwhile the net (dashed) stays 0.",
                   net_friction=True)
    return m, res, {"mu_2.5_error": caught}, None, None


class _SpatialView:
    """plot_trajectory/animate for the 3-D box example (run_example calls them)."""

    def plot_trajectory(self, res, ax=None):
        """The box's displacement along the push, with the moment it starts to slide (on new
        axes where `ax` is None, as ``Model.plot_trajectory``); returns the axes."""
        if ax is None:
            import matplotlib.pyplot as plt

            ax = plt.subplots(figsize=(6, 5))[1]
        ax.plot(res.t, res["box.x"] * 1e3, label="box.x")
        moving = np.abs(res["box.vx"]) > 1e-5
        if moving.any():
            t_slip = float(res.t[np.argmax(moving)])
            ax.axvline(t_slip, color="0.5", ls=":", lw=1,
                       label=f"slides from t = {t_slip:.3f} s (speed > 0.01 mm/s)")
        ax.set_xlabel("t [s]")
        ax.set_ylabel("displacement along the push, box.x [mm]")
        ax.set_title("3-D box (1 kg, μ = 0.5) pushed along x by 4 N + 10 N/s:\n"
                     "holds until the push reaches μmg = 4.9 N, then slides",
                     fontsize="medium")
        ax.legend(loc="upper left", fontsize="small")
        return ax

    def animate(self, res, path, **kwargs):
        return None


def _run_box(out):
    import jax.numpy as jnp

    from ..spatial import Box, PointContacts
    from ..spatial import Model as SpatialModel

    model = SpatialModel(gravity=(0.0, 0.0, -9.81))
    model.add_body("box", mass=1.0, inertia=None, shape=Box(0.2, 0.1, 0.1),
                   position=(0.0, 0.0, 0.05))
    model.add_ground(mu_s=0.5, mu_k=0.5)

    def push(t, X):           # 4 N + 10 N/s along x: holds until 0.09 s, then slides
        return jnp.zeros((1, 3)).at[0, 0].set(4.0 + 10.0 * t), jnp.zeros((1, 3))

    res = PointContacts.from_model(model, delta=2e-3, forces=push).simulate(
        0.2, dt=5e-4, dt_out=1e-3)
    _plot_contacts(res, [f"box.*.{k}" for k in (1, 2, 5, 6)], out / "box_contacts.png",
                   "box on the ground, pushed along x: holds, then slides (point contacts)\n"
                   "corners 1, 2: bottom, rear and front; 5, 6: top, never touching")
    return _SpatialView(), res, {"x_at_0.2s_m": float(res["box.x"][-1])}, None, None
