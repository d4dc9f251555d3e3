"""moduco.bench runs `moduco bench` and returns its JSON report."""

import os

import pytest

import moduco.bench
from conftest import SOURCE

PENDULUM = os.path.join(SOURCE, "models", "pendulum.xml")


def test_bench_report_has_one_arm_per_solver():
  report = moduco.bench.run(PENDULUM, solver=["newton", "pgs"], steps=40, repeat=1, warmup=0)
  arms = report["arms"]
  assert [a["solver"] for a in arms] == ["newton", "pgs"]
  assert all(a["error"] is None and a["steps_per_second"]["median"] > 0 for a in arms)
  assert arms[0]["ratio_to_baseline"] == 1 and arms[1]["baseline"] == 0
  assert "steps/s" in report["text"]


def test_bench_errors():
  report = moduco.bench.run(PENDULUM, solver=["no-such-solver"], steps=5, repeat=1, warmup=0)
  assert "unknown solver" in report["arms"][0]["error"]     # failures are per arm
  with pytest.raises(ValueError):
    moduco.bench.run(PENDULUM, no_such_flag=3)
  with pytest.raises(ValueError):
    moduco.bench.run([])
