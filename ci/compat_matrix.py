#!/usr/bin/env python3
"""The compatibility matrix of a built library (docs/ci.md): for each target GPU architecture,
whether the fatbins of its objects carry native code (SASS that runs there), PTX the driver can
JIT there, or nothing. Read from `cuobjdump --list-elf --list-ptx`; Python 3 standard library only.

    ci/compat_matrix.py build/kernels/libcuop_kernels.a build/kernels/libcuop_kernels_core.a \
        --expect-archs "80;90a;100a" [--promise sm_120=ptx ...]
    ci/compat_matrix.py --listing canned.txt ...   # cuobjdump's output, saved (the tests do this)

Exit codes: 0 every promise kept, 1 a promised target is served worse than promised (or an
error), 2 usage, 77 cuobjdump not found and --skip-without-cuobjdump given.

The rules (docs/ci.md, "The compatibility matrix"):
- SASS sm_XY runs on a target of the same major version whose minor is >= Y; arch-specific SASS
  (sm_90a) only on exactly that architecture, asked for as such (the row sm_90a, not sm_90);
  family-specific SASS (sm_100f) like plain SASS within its major.
- PTX compute_XY can be JIT-compiled for any target XY or newer; arch-specific PTX (compute_90a)
  only for exactly that architecture; family-specific PTX (compute_100f) within its major.
- A row without the 'a' (sm_90, sm_100) asks for code that does not rely on arch-specific
  features: what any GPU of that compute capability (and, for sm_100, CC 10.3) can run.
- The verdict of a row is the worst over the objects that carry device code: one object without
  code for a target is a kernel that cannot launch there.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

TARGETS = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_120")
DEVICES = {
    "sm_75": "CC 7.5: T4, RTX 20",
    "sm_80": "CC 8.0: A100, A30",
    "sm_86": "CC 8.6: A10, A40, RTX 30",
    "sm_89": "CC 8.9: L4, L40S, RTX 40",
    "sm_90": "CC 9.x, portable code only",
    "sm_90a": "CC 9.0: H100, H200, GH200",
    "sm_100": "CC 10.x, portable code only",
    "sm_100a": "CC 10.0: B200, GB200",
    "sm_120": "CC 12.0: RTX 50, RTX PRO 6000",
}
LEVELS = ("none", "ptx", "native")  # worst to best
SKIP_CODE = 77


@dataclass(frozen=True, order=True)
class Arch:
    cc: int  # 90 for 9.0, 100 for 10.0
    suffix: str = ""  # "", "a" (arch-specific) or "f" (family-specific)

    @property
    def major(self) -> int:
        return self.cc // 10

    @property
    def minor(self) -> int:
        return self.cc % 10

    def sm(self) -> str:
        return f"sm_{self.cc}{self.suffix}"

    def compute(self) -> str:
        return f"compute_{self.cc}{self.suffix}"


def parse_arch(text: str) -> Arch:
    """'sm_90a', 'compute_90a', '90a' -> Arch(90, 'a')."""
    m = re.fullmatch(r"(?:sm_|compute_)?(\d{2,3})([af]?)", text.strip())
    if not m:
        raise ValueError(f'unknown architecture "{text}"')
    return Arch(int(m.group(1)), m.group(2))


@dataclass(frozen=True)
class Image:
    kind: str  # "sass" or "ptx"
    arch: Arch
    unit: str  # the object (archive member) that carries it

    def label(self) -> str:
        return f"{self.arch.sm()} SASS" if self.kind == "sass" else f"{self.arch.compute()} PTX"


def sass_runs_on(image: Arch, target: Arch) -> bool:
    if image.major != target.major or image.minor > target.minor:
        return False
    if image.suffix == "a":
        return target.suffix == "a" and image.cc == target.cc
    return True


def ptx_jits_on(image: Arch, target: Arch) -> bool:
    if image.cc > target.cc:
        return False
    if image.suffix == "a":
        return target.suffix == "a" and image.cc == target.cc
    if image.suffix == "f":
        return image.major == target.major
    return True


def serves(image: Image, target: Arch) -> bool:
    return sass_runs_on(image.arch, target) if image.kind == "sass" else ptx_jits_on(image.arch, target)


# cuobjdump --list-elf --list-ptx prints, per object (archive members after a "member" line):
#   ELF file    1: libcuop_kernels.1.sm_90a.cubin
#   PTX file    1: libcuop_kernels.1.sm_90a.ptx        (PTX is named after its virtual arch too)
_MEMBER = re.compile(r"^member (.+):$")
_IMAGE = re.compile(r"^(ELF|PTX) file\s+\d+:\s+(\S+)\.(sm_\d+[af]?)\.(cubin|ptx)$")
_NOISE = re.compile(r"^cuobjdump (info|warning)\b")


def parse_listing(text: str, unit: str) -> list[Image]:
    """The images of one cuobjdump listing; `unit` names the object when it is not an archive."""
    images = []
    seen: dict[str, int] = {}  # an archive may hold two members of one name (a/x.cu.o, b/x.cu.o)
    for raw in text.splitlines():
        line = raw.strip()
        if not line or _NOISE.match(line):
            continue
        if m := _MEMBER.match(line):
            seen[m.group(1)] = seen.get(m.group(1), 0) + 1
            unit = m.group(1) + (f"#{seen[m.group(1)]}" if seen[m.group(1)] > 1 else "")
            continue
        m = _IMAGE.match(line)
        if not m:
            raise ValueError(f'unexpected line in cuobjdump output: "{line}"')
        kind = "sass" if m.group(1) == "ELF" else "ptx"
        images.append(Image(kind, parse_arch(m.group(3)), unit))
    return images


def find_cuobjdump(explicit: str | None = None) -> str | None:
    """$CUOBJDUMP, PATH, beside nvcc, /usr/local/cuda, then the tools scripts/install-deps.sh
    installs where the toolkit lacks it (a toolkit from PyPI wheels has no cuobjdump)."""
    candidates = [explicit, os.environ.get("CUOBJDUMP"), shutil.which("cuobjdump")]
    if nvcc := shutil.which("nvcc"):
        candidates.append(str(Path(nvcc).parent / "cuobjdump"))
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    candidates += ["/usr/local/cuda/bin/cuobjdump",
                   str(cache / "cuop-tune" / "tools" / "nvidia" / "cu13" / "bin" / "cuobjdump")]
    for c in candidates:
        if c and os.access(c, os.X_OK) and Path(c).is_file():
            return c
    return None


def list_images(cuobjdump: str, path: str) -> list[Image]:
    r = subprocess.run([cuobjdump, "--list-elf", "--list-ptx", path],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        if "does not contain device code" in r.stderr:
            return []
        raise RuntimeError(f"{cuobjdump} --list-elf --list-ptx {path}: exit {r.returncode}: "
                           f"{r.stderr.strip()}")
    return parse_listing(r.stdout, Path(path).name)


def cmake_images(architectures: str) -> list[Image]:
    """The images CMAKE_CUDA_ARCHITECTURES asks nvcc for: "80" is sm_80 SASS and compute_80 PTX,
    "80-real" SASS only, "80-virtual" PTX only."""
    images = []
    for entry in filter(None, re.split(r"[;,]", architectures)):
        arch, _, kind = entry.strip().partition("-")
        if kind not in ("", "real", "virtual"):
            raise ValueError(f'cannot read the CMake architecture "{entry}"')
        a = parse_arch(arch)
        if kind != "virtual":
            images.append(Image("sass", a, "cmake"))
        if kind != "real":
            images.append(Image("ptx", a, "cmake"))
    if not images:
        raise ValueError(f'no architecture in "{architectures}"')
    return images


@dataclass
class Cell:
    level: str  # "native", "ptx" or "none"
    how: str  # "sm_80 SASS", "JIT of compute_80 PTX", "-"
    limited_by: list[str]  # objects that serve this target worse than the rest


def _unit_cell(images: list[Image], target: Arch) -> Cell:
    sass = sorted({i.arch for i in images if i.kind == "sass" and serves(i, target)})
    if sass:
        return Cell("native", ", ".join(f"{a.sm()} SASS" for a in sass), [])
    ptx = sorted({i.arch for i in images if i.kind == "ptx" and serves(i, target)})
    if ptx:  # the driver JITs the newest PTX that fits
        return Cell("ptx", f"JIT of {ptx[-1].compute()} PTX", [])
    return Cell("none", "-", [])


def matrix(images: list[Image], targets=TARGETS) -> dict[str, Cell]:
    """Per target, the worst cell over the objects that carry device code."""
    units: dict[str, list[Image]] = {}
    for i in images:
        units.setdefault(i.unit, []).append(i)
    out = {}
    for name in targets:
        target = parse_arch(name)
        cells = {u: _unit_cell(imgs, target) for u, imgs in units.items()}
        if not cells:
            out[name] = Cell("none", "-", [])
            continue
        worst = min(cells.values(), key=lambda c: LEVELS.index(c.level))
        hows = sorted({c.how for c in cells.values() if c.level == worst.level})
        limited = sorted(u for u, c in cells.items() if c.level == worst.level)
        out[name] = Cell(worst.level, "; ".join(hows), limited if len(limited) < len(cells) else [])
    return out


def check(cells: dict[str, Cell], promises: dict[str, str]) -> list[str]:
    """One message per promise the matrix does not keep."""
    errors = []
    for target, promised in promises.items():
        cell = cells.get(target)
        if cell is None:
            errors.append(f"{target}: promised {promised}, not a row of the matrix")
        elif LEVELS.index(cell.level) < LEVELS.index(promised):
            by = f" (objects: {', '.join(cell.limited_by)})" if cell.limited_by else ""
            errors.append(f"{target}: promised {promised}, the fatbin has {cell.level}{by}")
    return errors


def render(cells: dict[str, Cell], promises: dict[str, str]) -> str:
    rows = [("target", "devices", "code", "from", "promised", "check")]
    for target, cell in cells.items():
        promised = promises.get(target, "-")
        ok = "-" if promised == "-" else (
            "ok" if LEVELS.index(cell.level) >= LEVELS.index(promised) else "MISSING")
        rows.append((target, DEVICES.get(target, ""), cell.level, cell.how, promised, ok))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(v.ljust(w) for v, w in zip(r, widths)) + "  " + r[-1] for r in rows]
    for target, cell in cells.items():
        if cell.limited_by:
            lines.append(f"{target}: {cell.level} because of {', '.join(cell.limited_by)}")
    return "\n".join(lines)


def parse_promises(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        for part in item.split():
            target, sep, level = part.partition("=")
            if not sep or level not in LEVELS:
                raise ValueError(f'bad promise "{part}" (expected TARGET=native|ptx|none)')
            out[parse_arch(target).sm()] = level
    return out


def derived_promises(architectures: str, targets=TARGETS) -> dict[str, str]:
    """What a build with these CMAKE_CUDA_ARCHITECTURES must serve, target by target."""
    cells = matrix(cmake_images(architectures), targets)
    return {t: c.level for t, c in cells.items() if c.level != "none"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="compat_matrix.py", description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", help="libraries or objects to read with cuobjdump")
    p.add_argument("--listing", action="append", default=[],
                   help="a saved cuobjdump --list-elf --list-ptx output instead of a file")
    p.add_argument("--expect-archs", metavar="LIST",
                   help="promise what these CMAKE_CUDA_ARCHITECTURES give (e.g. \"80;90a;100a\")")
    p.add_argument("--promise", action="append", default=[], metavar="TARGET=LEVEL",
                   help="promise a level (native, ptx, none) for a target; repeatable")
    p.add_argument("--cuobjdump", help="the cuobjdump to run (default: found as docs/ci.md says)")
    p.add_argument("--skip-without-cuobjdump", action="store_true",
                   help=f"exit {SKIP_CODE} (skipped) rather than 1 when cuobjdump is not found")
    a = p.parse_args(argv)
    if not a.files and not a.listing:
        p.error("give files to read or --listing")
    try:
        promises = derived_promises(a.expect_archs) if a.expect_archs else {}
        promises.update(parse_promises(a.promise))
        images = []
        for path in a.listing:
            images += parse_listing(Path(path).read_text(), Path(path).name)
        if a.files:
            tool = find_cuobjdump(a.cuobjdump)
            if tool is None:
                msg = ("cuobjdump not found (set CUOBJDUMP, or run scripts/install-deps.sh, which "
                       "installs it where the CUDA toolkit lacks it)")
                print(f"compat-matrix: {'skipped: ' if a.skip_without_cuobjdump else 'error: '}{msg}",
                      file=sys.stderr)
                return SKIP_CODE if a.skip_without_cuobjdump else 1
            for path in a.files:
                if not Path(path).is_file():
                    raise RuntimeError(f"{path}: not found")
                images += list_images(tool, path)
    except (ValueError, RuntimeError, OSError) as e:
        print(f"compat-matrix: error: {e}", file=sys.stderr)
        return 1
    units = sorted({i.unit for i in images})
    sources = ", ".join(a.files + a.listing)
    print(f"compatibility matrix of {sources} "
          f"({len(units)} object{'' if len(units) == 1 else 's'} with device code)")
    cells = matrix(images)
    print(render(cells, promises))
    errors = check(cells, promises)
    for e in errors:
        print(f"compat-matrix: error: {e}", file=sys.stderr)
    if not units:
        print("compat-matrix: error: no device code found", file=sys.stderr)
        return 1
    if errors:
        return 1
    n = len(promises)
    print(f"compat-matrix: {n} promised target{'' if n == 1 else 's'} served"
          if promises else "compat-matrix: nothing promised, nothing checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
