"""The GIL is released while stepping: Python threads stepping separate MjData give bitwise the
results of stepping them one after the other. (The speedup is measured by
sdk/examples/python/threads_speedup.py, not asserted here.)"""

import os
import threading
import time

import numpy as np

import moduco as mujoco
from conftest import SOURCE

HUMANOID = os.path.join(SOURCE, "models", "humanoid.xml")


def run(m, d, n, seed):
  rng = np.random.default_rng(seed)
  for _ in range(n):
    d.ctrl = rng.uniform(-0.5, 0.5, m.nu)
    mujoco.mj_step(m, d, nstep=5)


def test_threads_equal_sequential_bitwise():
  m = mujoco.MjModel.from_xml_path(HUMANOID)
  seq = [mujoco.MjData(m) for _ in range(2)]
  for i, d in enumerate(seq):
    run(m, d, 60, i)
  par = [mujoco.MjData(m) for _ in range(2)]
  threads = [threading.Thread(target=run, args=(m, d, 60, i)) for i, d in enumerate(par)]
  for t in threads:
    t.start()
  for t in threads:
    t.join()
  for a, b in zip(seq, par):
    assert a.time == b.time
    assert np.array_equal(a.qpos, b.qpos) and np.array_equal(a.qvel, b.qvel)
    assert np.array_equal(a.qacc, b.qacc) and a.ncon == b.ncon


def progress_during_step(m, d, nstep):
  """Time stamps a pure-Python thread records in the middle third of one mj_step call, and the
  CPU seconds that thread got during the call."""
  done = threading.Event()
  stamps = []
  cpu = []

  def counter():
    c0 = time.thread_time()
    while not done.is_set():
      stamps.append(time.perf_counter())
    cpu.append(time.thread_time() - c0)

  t = threading.Thread(target=counter)
  t.start()
  try:
    time.sleep(0.01)
    start = time.perf_counter()
    mujoco.mj_step(m, d, nstep=nstep)
    end = time.perf_counter()
  finally:
    done.set()
    t.join()
  third = (end - start) / 3
  return sum(1 for s in stamps if start + third < s < end - third), cpu[0]


def test_other_threads_run_while_one_steps():
  """A long mj_step call does not hold the GIL: a pure-Python thread records time stamps in the
  middle of the call (with the GIL held it could record none there). On a loaded machine the
  counter may not be scheduled in one call's middle third, so up to 4 calls of growing length
  are tried; a call that held the GIL would fail all of them."""
  m = mujoco.MjModel.from_xml_path(HUMANOID)
  d = mujoco.MjData(m)
  seen = []
  for nstep in (3000, 6000, 12000, 24000):
    inside, cpu = progress_during_step(m, d, nstep)
    seen.append((nstep, inside, cpu))
    if inside > 0 and cpu > 0:
      break
  assert seen[-1][1] > 0 and seen[-1][2] > 0, seen
