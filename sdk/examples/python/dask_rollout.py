"""Throughput of batch rollouts: one local process (the C rollout on 1 thread) vs a Dask
LocalCluster of 2 worker processes on loopback, and a check that both are bitwise equal.

    PYTHONPATH=build/python /usr/bin/python3 sdk/examples/python/dask_rollout.py \
        [MODEL] [NROLL] [NSTEP]

To use a real cluster, replace the LocalCluster by Client("tcp://SCHEDULER:8786") (workers
need the moduco package, and the model file at the same path, or pass the XML text).
"""

import os
import sys
import time

import numpy as np

import moduco
import moduco.distributed

HERE = os.path.dirname(os.path.abspath(__file__))
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "..", "models",
                                                          "humanoid.xml")
nroll = int(sys.argv[2]) if len(sys.argv) > 2 else 64
nstep = int(sys.argv[3]) if len(sys.argv) > 3 else 500


def main():
  from dask.distributed import Client, LocalCluster
  m = moduco.MjModel.from_xml_path(path)
  d = moduco.MjData(m)
  ns = moduco.mj_stateSize(m, moduco.mjtState.mjSTATE_FULLPHYSICS)
  x0 = np.zeros((nroll, ns))
  for r in range(nroll):
    moduco.mj_resetData(m, d)
    d.qvel = 0.01 * r
    moduco.mj_getState(m, d, x0[r], moduco.mjtState.mjSTATE_FULLPHYSICS)
  ctrl = np.random.default_rng(0).uniform(-1, 1, (nroll, nstep, m.nu))

  moduco.rollout.rollout(m, d, x0[:2], ctrl[:2])            # warm-up (pool creation)
  t0 = time.perf_counter()
  local = moduco.rollout.rollout(m, d, x0, ctrl)
  t_local = time.perf_counter() - t0

  with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                    dashboard_address=":0") as cluster, Client(cluster) as client:
    moduco.distributed.rollout(client, path, x0[:2], ctrl[:2])   # warm-up (compile per worker)
    t0 = time.perf_counter()
    remote = moduco.distributed.rollout(client, path, x0, ctrl)
    t_dask = time.perf_counter() - t0
  same = np.array_equal(local[0], remote[0]) and np.array_equal(local[1], remote[1])
  steps = nroll * nstep
  print(f"{os.path.basename(path)}, {nroll} rollouts x {nstep} steps: 1 local process "
        f"{steps / t_local:,.0f} steps/s, Dask 2 workers {steps / t_dask:,.0f} steps/s "
        f"({t_local / t_dask:.2f}x), bitwise equal: {same}")


if __name__ == "__main__":
  main()
