#!/usr/bin/env python3
"""Where the two threads of the in-step pool wait: a perf sampling run read per job.

The wall clock of a two-thread step is noisy on a shared machine and instruction counts
(callgrind) cannot see waiting. A cpu-clock sampling run can: every sample says which function a
thread was in at that moment. Pairing each of the caller's samples with the helper thread's
nearest sample (within a window) tells whether the helper was idle (in the pool's wait) while
the caller worked, and where the caller was then. Frame pointers make the stacks whole:

    cmake -S . -B /tmp/fp -DCMAKE_BUILD_TYPE=Release \\
      -DCMAKE_C_FLAGS="-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
    cmake --build /tmp/fp -j2
    perf record -e cpu-clock -F 20000 -g -o /tmp/h.data -- \\
      /tmp/fp/bin/moduco run MODEL --steps 3000 --island on --threads 2
    benchmarks/pool-idle.py /tmp/h.data [--depth 3] [--top 40] [--window 30e-6]

Printed: the share of the caller's mc_step samples during which the helper was idle and during
which the caller itself waited at a job's join; the caller's stacks (innermost first) at the
helper's idle moments; and per job (the task function the pool ran, `serial:f` for the caller's
own code in f, `WAIT<f` for the caller waiting at the join of a job f posted) the caller's share,
the caller's share with the helper idle, and the helper's own share in that job. Samples are
about 50 us apart on each thread: compare runs of the same length and repeat.
"""
import argparse
import bisect
import collections
import subprocess
import sys

# the helper's frames while it waits for a job (user and kernel side of the pool's spin and sleep)
IDLE = ("helperMain", "awaitJob", "__schedule", "schedule", "do_sched_yield", "__sched_yield",
        "sched_yield", "__x64_sys_sched_yield", "finish_task_switch", "entry_SYSCALL",
        "do_syscall_64", "syscall_exit", "futex", "__futex", "pthread_cond_wait")
# the caller's functions a serial sample is attributed to (the first one found, innermost first)
SERIAL = ("mci_makeConstraint", "mc_solveIslands", "fwdPosition", "mc_fwdConstraint", "eulerStep",
          "mc_fwdVelocity", "mc_forwardSkip", "mc_step")


def read_samples(path):
    """(tid, time, [frames innermost first]) of every sample, frames without offsets"""
    proc = subprocess.Popen(["perf", "script", "-i", path, "-F", "tid,time,ip,sym"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    samples, cur = [], None
    for line in proc.stdout:
        line = line.rstrip("\n")
        if not line.strip():
            if cur:
                samples.append(cur)
            cur = None
        elif not line.startswith("\t"):
            head = line.split()
            cur = (int(head[0]), float(head[1].rstrip(":")), [])
        elif cur:
            parts = line.strip().split(None, 1)
            cur[2].append((parts[1] if len(parts) > 1 else parts[0]).split("+")[0])
    if cur:
        samples.append(cur)
    if proc.wait() != 0 or not samples:
        sys.exit(f"pool-idle: perf script could not read {path}")
    return samples


def is_idle(stack):
    return bool(stack) and stack[0].startswith(IDLE)


def job_of(stack):
    """the pool task the sample is in, or WAIT<poster, or serial:function"""
    for k, frame in enumerate(stack):
        if frame.startswith("drain") and k > 0:
            return stack[k - 1]
        if frame.startswith("mci_poolRun"):
            return "WAIT<" + (stack[k + 1] if k + 1 < len(stack) else "?")
    return "serial:" + next((f for f in stack if f in SERIAL), "?")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", help="perf.data of a two-thread moduco run")
    ap.add_argument("--depth", type=int, default=3, help="frames shown per caller stack")
    ap.add_argument("--top", type=int, default=40, help="caller stacks shown")
    ap.add_argument("--window", type=float, default=30e-6,
                    help="pair samples of the two threads this close in time (s)")
    a = ap.parse_args()

    samples = read_samples(a.data)
    busiest = collections.Counter(s[0] for s in samples).most_common(2)
    if len(busiest) < 2:
        sys.exit("pool-idle: one thread only; run with --threads 2")
    caller, helper = sorted(t for t, _ in busiest)   # the caller starts first: the lower tid
    hsamples = [(t, is_idle(st)) for tid, t, st in samples if tid == helper]
    htimes = [t for t, _ in hsamples]

    stacks, jobs, jobs_idle, helper_jobs = (collections.Counter() for _ in range(4))
    matched = idle = waiting = 0
    for tid, t, st in samples:
        if tid == helper and any(f.startswith("drain") for f in st):
            helper_jobs[job_of(st)] += 1
        if tid != caller or "mc_step" not in st:
            continue
        i = bisect.bisect_left(htimes, t)
        near = [j for j in (i - 1, i) if 0 <= j < len(htimes) and abs(htimes[j] - t) < a.window]
        if not near:
            continue
        j = min(near, key=lambda j: abs(htimes[j] - t))
        matched += 1
        job = job_of(st)
        jobs[job] += 1
        waiting += job.startswith("WAIT<")
        if hsamples[j][1]:
            idle += 1
            jobs_idle[job] += 1
            stacks[" < ".join(st[:a.depth])] += 1
    if not matched:
        sys.exit("pool-idle: no caller sample in mc_step paired with a helper sample")

    pct = lambda c: 100.0 * c / matched
    print(f"caller samples in mc_step paired: {matched}; helper idle during {pct(idle):.1f} %; "
          f"caller waiting at a join {pct(waiting):.1f} %")
    print("\ncaller's stacks while the helper idles (% of the caller's step samples)")
    for key, c in stacks.most_common(a.top):
        print(f"{pct(c):6.2f} {key}")
    print(f"\n{'job':44s} {'caller':>7s} {'+idle':>7s} {'helper':>7s}")
    for key, c in jobs.most_common():
        if pct(c) >= 0.05:
            print(f"{key[:44]:44s} {pct(c):7.2f} {pct(jobs_idle[key]):7.2f} "
                  f"{pct(helper_jobs[key]):7.2f}")


if __name__ == "__main__":
    main()
