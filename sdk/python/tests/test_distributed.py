"""moduco.distributed on a LocalCluster of 2 worker processes on loopback: bitwise identical
to a local rollout, input order kept, the model compiled once per worker."""

import os

import numpy as np
import pytest

import moduco as mujoco
import moduco.distributed

import distributed
from conftest import SOURCE

HUMANOID = os.path.join(SOURCE, "models", "humanoid.xml")


@pytest.fixture(scope="module")
def client():
  cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     host="127.0.0.1", dashboard_address=":0")
  c = distributed.Client(cluster)
  yield c
  c.close()
  cluster.close()


def inputs(m, nroll, nstep):
  ns = mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS)
  d = mujoco.MjData(m)
  x0 = np.zeros((nroll, ns))
  for r in range(nroll):
    mujoco.mj_resetData(m, d)
    d.qvel = 0.05 * r
    mujoco.mj_getState(m, d, x0[r], mujoco.mjtState.mjSTATE_FULLPHYSICS)
  return x0, np.random.default_rng(1).uniform(-1, 1, (nroll, nstep, m.nu))


def test_dask_rollout_is_bitwise_the_local_one(client):
  m = mujoco.MjModel.from_xml_path(HUMANOID)
  x0, ctrl = inputs(m, 10, 40)
  local = mujoco.rollout.rollout(m, mujoco.MjData(m), x0, ctrl)
  remote = moduco.distributed.rollout(client, HUMANOID, x0, ctrl, chunk_size=3)
  assert np.array_equal(remote[0], local[0]) and np.array_equal(remote[1], local[1])
  # again, from XML text: compiled once more per worker, then cached
  xml = open(HUMANOID).read()
  for _ in range(2):
    text = moduco.distributed.rollout(client, xml, x0, ctrl)
    assert np.array_equal(text[0], local[0])
  counts = client.run(moduco.distributed.compile_count)
  assert len(counts) == 2 and all(n <= 2 for n in counts.values()), counts


def test_dask_rollout_arguments(client):
  m = mujoco.MjModel.from_xml_path(HUMANOID)
  x0, ctrl = inputs(m, 2, 3)
  with pytest.raises(ValueError):
    moduco.distributed.rollout(client, "/no/such/model.xml", x0, ctrl)
  with pytest.raises(TypeError):
    moduco.distributed.rollout(client, m, x0, ctrl)
  with pytest.raises(ValueError):
    moduco.distributed.rollout(client, HUMANOID, x0[0], ctrl)
  with pytest.raises(ValueError):
    moduco.distributed.rollout(client, HUMANOID, x0)
  with pytest.raises(ValueError):
    moduco.distributed.rollout(client, HUMANOID, x0, ctrl, chunk_size=0)
