"""The MJCF reader's top level: `_Reader.read` walks the file (compiler, defaults, option,
assets, world body, actuators) into an `MjcfScene` (see `_mjcf`)."""

from __future__ import annotations

import numpy as np

from ._mjcf_attrs import _Frame
from ._mjcf_bodies import _BodyReader
from ._mjcf_mass import _hull_volume_inertia, _QhullError
from ._mjcf_rules import (
    _ACTUATOR_FIX,
    _ACTUATOR_TAGS,
    _FIX,
    _IGNORED_TAGS,
    _MOTOR_DEFAULTS,
    _RULES,
    _limited,
)
from ._mjcf_scene import MjcfActuator, MjcfScene


class _Reader(_BodyReader):
    """Reads a parsed MJCF file into an `MjcfScene`; every problem is raised at the end, at
    once."""

    # -- top level
    def read(self) -> MjcfScene:
        root = self.root
        self.check_attrs(root, root.attrib)
        gravity = np.array([0.0, 0.0, -9.81])
        timestep = 0.002
        for el in root:
            if el.tag == "compiler":
                self.read_compiler(el)
        for el in root:
            if el.tag == "default":
                self.read_defaults(el, None)
        if "main" not in self.defaults:
            self.defaults["main"] = {}
        for el in root:
            tag = el.tag
            if tag in ("compiler", "default", "worldbody", "actuator"):
                continue
            if tag == "option":
                g, timestep = self.read_option(el, gravity, timestep)
                gravity = g
            elif tag == "asset":
                self.read_assets(el)
            elif tag in _IGNORED_TAGS:
                continue
            elif tag in _FIX:
                self.problem(el, f"<{tag}> is not supported. {_FIX[tag]}")
            else:
                self.problem(el, f"unknown element <{tag}>. Remove it.")
        for el in root:
            if el.tag == "worldbody":
                self.check_attrs(el, el.attrib)
                origin = _Frame(np.zeros(3), np.eye(3))
                self.read_children(el, origin, origin, "ground", el.get("childclass"),
                                   world=True, geoms=None)
        for el in root:
            if el.tag == "actuator":
                self.read_actuators(el)
        ground, contacts = self.contacts()
        self.problems.raise_if_any()
        return MjcfScene(self.path, gravity, timestep, self.bodies, self.joints,
                         self.actuators, ground, contacts)

    def read_compiler(self, el) -> None:
        # each <compiler> changes what it sets, as MuJoCo's do (a second one reset the
        # first's angle="radian" to degrees)
        a = self.attrs(el)
        angle = a.get("angle", "degree" if self.degree else "radian")
        if angle not in ("degree", "radian"):
            self.problem(el, f"angle=\"{angle}\" must be 'degree' or 'radian'.")
        self.degree = angle != "radian"
        seq = a.get("eulerseq", self.eulerseq)
        if len(seq) != 3 or any(c not in "xyzXYZ" for c in seq):
            self.problem(el, f"eulerseq=\"{seq}\" must be three letters from xyzXYZ.")
        else:
            self.eulerseq = seq
        ifg = a.get("inertiafromgeom", self.inertiafromgeom)
        if ifg not in ("auto", "true", "false"):
            self.problem(el, f"inertiafromgeom=\"{ifg}\" must be auto, true or false.")
        else:
            self.inertiafromgeom = ifg
        self.autolimits = a.get("autolimits", "true" if self.autolimits else "false") == "true"
        for child in el:
            if child.tag != "lengthrange":
                self.problem(child, "is not a <compiler> child stickslip knows. Remove it.")

    def read_defaults(self, el, parent: str | None) -> None:
        name = el.get("class", "main" if parent is None else None)
        if name is None:
            self.problem(el, "a nested <default> needs a class name. Add class=\"...\".")
            return
        # a top-level <default> adds to the main class (a second one replaced the first)
        inherited = self.defaults.get(parent if parent else name, {})
        table = {slot: dict(values) for slot, values in inherited.items()}
        for child in el:
            if child.tag == "default":
                continue
            slot = "actuator" if child.tag in _ACTUATOR_TAGS else child.tag
            table.setdefault(slot, {}).update(child.attrib)
        self.defaults[name] = table
        for child in el:
            if child.tag == "default":
                self.read_defaults(child, name)

    def read_option(self, el, gravity, timestep):
        a = self.attrs(el)
        g = self.floats(el, a, "gravity", 3)
        if g is not None:
            gravity = g
        ts = self.floats(el, a, "timestep", 1)
        if ts is not None:
            timestep = float(ts[0])
        for child in el:
            if child.tag != "flag":
                self.problem(child, "is not an <option> child stickslip knows. Remove it.")
                continue
            f = self.attrs(child)
            if f.get("gravity", "enable") == "disable":
                gravity = np.zeros(3)
            self.filterparent = f.get("filterparent", "enable") != "disable"
        return gravity, timestep

    def read_assets(self, el) -> None:
        for child in el:
            if child.tag in _IGNORED_TAGS:
                continue
            if child.tag != "mesh":
                self.problem(child, f"<{child.tag}> is not supported. "
                             + _FIX.get(child.tag, "Remove it."))
                continue
            a = self.attrs(child, slot="mesh")
            name = a.get("name")
            if "file" in a:
                self.problem(child, f"mesh file \"{a['file']}\" is not read: stickslip takes "
                                    "meshes given inline. Give the vertices as vertex=\"...\".")
                continue
            if name is None:
                self.problem(child, "an inline mesh needs a name. Add name=\"...\".")
                continue
            v = self.floats(child, a, "vertex", "points")
            if v is None:
                if "vertex" not in a:
                    self.problem(child, "has no vertex=\"...\". Give at least four points.")
                continue
            if a.get("inertia", "legacy") not in ("legacy", "convex", "exact"):
                self.problem(child, f"inertia=\"{a['inertia']}\" is not supported (a hollow "
                                    "shell). Remove it: for the convex meshes stickslip takes, "
                                    "legacy, convex and exact agree.")
            scale = self.floats(child, a, "scale", 3, "1 1 1")
            pts = v.reshape(-1, 3) * (np.ones(3) if scale is None else scale)
            if "face" in a and not self.mesh_is_convex(child, a, pts):
                continue
            self.meshes[name] = pts

    def mesh_is_convex(self, el, a, pts) -> bool:
        text = a["face"].split()
        try:
            faces = np.array([int(t) for t in text])
        except ValueError:
            faces = None
        if faces is None or len(faces) < 12 or len(faces) % 3:
            self.problem(el, f"face=\"{a['face']}\" must be vertex indices, three per "
                             "triangle (at least 4 triangles).")
            return False
        tri = faces.astype(int).reshape(-1, 3)
        if tri.min() < 0 or tri.max() >= len(pts):
            self.problem(el, "face refers to a vertex that does not exist. Fix face.")
            return False
        p = pts[tri]
        vol = float(np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum()) / 6.0
        try:
            hull_vol = _hull_volume_inertia(pts)[0]
        except _QhullError:
            self.problem(el, "its vertices are degenerate (coplanar or coincident). Give "
                             "points that span a volume.")
            return False
        if abs(abs(vol) - hull_vol) > 1e-9 * hull_vol:
            self.problem(el, f"is not convex (volume {abs(vol):.6g} m^3, its convex hull "
                             f"{hull_vol:.6g} m^3); stickslip bodies are convex. Split it "
                             "into convex meshes in child bodies.")
            return False
        return True

    # -- actuators
    def read_actuators(self, el) -> None:
        self.check_attrs(el, el.attrib)
        for i, child in enumerate(el):
            tag = child.tag
            if tag != "motor":
                fix = _ACTUATOR_FIX.get(tag, "only <motor> maps onto stickslip (a "
                                             "JointDriver with an effort). Replace it by a "
                                             "<motor>, or remove it.")
                self.problem(child, f"<{tag}> actuators are not supported: {fix}")
                continue
            a = {**_MOTOR_DEFAULTS, **self.attrs(child, None, slot="actuator",
                                                 keep=_RULES["motor"].mapped
                                                 | _RULES["motor"].ignored | {"delay"})}
            for t in ("tendon", "site", "body", "cranksite", "slidersite", "refsite",
                      "jointinparent"):
                if t in child.attrib:
                    self.problem(child, f"the {t} transmission is not supported; stickslip "
                                        "motors act on a joint. Use joint=\"...\".")
            joint = a.get("joint")
            if joint is None:
                if not any(t in child.attrib for t in ("tendon", "site", "body")):
                    self.problem(child, "has no joint=\"...\".")
                continue
            if joint not in self.joint_kinds:
                self.problem(child, f"joint '{joint}' is not a hinge or slide joint of this "
                                    "model (motors on ball, free or unknown joints are not "
                                    "supported).")
                continue
            # a hinge or slide uses gear[0] only (MuJoCo ignores the rest)
            gear = self.floats(child, a, "gear", tuple(range(1, 7)))
            name = a.get("name") or f"actuator{i}"
            ranges = []
            for lim, rng in (("ctrllimited", "ctrlrange"), ("forcelimited", "forcerange")):
                if not _limited(a, lim, rng, self.autolimits):
                    ranges.append(None)
                    continue
                r = self.floats(child, a, rng, 2)
                if r is None or r[0] > r[1]:
                    if r is not None:
                        self.problem(child, f"{rng}=\"{a[rng]}\" must be low <= high.")
                    ranges.append(None)
                else:
                    ranges.append((float(r[0]), float(r[1])))
            if self.joint_kinds[joint] == "spherical":
                # was skipped without a word, and the file ran with the motor left out
                self.problem(child, f"joint '{joint}' is a ball joint; motors on ball joints "
                                    "are not supported (stickslip drives hinge and slide "
                                    "joints). Remove the motor or model the ball joint as "
                                    "three hinges.")
                continue
            self.actuators.append(MjcfActuator(name, joint, 1.0 if gear is None else
                                               float(gear[0]), ranges[0], ranges[1]))
