#!/usr/bin/env python3
"""Size limits of the product code (docs/ci.md, Code checks): every source file under 500 lines and
every function under 80, or a one-line reason in the file for the exception.

Product code: the tracked C++/CUDA sources (.cpp .hpp .cu .cuh .h) under tuner/, kernels/, tools/
and bench/; tests/, lab/, examples/ and the scripts are not product code. Function lengths are
lizard's (PyPI `lizard`, installed by scripts/install-deps.sh --lint): the lines from the one with
the function's name to its closing brace, blank and comment lines included. CUDA files are read as
C++.

The exceptions, each a comment with a reason after the colon:
  // size-limit: REASON                    anywhere in a file of 500 lines or more
  // #lizard forgives(length): REASON      on a function's first line (the one with its name) or
                                           inside its body, the function being 80 lines or more
The second is lizard's own marker, so a plain lizard run honours it too. A marker without a
reason fails, as does one where no limit is exceeded (it would hide the next growth unseen), one
outside any function, and lizard's other forms (`#lizard forgive`, `#lizard forgive global`, which
forgive whatever function ends next, or every metric).

ci/size_pending.txt lists the offences that other work is to remove (a file: `PATH`; a function:
`PATH FUNCTION`, lizard's qualified name). They are reported as pending and do not fail; an entry
that no longer offends fails, so that the list only shrinks.

  ci/check_sizes.py [--list] [--skip-without-lizard] [FILE...]

FILE: check only these files (paths relative to the repository root); default: all product code.
--list: print every file and function over a limit that is marked (with its reason) or pending.
--skip-without-lizard: exit 77 (ctest's skip) when lizard is not installed; otherwise that is an
error. Exit 0 when the files keep the limits, 1 naming each offence, 2 on a usage error."""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILE_LIMIT = 500  # a file must have fewer lines
FUNCTION_LIMIT = 80  # a function must have fewer lines
PRODUCT_DIRS = ("tuner", "kernels", "tools", "bench", "python")
SOURCE = re.compile(r"\.(cpp|hpp|cu|cuh|h)$")
FILE_MARKER = re.compile(r"^\s*//\s*size-limit:(.*)$")
LIZARD_COMMENT = re.compile(r"(//|/\*)\s*#lizard\b(.*)")
FUNCTION_MARKER = re.compile(r"^forgives\(length\):(.*)$")
# Where install-deps.sh --lint puts lizard (pip --target), as it does cuobjdump.
PENDING = ROOT / "ci/size_pending.txt"
LIZARD_DIR = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cuop-tune/tools/lizard"


def import_lizard():
    try:
        import lizard  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(LIZARD_DIR))
        try:
            import lizard  # noqa: F401
        except ImportError:
            return None
    return sys.modules["lizard"]


def product_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "--", *PRODUCT_DIRS], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout
    return [f for f in out.splitlines() if SOURCE.search(f)]


def functions_of(lizard, path: str, text: str):
    # lizard picks its reader by extension and knows no CUDA: read .cu/.cuh as C++.
    name = path + ".hpp" if path.endswith((".cu", ".cuh")) else path
    info = lizard.FileAnalyzer(lizard.get_extensions([])).analyze_source_code(name, text)
    return info.function_list


def read_pending() -> set[tuple[str, ...]]:
    entries = set()
    for line in PENDING.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].split()
        if line:
            entries.add(tuple(line[:2]))
    return entries


def check_file(lizard, path: str, text: str, listing: list[str]) -> list[tuple[tuple[str, ...], str]]:
    """The offences of one file, each as (its key in ci/size_pending.txt, message); the key of an
    offence that no pending entry can excuse (a bad marker) is ()."""
    errors = []
    lines = text.splitlines()
    markers = [(i + 1, m.group(1).strip()) for i, line in enumerate(lines) if (m := FILE_MARKER.match(line))]
    for line, reason in markers:
        if not reason:
            errors.append(((), f"{path}:{line}: size-limit marker without a reason (// size-limit: REASON)"))
    if len(markers) > 1:
        errors.append(((), f"{path}:{markers[1][0]}: a second size-limit marker (one per file)"))
    if len(lines) >= FILE_LIMIT:
        if markers:
            listing.append(f"marked: {path}: {len(lines)} lines (file): {markers[0][1]}")
        else:
            errors.append(((path,), f"{path}: {len(lines)} lines, the limit is {FILE_LIMIT - 1}: split it, or say "
                           "why not in a '// size-limit: REASON' line"))
    elif markers:
        errors.append(((), f"{path}:{markers[0][0]}: size-limit marker on a file of {len(lines)} lines, under "
                           f"the limit of {FILE_LIMIT}: remove it"))

    functions = functions_of(lizard, path, text)
    marked = {}  # function -> reason
    for i, line in enumerate(lines):
        m = LIZARD_COMMENT.search(line)
        if not m:
            continue
        number = i + 1
        body = m.group(2).strip().removesuffix("*/").strip()
        fm = FUNCTION_MARKER.match(body)
        if not fm:
            errors.append(((), f"{path}:{number}: '#lizard {body}': the only lizard marker allowed is "
                           "'// #lizard forgives(length): REASON'"))
            continue
        reason = fm.group(1).strip()
        if not reason:
            errors.append(((), f"{path}:{number}: function-length marker without a reason "
                           "(// #lizard forgives(length): REASON)"))
        inside = [f for f in functions if f.start_line <= number <= f.end_line]
        if not inside:
            errors.append(((), f"{path}:{number}: function-length marker outside a function: put it on the "
                           "function's first line or inside its body"))
            continue
        fn = min(inside, key=lambda f: f.end_line - f.start_line)
        marked[fn] = reason
        if fn.length < FUNCTION_LIMIT:
            errors.append(((), f"{path}:{number}: function-length marker on {fn.name}, {fn.length} lines, under "
                           f"the limit of {FUNCTION_LIMIT}: remove it"))
    for fn in functions:
        if fn.length < FUNCTION_LIMIT:
            continue
        if fn in marked:
            listing.append(f"marked: {path}:{fn.start_line}: {fn.length} lines ({fn.name}): {marked[fn]}")
        else:
            errors.append(((path, fn.name), f"{path}:{fn.start_line}: {fn.name} has {fn.length} lines, the limit "
                           f"is {FUNCTION_LIMIT - 1}: split it, or say why not in a "
                           "'// #lizard forgives(length): REASON' comment on its first line"))
    return errors


def main(argv: list[str]) -> int:
    listing_wanted = "--list" in argv
    skip = "--skip-without-lizard" in argv
    files = [a for a in argv if not a.startswith("--")]
    unknown = [a for a in argv if a.startswith("--") and a not in ("--list", "--skip-without-lizard")]
    if unknown:
        print(f"check_sizes: error: unknown option \"{unknown[0]}\" (--list, --skip-without-lizard)", file=sys.stderr)
        return 2
    lizard = import_lizard()
    if lizard is None:
        print("check_sizes: lizard is not installed (scripts/install-deps.sh --lint installs it)", file=sys.stderr)
        return 77 if skip else 2
    files = files or product_files()
    pending = read_pending()
    errors, listing, excused = [], [], set()
    for path in files:
        try:
            text = (ROOT / path).read_text(encoding="utf-8")
        except OSError as e:
            print(f"check_sizes: error: cannot read \"{path}\": {e.strerror}", file=sys.stderr)
            return 2
        for key, message in check_file(lizard, path, text, listing):
            if key in pending:
                excused.add(key)
                listing.append(f"pending (ci/size_pending.txt): {message.split(', the limit', 1)[0]}")
            else:
                errors.append(message)
    checked = set(files)
    for key in sorted(pending - excused):
        if key[0] in checked:
            errors.append(f"ci/size_pending.txt: '{' '.join(key)}' keeps the limits (or is gone): remove the entry")
    if listing_wanted:
        for line in listing:
            print(f"check_sizes: {line}")
    for line in errors:
        print(f"check_sizes: {line}")
    if errors:
        print(f"check_sizes: {len(errors)} offences in {len(files)} files")
        return 1
    print(f"check_sizes: {len(files)} files keep the limits ({len(listing)} exceptions, "
          f"{len(excused)} of them pending)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
