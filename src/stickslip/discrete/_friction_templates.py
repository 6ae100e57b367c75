"""C99 templates of the discrete friction steps, for :func:`~stickslip.discrete.export_c` and
:func:`~stickslip.discrete.export_fmu`.

Each template mirrors its Python step in :mod:`stickslip.discrete._friction` expression for
expression, in the same order of operations (so the C agrees with the ``jax.numpy`` update to
round-off):

* ``_SIGN`` — :func:`~stickslip.discrete.sign_inclusion_step` (``sign_inclusion``);
* ``_COULOMB`` — :func:`~stickslip.discrete.coulomb_mass_step` (``coulomb_mass``);
* ``_DA`` — :func:`~stickslip.discrete.da_relaxation_step` (``da_relaxation``);
* ``_COULOMB_STATIC``, ``_DA_STATIC`` — the same two steps with a static level ``F_s`` above
  the kinetic ``F`` (``coulomb_mass_static``, ``da_relaxation_static``), sharing the C helper
  ``_STATIC_KINETIC``.

This module only defines them; :mod:`stickslip.discrete._friction` registers them with
:func:`~stickslip.discrete._export_c.register_c`, beside the steps and the loop wrappers whose
parameters they carry.
"""

from __future__ import annotations

from ._export_c import CTemplate

_SIGN = CTemplate(
    name="sign_inclusion",
    summary="Backward Euler for x' in -sgn(x) - u (Kikuuwe, slides: implicit Euler)",
    params=(("T", "sample period [s] > 0"),),
    state=(("double", "x", "state x_{k-1}"),
           ("unsigned long", "faults", "samples rejected for a non-finite input")),
    step_args="double u",
    step_doc="Advances x by one period with input u held; returns x_k.",
    init_body="    s->x = 0.0;\n    s->faults = 0;\n",
    check_body="""    if (!(prm->T > 0.0) || !isfinite(prm->T)) return 1;
    return 0;
""",
    step_body="""    double w;
    if (!isfinite(u)) {
        s->faults += 1;
        return s->x;
    }
    w = s->x - prm->T * u;
    s->x = w - stickslip_sat(prm->T, w);
    return s->x;
""")

_COULOMB = CTemplate(
    name="coulomb_mass",
    summary="Mass with Coulomb friction in discrete time (Kikuuwe et al., T-RO 2006)",
    params=(("M", "mass [kg] > 0"),
            ("F", "friction force level [N] >= 0"),
            ("T", "sample period [s] > 0")),
    state=(("double", "p", "position [m]"),
           ("double", "v", "velocity [m/s]"),
           ("unsigned long", "faults", "samples rejected for a non-finite input")),
    step_args="double h",
    step_doc="Applies the force h [N] for one period; returns the friction force f_k [N]\n"
             " * (the force on the mass is -f_k) and updates s->v, s->p.",
    init_body="    s->p = 0.0;\n    s->v = 0.0;\n    s->faults = 0;\n",
    check_body="""    if (!(prm->M > 0.0) || !isfinite(prm->M)) return 1;
    if (!(prm->F >= 0.0) || !isfinite(prm->F)) return 2;
    if (!(prm->T > 0.0) || !isfinite(prm->T)) return 3;
    return 0;
""",
    step_body="""    const double M = prm->M, F = prm->F, T = prm->T;
    double f;
    if (!isfinite(h)) {
        s->faults += 1;
        return 0.0;
    }
    f = stickslip_sat(F, M * s->v / T + h);    /* f_k = F sat((M v_{k-1}/T + h_k)/F) */
    s->v = s->v + T * (h - f) / M;
    s->p = s->p + T * s->v;
    return f;
""")

_DA = CTemplate(
    name="da_relaxation",
    summary="Differential-algebraic relaxation of friction (Kikuuwe et al., "
            "T-RO 2006)",
    params=(("F", "friction force level [N] >= 0"),
            ("K", "relaxation stiffness [N/m] >= 0"),
            ("B", "relaxation damping [N s/m] > 0"),
            ("T", "sample period [s] > 0")),
    state=(("double", "e", "proxy deflection e_{k-1} [m]"),
           ("unsigned long", "faults", "samples rejected for a non-finite input")),
    step_args="double v",
    step_doc="Friction force f_k [N] resisting the measured velocity v [m/s] (apply -f_k);\n"
             " * updates s->e.",
    init_body="    s->e = 0.0;\n    s->faults = 0;\n",
    check_body="""    if (!(prm->F >= 0.0) || !isfinite(prm->F)) return 1;
    if (!(prm->K >= 0.0) || !isfinite(prm->K)) return 2;
    if (!(prm->B > 0.0) || !isfinite(prm->B)) return 3;
    if (!(prm->T > 0.0) || !isfinite(prm->T)) return 4;
    return 0;
""",
    step_body="""    const double F = prm->F, K = prm->K, B = prm->B, T = prm->T;
    double gain, f;
    if (!isfinite(v)) {
        s->faults += 1;
        return 0.0;
    }
    gain = K * T + B;
    f = stickslip_sat(F, gain * v + K * s->e);
    s->e = (B * s->e + T * f) / gain;
    return f;
""")


# The same steps with a static level F_s above the kinetic F: ``_curve_force`` with no
# Stribeck drop and no viscous term, operation by operation. Separate templates, so that the
# params structs of coulomb_mass and da_relaxation (filled positionally by existing C code)
# keep their fields. F_s = F is allowed (the Python F_s=F step, equal to the plain one).
_STATIC_KINETIC = """
static double stickslip_static_kinetic(double w, double damping, double F, double F_s,
                                       double *speed)
{
    /* Friction of a backward-Euler step with the static level F_s >= F (SPEC 6;
     * stickslip.discrete._friction._curve_force): w is the force that stops the motion in
     * this step. Stick (f = w, *speed = 0) when |w| <= F_s, else slide at the speed
     * *speed = (|w| - F)/damping with f = F w/|w|. |w| here; Python's sqrt(w*w) is the same
     * number for 1e-154 < |w| < 1e154. */
    const double r = w < 0.0 ? -w : (w > 0.0 ? w : 1.0);
    const double drive = w != 0.0 ? r : 0.0;
    const double excess = drive - F > 0.0 ? drive - F : 0.0;
    *speed = drive > F_s ? excess / damping : 0.0;
    return *speed > 0.0 ? F * w / r : w;
}
"""

_COULOMB_STATIC = CTemplate(
    name="coulomb_mass_static",
    summary="Mass with static and kinetic Coulomb friction in discrete time ("
            "Kikuuwe et al., T-RO 2006)",
    params=(("M", "mass [kg] > 0"),
            ("F", "kinetic friction level [N] >= 0"),
            ("F_s", "static friction level [N] >= F; sticks while |M v/T + h| <= F_s"),
            ("T", "sample period [s] > 0"),
            ("p0", "start position [m]"),
            ("v0", "start velocity [m/s]")),
    state=_COULOMB.state,
    step_args="double h",
    step_doc=_COULOMB.step_doc,
    init_body=_COULOMB.init_body,
    start_body="    s->p = prm->p0;\n    s->v = prm->v0;\n",
    check_body="""    if (!(prm->M > 0.0) || !isfinite(prm->M)) return 1;
    if (!(prm->F >= 0.0) || !isfinite(prm->F)) return 2;
    if (!(prm->F_s >= prm->F) || !isfinite(prm->F_s)) return 3;
    if (!(prm->T > 0.0) || !isfinite(prm->T)) return 4;
    if (!isfinite(prm->p0)) return 5;
    if (!isfinite(prm->v0)) return 6;
    return 0;
""",
    step_body="""    const double M = prm->M, T = prm->T;
    double f, speed;
    if (!isfinite(h)) {
        s->faults += 1;
        return 0.0;
    }
    /* M v_{k-1}/T + h_k: the force that stops the mass in this step */
    f = stickslip_static_kinetic(M * s->v / T + h, M / T, prm->F, prm->F_s, &speed);
    s->v = speed > 0.0 ? s->v + T * (h - f) / M : 0.0;   /* v_k; exactly 0 when stuck */
    s->p = s->p + T * s->v;
    return f;
""",
    helpers=_STATIC_KINETIC)

_DA_STATIC = CTemplate(
    name="da_relaxation_static",
    summary="Differential-algebraic relaxation of static and kinetic friction ("
            "Kikuuwe et al., T-RO 2006)",
    params=(("F", "kinetic friction level [N] >= 0"),
            ("F_s", "static friction level [N] >= F; holds while |(KT + B) v + K e| <= F_s"),
            ("K", "relaxation stiffness [N/m] >= 0"),
            ("B", "relaxation damping [N s/m] > 0"),
            ("T", "sample period [s] > 0")),
    state=_DA.state,
    step_args="double v",
    step_doc=_DA.step_doc,
    init_body=_DA.init_body,
    check_body="""    if (!(prm->F >= 0.0) || !isfinite(prm->F)) return 1;
    if (!(prm->F_s >= prm->F) || !isfinite(prm->F_s)) return 2;
    if (!(prm->K >= 0.0) || !isfinite(prm->K)) return 3;
    if (!(prm->B > 0.0) || !isfinite(prm->B)) return 4;
    if (!(prm->T > 0.0) || !isfinite(prm->T)) return 5;
    return 0;
""",
    step_body="""    const double K = prm->K, B = prm->B, T = prm->T;
    double gain, f, speed;
    if (!isfinite(v)) {
        s->faults += 1;
        return 0.0;
    }
    gain = K * T + B;
    f = stickslip_static_kinetic(gain * v + K * s->e, gain, prm->F, prm->F_s, &speed);
    s->e = (B * s->e + T * f) / gain;
    return f;
""",
    helpers=_STATIC_KINETIC)
