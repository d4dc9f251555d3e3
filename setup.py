"""Build the moduco Python package with the project's CMake (pyproject.toml has the metadata).

The extension (which links the core statically) and the plugin libraries come from a CMake build
in build/pip (or $MODUCO_PIP_BUILD_DIR, an absolute folder, where the test that installs into a
fresh venv builds); the plugins are packaged in moduco/moduco/plugins, the folder the core scans
beside the library that holds it. No network is needed:
`pip install --no-build-isolation --no-index .`
"""

import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("MODUCO_PIP_BUILD_DIR") or os.path.join(ROOT, "build", "pip")


class CMakeBuild(build_ext):
  """Configure and build with CMake, then copy the extension and the plugins."""

  def build_extension(self, ext):
    build = os.path.join(BUILD, "cmake")
    jobs = os.environ.get("MODUCO_JOBS", str(os.cpu_count() or 2))
    subprocess.check_call([
        "cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
        "-DMODUCO_BUILD_TESTS=OFF", "-DMODUCO_BUILD_BENCHMARKS=OFF", "-DMODUCO_BUILD_PYTHON=ON",
        f"-DPython3_EXECUTABLE={sys.executable}"])
    subprocess.check_call(["cmake", "--build", build, "--target", "moduco_python", "-j", jobs])
    built = glob.glob(os.path.join(build, "python", "moduco", "_moduco*.so"))
    if len(built) != 1:
      raise RuntimeError(f"moduco: expected one extension in {build}/python/moduco, got {built}")
    target = self.get_ext_fullpath(ext.name)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copy2(built[0], target)
    plugins = os.path.join(os.path.dirname(target), "moduco", "plugins")
    os.makedirs(plugins, exist_ok=True)
    for lib in glob.glob(os.path.join(build, "lib", "moduco", "plugins", "*.so")):
      shutil.copy2(lib, plugins)


setup(
    packages=["moduco"],
    package_dir={"moduco": "sdk/python/moduco"},
    ext_modules=[Extension("moduco._moduco", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": BUILD}, "egg_info": {"egg_base": BUILD}},
    zip_safe=False,
)
