"""Build and pack an FMU: compile the C into ``binaries/<platform>/`` with the system C
compiler, and write the zip (reproducible: fixed entry dates and modes, sorted names)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from ..errors import MissingDependencyError, ParameterError, StickslipError

__all__ = ["write_fmu"]


def _platform() -> tuple[str, str]:
    """(FMI 2.0 platform folder, shared-library suffix) of this machine."""
    if sys.maxsize > 2 ** 32:
        if sys.platform.startswith("linux"):
            return "linux64", ".so"
        if sys.platform == "darwin":
            return "darwin64", ".dylib"
    raise MissingDependencyError(
        f"`export_fmu` builds binaries on 64-bit Linux and macOS only (this is {sys.platform}). "
        "Pass binaries=False to write a source-only FMU that the importing tool compiles.")


def _compile(compiler: str, directory: Path, sources: list[str], library: Path) -> None:
    found = shutil.which(compiler)
    if found is None:
        raise MissingDependencyError(
            f"`export_fmu` needs a C compiler to build {library.name}: {compiler!r} was not "
            "found on PATH. Install gcc (Debian/Ubuntu: `apt-get install gcc`; macOS: "
            "`xcode-select --install`), name another with compiler='clang', or pass "
            "binaries=False to write a source-only FMU that the importing tool compiles.")
    command = [found, "-std=c99", "-O2", "-ffp-contract=off", "-fPIC", "-shared",
               "-fvisibility=hidden", "-Wall", "-Wextra", "-I", str(directory),
               *[str(directory / s) for s in sources], "-o", str(library), "-lm"]
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=300,
                             check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise StickslipError(f"`export_fmu`: running {found} failed: {error}. Pass "
                             "binaries=False to write the sources only.") from None
    if run.returncode != 0:
        raise StickslipError(
            f"`export_fmu`: {found} could not build {library.name} (exit {run.returncode}):\n"
            f"{run.stderr.strip()}\nThis is a stickslip bug if your compiler is a working C99 "
            "compiler; pass binaries=False to get the sources.")


def _zip_entry(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))   # reproducible archive
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def write_fmu(target: Path, ident: str, files: dict[str, str], binaries: bool,
              compiler: str) -> Path:
    """Write `files` ({name in the zip: text}) to the FMU `target`, with the shared library
    ``binaries/<platform>/<ident><suffix>`` built from ``sources/<ident>{,_fmu}.c`` when
    `binaries`."""
    payload = {name: text.encode() for name, text in files.items()}
    if binaries:
        folder, suffix = _platform()
        with tempfile.TemporaryDirectory(prefix="stickslip_fmu_") as tmp:
            directory = Path(tmp)
            for name, text in files.items():
                if name.startswith("sources/"):
                    (directory / name.split("/", 1)[1]).write_text(text)
            library = directory / f"{ident}{suffix}"
            _compile(compiler, directory, [f"{ident}.c", f"{ident}_fmu.c"], library)
            payload[f"binaries/{folder}/{ident}{suffix}"] = library.read_bytes()
    try:
        with zipfile.ZipFile(target, "w") as archive:
            for name in sorted(payload):
                _zip_entry(archive, name, payload[name])
    except OSError as error:
        raise ParameterError(f"`export_fmu(path=)`: cannot write {str(target)!r}: "
                             f"{error.strerror or error}. Choose a writable path.") from None
    return target
