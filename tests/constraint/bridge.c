// Test bridge between MuJoCo 2.2.2 and Moduco (see bridge.h).
#include "bridge.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/constraint.h"
#include "engine/engine.h"
#include "engine/io.h"
#include "engine/solver_contract.h"
#include "testutil.h"

#define COPY(dst, src, field, n)                                                                   \
  memcpy((dst)->field, (src)->field, sizeof(*(dst)->field) * (size_t)(n))


//---------------------------------- host ----------------------------------------------------------

static void hostMessage(const char* text) {
  fprintf(stderr, "%s\n", text);
}


static const mcpHost g_host = {
  .abi_major = MCP_ABI_MAJOR,
  .abi_minor = MCP_ABI_MINOR,
  .struct_size = (uint32_t)sizeof(mcpHost),
  .precision = MCP_PRECISION,
  .warning = mc_warning,
  .message = hostMessage,
  .markStack = mc_markStack,
  .freeStack = mc_freeStack,
  .stackAlloc = mc_stackAlloc,
  .mulM = mc_mulM,
  .solveM = mc_solveM,
  .factorI = mc_factorI,
  .solveLD = mc_solveLD,
  .mulJ = mc_mulJ,
  .mulJT = mc_mulJT,
  .rowJ = mc_rowJ,
  .makeAR = mc_makeAR,
};


const mcpHost* bridge_host(void) {
  return &g_host;
}


static const mcpHeader* findPlugin(const char* lib, const char* name, int kind) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/libmoduco-%s.so", MODUCO_BUILD_PLUGIN_DIR, lib);
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "bridge: %s\n", dlerror());
    return NULL;
  }
  mcpLibraryFn fn = (mcpLibraryFn)dlsym(h, MCP_ENTRY_SYMBOL);
  const mcpLibrary* l = fn ? fn(&g_host) : NULL;
  for (int i = 0; l && i < l->nplugin; i++) {
    if (l->plugin[i]->kind == (uint32_t)kind && !strcmp(l->plugin[i]->name, name)) {
      return l->plugin[i];
    }
  }
  return NULL;
}


const mcpSolver* bridge_solver(const char* name) {
  char lib[64];
  snprintf(lib, sizeof(lib), "solver-%s", name);
  return (const mcpSolver*)findPlugin(lib, name, mcpKIND_SOLVER);
}


const mcpPostsolver* bridge_postsolver(const char* name) {
  char lib[64];
  snprintf(lib, sizeof(lib), "solver-%s", name);
  return (const mcpPostsolver*)findPlugin(lib, name, mcpKIND_POSTSOLVER);
}


//---------------------------------- model ---------------------------------------------------------

void bridge_syncOptions(Bridge* b) {
  mcOption* o = &b->mc->opt;
  const mjOption* p = &b->mj->opt;
  o->timestep = p->timestep;
  o->impratio = p->impratio;
  o->tolerance = p->tolerance;
  o->noslip_tolerance = p->noslip_tolerance;
  o->o_margin = p->o_margin;
  memcpy(o->o_solref, p->o_solref, sizeof(o->o_solref));
  memcpy(o->o_solimp, p->o_solimp, sizeof(o->o_solimp));
  o->cone = p->cone;
  o->jacobian = p->jacobian;
  o->solver = p->solver;
  o->iterations = p->iterations;
  o->noslip_iterations = p->noslip_iterations;
  // MuJoCo 2.2.2's rules (constraint.h; the constants are copied from 2.2.2 already)
  o->disableflags = (p->disableflags & 0x7fff) | mcDSBL_LEGACY222;
  o->enableflags = p->enableflags & 7;
  memcpy(o->gravity, p->gravity, sizeof(o->gravity));
}


static void makeModel(Bridge* b) {
  const mjModel* s = b->mj;
  mcModel sizes;
  memset(&sizes, 0, sizeof(sizes));
  sizes.nq = s->nq;
  sizes.nv = s->nv;
  sizes.nu = s->nu;
  sizes.na = s->na;
  sizes.nbody = s->nbody;
  sizes.njnt = s->njnt;
  sizes.ngeom = s->ngeom;
  sizes.nsite = s->nsite;
  sizes.neq = s->neq;
  sizes.ntendon = s->ntendon;
  sizes.nM = s->nM;
  sizes.nmocap = s->nmocap;
  sizes.nconmax = s->nconmax > 0 ? s->nconmax : 1000;
  sizes.njmax = s->njmax > 0 ? s->njmax : 4000;
  mci_defaultOption(&sizes.opt);
  mcModel* m = mci_makeModel(&sizes);
  b->mc = m;
  COPY(m, s, qpos0, s->nq);
  COPY(m, s, body_parentid, s->nbody);
  COPY(m, s, body_rootid, s->nbody);
  COPY(m, s, body_weldid, s->nbody);
  COPY(m, s, body_jntnum, s->nbody);
  COPY(m, s, body_jntadr, s->nbody);
  COPY(m, s, body_dofnum, s->nbody);
  COPY(m, s, body_dofadr, s->nbody);
  COPY(m, s, body_invweight0, 2 * s->nbody);
  COPY(m, s, body_mass, s->nbody);
  COPY(m, s, jnt_type, s->njnt);
  COPY(m, s, jnt_qposadr, s->njnt);
  COPY(m, s, jnt_dofadr, s->njnt);
  COPY(m, s, jnt_bodyid, s->njnt);
  COPY(m, s, jnt_limited, s->njnt);
  COPY(m, s, jnt_solref, mjNREF * s->njnt);
  COPY(m, s, jnt_solimp, mjNIMP * s->njnt);
  COPY(m, s, jnt_range, 2 * s->njnt);
  COPY(m, s, jnt_margin, s->njnt);
  COPY(m, s, dof_bodyid, s->nv);
  COPY(m, s, dof_jntid, s->nv);
  COPY(m, s, dof_parentid, s->nv);
  COPY(m, s, dof_Madr, s->nv);
  COPY(m, s, dof_solref, mjNREF * s->nv);
  COPY(m, s, dof_solimp, mjNIMP * s->nv);
  COPY(m, s, dof_frictionloss, s->nv);
  COPY(m, s, dof_invweight0, s->nv);
  COPY(m, s, dof_M0, s->nv);
  COPY(m, s, geom_bodyid, s->ngeom);
  COPY(m, s, geom_condim, s->ngeom);
  COPY(m, s, eq_type, s->neq);
  COPY(m, s, eq_obj1id, s->neq);
  COPY(m, s, eq_obj2id, s->neq);
  COPY(m, s, eq_solref, mjNREF * s->neq);
  COPY(m, s, eq_solimp, mjNIMP * s->neq);
  COPY(m, s, eq_data, mjNEQDATA * s->neq);
  memcpy(m->eq_active0, s->eq_active, s->neq);
  COPY(m, s, tendon_limited, s->ntendon);
  COPY(m, s, tendon_solref_lim, mjNREF * s->ntendon);
  COPY(m, s, tendon_solimp_lim, mjNIMP * s->ntendon);
  COPY(m, s, tendon_solref_fri, mjNREF * s->ntendon);
  COPY(m, s, tendon_solimp_fri, mjNIMP * s->ntendon);
  COPY(m, s, tendon_range, 2 * s->ntendon);
  COPY(m, s, tendon_margin, s->ntendon);
  COPY(m, s, tendon_frictionloss, s->ntendon);
  COPY(m, s, tendon_length0, s->ntendon);
  COPY(m, s, tendon_invweight0, s->ntendon);
  bridge_syncOptions(b);
}


int bridge_load(Bridge* b, const char* xml, char* error, int error_sz) {
  memset(b, 0, sizeof(*b));
  char path[] = "/tmp/moduco_bridge_XXXXXX.xml";
  int fd = mkstemps(path, 4);
  if (fd < 0) {
    snprintf(error, error_sz, "cannot create a temporary file");
    return -1;
  }
  FILE* f = fdopen(fd, "w");
  fputs(xml, f);
  fclose(f);
  int rc = bridge_loadFile(b, path, error, error_sz);
  remove(path);
  return rc;
}


int bridge_loadFile(Bridge* b, const char* file, char* error, int error_sz) {
  memset(b, 0, sizeof(*b));
  b->mj = mj_loadXML(file, NULL, error, error_sz);
  if (!b->mj) {
    return -1;
  }
  b->mj->opt.jacobian = mjJAC_DENSE;
  b->dj = mj_makeData(b->mj);
  makeModel(b);
  tu_legacyWeldWeights(b->mc);
  tu_legacyCollision(b->mc);
  b->dc = mc_makeData(b->mc);
  if (!b->dc) {
    snprintf(error, error_sz, "mc_makeData failed");
    return -1;
  }
  return 0;
}


//---------------------------------- data ----------------------------------------------------------

void bridge_forward(Bridge* b) {
  const mjModel* m = b->mj;
  mjData* s = b->dj;
  mcData* d = b->dc;
  mcModel* mc = b->mc;
  bridge_syncOptions(b);

  // MuJoCo's warmstart input is kept for Moduco before mj_forward overwrites it
  memcpy(d->qacc_warmstart, s->qacc_warmstart, sizeof(mjtNum) * m->nv);
  mj_forward(m, s);

  // state and position-dependent quantities
  COPY(d, s, qpos, m->nq);
  COPY(d, s, qvel, m->nv);
  COPY(d, s, xpos, 3 * m->nbody);
  COPY(d, s, xquat, 4 * m->nbody);
  COPY(d, s, xmat, 9 * m->nbody);
  COPY(d, s, xipos, 3 * m->nbody);
  COPY(d, s, subtree_com, 3 * m->nbody);
  COPY(d, s, cdof, 6 * m->nv);
  COPY(d, s, ten_length, m->ntendon);
  COPY(d, s, ten_J, m->ntendon * m->nv);
  COPY(d, s, qM, m->nM);
  COPY(d, s, qLD, m->nM);
  COPY(d, s, qLDiagInv, m->nv);
  COPY(d, s, qacc_smooth, m->nv);
  COPY(d, s, qfrc_smooth, m->nv);
  for (int i = 0; i < m->neq; i++) {
    d->eq_active[i] = m->eq_active[i];
  }

  // contacts into the arena
  mci_clearArena(d);
  d->ncon = 0;
  d->contact = (mcContact*)mci_arenaAlloc(d, sizeof(mcContact) * (s->ncon + 1), 8);
  for (int i = 0; i < s->ncon; i++) {
    const mjContact* c = s->contact + i;
    mcContact* k = d->contact + i;
    memset(k, 0, sizeof(*k));
    k->dist = c->dist;
    memcpy(k->pos, c->pos, sizeof(k->pos));
    memcpy(k->frame, c->frame, sizeof(k->frame));
    k->includemargin = c->includemargin;
    memcpy(k->friction, c->friction, sizeof(k->friction));
    memcpy(k->solref, c->solref, sizeof(k->solref));
    memcpy(k->solimp, c->solimp, sizeof(k->solimp));
    k->dim = c->dim;
    k->geom1 = c->geom1;
    k->geom2 = c->geom2;
    k->exclude = c->exclude;
  }
  d->ncon = s->ncon;
  (void)mc;
  mc_makeConstraint(b->mc, d);
  mc_referenceConstraint(b->mc, d);               // what mc_fwdVelocity adds to the rows
}


void bridge_solve(Bridge* b, const mcpSolver* solver) {
  mc_solverInputs(b->mc, b->dc);                 // what mc_fwdConstraint does before a solver
  solver->solve(&g_host, b->mc, b->dc, b->mc->opt.iterations);
}


double bridge_err(const double* a, const double* b, int n, int* where) {
  double worst = 0;
  if (where) {
    *where = -1;
  }
  for (int i = 0; i < n; i++) {
    double s = fabs(b[i]) > 1 ? fabs(b[i]) : 1;
    double e = fabs(a[i] - b[i]) / s;
    if (!(e <= worst)) {
      worst = e;
      if (where) {
        *where = i;
      }
    }
  }
  return worst;
}


void bridge_free(Bridge* b) {
  mc_deleteData(b->dc);
  mc_deleteModel(b->mc);
  mj_deleteData(b->dj);
  mj_deleteModel(b->mj);
  memset(b, 0, sizeof(*b));
}
