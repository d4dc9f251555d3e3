// Helpers of the derivative tests (fdtest.h).
#include "fdtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void fd_quiet(void* user, const char* message) {
  (void)user;
  (void)message;
}


char* fd_readSource(const char* relpath) {
  char path[2048];
  snprintf(path, sizeof(path), "%s/%s", MODUCO_SOURCE_DIR, relpath);
  FILE* f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = malloc((size_t)n + 1);
  if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
    free(text);
    text = NULL;
  }
  fclose(f);
  if (text) {
    text[n] = 0;
  }
  return text;
}


int fd_load(ConfPair* p, const char* name, const char* xml, char* error, int error_sz) {
  int rc = conf_load(p, name, xml, NULL, error, error_sz);
  mc_setMessageHandler(fd_quiet, NULL);
  return rc;
}


void fd_insideCtrl(ConfPair* p, ConfRng* r) {
  const mjModel* m = p->mj;
  for (int i = 0; i < m->nu; i++) {
    double lo = -1, hi = 1;
    if (m->actuator_ctrllimited[i]) {
      lo = m->actuator_ctrlrange[2 * i];
      hi = m->actuator_ctrlrange[2 * i + 1];
    }
    double w = 0.1 * (hi - lo);
    p->dj->ctrl[i] = p->dc->ctrl[i] = conf_uniform(r, lo + w, hi - w);
  }
}


void fd_syncState(ConfPair* p) {
  const mjModel* m = p->mj;
  const mjData* s = p->dj;
  mcData* d = p->dc;
  d->time = s->time;
  memcpy(d->qpos, s->qpos, sizeof(double) * (size_t)m->nq);
  memcpy(d->qvel, s->qvel, sizeof(double) * (size_t)m->nv);
  memcpy(d->act, s->act, sizeof(double) * (size_t)m->na);
  memcpy(d->ctrl, s->ctrl, sizeof(double) * (size_t)m->nu);
  memcpy(d->qacc_warmstart, s->qacc_warmstart, sizeof(double) * (size_t)m->nv);
  memcpy(d->qfrc_applied, s->qfrc_applied, sizeof(double) * (size_t)m->nv);
}


double fd_maxAbs(const double* x, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) {
    r = fmax(r, fabs(x[i]));
  }
  return r;
}


double fd_matErr(const double* got, const double* ref, int n) {
  double scale = fmax(fd_maxAbs(ref, n), 1e-300), worst = 0;
  for (int i = 0; i < n; i++) {
    double e = fabs(got[i] - ref[i]) / scale;
    worst = isnan(e) ? INFINITY : fmax(worst, e);
  }
  return worst;
}


void fd_alloc(FdMats* f, int nv, int na, int nu, int ns) {
  f->ndx = 2 * nv + na;
  f->nu = nu;
  f->ns = ns;
  f->A = calloc((size_t)f->ndx * f->ndx + 1, sizeof(double));
  f->B = calloc((size_t)f->ndx * nu + 1, sizeof(double));
  f->C = calloc((size_t)ns * f->ndx + 1, sizeof(double));
  f->D = calloc((size_t)ns * nu + 1, sizeof(double));
}


void fd_free(FdMats* f) {
  free(f->A);
  free(f->B);
  free(f->C);
  free(f->D);
}
