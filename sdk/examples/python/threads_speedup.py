"""Steps per second of 1 vs 2 Python threads stepping separate MjData (the GIL is released in
mj_step), and a check that both give bitwise the same states.

    PYTHONPATH=build/python /usr/bin/python3 sdk/examples/python/threads_speedup.py [MODEL] [STEPS]
"""

import os
import sys
import threading
import time

import numpy as np

import moduco as mujoco

HERE = os.path.dirname(os.path.abspath(__file__))
model_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "..", "models",
                                                                "humanoid.xml")
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
m = mujoco.MjModel.from_xml_path(model_path)


def work(d):
  for _ in range(steps // 100):
    mujoco.mj_step(m, d, nstep=100)


def timed(nthread):
  datas = [mujoco.MjData(m) for _ in range(nthread)]
  threads = [threading.Thread(target=work, args=(d,)) for d in datas]
  t0, c0 = time.perf_counter(), time.process_time()
  for t in threads:
    t.start()
  for t in threads:
    t.join()
  wall, cpu = time.perf_counter() - t0, time.process_time() - c0
  return nthread * steps / wall, datas, cpu / wall


best1 = max(timed(1)[0] for _ in range(3))
runs2 = [timed(2) for _ in range(3)]
best2 = max(r[0] for r in runs2)
busy = max(r[2] for r in runs2)     # CPU seconds per wall second: ~2 when both threads ran at once
ref = mujoco.MjData(m)
work(ref)
same = all(np.array_equal(d.qpos, ref.qpos) and np.array_equal(d.qvel, ref.qvel)
           for _, ds, _ in runs2 for d in ds)
print(f"{os.path.basename(model_path)}: 1 thread {best1:,.0f} steps/s, 2 threads {best2:,.0f} "
      f"steps/s, speedup {best2 / best1:.2f}x (best of 3), CPU/wall with 2 threads {busy:.2f}, "
      f"bitwise equal to sequential: {same}")
