#!/usr/bin/env python3
"""SVG of moduco-fig4's table: d Delta / d f against f (log scale), finite differences and the
implicit gradients at each kappa.  Usage: moduco-fig4 | fig4_plot.py > docs/derivatives-fig4.svg"""
import math
import sys

rows = []
for line in sys.stdin:
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    try:
        rows.append([float(c) for c in cells])
    except ValueError:
        continue  # header and separator
if not rows:
    sys.exit("fig4_plot.py: no table rows on stdin")

W, H, L, R, T, B = 640, 400, 70, 150, 20, 50
lo, hi = -11.0, -1.0
fmax = max(r[0] for r in rows)


def px(f):
    return L + (W - L - R) * f / fmax


def py(g):
    v = math.log10(max(abs(g), 10 ** lo))
    return T + (H - T - B) * (hi - v) / (hi - lo)


series = [(3, "finite differences", "#000000"), (5, "implicit kappa 1e-4", "#c0208f"),
          (6, "implicit kappa 1e-6", "#2060c0"), (7, "implicit kappa 1e-8", "#20a040")]
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif"'
       ' font-size="12">', f'<rect width="{W}" height="{H}" fill="white"/>']
for e in range(int(lo), int(hi) + 1, 2):
    y = py(10 ** e)
    out.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" y2="{y:.1f}" stroke="#ddd"/>')
    out.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">1e{e}</text>')
for f in range(0, int(fmax) + 1, 5):
    x = px(f)
    out.append(f'<text x="{x:.1f}" y="{H - B + 16}" text-anchor="middle">{f}</text>')
out.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">force f (N)</text>')
out.append(f'<text x="16" y="{(T + H - B) / 2}" transform="rotate(-90 16 {(T + H - B) / 2})" '
           'text-anchor="middle">d Delta / d f (m/N)</text>')
out.append(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" '
           'stroke="#444"/>')
for k, (col, name, color) in enumerate(series):
    pts = " ".join(f"{px(r[0]):.1f},{py(r[col]):.1f}" for r in rows)
    out.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="1.5"/>')
    y = T + 16 + 18 * k
    out.append(f'<line x1="{W - R + 8}" y1="{y - 4}" x2="{W - R + 28}" y2="{y - 4}" '
               f'stroke="{color}" stroke-width="2"/>')
    out.append(f'<text x="{W - R + 32}" y="{y}">{name}</text>')
out.append("</svg>")
print("\n".join(out))
