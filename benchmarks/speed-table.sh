#!/usr/bin/env bash
# The speed table of issue 15: single-thread steps/s of Moduco against MuJoCo 2.2.2, in one run,
# on the twelve models of that issue, whole step and per stage.
#
#   benchmarks/speed-table.sh [--build DIR] [--out DIR] [--rounds K] [--repeat R] [--pin CPU]
#                             [--quick] [--filter TEXT] [--controls zero|centre]
#
# Every round runs each model once through 'moduco bench MODEL --reference mujoco --profile':
# both engines in one process, R interleaved timed repeats per arm (Moduco, MuJoCo, Moduco, ...),
# model-default solver and integrator, zero controls as the issue measured (every ctrl exactly 0,
# 'moduco bench --ctrlzero'; --controls centre holds every limited actuator at the middle of its
# ctrlrange instead, 'moduco bench --ctrlnoise 0', which is what this table ran before session 8
# while its header said zero controls), the issue's step counts (4000 for the
# humanoids and quadrupeds, 300 for 22_humanoids and humanoid100, 20000 for arm26 and
# slider_crank, 2000 for the Menagerie scenes). A model's ratio in one round is the median of its
# paired per-repeat ratios; the table gives the median over the K rounds and their min..max (the
# machine is shared: ratios measured side by side are what survive the load). --pin runs every
# bench under 'taskset -c CPU'. Output in OUT: round-K-MODEL.json, speed.md (the table, the
# per-stage table and the command), speed.svg (ratio against the target per model).
#
# target: 1.25 x MuJoCo 3.12.1's steps/s, as a ratio to MuJoCo 2.2.2 (last column of issue 15).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=$root/build
out=$root/build/bench-speed
rounds=3
repeat=5
pin=
quick=0
filter=
controls=zero
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --pin) pin=$2; shift 2 ;;
    --filter) filter=$2; shift 2 ;;
    --controls) controls=$2; shift 2 ;;
    --quick) quick=1; rounds=1; repeat=3; shift ;;
    *) echo "usage: $0 [--build DIR] [--out DIR] [--rounds K] [--repeat R] [--pin CPU]" \
         "[--quick] [--filter TEXT] [--controls zero|centre]" >&2; exit 2 ;;
  esac
done
case $controls in
  zero) ctrlopt=(--ctrlzero) ;;
  centre) ctrlopt=(--ctrlnoise 0) ;;
  *) echo "speed-table: --controls takes zero or centre, got '$controls'" >&2; exit 2 ;;
esac
cli=$build/bin/moduco
if [ ! -x "$cli" ]; then
  echo "speed-table: $cli not found; build first (make build, or --build DIR)" >&2
  exit 1
fi
export MODUCO_PLUGIN_PATH=${MODUCO_PLUGIN_PATH:-$build/lib/moduco/plugins}
mj=/usr/share/mujoco/model
corpus=${MODUCO_CORPUS:-$(dirname "$root")/shared/corpus}
[ -d "$corpus" ] || corpus=/work/shared/corpus
mkdir -p "$out"
rm -f "$out"/round-*.json

# name | file | steps | target ratio to MuJoCo 2.2.2
table="humanoid|$mj/humanoid/humanoid.xml|4000|1.71
22_humanoids|$mj/humanoid/22_humanoids.xml|300|2.50
humanoid100|$mj/humanoid100/humanoid100.xml|300|1.81
arm26|$mj/tendon_arm/arm26.xml|20000|1.53
slider_crank|$mj/slider_crank/slider_crank.xml|20000|1.69
dm_quadruped|$corpus/dm_quadruped/quadruped.xml|4000|1.57
gym_ant|$corpus/gym_ant/ant.xml|4000|1.62
gym_humanoid|$corpus/gym_humanoid/humanoid.xml|4000|1.72
anymal_c|$corpus/menagerie_anybotics_anymal_c/scene.xml|2000|2.65
unitree_h1|$corpus/menagerie_unitree_h1/scene.xml|2000|2.07
shadow_hand_right|$corpus/menagerie_shadow_hand_right/scene_right.xml|2000|2.60
franka_panda_2023|$corpus/menagerie_franka_panda_2023/scene.xml|2000|2.31"

taskset=()
if [ -n "$pin" ]; then
  taskset=(taskset -c "$pin")
fi
for r in $(seq 1 "$rounds"); do
  while IFS='|' read -r name file steps target; do
    case $name in *"$filter"*) ;; *) continue ;; esac
    if [ "$quick" = 1 ]; then
      steps=$((steps / 10))
    fi
    echo "[round $r/$rounds] $name ($steps steps x $repeat repeats)" >&2
    "${taskset[@]}" "$cli" bench "$file" --reference mujoco --steps "$steps" --repeat "$repeat" \
      "${ctrlopt[@]}" --accuracy 0 --profile --json "$out/round-$r-$name.json" \
      > "$out/round-$r-$name.txt" 2>&1 || echo "  $name failed: see $out/round-$r-$name.txt" >&2
  done <<< "$table"
done

python3 - "$out" "$rounds" "$repeat" "$pin" "$table" "$controls" <<'PY'
import glob, json, os, statistics, sys
out, rounds, repeat, pin = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
table = [l.split("|") for l in sys.argv[5].splitlines()]
controls = ("zero controls" if sys.argv[6] == "zero" else
            "controls held at the centre of each ctrlrange")
med = statistics.median
rows, stages, bars, machine, date = [], [], [], {}, None
keys = ["pos_kinematics", "pos_inertia", "pos_collision", "pos_make", "velocity", "actuation",
        "acceleration", "constraint", "integrator", "step"]
for name, file, steps, target in table:
    paths = sorted(glob.glob(os.path.join(out, f"round-*-{name}.json")))
    docs = [json.load(open(p)) for p in paths]
    arms = [(d["arms"][0], d["arms"][1]) for d in docs if len(d["arms"]) == 2
            and not d["arms"][0]["error"] and not d["arms"][1]["error"]]
    if not arms:
        if docs:
            rows.append(f"| {name} | | | | | | | {target} | failed |")
        continue
    machine, date = docs[-1]["machine"], docs[-1]["date"]
    mc, mj = arms[-1]
    ratios = [a["ratio_to_mujoco"] for a, _ in arms]
    r, t = med(ratios), float(target)
    sm = med(a["steps_per_second"]["median"] for a, _ in arms)
    sj = med(b["steps_per_second"]["median"] for _, b in arms)
    rows.append(f"| {name} | {mc['nv']} | {mc['nu']} | {sm:,.0f} | {sj:,.0f} | **{r:.2f}** | "
                f"{min(ratios):.2f}..{max(ratios):.2f} | {t:.2f} | {'yes' if r >= t else 'no'} |")
    bars.append((name, r, min(ratios), max(ratios), t))
    prof = lambda arm, k: med(x[arm]["profile_us_per_step"].get(k, 0) or 0 for x in arms)
    cells = []
    for k in keys:
        a, b = prof(0, k), prof(1, k)
        cells.append(f"{a:,.1f} / {b:,.1f}" if k != "integrator" else f"{a:,.1f} / -")
    stages.append(f"| {name} | " + " | ".join(cells) + " |")

m = machine
lines = [f"Date: {date}. Machine: {m.get('cpu')} ({m.get('ncpu')} CPUs, shared), {m.get('os')} "
         f"{m.get('kernel')}, compiler {m.get('compiler')}, Moduco {m.get('moduco_version')}, "
         f"MuJoCo {m.get('mujoco_version')}. {rounds} round(s) x {repeat} interleaved repeats per "
         f"arm{', pinned to CPU ' + pin if pin else ''}; {controls}, model-default solver and "
         "integrator. Ratio: Moduco / MuJoCo 2.2.2 steps/s (median over rounds of each round's "
         "median paired ratio), spread: min..max over rounds.", "",
         "| model | nv | nu | Moduco steps/s | MuJoCo 2.2.2 steps/s | ratio | spread | target "
         "| met |", "|---|---|---|---|---|---|---|---|---|"] + rows
lines += ["", "Per stage, microseconds per step, Moduco / MuJoCo 2.2.2 (median over rounds; "
          "Moduco's kinematics includes the transmissions, MuJoCo 2.2.2 times its dense "
          "actuator moments in velocity and actuation; it has no integrator timer):", "",
          "| model | " + " | ".join(k.replace("pos_", "") for k in keys) + " |",
          "|---|" + "---|" * len(keys)] + stages
open(os.path.join(out, "speed.md"), "w").write("\n".join(lines) + "\n")

# bar chart: ratio per model (bar, with the min..max whisker) and the target (tick)
w, rowh, left, scale = 640, 22, 150, 160
h = 40 + rowh * len(bars)
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
       'font-family="sans-serif" font-size="11">',
       f'<text x="{left}" y="14">Moduco / MuJoCo 2.2.2 steps/s (bar), target (red tick)</text>']
for i, (name, r, lo, hi, t) in enumerate(bars):
    y = 26 + rowh * i
    col = "#4a8" if r >= t else "#c84"
    svg += [f'<text x="{left - 6}" y="{y + 14}" text-anchor="end">{name}</text>',
            f'<rect x="{left}" y="{y + 3}" width="{r * scale:.1f}" height="14" fill="{col}"/>',
            f'<line x1="{left + lo * scale:.1f}" x2="{left + hi * scale:.1f}" y1="{y + 10}" '
            f'y2="{y + 10}" stroke="#000"/>',
            f'<line x1="{left + t * scale:.1f}" x2="{left + t * scale:.1f}" y1="{y}" '
            f'y2="{y + 20}" stroke="#d00" stroke-width="2"/>',
            f'<text x="{left + max(r, t) * scale + 6:.1f}" y="{y + 14}">{r:.2f} / {t:.2f}</text>']
for x in (1, 2, 3):
    svg.append(f'<line x1="{left + x * scale}" x2="{left + x * scale}" y1="20" y2="{h}" '
               'stroke="#ccc" stroke-dasharray="2,2"/>')
svg.append("</svg>")
open(os.path.join(out, "speed.svg"), "w").write("\n".join(svg) + "\n")
PY
cat "$out/speed.md"
