"""The examples in sdk/examples/python run, and code written for MuJoCo's bindings runs
unchanged with `import moduco as mujoco`."""

import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import SOURCE

EXAMPLES = os.path.join(SOURCE, "sdk", "examples", "python")
sys.path.insert(0, EXAMPLES)


@pytest.mark.parametrize("name,obs", [("ant", 105), ("hopper", 13)])
def test_gym_env_random_policy(name, obs):
  import gym_env
  returns, shape = gym_env.random_policy(name, 120, seed=3)
  assert shape == (obs,) and all(np.isfinite(returns))
  env = gym_env.ENVS[name](max_steps=5)
  o1, info = env.reset(seed=7)
  first = [env.step(np.zeros(env.model.nu)) for _ in range(5)]
  o2, _ = env.reset(seed=7)
  again = [env.step(np.zeros(env.model.nu)) for _ in range(5)]
  assert np.array_equal(o1, o2) and info == {}
  assert all(np.array_equal(a[0], b[0]) and a[1] == b[1] for a, b in zip(first, again))
  assert first[-1][3] is True                        # truncated at max_steps


def test_solver_ab_and_threads_scripts_run():
  env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
  model = os.path.join(SOURCE, "models", "humanoid.xml")
  out = subprocess.run([sys.executable, os.path.join(EXAMPLES, "solver_ab.py"), model, "30"],
                       check=True, capture_output=True, text=True, env=env).stdout
  assert "newton" in out and "steps/s" in out
  out = subprocess.run([sys.executable, os.path.join(EXAMPLES, "threads_speedup.py"), model,
                        "200"], check=True, capture_output=True, text=True, env=env).stdout
  assert "bitwise equal to sequential: True" in out


MUJOCO_CODE = '''
import copy
import numpy as np
import moduco as mujoco

xml = """
<mujoco>
  <option timestep="0.005"/>
  <worldbody>
    <light pos="0 0 3"/>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <body name="box" pos="0 0 .5">
      <freejoint/>
      <geom name="box" type="box" size=".1 .1 .1" rgba="1 0 0 1"/>
    </body>
    <body name="arm" pos="0.5 0 1">
      <joint name="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 .3 0 0" size=".02"/>
      <site name="end" pos=".3 0 0"/>
    </body>
  </worldbody>
  <actuator><motor name="motor" joint="hinge"/></actuator>
  <sensor><framepos name="end_pos" objtype="site" objname="end"/></sensor>
</mujoco>
"""
model = mujoco.MjModel.from_xml_string(xml)
data = mujoco.MjData(model)
mujoco.mj_resetData(model, data)
data.ctrl[:] = 0.1
frames = []
while data.time < 1.0:
  mujoco.mj_step(model, data, nstep=2)
  frames.append(data.qpos.copy())
box = model.body("box").id
print("box z", data.body("box").xpos[2], "contacts", data.ncon)
for i in range(data.ncon):
  c = data.contact[i]
  force = np.zeros(6)
  mujoco.mj_contactForce(model, data, i, force)
  assert mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, c.geom2) == "box" or c.geom1 >= 0
jacp = np.zeros((3, model.nv))
mujoco.mj_jacSite(model, data, jacp, None, model.site("end").id)
M = np.zeros((model.nv, model.nv))
mujoco.mj_fullM(model, M, data.qM)
saved = copy.deepcopy(data)
mujoco.mj_step(model, data)
mujoco.mj_step(model, saved)
assert np.array_equal(saved.qpos, data.qpos)
assert data.sensor("end_pos").data.shape == (3,)
assert model.opt.timestep == 0.005 and model.nu == 1 and model.actuator("motor").id == 0
print("ok", len(frames))
'''


def test_mujoco_style_code_runs_unchanged(tmp_path):
  script = tmp_path / "mujoco_code.py"
  script.write_text(MUJOCO_CODE)
  out = subprocess.run([sys.executable, str(script)], check=True, capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
  assert "ok 100" in out.stdout
  z = float(out.stdout.split()[2])
  assert 0.05 < z < 0.15                              # the box rests on the floor


def test_install_as_mujoco_runs_import_mujoco_code(tmp_path):
  """`import mujoco` / `from mujoco import rollout` code, unchanged, after install_as_mujoco()
  (run as a script through runpy, as a user's file would be)."""
  script = tmp_path / "uses_mujoco.py"
  script.write_text(
      "import numpy as np\n"
      "import mujoco\n"
      "from mujoco import rollout\n"
      "m = mujoco.MjModel.from_xml_string('<mujoco><worldbody><body><freejoint/>"
      "<geom size=\".1\"/></body></worldbody></mujoco>')\n"
      "d = mujoco.MjData(m)\n"
      "x0 = np.zeros((2, mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS)))\n"
      "for i in range(2):\n"
      "  mujoco.mj_getState(m, d, x0[i], mujoco.mjtState.mjSTATE_FULLPHYSICS)\n"
      "state, sensordata = rollout.rollout(m, d, x0, nstep=10)\n"
      "print(mujoco.__name__, state.shape, state[0, -1, 3])\n")
  runner = ("import runpy, sys, moduco; moduco.install_as_mujoco(); "
            "runpy.run_path(sys.argv[1], run_name='__main__')")
  out = subprocess.run([sys.executable, "-c", runner, str(script)], check=True,
                       capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))).stdout
  name, shape, z = out.split(" ", 1)[0], out[out.index("("):out.index(")") + 1], out.split()[-1]
  assert name == "moduco" and shape == "(2, 10, 14)" and float(z) < 0   # it fell under gravity
  import moduco
  import types
  fake = types.ModuleType("mujoco")
  sys.modules["mujoco"] = fake
  try:
    with pytest.raises(RuntimeError, match="already imported"):
      moduco.install_as_mujoco()
  finally:
    del sys.modules["mujoco"]
