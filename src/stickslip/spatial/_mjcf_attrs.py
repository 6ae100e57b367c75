"""The MJCF reader's base: the XML parsed with line numbers, the problems collected on the
way, and each element's attributes (over its default class, checked against the rules) read
into numbers, orientations and poses (see `_mjcf`)."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
import xml.parsers.expat
from dataclasses import dataclass
from typing import Literal, Mapping

import numpy as np

from ..errors import ModelError
from ._mjcf_rotations import _axis_angle_quat, _quat_matrix, _quat_mul, _z_to
from ._mjcf_rules import _LATER, _ORIENT, _RULES, _WHAT, _Rule, _same_value
from ._mjcf_scene import MjcfActuator, MjcfBody, MjcfJoint

# --- parsing with line numbers -------------------------------------------------------------

def _parse(path: str):
    """The XML tree of `path` and each element's line number."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ModelError(f"cannot read the MJCF file {path!r}: {exc.strerror}. Check the "
                         "path.") from None
    builder = ET.TreeBuilder()
    expat = xml.parsers.expat.ParserCreate()
    lines: dict = {}

    def start(tag, attrs):
        lines[builder.start(tag, attrs)] = expat.CurrentLineNumber

    expat.StartElementHandler = start
    expat.EndElementHandler = builder.end
    try:
        expat.Parse(data, True)
    except xml.parsers.expat.ExpatError as exc:
        raise ModelError(f"{path}: not well-formed XML: {exc}. Fix the file.") from None
    root = builder.close()
    if root.tag != "mujoco":
        raise ModelError(f"{path}: the root element is <{root.tag}>, not <mujoco>; this is "
                         "not an MJCF file (URDF: convert it with MuJoCo's compiler).")
    return root, lines


# --- the reader ----------------------------------------------------------------------------

class _Problems:
    """Every problem found, raised together as one `ModelError`."""

    def __init__(self, path):
        self.path = path
        self.lines: list[str] = []

    def add(self, where: str, message: str) -> None:
        line = f"{where}: {message}"
        if line not in self.lines:
            self.lines.append(line)

    def raise_if_any(self) -> None:
        if self.lines:
            n = len(self.lines)
            # in file order (lines without a number, about the whole file, last)
            self.lines.sort(key=lambda s: int(s.split()[1].rstrip(":"))
                            if s.startswith("line ") else math.inf)
            raise ModelError(
                f"{self.path}: {n} problem{'s' if n > 1 else ''} stickslip cannot import "
                "(stickslip.spatial.from_mjcf maps a subset of MJCF; see its docstring):\n"
                + "\n".join("  " + s for s in self.lines))


@dataclass
class _Frame:
    pos: np.ndarray
    rot: np.ndarray

    def compose(self, pos, rot) -> "_Frame":
        return _Frame(self.pos + self.rot @ pos, self.rot @ rot)


@dataclass
class _Geom:
    where: str
    name: str
    kind: str                  # box, sphere, capsule, cylinder, ellipsoid, mesh, plane
    pos: np.ndarray            # in the body frame (plane: world)
    rot: np.ndarray
    size: np.ndarray
    mass: float
    com: np.ndarray            # centre of mass in the body frame
    inertia: np.ndarray        # about com, body-frame axes
    friction: float
    condim: int
    contype: int
    conaffinity: int
    points: np.ndarray | None = None   # mesh vertices in the geom frame

    @property
    def collides(self) -> bool:
        return self.contype != 0 or self.conaffinity != 0


class _AttrReader:
    """The reader's state, its messages and its attribute readers; `_Reader` (in
    `_mjcf_read`) adds the walk over the file, layer by layer."""

    def __init__(self, path, root, lines, curved_segments):
        self.path = path
        self.root = root
        self.lines = lines
        self.curved_segments = curved_segments
        self.problems = _Problems(path)
        self.degree = True
        self.eulerseq = "xyz"
        self.inertiafromgeom = "auto"
        self.autolimits = True
        self.defaults: dict[str, dict[str, dict[str, str]]] = {}
        self.meshes: dict[str, np.ndarray] = {}
        self.bodies: list[MjcfBody] = []
        self.joints: list[MjcfJoint] = []
        self.joint_kinds: dict[str, str] = {}
        self.actuators: list[MjcfActuator] = []
        self.planes: list[_Geom] = []
        self.collision_geoms: list[tuple[str, _Geom]] = []
        self.names: set[str] = set()
        self.static: set[str] = {"ground"}     # bodies welded to the world
        self.weld: dict[str, str] = {"ground": "ground"}   # the body each is welded to
        self.parent: dict[str, str] = {"ground": "ground"}
        self.filterparent = True
        self.body_count = 0
        self.geom_failures = 0
        self.joint_count = 0

    # -- messages
    def where(self, el, context: str = "") -> str:
        name = el.get("name")
        tag = f"<{el.tag} name='{name}'>" if name else f"<{el.tag}>"
        line = self.lines.get(el)
        s = f"line {line}: {tag}" if line else tag
        return s + (f" ({context})" if context else "")

    def problem(self, el, message: str, context: str = "") -> None:
        self.problems.add(self.where(el, context), message)

    # -- attributes
    def attrs(self, el, cls: str | None = None, slot: str | None = None,
              keep=None) -> dict[str, str]:
        """`el`'s attributes over those of its default class (slot: geom, joint, mesh or
        actuator; `keep`: the default attributes that apply, None for all); checks them
        against `_RULES`."""
        merged: dict[str, str] = {}
        if slot is not None:
            name = el.get("class") or cls or "main"
            if name not in self.defaults:
                self.problem(el, f"class '{name}' is not defined in <default>. Define it or "
                                 "remove the class.")
                name = "main"
            inherited = self.defaults.get(name, {}).get(slot, {})
            merged.update({k: v for k, v in inherited.items() if keep is None or k in keep})
        merged.update(el.attrib)
        self.check_attrs(el, merged)
        return merged

    def check_attrs(self, el, attrs: Mapping[str, str]) -> None:
        rule = _RULES.get(el.tag, _Rule())
        for key, value in attrs.items():
            if key in rule.mapped or key in rule.ignored or key == "class":
                continue
            if key in rule.neutral:
                if not _same_value(value, rule.neutral[key]):
                    self.problem(el, f"attribute {key}=\"{value}\" is not supported "
                                     f"({_WHAT.get(key, 'changes the physics')}). "
                                     f"Remove it (stickslip assumes {key}=\"{rule.neutral[key]}\")"
                                     + _LATER.get(key, "."))
                continue
            self.problem(el, f"attribute {key}=\"{value}\" is not supported. Remove it.")

    def floats(self, el, attrs, key, n: int | tuple[int, ...] | Literal["points"],
               default=None) -> np.ndarray | None:
        """The numbers of attribute `key` (or `default`): `n` a count, a tuple of allowed
        counts, or "points" (a positive multiple of 3, at least 12)."""
        text = attrs.get(key, default)
        if text is None:
            return None
        try:
            arr = np.array([float(s) for s in text.split()])
        except ValueError:
            self.problem(el, f"attribute {key}=\"{text}\" must be numbers.")
            return None
        if n == "points":
            ok = len(arr) >= 12 and len(arr) % 3 == 0
            want = "a multiple of 3 (at least 12)"
        else:
            counts = (n,) if isinstance(n, int) else n
            ok = len(arr) in counts
            want = " or ".join(str(c) for c in counts)
        if not ok or not np.all(np.isfinite(arr)):
            self.problem(el, f"attribute {key}=\"{text}\" must be {want} finite numbers.")
            return None
        return arr

    def angle(self, value: float) -> float:
        return math.radians(value) if self.degree else value

    def orientation(self, el, attrs) -> np.ndarray:
        """The rotation matrix of an element's orientation attributes (identity if none)."""
        given = [k for k in _ORIENT.split() if k in attrs]
        if len(given) > 1:
            self.problem(el, f"has several orientations ({', '.join(given)}); MuJoCo "
                             "rejects this. Keep one.")
            return np.eye(3)
        if not given:
            return np.eye(3)
        key = given[0]
        if key == "quat":
            q = self.floats(el, attrs, key, 4)
            if q is None:
                return np.eye(3)
            if np.linalg.norm(q) < 1e-12:        # MuJoCo rejects it; it was read as identity
                self.problem(el, f"quat=\"{attrs[key]}\" is a zero quaternion. Give a "
                                 "nonzero (w, x, y, z).")
                return np.eye(3)
            return _quat_matrix(q)
        if key == "axisangle":
            a = self.floats(el, attrs, key, 4)
            if a is None:
                return np.eye(3)
            if np.linalg.norm(a[:3]) < 1e-12:
                self.problem(el, f"axisangle=\"{attrs[key]}\" has a zero axis. Give a "
                                 "nonzero axis.")
                return np.eye(3)
            return _quat_matrix(_axis_angle_quat(a[:3], self.angle(a[3])))
        if key == "xyaxes":
            a = self.floats(el, attrs, key, 6)
            if a is None:
                return np.eye(3)
            y = a[3:] - (a[3:] @ a[:3]) / max(a[:3] @ a[:3], 1e-300) * a[:3]
            if np.linalg.norm(a[:3]) < 1e-12 or np.linalg.norm(y) < 1e-12:
                self.problem(el, f"xyaxes=\"{attrs[key]}\" must be two non-parallel, "
                                 "non-zero axes.")
                return np.eye(3)
            x = a[:3] / np.linalg.norm(a[:3])
            y = y / np.linalg.norm(y)
            return np.column_stack([x, y, np.cross(x, y)])
        if key == "zaxis":
            a = self.floats(el, attrs, key, 3)
            if a is None:
                return np.eye(3)
            if np.linalg.norm(a) < 1e-12:
                self.problem(el, f"zaxis=\"{attrs[key]}\" is a zero axis. Give a nonzero "
                                 "one.")
                return np.eye(3)
            return _quat_matrix(_z_to(a))
        a = self.floats(el, attrs, key, 3)        # euler
        if a is None:
            return np.eye(3)
        q = np.array([1.0, 0.0, 0.0, 0.0])
        for ch, ang in zip(self.eulerseq, a):
            axis = np.eye(3)["xyz".index(ch.lower())]
            rot = _axis_angle_quat(axis, self.angle(ang))
            # lower case: axes that rotate with the frame (post-multiply); upper: fixed
            q = _quat_mul(q, rot) if ch.islower() else _quat_mul(rot, q)
        return _quat_matrix(q)

    def pose(self, el, attrs) -> tuple[np.ndarray, np.ndarray]:
        pos = self.floats(el, attrs, "pos", 3, "0 0 0")
        return (np.zeros(3) if pos is None else pos), self.orientation(el, attrs)
