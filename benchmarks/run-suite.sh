#!/usr/bin/env bash
# Run the Moduco benchmark suite against MuJoCo 2.2.2 in one run and write a markdown table.
#
#   benchmarks/run-suite.sh [--build DIR] [--out DIR] [--steps N] [--repeat R] [--quick]
#                           [--speed] [--rounds K] [--pin CPU]
#
# --speed runs only the speed table of issue 15 (benchmarks/speed-table.sh: the twelve models of
# that issue with its step counts, zero controls, whole step and per stage, K rounds); without it
# the speed table runs after everything below.
#
# Models: the Debian MuJoCo sample models (/usr/share/mujoco/model, those Moduco loads; the others
# are listed as skipped), benchmarks/models/*.xml and models/humanoid.xml. Each model runs in its
# own 'moduco bench MODEL --reference mujoco' (model defaults for solver and integrator; arms
# interleaved, same initial state and controls). Then models/humanoid.xml and the MuJoCo sample
# humanoid run once more with --threads 1,2 for the forward-evaluation (at recorded contact
# states) and rollout scaling, and the sample humanoid and arm26 once more with every integrator
# (--integrator euler,rk4,implicit,implicitfast; MuJoCo 2.2.2 has no implicitfast, so that arm
# has no reference). Output: OUT/*.json (one per model), OUT/suite.md (the table), OUT/scaling.md,
# OUT/integrators.md. Models with nv > 500 run a twentieth of the steps.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=$root/build
out=$root/build/bench-suite
steps=2000
repeat=5
speed=0
speedargs=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --quick) steps=200; repeat=3; speedargs+=(--quick); shift ;;
    --speed) speed=1; shift ;;
    --rounds|--pin) speedargs+=("$1" "$2"); shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--out DIR] [--steps N] [--repeat R] [--quick]" \
         "[--speed] [--rounds K] [--pin CPU]" >&2; exit 2 ;;
  esac
done
cli=$build/bin/moduco
if [ ! -x "$cli" ]; then
  echo "run-suite: $cli not found; build first (make build, or --build DIR)" >&2
  exit 1
fi
export MODUCO_PLUGIN_PATH=${MODUCO_PLUGIN_PATH:-$build/lib/moduco/plugins}
mkdir -p "$out"
if [ "$speed" = 1 ]; then
  exec "$here/speed-table.sh" --build "$build" --out "$out/speed" "${speedargs[@]}"
fi
rm -f "$out"/*.json

# the model list: Debian samples (not the conformance suite's scratch files), our scenes
models=()
for f in /usr/share/mujoco/model/*/*.xml; do
  case $(basename "$f") in moduco-conf-*) continue ;; esac
  [ -f "$f" ] && models+=("$f")
done
models+=("$here"/models/*.xml "$root/models/humanoid.xml")

# one bench per model; a model that fails to load is kept in its JSON as a failed arm
i=0
for f in "${models[@]}"; do
  i=$((i + 1))
  name=$(printf '%02d-%s' "$i" "$(basename "$(dirname "$f")")-$(basename "$f" .xml)")
  # big models (nv > 500) get a twentieth of the steps so the suite stays within minutes
  nv=$("$cli" compile "$f" 2>/dev/null | awk '$1 == "nv" {print $2}')
  n=$steps
  if [ -n "$nv" ] && [ "$nv" -gt 500 ]; then
    n=$((steps / 20 > 20 ? steps / 20 : 20))
  fi
  echo "[$i/${#models[@]}] $f ($n steps)" >&2
  "$cli" bench "$f" --reference mujoco --steps "$n" --repeat "$repeat" \
    --json "$out/$name.json" > "$out/$name.txt" 2>&1 || true
done

# humanoid thread scaling: rollouts and forward evaluations at recorded (contact) states
"$cli" bench "$root/models/humanoid.xml" --reference mujoco --steps "$steps" --repeat "$repeat" \
  --threads 1,2 --json "$out/scaling.json" > "$out/scaling.txt" 2>&1 || true
sample=/usr/share/mujoco/model/humanoid/humanoid.xml
if [ -f "$sample" ]; then
  "$cli" bench "$sample" --reference mujoco --steps "$steps" --repeat "$repeat" --threads 1,2 \
    --json "$out/scaling-sample.json" > "$out/scaling-sample.txt" 2>&1 || true
fi

# every integrator against MuJoCo's same integrator, one run per model (issue 5)
rm -f "$out"/integrators-*.json
for f in "$sample" /usr/share/mujoco/model/tendon_arm/arm26.xml; do
  [ -f "$f" ] || continue
  "$cli" bench "$f" --integrator euler,rk4,implicit,implicitfast --reference mujoco \
    --steps "$steps" --repeat "$repeat" --json "$out/integrators-$(basename "$f" .xml).json" \
    > "$out/integrators-$(basename "$f" .xml).txt" 2>&1 || true
done

# the tables
python3 - "$out" "$steps" "$repeat" <<'PY'
import glob, json, os, sys
out, steps, repeat = sys.argv[1], sys.argv[2], sys.argv[3]
rows, machine, date = [], None, None
for path in sorted(glob.glob(os.path.join(out, "[0-9][0-9]-*.json"))):
    doc = json.load(open(path))
    machine, date = doc["machine"], doc["date"]
    arms = doc["arms"]
    mc = [a for a in arms if a["engine"] == "moduco"]
    mj = [a for a in arms if a["engine"].startswith("mujoco")]
    a = mc[0]
    name = "/".join(a["model"].split("/")[-2:])
    if a["error"]:
        rows.append(f"| {name} | | | skipped: {a['error'][:70]} | | | | |")
        continue
    j = mj[0] if mj else None
    def fmt(x, p=0):
        return "-" if x is None else f"{x:,.{p}f}"
    jr = j["steps_per_second"]["median"] if j and not j["error"] else None
    ratio = a["ratio_to_mujoco"]
    rows.append("| {} | {} | {}/{} | {} | {} | **{}** | {} / {} | {} / {} |".format(
        name, a["nv"], a["solver"], a["integrator"],
        fmt(a["steps_per_second"]["median"]), fmt(jr), fmt(ratio, 2),
        fmt(a["contacts_per_step"], 1), fmt(j["contacts_per_step"], 1) if jr else "-",
        fmt(a["solver_iterations_mean"], 1), fmt(j["solver_iterations_mean"], 1) if jr else "-"))
m = machine or {}
head = [f"Date: {date}. Machine: {m.get('cpu')} ({m.get('ncpu')} CPUs), {m.get('os')} "
        f"{m.get('kernel')}, Moduco {m.get('moduco_version')}, MuJoCo {m.get('mujoco_version')}. "
        f"{steps} steps x {repeat} interleaved repeats per arm, model-default solver and "
        "integrator, median steps/s.", "",
        "| model | nv | solver/integrator | Moduco steps/s | MuJoCo 2.2.2 steps/s | ratio "
        "| contacts/step M / J | iterations M / J |",
        "|---|---|---|---|---|---|---|---|"]
open(os.path.join(out, "suite.md"), "w").write("\n".join(head + rows) + "\n")

# scaling
lines = ["| model | engine | states: contacts (in contact) | threads | forward evals/s "
         "| per thread | per CPU-second | speedup | rollout steps/s | speedup |",
         "|---|---|---|---|---|---|---|---|---|---|"]
for name in ("scaling.json", "scaling-sample.json"):
    p = os.path.join(out, name)
    if not os.path.exists(p):
        continue
    for a in json.load(open(p))["arms"]:
        for t in a.get("threads") or []:
            cpu = t.get("forward_per_cpu_second")
            fs = a.get("forward_states") or {}
            st = "{:.1f} ({:.0f}%)".format(fs["mean_contacts"], 100 * fs["in_contact"]) \
                if fs.get("mean_contacts") is not None else "-"
            fmt = "| {} | {} | {} | {} | {:,.0f} | {:,.0f} | {} | {:.2f} | {:,.0f} | {:.2f} |"
            lines.append(fmt.format(
                "/".join(a["model"].split("/")[-2:]), a["engine"], st, t["threads"],
                t["forward_per_second"], t["forward_per_second"] / t["threads"],
                f"{cpu:,.0f}" if cpu else "-", t["speedup_forward"],
                t["steps_per_second"], t["speedup_steps"]))
open(os.path.join(out, "scaling.md"), "w").write("\n".join(lines) + "\n")

# integrators: each moduco arm against the MuJoCo arm with the same integrator
lines = ["| model | integrator | Moduco steps/s | MuJoCo 2.2.2 steps/s | ratio | MuJoCo arm "
         "integrator |", "|---|---|---|---|---|---|"]
for p in sorted(glob.glob(os.path.join(out, "integrators-*.json"))):
    arms = json.load(open(p))["arms"]
    for a in arms:
        if a["engine"] != "moduco" or a["error"]:
            continue
        j = [b for b in arms if b["engine"].startswith("mujoco") and not b["error"]
             and b["integrator"].lower() == a["integrator"].lower()]
        jr = j[0]["steps_per_second"]["median"] if j else None
        lines.append("| {} | {} | {:,.0f} | {} | {} | {} |".format(
            os.path.basename(a["model"]), a["integrator"], a["steps_per_second"]["median"],
            f"{jr:,.0f}" if jr else "-",
            f"**{a['ratio_to_mujoco']:.2f}**" if a["ratio_to_mujoco"] else "-",
            j[0]["integrator"] if j else "none (not in MuJoCo 2.2.2)"))
open(os.path.join(out, "integrators.md"), "w").write("\n".join(lines) + "\n")
PY
cat "$out/suite.md" "$out/scaling.md" "$out/integrators.md"

# the speed table of issue 15 (its own models, step counts and rounds)
"$here/speed-table.sh" --build "$build" --out "$out/speed" "${speedargs[@]}"
