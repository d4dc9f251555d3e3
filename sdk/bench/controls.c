// Moduco bench: the control sequence of a model. It depends only on the seed and the model (the
// bytes of its file and its actuator count), never on the other models of the command line or
// their order, so a model's trajectory is the same alone and among others.
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL


// FNV-1a of the model file's bytes and its actuator count
unsigned long long bench_modelHash(const char* file, const mcModel* m) {
  unsigned long long h = FNV_OFFSET;
  FILE* f = fopen(file, "rb");
  if (f) {
    unsigned char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
      for (size_t i = 0; i < n; i++) {
        h = (h ^ buf[i]) * FNV_PRIME;
      }
    }
    fclose(f);
  }
  for (int i = 0; i < 4; i++) {
    h = (h ^ (unsigned char)(m->nu >> (8 * i))) * FNV_PRIME;
  }
  return h;
}


// xorshift64 in [-1, 1)
double bench_uniform(unsigned long long* s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return (double)(*s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}


// smoothed noise of amplitude noise, scaled to ctrlrange when limited (zero: every control 0);
// seed already mixes the model hash in
double* bench_makeControls(const mcModel* m, long steps, double noise, int zero,
                           unsigned long long seed) {
  int nu = m->nu;
  double* c = calloc((size_t)(steps * (nu ? nu : 1)), sizeof(double));
  if (zero) {
    return c;
  }
  double* x = calloc((size_t)(nu ? nu : 1), sizeof(double));
  unsigned long long s = seed * 0x9E3779B97F4A7C15ULL + 12345;
  s = s ? s : 1;                  // xorshift stays at zero from zero
  if (!c || !x) {
    free(c);
    free(x);
    return NULL;
  }
  for (long t = 0; t < steps; t++) {
    for (int i = 0; i < nu; i++) {
      // first-order filtered noise keeps the controls smooth
      x[i] = 0.9 * x[i] + 0.1 * bench_uniform(&s) * 3.0;
      double v = noise * x[i];
      if (m->actuator_ctrllimited[i]) {
        double lo = m->actuator_ctrlrange[2 * i], hi = m->actuator_ctrlrange[2 * i + 1];
        v = 0.5 * (lo + hi) + 0.5 * (hi - lo) * v;
        v = v < lo ? lo : (v > hi ? hi : v);
      }
      c[t * nu + i] = v;
    }
  }
  free(x);
  return c;
}
