"""Third-party plugins: a plugin library built outside the project (the SDK example
integrator-midpoint, compiled here against the headers only) is found on MODUCO_PLUGIN_PATH and
chosen by name from Python."""

import os
import subprocess
import sys

from conftest import SOURCE

EXAMPLE = os.path.join(SOURCE, "sdk", "examples", "integrator-midpoint", "midpoint.c")

SCRIPT = """
import numpy as np
import moduco as mujoco
names = [p["name"] for p in mujoco.plugins()]
assert "example.midpoint" in names, names
m = mujoco.MjModel.from_xml_path(%r)
d = mujoco.MjData(m)
m.set_integrator("example.midpoint")
assert m.opt.integrator == mujoco.mjtIntegrator.mjINT_OTHER
assert m.opt.integrator_name == "example.midpoint"
mujoco.mj_step(m, d, nstep=50)
assert np.isfinite(d.qpos).all() and d.time > 0
x = mujoco.MjModel.from_xml_string(open(%r).read().replace(
    "<option", '<option integrator="example.midpoint"', 1))
assert x.opt.integrator_name == "example.midpoint"
print("ok")
"""


def test_plugin_from_moduco_plugin_path(tmp_path):
  lib = tmp_path / "libmoduco-example-midpoint.so"
  subprocess.run(["cc", "-std=c11", "-O1", "-shared", "-fPIC", "-fvisibility=hidden",
                  "-I", os.path.join(SOURCE, "sdk", "include"), EXAMPLE, "-o", str(lib), "-lm"],
                 check=True)
  model = os.path.join(SOURCE, "models", "double_pendulum.xml")
  env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
  env["MODUCO_PLUGIN_PATH"] = os.pathsep.join(
      [str(tmp_path)] + [p for p in env.get("MODUCO_PLUGIN_PATH", "").split(":") if p])
  out = subprocess.run([sys.executable, "-c", SCRIPT % (model, model)], env=env,
                       capture_output=True, text=True)
  assert out.returncode == 0, out.stderr
  assert "ok" in out.stdout
