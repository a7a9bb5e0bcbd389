#!/usr/bin/env python3
"""Every C++/CUDA source file of the repository is named in a CMakeLists.txt (the builds list their
sources explicitly, DESIGN.md, Style): a file that no list names is never compiled, so it would
rot unseen. A file counts as listed when a CMakeLists.txt in its folder or a folder above names
its path relative to that folder. Exit 1, naming each unlisted file; 0 when all are listed."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = re.compile(r"\.(cpp|cu)$")


def tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return [f for f in out.split() if SOURCE.search(f)]


def listed(path: str, lists: dict[Path, set[str]]) -> bool:
    p = Path(path)
    for folder in p.parents:
        names = lists.get(folder)
        if names is not None and p.relative_to(folder).as_posix() in names:
            return True
    return False


def main() -> int:
    lists = {}
    # A folder's CMakeLists.txt, or the sources.cmake an op folder lists its sources in
    # (tuner/ops/registry.cmake includes it).
    for cmake in [*ROOT.rglob("CMakeLists.txt"), *ROOT.rglob("sources.cmake")]:
        rel = cmake.relative_to(ROOT)
        if rel.parts[0].startswith("build"):
            continue
        text = re.sub(r"#[^\n]*", "", cmake.read_text())
        lists.setdefault(rel.parent, set()).update(re.findall(r"[\w./-]+\.(?:cpp|cu)\b", text))
    missing = [f for f in tracked() if not listed(f, lists)]
    for f in missing:
        print(f"check_sources: {f} is in no CMakeLists.txt (add it to its target's list, or delete it)")
    print(f"check_sources: {len(missing)} unlisted source files" if missing else "check_sources: every source is listed")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
