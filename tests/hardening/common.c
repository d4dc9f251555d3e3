// tests/hardening: shared helpers (model loading, trajectory hashing, message capture).
#include "common.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define HARD_MAXMSG 256


mcModel* hardLoad(const char* relpath) {
  char path[2048], error[1024] = "";
  snprintf(path, sizeof(path), "%s/%s", MODUCO_SOURCE_DIR, relpath);
  mcModel* m = mc_loadXML(path, error, sizeof(error));
  cr_assert_not_null(m, "loading %s: %s", path, error);
  return m;
}


mcModel* hardLoadString(const char* xml) {
  char error[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  cr_assert_not_null(m, "loading string: %s", error);
  return m;
}


uint64_t hardHash(uint64_t h, const void* bytes, size_t n) {
  const unsigned char* p = (const unsigned char*)bytes;
  for (size_t i = 0; i < n; i++) {
    h = (h ^ p[i]) * 1099511628211ULL;
  }
  return h;
}


uint64_t hardHashState(const mcModel* m, const mcData* d, uint64_t h) {
  h = hardHash(h, &d->time, sizeof(mcNum));
  h = hardHash(h, d->qpos, sizeof(mcNum) * (size_t)m->nq);
  h = hardHash(h, d->qvel, sizeof(mcNum) * (size_t)m->nv);
  h = hardHash(h, d->act, sizeof(mcNum) * (size_t)m->na);
  return h;
}


void hardControl(const mcModel* m, mcData* d) {
  for (int i = 0; i < m->nu; i++) {
    d->ctrl[i] = 0.8 * sin(3.0 * d->time + 0.7 * i);
  }
}


uint64_t hardRun(const mcModel* m, mcData* d, int nstep) {
  uint64_t h = 1469598103934665603ULL;
  for (int k = 0; k < nstep; k++) {
    hardControl(m, d);
    mc_step(m, d);
    h = hardHashState(m, d, h);
  }
  return h;
}


// 1 if any of x[0..n) is NaN or infinite
static int nonFinite(const mcNum* x, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(x[i])) {
      return 1;
    }
  }
  return 0;
}


int hardHasNonFinite(const mcModel* m, const mcData* d) {
  return nonFinite(d->qpos, m->nq) || nonFinite(d->qvel, m->nv) || nonFinite(d->act, m->na) ||
         nonFinite(d->qacc, m->nv) || nonFinite(d->ctrl, m->nu) || !isfinite(d->time);
}


//---------------------------------- message capture -----------------------------------------------

static char g_msg[HARD_MAXMSG][512];
static int g_nmsg = 0;


// keep the message
static void capture(void* user, const char* message) {
  (void)user;
  if (g_nmsg < HARD_MAXMSG) {
    snprintf(g_msg[g_nmsg], sizeof(g_msg[0]), "%s", message);
  }
  g_nmsg++;
}


void hardCaptureBegin(void) {
  g_nmsg = 0;
  mc_setMessageHandler(capture, NULL);
}


void hardCaptureEnd(void) {
  mc_setMessageHandler(NULL, NULL);
}


int hardCaptureCount(void) {
  return g_nmsg;
}


const char* hardCaptureMessage(int i) {
  return i >= 0 && i < g_nmsg && i < HARD_MAXMSG ? g_msg[i] : "";
}


int hardCaptureCountWith(const char* needle) {
  int n = 0;
  for (int i = 0; i < g_nmsg && i < HARD_MAXMSG; i++) {
    if (strstr(g_msg[i], needle)) {
      n++;
    }
  }
  return n;
}
