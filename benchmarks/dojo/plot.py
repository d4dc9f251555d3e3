#!/usr/bin/env python3
"""SVG line plots of the Dojo experiments' series (docs/dojo.md), standard library only.

    MODUCO_DOJO_CSV=DIR moduco-bench-dojo stability MODEL      (and convergence MODEL...)
    python3 benchmarks/dojo/plot.py DIR OUTDIR

stability-NAME.csv (solver,rate,t,height) gives OUTDIR/dojo-stability-NAME.svg: root height over
time, one panel per solver, one line per rate. convergence-NAME.csv (iteration,r_vio,kappa_vio,
alpha,cond) gives OUTDIR/dojo-convergence-NAME.svg: r_vio, kappa_vio and the condition number per
iteration on a log scale. cone-box.csv (solver,angle,along,lateral) gives OUTDIR/dojo-cone-box.svg:
the sliding box's lateral drift against its distance along the launch direction, per solver.
"""
import csv
import math
import os
import sys

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f"]
W, H, PAD = 420, 260, 48


def esc(text):
  return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def panel(x0, y0, title, series, xlabel, ylabel, logy=False):
  """One plot at (x0, y0): series is [(label, [(x, y), ...]), ...]; returns SVG text."""
  pts = [p for _, s in series for p in s if not logy or p[1] > 0]
  if not pts:
    return ""
  fy = (lambda v: math.log10(v)) if logy else (lambda v: v)
  xs = [p[0] for p in pts]
  ys = [fy(p[1]) for p in pts]
  xmin, xmax = min(xs), max(xs)
  ymin, ymax = min(ys), max(ys)
  if logy:
    ymin, ymax = math.floor(ymin), math.ceil(ymax)
  if ymax == ymin:
    ymax = ymin + 1
  if xmax == xmin:
    xmax = xmin + 1

  def sx(v):
    return x0 + PAD + (v - xmin) / (xmax - xmin) * (W - 1.5 * PAD)

  def sy(v):
    return y0 + H - PAD + (ymin - v) / (ymax - ymin) * (H - 1.6 * PAD)

  out = [f'<text x="{x0 + W / 2}" y="{y0 + 16}" text-anchor="middle" font-size="13">'
         f'{esc(title)}</text>',
         f'<rect x="{sx(xmin)}" y="{sy(ymax)}" width="{sx(xmax) - sx(xmin)}" '
         f'height="{sy(ymin) - sy(ymax)}" fill="none" stroke="#999"/>']
  for k in range(5):
    v = ymin + (ymax - ymin) * k / 4
    label = f"1e{v:.0f}" if logy else f"{v:.3g}"
    out.append(f'<text x="{sx(xmin) - 4}" y="{sy(v) + 4}" text-anchor="end" font-size="10">'
               f'{label}</text>')
    u = xmin + (xmax - xmin) * k / 4
    out.append(f'<text x="{sx(u)}" y="{sy(ymin) + 14}" text-anchor="middle" font-size="10">'
               f'{u:.3g}</text>')
  out.append(f'<text x="{x0 + W / 2}" y="{y0 + H - 8}" text-anchor="middle" font-size="11">'
             f'{esc(xlabel)}</text>')
  out.append(f'<text x="{x0 + 12}" y="{y0 + H / 2}" font-size="11" transform="rotate(-90 '
             f'{x0 + 12} {y0 + H / 2})" text-anchor="middle">{esc(ylabel)}</text>')
  for i, (label, s) in enumerate(series):
    s = [p for p in s if not logy or p[1] > 0]
    if not s:
      continue
    color = COLORS[i % len(COLORS)]
    path = " ".join(f"{sx(x):.1f},{sy(fy(y)):.1f}" for x, y in s)
    out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="1.4"/>')
    out.append(f'<text x="{sx(xmax) - 4}" y="{sy(ymax) + 14 + 13 * i}" text-anchor="end" '
               f'font-size="10" fill="{color}">{esc(label)}</text>')
  return "\n".join(out)


def svg(panels, ncol):
  nrow = (len(panels) + ncol - 1) // ncol
  body = "\n".join(p for p in panels)
  return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{W * ncol}" height="{H * nrow}" '
          f'font-family="sans-serif">\n<rect width="100%" height="100%" fill="white"/>\n'
          f'{body}\n</svg>\n')


def stability(path, name):
  rows = list(csv.DictReader(open(path)))
  solvers = list(dict.fromkeys(r["solver"] for r in rows))
  panels = []
  for j, solver in enumerate(solvers):
    series = []
    for rate in dict.fromkeys(r["rate"] for r in rows if r["solver"] == solver):
      s = [(float(r["t"]), float(r["height"])) for r in rows
           if r["solver"] == solver and r["rate"] == rate]
      series.append((f"{rate} Hz", s))
    panels.append(panel(j * W, 0, f"{name}: {solver}", series, "time (s)", "root height (m)"))
  return svg(panels, len(panels))


def convergence(path, name):
  rows = list(csv.DictReader(open(path)))
  it = [int(r["iteration"]) for r in rows]
  series = [(k, list(zip(it, [float(r[k]) for r in rows]))) for k in ("r_vio", "kappa_vio")]
  cond = [("cond_1(K)", list(zip(it, [float(r["cond"]) for r in rows])))]
  return svg([panel(0, 0, f"{name}: residuals of the slowest step", series, "iteration",
                    "violation", logy=True),
              panel(W, 0, f"{name}: Newton matrix", cond, "iteration", "condition number",
                    logy=True)], 2)


def cone(path, name):
  rows = list(csv.DictReader(open(path)))
  panels = []
  for j, angle in enumerate(("30", "45")):
    series = []
    for solver in dict.fromkeys(r["solver"] for r in rows):
      s = [(float(r["along"]), 1e3 * float(r["lateral"])) for r in rows
           if r["solver"] == solver and r["angle"] == angle]
      series.append((solver, s))
    panels.append(panel(j * W, 0, f"{name} launched at {angle} deg", series,
                        "distance along the launch direction (m)", "lateral drift (mm)"))
  return svg(panels, 2)


KINDS = {"stability": stability, "convergence": convergence, "cone": cone}


def main():
  if len(sys.argv) != 3:
    sys.exit("usage: plot.py CSV_DIR OUT_DIR")
  src, dst = sys.argv[1], sys.argv[2]
  made = 0
  for f in sorted(os.listdir(src)):
    kind, _, rest = f.partition("-")
    if not f.endswith(".csv") or kind not in KINDS:
      continue
    name = rest[:-4]
    text = KINDS[kind](os.path.join(src, f), name)
    out = os.path.join(dst, f"dojo-{kind}-{name}.svg")
    with open(out, "w") as fh:
      fh.write(text)
    print(out)
    made += 1
  if not made:
    sys.exit(f"plot.py: no cone-, stability- or convergence-*.csv in {src}")


if __name__ == "__main__":
  main()
