// Moduco bench: SVG bar chart of the median steps/s with min..max whiskers and the ratio to each
// model's baseline arm (blue Moduco, orange MuJoCo; diverged arms in red).
#include <stdio.h>

#include "bench.h"


// escape &, <, > for SVG text
static void svgText(FILE* f, const char* s) {
  for (; *s; s++) {
    if (*s == '&') {
      fputs("&amp;", f);
    } else if (*s == '<') {
      fputs("&lt;", f);
    } else if (*s == '>') {
      fputs("&gt;", f);
    } else {
      fputc(*s, f);
    }
  }
}


void mcb_printPlot(const mcbBench* b, FILE* f) {
  double vmax = 0;
  for (int i = 0; i < b->narm; i++) {
    if (!b->arm[i].r.error && b->arm[i].r.max > vmax) {
      vmax = b->arm[i].r.max;
    }
  }
  vmax = vmax > 0 ? vmax : 1;
  int bar = 22, gap = 8, left = 330, width = 460, top = 40;
  int height = top + b->narm * (bar + gap) + 40;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "font-family=\"sans-serif\" font-size=\"12\">\n", left + width + 160, height);
  fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  fprintf(f, "<text x=\"10\" y=\"22\" font-size=\"15\">moduco bench: steps/s (median, "
          "whiskers min..max)</text>\n");
  for (int i = 0; i < b->narm; i++) {
    const mcbResult* r = &b->arm[i].r;
    int y = top + i * (bar + gap);
    char label[512];
    snprintf(label, sizeof(label), "%d %s %s %s/%s", i, mcb_engineName(r->engine),
             bench_baseName(r->file), r->solver[0] ? r->solver : "-",
             r->integrator[0] ? r->integrator : "-");
    fprintf(f, "<text x=\"10\" y=\"%d\">", y + bar - 6);
    svgText(f, label);
    fprintf(f, "</text>\n");
    if (r->error) {
      fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#b00\">failed</text>\n", left, y + bar - 6);
      continue;
    }
    const char* color = r->diverged ? "#c03030" :
                        (r->engine == mcbENGINE_MODUCO ? "#3a76c4" : "#d08a2c");
    double w = width * r->median / vmax;
    double x0 = left + width * r->min / vmax, x1 = left + width * r->max / vmax;
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", left, y,
            w, bar, color);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>\n", x0,
            y + bar / 2, x1, y + bar / 2);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\">%.0f", left + w + 6 > x1 + 6 ? left + w + 6 : x1 + 6,
            y + bar - 6, r->median);
    if (r->has_ratio) {
      fprintf(f, " (x%.2f vs %d)", r->ratio, r->baseline);
    }
    fprintf(f, "%s</text>\n", r->diverged ? " DIVERGED" : "");
  }
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", left, top - 4,
          left, height - 30);
  fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\">blue: Moduco, orange: MuJoCo 2.2.2, red: "
          "diverged; (xR vs B): ratio to the model's baseline arm B</text>\n</svg>\n", left,
          height - 12);
}
