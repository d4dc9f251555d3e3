"""`pip install .` into a fresh virtual environment, offline, then import moduco from it and step
a model: the ctest test python_pip_install (not a pytest module: it builds the project once more).

    python3 check_pip_install.py SOURCE_DIR WORK_DIR [--compare]

The venv is made as docs/python.md says (python3 -m venv --system-site-packages, so Debian's
numpy, setuptools and wheel serve), and pip runs with --no-build-isolation --no-index and a
proxy that refuses every connection, so any attempt to reach the network fails the test. The
CMake build goes to WORK_DIR/build (MODUCO_PIP_BUILD_DIR), not into the source tree. The venv's
moduco must come from the venv (not PYTHONPATH), find its packaged plugins (a solver swap), and
step the humanoid; with --compare (a Release build tree, compiled as pip compiles) to bitwise
the state the build tree's moduco gives.
"""

import os
import shutil
import subprocess
import sys

STEP = """
import sys
import numpy as np
import moduco as mujoco
m = mujoco.MjModel.from_xml_path(sys.argv[1])
m.set_solver("pgs")                        # a plugin found in the package's moduco/plugins
d = mujoco.MjData(m)
d.ctrl[:] = 0.2
mujoco.mj_step(m, d, nstep=200)
print(mujoco.__file__)
print(next(p["file"] for p in mujoco.plugins() if p["name"] == "pgs"))
print(d.time, d.ncon, d.qpos.tobytes().hex(), d.qvel.tobytes().hex())
"""


def run(cmd, **kw):
  print("+", " ".join(cmd), flush=True)
  return subprocess.run(cmd, check=True, **kw)


def main():
  source, work = (os.path.abspath(a) for a in sys.argv[1:3])
  venv = os.path.join(work, "venv")
  os.makedirs(work, exist_ok=True)
  shutil.rmtree(venv, ignore_errors=True)
  run([sys.executable, "-m", "venv", "--system-site-packages", venv])
  py = os.path.join(venv, "bin", "python")

  env = {k: v for k, v in os.environ.items()
         if k not in ("PYTHONPATH", "MODUCO_PLUGIN_PATH", "PIP_INDEX_URL", "PIP_FIND_LINKS")}
  offline = dict(env, MODUCO_PIP_BUILD_DIR=os.path.join(work, "build"),
                 http_proxy="http://127.0.0.1:9", https_proxy="http://127.0.0.1:9",
                 HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9",
                 PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
  offline.setdefault("MODUCO_JOBS", "2")
  run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index", source],
      env=offline, cwd=work)

  humanoid = os.path.join(source, "models", "humanoid.xml")
  got = run([py, "-c", STEP, humanoid], env=env, cwd=work, capture_output=True,
            text=True).stdout.splitlines()
  where = os.path.realpath(got[0])
  if not where.startswith(os.path.realpath(venv) + os.sep):
    sys.exit(f"check_pip_install: moduco imported from {where}, not from the venv {venv}")
  plugin = os.path.realpath(got[1])
  if not plugin.startswith(os.path.dirname(where) + os.sep):
    sys.exit(f"check_pip_install: the pgs solver came from {plugin}, not from the package")
  print(f"check_pip_install: moduco from {where} (pgs from {plugin}) stepped the humanoid: "
        f"{got[2][:60]}...")
  if "--compare" not in sys.argv[3:]:
    return
  # the same steps with the build tree's package (this interpreter, PYTHONPATH from ctest)
  ref = subprocess.run([sys.executable, "-c", STEP, humanoid], check=True, capture_output=True,
                       text=True).stdout.splitlines()
  if got[2] != ref[2]:
    sys.exit("check_pip_install: the venv's moduco stepped to another state than the build "
             f"tree's:\n  venv:  {got[2][:120]}\n  build: {ref[2][:120]}")
  print("check_pip_install: bitwise the state of the build tree's moduco")


if __name__ == "__main__":
  main()
