"""What each MJCF element may carry, and what the reader says about the rest: the rules as
data (see `_mjcf`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

# --- what each element may carry (rules as data) ------------------------------------------
#
# mapped:   read and translated.
# ignored:  no effect on the motion stickslip computes (appearance, grouping, user data, or
#           settings of MuJoCo's own constraint solver); dropped without a word.
# neutral:  physics-changing attributes stickslip does not model; accepted only at MuJoCo's
#           default value (written out or inherited from a <default> class), else a problem.
# Anything else on the element is a problem ("not supported").

@dataclass(frozen=True)
class _Rule:
    mapped: frozenset = frozenset()
    ignored: frozenset = frozenset()
    neutral: Mapping[str, str] = field(default_factory=dict)


def _rule(mapped="", ignored="", **neutral) -> _Rule:
    return _Rule(frozenset(mapped.split()), frozenset(ignored.split()), neutral)


_ORIENT = "quat axisangle xyaxes zaxis euler"
_RULES: dict[str, _Rule] = {
    "mujoco": _rule("model"),
    "compiler": _rule(
        "angle eulerseq inertiafromgeom autolimits",
        "strippath meshdir texturedir assetdir usethread fusestatic saveinertial alignfree "
        "convexhull exactmeshinertia fitaabb",
        boundmass="0", boundinertia="0", settotalmass="-1", balanceinertia="false",
        discardvisual="false", coordinate="local", inertiagrouprange="0 5"),
    "option": _rule(
        "timestep gravity",
        "apirate impratio tolerance ls_tolerance noslip_tolerance ccd_tolerance mpr_tolerance "
        "integrator collision cone jacobian solver iterations ls_iterations "
        "noslip_iterations ccd_iterations mpr_iterations sdf_iterations sdf_initpoints "
        "o_margin o_solref o_solimp o_friction magnetic sleep_tolerance",
        wind="0 0 0", density="0", viscosity="0", actuatorgroupdisable=""),
    "flag": _rule(
        "gravity filterparent",
        "warmstart refsafe sensor energy fwdinv invdiscrete sensornoise multiccd island "
        "nativeccd eulerdamp autoreset midphase",
        sleep="disable", constraint="enable", equality="enable", frictionloss="enable",
        limit="enable", contact="enable", passive="enable", spring="enable", damper="enable",
        clampctrl="enable", actuation="enable", override="disable"),
    "body": _rule("name childclass pos " + _ORIENT, "user", mocap="false", gravcomp="0"),
    "worldbody": _rule("", "name childclass"),
    "frame": _rule("name childclass pos " + _ORIENT),
    "inertial": _rule("pos mass diaginertia fullinertia " + _ORIENT),
    "joint": _rule(
        "name class type pos axis limited range actuatorfrclimited actuatorfrcrange",
        "group user solreflimit solimplimit solreffriction solimpfriction margin",
        springdamper="0 0", stiffness="0", armature="0", damping="0", frictionloss="0",
        ref="0", springref="0", actuatorgravcomp="false"),
    "freejoint": _rule("name", "group align"),
    "geom": _rule(
        "name class type size pos fromto mass density friction mesh contype conaffinity "
        "condim " + _ORIENT,
        "group material rgba user fluidcoef",
        priority="0", solmix="1", solref="0.02 1", solimp="0.9 0.95 0.001 0.5 2",
        margin="0", gap="0", shellinertia="false", fluidshape="none"),
    "mesh": _rule("name class vertex face scale file inertia",
                  "normal texcoord smoothnormal content_type material",
                  refpos="0 0 0", refquat="1 0 0 0", maxhullvert="-1"),
    "motor": _rule(
        "name class joint gear ctrlrange ctrllimited forcerange forcelimited",
        "group user lengthrange cranklength actlimited actrange actdim actearly",
        delay="0"),
}

# geom, joint and actuator attributes whose value is a number list with MuJoCo's defaults
_GEOM_DEFAULTS = {"type": "sphere", "size": "0 0 0", "friction": "1 0.005 0.0001",
                  "density": "1000", "contype": "1", "conaffinity": "1", "condim": "3"}
_JOINT_DEFAULTS = {"type": "hinge", "pos": "0 0 0", "axis": "0 0 1", "limited": "auto",
                   "actuatorfrclimited": "auto"}
_MOTOR_DEFAULTS = {"gear": "1 0 0 0 0 0", "ctrllimited": "auto", "forcelimited": "auto"}

# elements with no effect on the motion: skipped with their whole subtree
_IGNORED_TAGS = frozenset({"visual", "statistic", "size", "custom", "keyframe", "site",
                           "camera", "light", "texture", "material", "skin"})

_FIX = {
    "include": "Paste the included file's content into this file.",
    "equality": "Replace the equality constraint by a joint, or add the constraint with "
                "stickslip elements after loading.",
    "tendon": "Tendons are not modelled; remove them, or model the coupling with stickslip "
              "elements after loading.",
    "sensor": "stickslip results carry body and joint channels instead; remove <sensor>.",
    "contact": "stickslip has no contact pairs or exclusions (every body touches the ground "
               "and the other bodies); remove <contact>.",
    "hfield": "Height fields are not supported; use a plane or convex meshes.",
    "composite": "Expand the composite into bodies, joints and geoms.",
    "flexcomp": "Flexible bodies are not supported.",
    "deformable": "Deformable bodies are not supported.",
    "plugin": "Plugins are not supported.",
    "extension": "Plugins are not supported.",
    "attach": "Paste the attached model's bodies into this file.",
    "replicate": "Write the replicated bodies out.",
    "model": "Paste the attached model's bodies into this file.",
}

_ACTUATOR_FIX = {
    "position": "a <position> actuator is a spring servo (force kp·(ctrl − q)), not a "
                "prescribed motion. Replace it by a <motor>, or remove it and add "
                "`ss.spatial.JointDriver(joint, position=...)` (an exact prescribed angle) "
                "after loading.",
    "velocity": "a <velocity> actuator is a damper servo (force kv·(ctrl − q̇)), not a "
                "prescribed speed. Replace it by a <motor>, or remove it and add "
                "`ss.spatial.JointDriver(joint, velocity=...)` after loading.",
}


def _limited(a: Mapping[str, str], lim: str, rng: str, autolimits: bool) -> bool:
    """Whether a range applies: limited="true", or "auto" with the range given and
    <compiler autolimits> on (MuJoCo's rule)."""
    value = a.get(lim, "auto")
    return value == "true" or (value == "auto" and autolimits and rng in a)


_ACTUATOR_TAGS = frozenset({"general", "motor", "position", "velocity", "intvelocity",
                            "damper", "cylinder", "muscle", "adhesion", "dcmotor", "pid",
                            "plugin"})

_WHAT = {
    "springdamper": "a joint spring-damper", "stiffness": "a joint spring",
    "armature": "rotor inertia added to the joint", "damping": "joint damping",
    "frictionloss": "constant joint friction", "ref": "a joint reference angle",
    "actuatorgroupdisable": "switches actuators off: they would still act here",
    "sleep": "freezes bodies at rest: they would still move here",
    "maxhullvert": "a reduced hull, for the mass and the collision shape: stickslip uses "
                   "the full hull",
    "springref": "a joint spring's rest position",
    "actuatorgravcomp": "gravity compensation by the actuators",
    "priority": "which geom's contact parameters win", "solmix": "mixing of contact softness",
    "solref": "contact softness", "solimp": "contact softness", "margin": "contact margin",
    "gap": "contact gap", "shellinertia": "a hollow shell's inertia",
    "fluidshape": "fluid forces", "mocap": "a body moved by the user",
    "gravcomp": "gravity compensation", "wind": "wind", "density": "a medium's density",
    "viscosity": "a medium's viscosity", "boundmass": "a lower bound on masses",
    "boundinertia": "a lower bound on inertias", "settotalmass": "mass rescaling",
    "balanceinertia": "inertia repair", "discardvisual": "dropping visual geoms' mass",
    "coordinate": "global coordinates", "inertiagrouprange": "geoms left out of the mass",
    "refpos": "a mesh reference frame", "refquat": "a mesh reference frame",
    "inertia": "a mesh inertia mode", "delay": "an actuator delay",
    "constraint": "constraints on/off", "equality": "equality constraints on/off",
"limit": "limits on/off", "contact": "contacts on/off",
    "passive": "passive forces on/off", "spring": "springs on/off",
    "damper": "dampers on/off", "clampctrl": "control clamping on/off",
    "filterparent": "parent-child collision filtering",
    "actuation": "actuators on/off", "override": "contact parameter override",
}

_LATER = {
    "damping": ", or add a rotational damper after loading.",
    "frictionloss": ", or give the stickslip joint a friction law (friction=) after "
                    "loading.",
    "stiffness": ", or add a spring after loading.",
}


def _same_value(value: str, default: str) -> bool:
    try:
        a = np.array([float(s) for s in value.split()])
        b = np.array([float(s) for s in default.split()])
        n = len(a)
        return 0 < n <= len(b) and bool(np.all(a == b[:n]))
    except ValueError:
        return value.strip().lower() == default.strip().lower()
