"""Steps per second of 1 vs 2 Python threads stepping separate MjData (the GIL is released in
mj_step), the CPU time each thread got, and a check that both give bitwise the same states.

    PYTHONPATH=build/python /usr/bin/python3 sdk/examples/python/threads_speedup.py [MODEL] [STEPS]

On a shared machine the wall-clock speedup depends on what else runs, so two load-independent
figures are printed too: the CPU seconds of both threads per wall second (time.thread_time;
with the GIL held across mj_step it could not exceed 1.0; on a loaded machine it stays low either
way), and the share of the wall time during which both threads were inside an mj_step call at
once (with the GIL held, calls could overlap only by a thread switch between a call's start
stamp and the call itself, a few percent at most; near 100% shows the calls run concurrently).
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


def work(d, cpu, k, calls=None):
  t0 = time.thread_time()
  for _ in range(steps // 100):
    a = time.perf_counter()
    mujoco.mj_step(m, d, nstep=100)
    if calls is not None:
      calls.append((a, time.perf_counter()))
  cpu[k] = time.thread_time() - t0


def both_inside(a, b):
  """Seconds during which a call of list a and a call of list b ran at once (each list sorted
  and non-overlapping)."""
  total, i, j = 0.0, 0, 0
  while i < len(a) and j < len(b):
    total += max(0.0, min(a[i][1], b[j][1]) - max(a[i][0], b[j][0]))
    if a[i][1] < b[j][1]:
      i += 1
    else:
      j += 1
  return total


def timed(nthread):
  datas = [mujoco.MjData(m) for _ in range(nthread)]
  cpu = [0.0] * nthread
  calls = [[] for _ in range(nthread)]
  threads = [threading.Thread(target=work, args=(d, cpu, k, calls[k]))
             for k, d in enumerate(datas)]
  t0 = time.perf_counter()
  for t in threads:
    t.start()
  for t in threads:
    t.join()
  wall = time.perf_counter() - t0
  inside = both_inside(calls[0], calls[1]) / wall if nthread == 2 else 0.0
  return nthread * steps / wall, datas, cpu, wall, inside


runs1 = [timed(1) for _ in range(3)]
runs2 = [timed(2) for _ in range(3)]
best1 = max(r[0] for r in runs1)
best2 = max(r[0] for r in runs2)
top = max(runs2, key=lambda r: r[0])
overlap = sum(top[2]) / top[3]        # CPU seconds of both threads per wall second
ref = mujoco.MjData(m)
work(ref, [0.0], 0)
same = all(np.array_equal(d.qpos, ref.qpos) and np.array_equal(d.qvel, ref.qvel)
           for _, ds, _, _, _ in runs2 for d in ds)
print(f"{os.path.basename(model_path)}, {steps} steps per thread, best of 3:")
print(f"  1 thread:  {best1:,.0f} steps/s (CPU {runs1[0][2][0]:.2f} s)")
print(f"  2 threads: {best2:,.0f} steps/s, speedup {best2 / best1:.2f}x; thread CPU "
      f"{top[2][0]:.2f} s + {top[2][1]:.2f} s in {top[3]:.2f} s wall (CPU/wall {overlap:.2f}); "
      f"both threads inside mj_step {100 * top[4]:.0f}% of the wall time")
print(f"  load average {os.getloadavg()[0]:.1f}; bitwise equal to sequential: {same}")
