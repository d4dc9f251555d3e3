// Moduco viewer: solver and integrator swaps (see swap.h).
#include "swap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "protocol.h"

#define KEPT (mcSTATE_TIME | mcSTATE_PHYSICS | mcSTATE_CTRL | mcSTATE_QFRC_APPLIED | \
              mcSTATE_XFRC_APPLIED | mcSTATE_EQ_ACTIVE)


int mcv_swapPlugin(mcModel* m, mcData** d, int integrator, const char* name, char* err,
                   size_t errsz) {
  int n = mc_stateSize(m, KEPT);
  mcNum* state = malloc(sizeof(mcNum) * (size_t)(n > 0 ? n : 1));
  if (!state) {
    snprintf(err, errsz, "out of memory");
    return -1;
  }
  mc_getState(m, *d, state, KEPT);
  int rc = integrator ? mc_setIntegrator(m, name, err, (int)errsz)
                      : mc_setSolver(m, name, err, (int)errsz);
  mcData* nd = rc ? NULL : mc_makeData(m);
  if (!rc && !nd) {
    snprintf(err, errsz, "out of memory making data for the new %s",
             integrator ? "integrator" : "solver");
    rc = -1;
  }
  if (nd) {
    mc_setState(m, nd, state, KEPT);
    mc_forward(m, nd);
    mc_deleteData(*d);
    *d = nd;
  }
  free(state);
  return rc;
}


int mcv_startCopy(const mcModel* m, const mcData* d, mcModel** mb, mcData** db, char* err,
                  size_t errsz) {
  *mb = mc_copyModel(NULL, m);
  *db = *mb ? mc_copyData(NULL, *mb, d) : NULL;   // the warm start too: B repeats A exactly
  if (!*db) {
    snprintf(err, errsz, "ab: out of memory for the second copy of the model");
    mc_deleteData(*db);
    mc_deleteModel(*mb);
    *mb = NULL;
    *db = NULL;
    return -1;
  }
  return 0;
}


const char* mcv_solverName(const mcModel* m) {
  return m->solver && m->solver->hdr.name ? m->solver->hdr.name : "none";
}


const char* mcv_integratorName(const mcModel* m) {
  return m->integrator && m->integrator->hdr.name ? m->integrator->hdr.name : "none";
}


void mcv_pluginList(const char* kind, char* buf, size_t bufsz) {
  size_t k = (size_t)snprintf(buf, bufsz, "[");
  int first = 1;
  for (int i = 0; i < mc_pluginCount() && k + 80 < bufsz; i++) {
    mcPluginInfo info;
    if (!mc_pluginInfo(i, &info) && info.kind && !strcmp(info.kind, kind) && info.name) {
      char esc[64];
      mcv_jsonEscape(info.name, esc, sizeof(esc));
      k += (size_t)snprintf(buf + k, bufsz - k, "%s\"%s\"", first ? "" : ",", esc);
      first = 0;
    }
  }
  snprintf(buf + k, bufsz - k, "]");
}
