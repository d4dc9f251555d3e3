#!/usr/bin/env python3
"""Which functions take longer on the in-step pool than their instructions say: two arms compared.

On two threads some functions of the step take up to twice the time they take on one thread
with the same instruction count (callgrind): they read cache lines the other core wrote in an
earlier job of the step, and each such read is a cross-core transfer. Wall-clock times cannot
show this on a shared machine (the host's speed drifts by tens of percent between runs). This
script samples both arms with `perf record -e cpu-clock` (no hardware counters needed), the arms
alternated round by round, and divides each function's self samples by the samples of reference
functions whose work is the same in both arms and that read only data of their own (by default
the Newton solver's kernels on an island's gathered matrices): the quotient cancels the host's
drift, and B/A per function says how much of its time arm B saved or lost.

    benchmarks/pool-inflation.py --a BUILD_A --b BUILD_B [--model MODEL] [--rounds 3]
    benchmarks/pool-inflation.py --a build --a-threads 0 --b build      # 1 thread vs 2 threads

An arm is a build directory with bin/moduco and lib/ (its plugins: lib/moduco/plugins); each run
is `moduco run MODEL --steps N --island on [--threads T]` (T 0: no pool), RUNS runs an arm per
round. Printed: the reference samples and all samples over them per arm, then per function (the
largest first) the samples of each arm, their quotients and B/A. Functions of one arm only (the
pool's own: helperMain, drain, the task functions) show B/A 0 or no A.
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

REFERENCE = ("mcs_sparseFactor", "mcs_sparseUpdate", "mcs_primal")


def sample(build, threads, model, steps, runs, out):
    """perf record RUNS runs of moduco in BUILD; returns {symbol: self samples}"""
    exe = os.path.join(build, "bin", "moduco")
    if not os.access(exe, os.X_OK):
        sys.exit(f"pool-inflation: no {exe}")
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(build, "lib"),
               MODUCO_PLUGIN_PATH=os.path.join(build, "lib", "moduco", "plugins"))
    run = [exe, "run", model, "--steps", str(steps), "--island", "on"]
    if threads > 0:
        run += ["--threads", str(threads)]
    loop = " ; ".join([" ".join(run) + " >/dev/null 2>&1"] * runs)
    rec = subprocess.run(["perf", "record", "-e", "cpu-clock", "-F", "10000", "-o", out, "--",
                          "sh", "-c", loop], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    if rec.returncode != 0:
        sys.exit(f"pool-inflation: perf record failed: {rec.stderr.strip()[-300:]}")
    rep = subprocess.run(["perf", "report", "-i", out, "--no-children", "--sort", "sym", "-n",
                          "-q"], capture_output=True, text=True)
    if rep.returncode != 0:
        sys.exit(f"pool-inflation: perf report failed: {rep.stderr.strip()[-300:]}")
    counts = collections.Counter()
    for line in rep.stdout.splitlines():
        parts = line.split()
        # "  12.34%  567  [.] symbol"
        if len(parts) >= 4 and parts[1].isdigit():
            counts[parts[3]] += int(parts[1])
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="build directory of arm A")
    ap.add_argument("--b", help="build directory of arm B (default: A's)")
    ap.add_argument("--a-threads", type=int, default=2, help="arm A's pool threads (0: none)")
    ap.add_argument("--b-threads", type=int, default=2, help="arm B's pool threads (0: none)")
    ap.add_argument("--model", default="/usr/share/mujoco/model/humanoid100/humanoid100.xml")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--runs", type=int, default=5, help="runs of an arm per round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--ref", default=",".join(REFERENCE),
                    help="reference functions (comma-separated): same work in both arms")
    a = ap.parse_args()
    if a.steps < 1 or a.runs < 1 or a.rounds < 1 or a.a_threads < 0 or a.b_threads < 0:
        sys.exit("pool-inflation: --steps, --runs and --rounds must be positive, threads >= 0")
    arms = [(a.a, a.a_threads), (a.b or a.a, a.b_threads)]
    total = [collections.Counter(), collections.Counter()]
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.rounds):
            for k, (build, threads) in enumerate(arms):
                total[k] += sample(build, threads, a.model, a.steps, a.runs,
                                   os.path.join(tmp, f"{k}-{r}.data"))
    ref = [sum(t[f] for f in a.ref.split(",")) for t in total]
    if min(ref) == 0:
        sys.exit("pool-inflation: no samples of the reference functions " + a.ref +
                 " (a model without constraint rows, or another solver?)")
    allq = [sum(t.values()) / r for t, r in zip(total, ref)]
    print(f"model {a.model}; A {arms[0][0]} ({arms[0][1]} threads), B {arms[1][0]} "
          f"({arms[1][1]} threads); {a.rounds} rounds of {a.runs} runs of {a.steps} steps")
    print(f"reference samples A {ref[0]} B {ref[1]}; all samples / reference A {allq[0]:.2f} "
          f"B {allq[1]:.2f} (B/A {allq[1] / allq[0]:.3f})")
    print(f"\n{'function':40s} {'A':>7s} {'B':>7s} {'A/ref':>7s} {'B/ref':>7s} {'B/A':>6s}")
    keys = sorted(set(total[0]) | set(total[1]),
                  key=lambda f: -max(total[0][f] / ref[0], total[1][f] / ref[1]))
    for f in keys[:a.top]:
        qa, qb = total[0][f] / ref[0], total[1][f] / ref[1]
        ratio = f"{qb / qa:6.2f}" if qa else "     -"
        print(f"{f[:40]:40s} {total[0][f]:7d} {total[1][f]:7d} {qa:7.3f} {qb:7.3f} {ratio}")


if __name__ == "__main__":
    main()
