"""Builds the compiled module rbsim._rbsim for pip with CMake (pyproject.toml has the metadata).

The module is the CMake target _rbsim (python/CMakeLists.txt), built in a CMake tree under
setuptools' build_temp, or in an existing one named by $RBSIM_BUILD_DIR (then it is not compiled
again); its version is the CMake project's.
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def version() -> str:
    found = re.search(r"project\(rbsim VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    if not found:
        raise RuntimeError("CMakeLists.txt: no 'project(rbsim VERSION x.y.z)'")
    return found.group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        tree = pathlib.Path(os.environ.get("RBSIM_BUILD_DIR") or pathlib.Path(self.build_temp) / "cmake").resolve()
        if not (tree / "CMakeCache.txt").exists():
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(tree), *generator, "-DCMAKE_BUILD_TYPE=Release",
                            "-DRBS_BUILD_GUI=OFF", "-DRBS_BUILD_TESTS=OFF", "-DRBS_BUILD_PYTHON=ON",
                            f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
        subprocess.run(["cmake", "--build", str(tree), "--target", "_rbsim", "--parallel", str(os.cpu_count() or 1)],
                       check=True)
        built = sorted((tree / "python" / "rbsim").glob("_rbsim*.so"))
        if not built:
            raise RuntimeError(f"{tree}: CMake built no _rbsim module")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], target)


setup(version=version(), ext_modules=[Extension("rbsim._rbsim", sources=[])], cmdclass={"build_ext": CMakeBuild})
