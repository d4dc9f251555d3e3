// Whole-pipeline helpers: paired loading, solver selection, state copy and comparison.
#include "physics.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char* const kSolverNames[3] = {"pgs", "cg", "newton"};


//---------------------------------- model pairs ---------------------------------------------------

// finish a load: data, then sizes that must agree
static int finishLoad(PhysPair* p, char* error, int error_sz) {
  tu_legacy222(p->mc);
  tu_legacyWeldWeights(p->mc);
  tu_legacyCollision(p->mc);
  p->dj = mj_makeData(p->mj);
  p->dc = mc_makeData(p->mc);
  if (!p->dj || !p->dc) {
    snprintf(error, error_sz, "%s: cannot make data", p->name);
    phys_free(p);
    return -1;
  }
  const mjModel* a = p->mj;
  const mcModel* b = p->mc;
  const struct {
    const char* what;
    int mj, mc;
  } sizes[] = {
    {"nq", a->nq, b->nq}, {"nv", a->nv, b->nv}, {"nu", a->nu, b->nu}, {"na", a->na, b->na},
    {"nbody", a->nbody, b->nbody}, {"ngeom", a->ngeom, b->ngeom}, {"neq", a->neq, b->neq},
    {"ntendon", a->ntendon, b->ntendon}, {"nmocap", a->nmocap, b->nmocap},
  };
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    if (sizes[i].mj != sizes[i].mc) {
      snprintf(error, error_sz, "%s: %s differs: moduco %d, mujoco %d", p->name, sizes[i].what,
               sizes[i].mc, sizes[i].mj);
      phys_free(p);
      return -1;
    }
  }
  return 0;
}


int phys_loadFile(PhysPair* p, const char* name, const char* path, char* error, int error_sz) {
  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof(p->name), "%s", name);

  // both engines read the same file
  char err[1024] = "";
  p->mj = mj_loadXML(path, NULL, err, sizeof(err));
  if (!p->mj) {
    snprintf(error, error_sz, "%s: MuJoCo failed to load %s: %s", name, path, err);
    return -1;
  }
  err[0] = 0;
  p->mc = mc_loadXML(path, err, sizeof(err));
  if (!p->mc) {
    snprintf(error, error_sz, "%s: Moduco failed to load %s: %s", name, path, err);
    phys_free(p);
    return -1;
  }
  return finishLoad(p, error, error_sz);
}


int phys_loadText(PhysPair* p, const char* name, const char* xml, char* error, int error_sz) {
  // one temporary file, removed right after loading
  char path[256];
  snprintf(path, sizeof(path), "/tmp/moduco-phys-XXXXXX.xml");
  int fd = mkstemps(path, 4);
  if (fd < 0) {
    snprintf(error, error_sz, "%s: cannot create %s", name, path);
    return -1;
  }
  size_t len = strlen(xml);
  int ok = write(fd, xml, len) == (ssize_t)len;
  close(fd);
  int rc = ok ? phys_loadFile(p, name, path, error, error_sz) : -1;
  if (!ok) {
    snprintf(error, error_sz, "%s: cannot write %s", name, path);
  }
  unlink(path);
  return rc;
}


void phys_free(PhysPair* p) {
  if (p->dj) {
    mj_deleteData(p->dj);
  }
  if (p->mj) {
    mj_deleteModel(p->mj);
  }
  mc_deleteData(p->dc);
  mc_deleteModel(p->mc);
  memset(p, 0, sizeof(*p));
}


int phys_setSolver(PhysPair* p, int solver, int cone, char* error, int error_sz) {
  if (solver < 0 || solver > 2) {
    snprintf(error, error_sz, "%s: bad solver code %d", p->name, solver);
    return -1;
  }
  if (mc_setSolver(p->mc, kSolverNames[solver], error, error_sz)) {
    return -1;
  }
  p->mj->opt.solver = solver;
  p->mj->opt.cone = cone;
  p->mc->opt.cone = cone == mjCONE_ELLIPTIC ? mcCONE_ELLIPTIC : mcCONE_PYRAMIDAL;
  return 0;
}


void phys_setIterations(PhysPair* p, int iterations, double tolerance) {
  p->mj->opt.iterations = iterations;
  p->mc->opt.iterations = iterations;
  p->mj->opt.tolerance = tolerance;
  p->mc->opt.tolerance = tolerance;
}


void phys_copyState(PhysPair* p) {
  const mjModel* m = p->mj;
  const mjData* a = p->dj;
  mcData* b = p->dc;
  mc_resetData(p->mc, b);
  b->time = a->time;
  memcpy(b->qpos, a->qpos, sizeof(double) * m->nq);
  memcpy(b->qvel, a->qvel, sizeof(double) * m->nv);
  memcpy(b->act, a->act, sizeof(double) * m->na);
  memcpy(b->ctrl, a->ctrl, sizeof(double) * m->nu);
  memcpy(b->qfrc_applied, a->qfrc_applied, sizeof(double) * m->nv);
  memcpy(b->xfrc_applied, a->xfrc_applied, sizeof(double) * 6 * m->nbody);
  memcpy(b->qacc_warmstart, a->qacc_warmstart, sizeof(double) * m->nv);
  memcpy(b->mocap_pos, a->mocap_pos, sizeof(double) * 3 * m->nmocap);
  memcpy(b->mocap_quat, a->mocap_quat, sizeof(double) * 4 * m->nmocap);
}


const char* phys_solverName(int solver) {
  return solver >= 0 && solver < 3 ? kSolverNames[solver] : "?";
}


const char* phys_coneName(int cone) {
  return cone == mjCONE_ELLIPTIC ? "elliptic" : "pyramidal";
}


// message handler that drops everything
static void quietHandler(void* user, const char* message) {
  (void)user;
  (void)message;
}


// MuJoCo's warning handler that drops everything
static void quietMujoco(const char* message) {
  (void)message;
}


void phys_quiet(void) {
  mc_setMessageHandler(quietHandler, NULL);
  mju_user_warning = quietMujoco;
}


//---------------------------------- comparison ----------------------------------------------------

double phys_relerr(const double* got, const double* ref, int n, int* at) {
  double worst = 0;
  int where = n > 0 ? 0 : -1;
  for (int i = 0; i < n; i++) {
    double e;
    if (!isfinite(got[i]) || !isfinite(ref[i])) {
      e = got[i] == ref[i] ? 0 : INFINITY;
    } else {
      double scale = fabs(ref[i]) > 1 ? fabs(ref[i]) : 1;
      e = fabs(got[i] - ref[i]) / scale;
    }
    if (e > worst || isnan(e)) {
      worst = isnan(e) ? INFINITY : e;
      where = i;
    }
  }
  if (at) {
    *at = where;
  }
  return worst;
}


int phys_nonfinite(const double* x, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(x[i])) {
      return 1;
    }
  }
  return 0;
}


// Moduco's efc_type code for MuJoCo's (the enums are laid out alike; checked by value here)
static int mjType(int mctype) {
  switch (mctype) {
  case mcCNSTR_EQUALITY:
    return mjCNSTR_EQUALITY;
  case mcCNSTR_FRICTION_DOF:
    return mjCNSTR_FRICTION_DOF;
  case mcCNSTR_FRICTION_TENDON:
    return mjCNSTR_FRICTION_TENDON;
  case mcCNSTR_LIMIT_JOINT:
    return mjCNSTR_LIMIT_JOINT;
  case mcCNSTR_LIMIT_TENDON:
    return mjCNSTR_LIMIT_TENDON;
  case mcCNSTR_CONTACT_FRICTIONLESS:
    return mjCNSTR_CONTACT_FRICTIONLESS;
  case mcCNSTR_CONTACT_PYRAMIDAL:
    return mjCNSTR_CONTACT_PYRAMIDAL;
  case mcCNSTR_CONTACT_ELLIPTIC:
    return mjCNSTR_CONTACT_ELLIPTIC;
  default:
    return -1;
  }
}


int phys_compareForward(PhysPair* p, PhysErr* e, char* msg, int msg_sz) {
  const mjData* a = p->dj;
  const mcData* b = p->dc;
  memset(e, 0, sizeof(*e));
  e->force_at = e->qacc_at = -1;

  // the same contacts, in the same order
  if (a->ncon != b->ncon) {
    snprintf(msg, msg_sz, "%s: ncon moduco %d, mujoco %d", p->name, b->ncon, a->ncon);
    return -1;
  }
  for (int i = 0; i < a->ncon; i++) {
    const mjContact* ca = a->contact + i;
    const mcContact* cb = b->contact + i;
    if (ca->geom1 != cb->geom1 || ca->geom2 != cb->geom2 || ca->dim != cb->dim) {
      snprintf(msg, msg_sz, "%s: contact %d is geoms %d-%d dim %d in moduco, %d-%d dim %d in "
               "mujoco", p->name, i, cb->geom1, cb->geom2, cb->dim, ca->geom1, ca->geom2, ca->dim);
      return -1;
    }
  }

  // the same constraint rows
  if (a->nefc != b->nefc) {
    snprintf(msg, msg_sz, "%s: nefc moduco %d, mujoco %d", p->name, b->nefc, a->nefc);
    return -1;
  }
  for (int i = 0; i < a->nefc; i++) {
    if (mjType(b->efc_type[i]) != a->efc_type[i] || b->efc_id[i] != a->efc_id[i]) {
      snprintf(msg, msg_sz, "%s: efc row %d is type %d id %d in moduco, type %d id %d in mujoco",
               p->name, i, b->efc_type[i], b->efc_id[i], a->efc_type[i], a->efc_id[i]);
      return -1;
    }
  }

  // forces and accelerations
  e->force = phys_relerr(b->efc_force, a->efc_force, a->nefc, &e->force_at);
  e->qacc = phys_relerr(b->qacc, a->qacc, p->mj->nv, &e->qacc_at);
  return 0;
}


//---------------------------------- documented exceptions -----------------------------------------

double phys_limit(const PhysException* table, int n, const char* scene, int solver, int cone,
                  const char* check, double dflt, const char** why) {
  for (int i = 0; i < n; i++) {
    const PhysException* e = table + i;
    if (e->solver == solver && e->cone == cone && !strcmp(e->scene, scene) &&
        !strcmp(e->check, check)) {
      if (why) {
        *why = e->why;
      }
      return e->limit;
    }
  }
  if (why) {
    *why = NULL;
  }
  return dflt;
}


// nonzero if name is one of the NULL-terminated list
static int listed(const char* name, const char* const* list) {
  for (int i = 0; list && list[i]; i++) {
    if (!strcmp(list[i], name)) {
      return 1;
    }
  }
  return 0;
}


int phys_checkExceptions(const PhysException* table, int n, const char* const* checks,
                         const char* const* extra, char* msg, int msg_sz) {
  for (int i = 0; i < n; i++) {
    const PhysException* e = table + i;

    // the case exists, the check exists, the bound and the cause are given
    if (!e->scene || (!phys_scene(e->scene) && !listed(e->scene, extra))) {
      snprintf(msg, msg_sz, "exception %d names an unknown scene %s", i, e->scene);
      return -1;
    }
    if (e->solver < mjSOL_PGS || e->solver > mjSOL_NEWTON || e->cone < mjCONE_PYRAMIDAL ||
        e->cone > mjCONE_ELLIPTIC) {
      snprintf(msg, msg_sz, "exception %d (%s) has solver %d cone %d", i, e->scene, e->solver,
               e->cone);
      return -1;
    }
    if (!e->check || !listed(e->check, checks)) {
      snprintf(msg, msg_sz, "exception %d (%s) names an unknown check %s", i, e->scene, e->check);
      return -1;
    }
    if (!(e->limit > 0) || !e->why || !e->why[0]) {
      snprintf(msg, msg_sz, "exception %d (%s %s) has no limit or no cause", i, e->scene,
               e->check);
      return -1;
    }

    // one entry per case
    for (int k = 0; k < i; k++) {
      const PhysException* f = table + k;
      if (f->solver == e->solver && f->cone == e->cone && !strcmp(f->scene, e->scene) &&
          !strcmp(f->check, e->check)) {
        snprintf(msg, msg_sz, "exceptions %d and %d are for the same case", k, i);
        return -1;
      }
    }
  }
  return 0;
}
