// Moduco bench: warnings and divergence of an arm; median; paired speed ratios with a seeded
// percentile-bootstrap interval.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"


// any non-finite number among n
static int nonFinite(const double* v, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i])) {
      return 1;
    }
  }
  return 0;
}


// the distinct names of the model's plugin-defined warnings (two instances of one plugin share
// their names) and the name of each counter; return 0, or -1 when out of memory
int bench_pluginWarningsSetup(BenchArm* a) {
  int n = a->m->npluginwarn;
  if (n == 0) {
    return 0;
  }
  a->pwname = calloc((size_t)n, sizeof(char*));
  a->pwcount = calloc((size_t)n, sizeof(int));
  a->pwslot = calloc((size_t)n, sizeof(int));
  if (!a->pwname || !a->pwcount || !a->pwslot) {
    return -1;
  }
  int distinct = 0;
  for (int k = 0; k < n; k++) {
    const char* name = mc_pluginWarningName(a->m, k);
    name = name ? name : "?";
    int j = 0;
    while (j < distinct && strcmp(a->pwname[j], name)) {
      j++;
    }
    if (j == distinct) {
      a->pwname[distinct++] = name;
    }
    a->pwslot[k] = j;
  }
  a->r.nplugin_warning = distinct;
  a->r.plugin_warning_name = a->pwname;
  a->r.plugin_warning_count = a->pwcount;
  return 0;
}


// warnings raised since the last reset (the statistics pass), resets and divergence
void bench_countWarnings(BenchArm* a) {
  mcbResult* r = &a->r;
  memset(r->warning, 0, sizeof(r->warning));
  r->plugin_warnings = 0;
  if (a->r.engine == mcbENGINE_MODUCO) {
    for (int i = 0; i < mcNWARNING; i++) {
      r->warning[i] = a->d->warning[i].number;
    }
    if (a->pwcount) {
      memset(a->pwcount, 0, sizeof(int) * (size_t)r->nplugin_warning);
    }
    for (int i = 0; i < a->m->npluginwarn; i++) {
      r->plugin_warnings += a->d->plugin_warncount[i];
      a->pwcount[a->pwslot[i]] += a->d->plugin_warncount[i];
    }
  }
#if BENCH_HAVE_MUJOCO
  else {
    // MuJoCo 2.2.2 numbers its warnings like Moduco up to bad ctrl
    for (int i = 0; i < mjNWARNING && i < mcNWARNING; i++) {
      r->warning[i] = a->mjd->warning[i].number;
    }
  }
#endif
  r->resets = r->warning[mcWARN_BADQPOS] + r->warning[mcWARN_BADQVEL] +
              r->warning[mcWARN_BADQACC];
  r->nonfinite = nonFinite(bench_armQpos(a), r->nq) || nonFinite(bench_armQvel(a), r->nv) ||
                 !isfinite(r->energy1);
  r->diverged = r->resets > 0 || r->warning[mcWARN_BADCTRL] > 0 || r->nonfinite;
}


static int cmpDouble(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}


// median of n values (sorts a copy); 0 if n is 0
double bench_median(const double* v, int n) {
  if (n <= 0) {
    return 0;
  }
  double* c = malloc(sizeof(double) * (size_t)n);
  if (!c) {
    return NAN;
  }
  memcpy(c, v, sizeof(double) * (size_t)n);
  qsort(c, (size_t)n, sizeof(double), cmpDouble);
  double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
  free(c);
  return m;
}


// paired ratios rate[i] / ref[i] (same repeat, adjacent in time): median, min, max and a seeded
// percentile-bootstrap 95% interval of the median
void bench_pairedRatio(mcbResult* r, const double* rate, const double* ref, int n,
                       unsigned long long seed) {
  double* q = malloc(sizeof(double) * (size_t)n);
  double* boot = malloc(sizeof(double) * BENCH_BOOTSTRAP);
  double* res = malloc(sizeof(double) * (size_t)n);
  if (!q || !boot || !res || n <= 0) {
    free(q), free(boot), free(res);
    return;
  }
  r->ratio_min = INFINITY;
  r->ratio_max = -INFINITY;
  for (int i = 0; i < n; i++) {
    q[i] = ref[i] > 0 ? rate[i] / ref[i] : 0;
    r->ratio_min = fmin(r->ratio_min, q[i]);
    r->ratio_max = fmax(r->ratio_max, q[i]);
  }
  r->ratio = bench_median(q, n);
  unsigned long long s = seed * 0x2545F4914F6CDD1DULL + 99;
  for (int b = 0; b < BENCH_BOOTSTRAP; b++) {
    for (int i = 0; i < n; i++) {
      int k = (int)(0.5 * (bench_uniform(&s) + 1) * n);
      res[i] = q[k < n ? k : n - 1];
    }
    boot[b] = bench_median(res, n);
  }
  qsort(boot, BENCH_BOOTSTRAP, sizeof(double), cmpDouble);
  r->ratio_lo = boot[(int)(0.025 * BENCH_BOOTSTRAP)];
  r->ratio_hi = boot[(int)(0.975 * BENCH_BOOTSTRAP) - 1];
  r->has_ratio = 1;
  free(q), free(boot), free(res);
}
