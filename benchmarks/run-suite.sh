#!/usr/bin/env bash
# Run the Moduco benchmark suite against MuJoCo 2.2.2 in one run and write a markdown table.
#
#   benchmarks/run-suite.sh [--build DIR] [--out DIR] [--steps N] [--repeat R] [--quick]
#
# Models: the Debian MuJoCo sample models (/usr/share/mujoco/model, those Moduco loads; the others
# are listed as skipped), benchmarks/models/*.xml and models/humanoid.xml. Each model runs in its
# own 'moduco bench MODEL --reference mujoco' (model defaults for solver and integrator; arms
# interleaved, same initial state and controls). Then models/humanoid.xml runs once more with
# --threads 1,2 for the forward-evaluation and rollout scaling. Output: OUT/*.json (one per
# model), OUT/suite.md (the table), OUT/scaling.md. Models with nv > 500 run a twentieth of the steps.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=$root/build
out=$root/build/bench-suite
steps=2000
repeat=5
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --quick) steps=200; repeat=3; shift ;;
    *) echo "usage: $0 [--build DIR] [--out DIR] [--steps N] [--repeat R] [--quick]" >&2; exit 2 ;;
  esac
done
cli=$build/bin/moduco
if [ ! -x "$cli" ]; then
  echo "run-suite: $cli not found; build first (make build, or --build DIR)" >&2
  exit 1
fi
export MODUCO_PLUGIN_PATH=${MODUCO_PLUGIN_PATH:-$build/lib/moduco/plugins}
mkdir -p "$out"
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
p = os.path.join(out, "scaling.json")
lines = ["| engine | threads | forward evals/s | per thread | speedup | rollout steps/s | speedup |",
         "|---|---|---|---|---|---|---|"]
if os.path.exists(p):
    for a in json.load(open(p))["arms"]:
        for t in a.get("threads") or []:
            lines.append("| {} | {} | {:,.0f} | {:,.0f} | {:.2f} | {:,.0f} | {:.2f} |".format(
                a["engine"], t["threads"], t["forward_per_second"],
                t["forward_per_second"] / t["threads"], t["speedup_forward"],
                t["steps_per_second"], t["speedup_steps"]))
open(os.path.join(out, "scaling.md"), "w").write("\n".join(lines) + "\n")
PY
cat "$out/suite.md" "$out/scaling.md"
