"""Shared fixtures: model paths, the moduco CLI (for C reference values) and a model that has
every named object kind."""

import json
import os
import subprocess

import pytest

SOURCE = os.environ.get("MODUCO_SOURCE_DIR",
                        os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..")))
CORPUS = "/work/shared/corpus"
CLI = os.environ.get("MODUCO_CLI", os.path.join(SOURCE, "build", "bin", "moduco"))

# models compared against the C API: bundled ones and corpus models (the corpus is required, as
# by the C suites)
MODELS = [os.path.join(SOURCE, "models", f) for f in
          ("pendulum.xml", "double_pendulum.xml", "chain.xml", "humanoid.xml")]
MODELS += [os.path.join(CORPUS, rel) for rel in
           ("gym_ant/ant.xml", "dm_hopper/hopper.xml", "dm_cartpole/cartpole.xml",
            "mj_arm26/arm26.xml")]

# a model with at least one object of every kind that named access serves
EVERY_KIND = """
<mujoco model="every kind">
  <option timestep="0.002"/>
  <asset>
    <mesh name="tet" vertex="0 0 0  0.1 0 0  0 0.1 0  0 0 0.1"/>
    <hfield name="field" nrow="3" ncol="3" size="1 1 0.1 0.1"
            elevation="0 0 0 0 1 0 0 0 0"/>
  </asset>
  <worldbody>
    <light name="lamp" pos="0 0 3"/>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <geom name="bump" type="hfield" hfield="field" pos="3 3 0"/>
    <camera name="eye" pos="0 -3 1" xyaxes="1 0 0 0 0.3 1"/>
    <body name="base" pos="0 0 1">
      <freejoint name="root"/>
      <geom name="torso" type="box" size="0.2 0.1 0.05" mass="2"/>
      <site name="tip" pos="0.2 0 0"/>
      <body name="arm" pos="0.25 0 0">
        <joint name="hinge" type="hinge" axis="0 1 0" range="-1 1" damping="0.1"/>
        <geom name="rod" type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body name="hand" pos="0.3 0 0">
          <joint name="ball" type="ball"/>
          <geom name="knob" type="sphere" size="0.05"/>
          <body name="finger" pos="0.1 0 0">
            <joint name="slide" type="slide" axis="1 0 0" range="-0.05 0.05"/>
            <geom name="pad" type="mesh" mesh="tet"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <contact>
    <pair name="touch" geom1="floor" geom2="knob"/>
    <exclude name="skip" body1="base" body2="arm"/>
  </contact>
  <equality>
    <joint name="couple" joint1="slide" joint2="hinge" polycoef="0 0.01 0 0 0"/>
  </equality>
  <tendon>
    <fixed name="sum">
      <joint joint="hinge" coef="1"/>
      <joint joint="slide" coef="1"/>
    </fixed>
  </tendon>
  <actuator>
    <motor name="elbow" joint="hinge" gear="2"/>
    <general name="push" joint="slide" dyntype="integrator" gainprm="10"/>
  </actuator>
  <sensor>
    <jointpos name="angle" joint="hinge"/>
    <framepos name="where" objtype="site" objname="tip"/>
  </sensor>
  <custom>
    <numeric name="gain" data="1 2 3"/>
  </custom>
  <keyframe>
    <key name="home" qpos="0 0 1.2 1 0 0 0 0.3 1 0 0 0 0.01" act="0.5" ctrl="0.1 0.2"/>
  </keyframe>
</mujoco>
"""


def dump(path, steps=0):
  """The C API's state after `steps` steps and a forward pass (moduco dump, %.17g numbers)."""
  out = subprocess.run([CLI, "dump", path, "--steps", str(steps)], check=True,
                       capture_output=True, text=True).stdout
  return json.loads(out)


@pytest.fixture(params=MODELS, ids=lambda p: os.path.basename(p))
def model_path(request):
  return request.param


@pytest.fixture
def every():
  import moduco
  m = moduco.MjModel.from_xml_string(EVERY_KIND)
  return m, moduco.MjData(m)
