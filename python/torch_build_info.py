"""What CMake needs to compile and link against the torch of this Python (python/CMakeLists.txt).

Prints KEY=VALUE lines; exits 1 with the reason on stderr where torch is absent or was built
without CUDA.
"""

import os
import sys


def main() -> int:
    try:
        import torch
    except ImportError as error:
        print(f"torch is not importable from {sys.executable}: {error}", file=sys.stderr)
        return 1
    if torch.version.cuda is None:
        print(f"torch {torch.__version__} was built without CUDA", file=sys.stderr)
        return 1
    print(f"VERSION={torch.__version__}")
    print(f"CUDA={torch.version.cuda}")
    print(f"CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}")
    root = os.path.dirname(torch.__file__)
    print("INCLUDE_DIRS=" + os.path.join(root, "include"))
    print("LIBRARY_DIR=" + os.path.join(root, "lib"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
