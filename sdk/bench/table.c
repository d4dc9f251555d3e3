// Moduco bench: text tables whose column widths come from their content (long plugin names or
// errors never shift the columns), and the text report made of them.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct BenchTable_ {
  int ncol;
  char align[32];                 // 'l' or 'r' per column
  char** cell;                    // row-major, ncell of them
  int ncell, cap;
};


BenchTable* bench_tableCreate(int ncol) {
  BenchTable* t = calloc(1, sizeof(BenchTable));
  if (t) {
    t->ncol = ncol < 32 ? ncol : 32;
    memset(t->align, 'r', sizeof(t->align));
  }
  return t;
}


void bench_tableAlign(BenchTable* t, const char* align) {
  for (int k = 0; t && align[k] && k < t->ncol; k++) {
    t->align[k] = align[k];
  }
}


// append one cell; rows wrap every ncol cells
void bench_tableCell(BenchTable* t, const char* fmt, ...) {
  if (!t) {
    return;
  }
  if (t->ncell == t->cap) {
    int cap = t->cap ? 2 * t->cap : 64;
    char** c = realloc(t->cell, sizeof(char*) * (size_t)cap);
    if (!c) {
      return;
    }
    t->cell = c;
    t->cap = cap;
  }
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  t->cell[t->ncell++] = strdup(buf);
}


// print with each column as wide as its widest cell (no trailing blanks), then free
void bench_tablePrint(BenchTable* t, FILE* f) {
  if (!t) {
    return;
  }
  int width[32] = {0};
  size_t linecap = 1;
  for (int i = 0; i < t->ncell; i++) {
    int w = t->cell[i] ? (int)strlen(t->cell[i]) : 0;
    width[i % t->ncol] = w > width[i % t->ncol] ? w : width[i % t->ncol];
  }
  for (int k = 0; k < t->ncol; k++) {
    linecap += (size_t)width[k] + 2;
  }
  char* line = malloc(linecap);
  size_t len = 0;
  for (int i = 0; line && i < t->ncell; i++) {
    int k = i % t->ncol;
    const char* s = t->cell[i] ? t->cell[i] : "";
    len += (size_t)snprintf(line + len, linecap - len, t->align[k] == 'l' ? "%-*s" : "%*s",
                            width[k], s);
    if (k == t->ncol - 1 || i == t->ncell - 1) {
      while (len > 0 && line[len - 1] == ' ') {
        len--;
      }
      fprintf(f, "%.*s\n", (int)len, line);
      len = 0;
    } else {
      len += (size_t)snprintf(line + len, linecap - len, "  ");
    }
  }
  for (int i = 0; i < t->ncell; i++) {
    free(t->cell[i]);
  }
  free(line);
  free(t->cell);
  free(t);
}


//---------------------------------- the report ----------------------------------------------------

// a number cell, "-" when not finite
static void numCell(BenchTable* t, const char* fmt, double v) {
  if (isfinite(v)) {
    bench_tableCell(t, fmt, v);
  } else {
    bench_tableCell(t, "%s", isnan(v) ? "-" : (v > 0 ? "inf" : "-inf"));
  }
}


// the status of an arm (ok, DIVERGED, FAILED) and why
static const char* status(const mcbResult* r) {
  return r->error ? "FAILED" : (r->diverged ? "DIVERGED" : "ok");
}


static void noteCell(BenchTable* t, const mcbResult* r) {
  if (r->error) {
    bench_tableCell(t, "%s", r->error);
  } else if (r->diverged) {
    bench_tableCell(t, "%d auto-resets%s%s", r->resets,
                    r->warning[mcWARN_BADCTRL] ? ", bad ctrl" : "",
                    r->nonfinite ? ", non-finite state" : "");
  } else {
    bench_tableCell(t, "%s", "");
  }
}


// the plugin-defined warnings that were raised, compactly: "plugin.name:warning=count, ..."
static void pluginWarningCell(BenchTable* t, const mcbResult* r) {
  char cell[1024] = "";
  size_t len = 0;
  for (int k = 0; k < r->nplugin_warning && len < sizeof(cell); k++) {
    if (r->plugin_warning_count[k] == 0) {
      continue;
    }
    const char* name = r->plugin_warning_name[k];
    const char* colon = strstr(name, ": ");
    int plen = colon ? (int)(colon - name) : (int)strlen(name);
    len += (size_t)snprintf(cell + len, sizeof(cell) - len, "%s%.*s:%s=%d", len ? "," : "",
                            plen, name, colon ? colon + 2 : "", r->plugin_warning_count[k]);
  }
  bench_tableCell(t, "%s", cell[0] ? cell : "-");
}


#define MAIN_COLUMNS 24

static void armTable(const mcbBench* b, FILE* f) {
  static const char* const head[MAIN_COLUMNS] = {
    "arm", "engine", "model", "solver", "integrator", "status", "steps/s", "min", "max",
    "realtime", "base", "ratio [95% CI] (min..max)", "iter", "gradient", "ncon", "nefc",
    "E drift", "acc med", "acc max", "resid med", "qpos dev", "warn/plug/resets",
    "plugin warnings", "note"};
  BenchTable* t = bench_tableCreate(MAIN_COLUMNS);
  bench_tableAlign(t, "rlllllrrrrrlrrrrrrrrrrll");
  for (int k = 0; k < MAIN_COLUMNS; k++) {
    bench_tableCell(t, "%s", head[k]);
  }
  for (int i = 0; i < b->narm; i++) {
    const mcbResult* r = &b->arm[i].r;
    bench_tableCell(t, "%d", i);
    bench_tableCell(t, "%s", mcb_engineName(r->engine));
    bench_tableCell(t, "%s", bench_baseName(r->file));
    bench_tableCell(t, "%s", r->solver[0] ? r->solver : "-");
    bench_tableCell(t, "%s", r->integrator[0] ? r->integrator : "-");
    bench_tableCell(t, "%s", status(r));
    if (r->error || !b->ran) {
      for (int k = 6; k < MAIN_COLUMNS - 1; k++) {
        bench_tableCell(t, "-");
      }
      noteCell(t, r);
      continue;
    }
    numCell(t, "%.0f", r->median);
    numCell(t, "%.0f", r->min);
    numCell(t, "%.0f", r->max);
    numCell(t, "%.2f", r->median * r->timestep);
    bench_tableCell(t, "%d", r->baseline);
    if (r->has_ratio) {
      bench_tableCell(t, "%.3f [%.3f, %.3f] (%.3f..%.3f)", r->ratio, r->ratio_lo, r->ratio_hi,
                      r->ratio_min, r->ratio_max);
    } else {
      bench_tableCell(t, "-");
    }
    numCell(t, "%.2f", r->iter_mean);
    numCell(t, "%.2e", r->gradient);
    numCell(t, "%.1f", r->ncon_mean);
    numCell(t, "%.1f", r->nefc_mean);
    numCell(t, "%.3e", r->energy1 - r->energy0);
    numCell(t, "%.2e", r->acc_samples ? r->acc_median : NAN);
    numCell(t, "%.2e", r->acc_samples ? r->acc_max : NAN);
    numCell(t, "%.2e", r->res_samples ? r->res_median : NAN);
    numCell(t, "%.2e", r->has_qpos_dev ? r->qpos_dev : NAN);
    int warn = 0;
    for (int k = 0; k < mcNWARNING; k++) {
      warn += r->warning[k];
    }
    bench_tableCell(t, "%d/%d/%d", warn, r->plugin_warnings, r->resets);
    pluginWarningCell(t, r);
    noteCell(t, r);
  }
  bench_tablePrint(t, f);
  fprintf(f, "ratio: median over repeats of the paired ratio arm/base (the model's baseline arm, "
          "same repeat), 95%% percentile-bootstrap CI of that median (%d resamples), min..max of "
          "the paired ratios\n", BENCH_BOOTSTRAP);
  fprintf(f, "acc: M-norm error of qacc relative to a Newton solve at tolerance 1e-12 (median, max "
          "over %d sampled states with constraints); resid med: median of mc_solverResidual of "
          "the arm's solve there; qpos dev: RMS qpos difference to the base arm at %d sampled "
          "steps; warn/plug/resets: built-in warnings, plugin warnings, auto-resets; plugin "
          "warnings: those raised, as plugin:warning=count (docs/bench.md)\n", b->c.accuracy,
          BENCH_NSAMPLE);
}


// Moduco against the MuJoCo arm with the same settings
static void mujocoRatios(const mcbBench* b, FILE* f) {
  for (int i = 0; i < b->narm; i++) {
    const mcbResult* r = &b->arm[i].r;
    if (!r->error && r->mujoco_arm >= 0 && !b->arm[r->mujoco_arm].r.error) {
      fprintf(f, "moduco/mujoco  arm %d vs %d  %s %s/%s: %.3f\n", i, r->mujoco_arm,
              bench_baseName(r->file), r->solver, r->integrator,
              r->median / b->arm[r->mujoco_arm].r.median);
    }
  }
}


// stage timers, then the per-plugin timers of the Moduco arms
static void profileTables(const mcbBench* b, FILE* f) {
  fprintf(f, "\nprofile (microseconds per step; MuJoCo 2.2.2 has no integrator, sensor, "
          "postsolver timer)\n");
  BenchTable* t = bench_tableCreate(mcNTIMER);
  bench_tableCell(t, "arm");
  for (int k = 0; k < mcNTIMER; k++) {
    if (k != mcTIMER_INVERSE) {
      bench_tableCell(t, "%s", mcb_timerName(k));
    }
  }
  for (int i = 0; i < b->narm; i++) {
    const mcbResult* r = &b->arm[i].r;
    if (!r->has_profile) {
      continue;
    }
    bench_tableCell(t, "%d", i);
    for (int k = 0; k < mcNTIMER; k++) {
      if (k != mcTIMER_INVERSE) {
        bench_tableCell(t, "%.2f", 1e6 * r->prof[k]);
      }
    }
  }
  bench_tablePrint(t, f);

  fprintf(f, "\nplugin timers (microseconds and calls per step; each within its stage timer)\n");
  t = bench_tableCreate(7);
  bench_tableAlign(t, "rrllrrl");
  const char* head[7] = {"arm", "slot", "kind", "plugin", "us/step", "calls/step", "stage"};
  for (int k = 0; k < 7; k++) {
    bench_tableCell(t, "%s", head[k]);
  }
  for (int i = 0; i < b->narm; i++) {
    const BenchArm* a = &b->arm[i];
    if (!a->r.has_profile || a->r.engine != mcbENGINE_MODUCO) {
      continue;
    }
    for (int k = 0; k < mcNTIMERPLUGIN; k++) {
      const char* name = mc_timerPluginName(a->m, k);
      if (a->r.pcalls[k] == 0 && (!name || k >= mcTIMERPLUGIN_COLLISION)) {
        continue;
      }
      const char *kind, *stage;
      mcb_pluginSlotKind(a->m, k, &kind, &stage);
      bench_tableCell(t, "%d", i);
      bench_tableCell(t, "%d", k);
      bench_tableCell(t, "%s", kind);
      bench_tableCell(t, "%s", name ? name : "?");
      bench_tableCell(t, "%.2f", 1e6 * a->r.pprof[k]);
      bench_tableCell(t, "%.2f", a->r.pcalls[k]);
      bench_tableCell(t, "%s", stage);
    }
  }
  bench_tablePrint(t, f);
}


static void scalingTable(const mcbBench* b, FILE* f) {
  fprintf(f, "\nthread scaling (batch rollouts of %ld steps; forward = evaluations at recorded "
          "states; forward/cpu-s per second of process CPU time)\n", b->c.steps);
  for (int i = 0; i < b->narm; i++) {
    const mcbResult* r = &b->arm[i].r;
    if (r->scaling && !r->error) {
      fprintf(f, "arm %d forward states: %d recorded, %.1f contacts on average, %.0f%% in "
              "contact\n", i, r->nsample, r->sample_ncon, 100 * r->sample_incontact);
    }
  }
  BenchTable* t = bench_tableCreate(8);
  const char* head[8] = {"arm", "threads", "steps/s", "speedup", "forward/s", "speedup",
                         "forward/s/thr", "forward/cpu-s"};
  for (int k = 0; k < 8; k++) {
    bench_tableCell(t, "%s", head[k]);
  }
  for (int i = 0; i < b->narm; i++) {
    const mcbResult* r = &b->arm[i].r;
    if (!r->scaling || r->error) {
      continue;
    }
    const mcbScaling* s0 = &r->scaling[0];
    for (int k = 0; k < b->c.nthreads; k++) {
      const mcbScaling* s = &r->scaling[k];
      bench_tableCell(t, "%d", i);
      bench_tableCell(t, "%d", s->threads);
      bench_tableCell(t, "%.0f", s->steps_per_second);
      numCell(t, "%.2f", s->steps_per_second / s0->steps_per_second);
      bench_tableCell(t, "%.0f", s->forward_per_second);
      numCell(t, "%.2f", s->forward_per_second / s0->forward_per_second);
      bench_tableCell(t, "%.0f", s->forward_per_second / s->threads);
      bench_tableCell(t, "%.0f", s->forward_per_cpu_second);
    }
  }
  bench_tablePrint(t, f);
}


void mcb_printTable(const mcbBench* b, FILE* f) {
  armTable(b, f);
  mujocoRatios(b, f);
  if (b->c.profile) {
    profileTables(b, f);
  }
  if (b->c.nthreads) {
    scalingTable(b, f);
  }
}
