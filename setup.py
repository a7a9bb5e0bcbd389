"""Builds the PyTorch ops of the `cuop` package with the project's CMake (docs/python.md).

The extension (python/csrc) is linked with cuop::kernels, whose dispatch tables are emitted from
results/ at build time, against the torch of the Python that runs this. Settings (environment):
  CUOP_CUDA_ARCHITECTURES  CMAKE_CUDA_ARCHITECTURES of a new build folder (default: `native`
                           where torch sees a GPU, else the library's default, 80;90a;100a)
  CUOP_CMAKE_ARGS          more CMake arguments, e.g. -DCUOP_TUNE_EXECUTABLE=/path/cuop-tune
                           (a prebuilt tuner emits the tables; the tuner is then not built)
  CUOP_BUILD_DIR           the CMake build folder, kept between builds (build-python/); an
                           existing one (the project's build/) keeps its settings and gains
                           the target
  MAX_JOBS                 build threads (all cores)
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def project_version():
    """The version of CMakeLists.txt's project(), the one version of the library and package."""
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(\S+ VERSION ([0-9.]+)", text).group(1)


def cuda_architectures():
    named = os.environ.get("CUOP_CUDA_ARCHITECTURES")
    if named:
        return named
    import torch

    return "native" if torch.cuda.is_available() else None


class CMakeBuild(build_ext):
    """Configures and builds the CMake target cuop_torch, and puts it in the package as cuop/_C."""

    def build_extension(self, ext):
        build = Path(os.environ.get("CUOP_BUILD_DIR", ROOT / "build-python")).resolve()
        configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCUOP_BUILD_PYTHON=ON",
                     f"-DCUOP_TORCH_PYTHON={sys.executable}"]
        if not (build / "CMakeCache.txt").exists():  # else an existing build keeps its settings
            configure += ["-DCMAKE_BUILD_TYPE=Release", "-DCUOP_BUILD_TESTS=OFF", "-DCUOP_BUILD_EXAMPLES=OFF"]
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
            archs = cuda_architectures()
            if archs:
                configure.append(f"-DCMAKE_CUDA_ARCHITECTURES={archs}")
        configure += shlex.split(os.environ.get("CUOP_CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        jobs = os.environ.get("MAX_JOBS") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(build), "--target", "cuop_torch", "-j", jobs], check=True)
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(build / "python" / "libcuop_torch.so", target)


setup(
    version=project_version(),
    # setuptools' own folders away from build/, the CMake build of scripts/build.sh.
    options={"build": {"build_base": "build-python/setuptools"}, "egg_info": {"egg_base": "build-python"}},
    ext_modules=[Extension("cuop._C", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)
