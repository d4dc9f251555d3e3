// Constraint assembly on the in-step thread pool (core/engine/constraint.c, island.c): the efc
// rows (type, id, Jacobian dense or row-sparse, residual, soft-constraint parameters, reference)
// and the trajectory are bitwise the same without a pool and with 1, 2 and 3 threads, on a scene
// with every kind of row: contacts of condim 1, 3, 4 and 6 (pyramidal and elliptic cones),
// connect, weld, joint and tendon equalities, joint (hinge, slide, ball) and tendon limits, dof
// and tendon friction loss; and the islands (nisland, dof_island, every island list, efc_island)
// against their definition, rows touching more than two trees and rows without non-zeros
// included, also when mc_island runs on its own on a pool. Built twice: as a Criterion suite and, with ROLLOUT_PLAIN, as a plain
// program for ThreadSanitizer (make test-tsan).
#ifdef ROLLOUT_PLAIN
#include "plain_test.h"
#else
#include <criterion/criterion.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

#include "../rollout/pool_test_util.h"

#include "engine/constraint.h"
#include "engine/island.h"
#include "engine/parallel_stages.h"
#include "engine/threadpool.h"


#define NTREE 12                  // trees of the scene (enough rows for the pool's jobs)
#define NTREEMANY 64              // trees of the large scene (the count pass on the pool too)

#ifdef __SANITIZE_THREAD__
#define NSTEP 40
#else
#define NSTEP 150
#endif

// ntree trees on a plane: a free base with a hinge (limited, friction loss), a slide (limited)
// and a ball (limited) below it, a fixed tendon over the hinge and the slide (limited, friction
// loss), every limit's margin wide enough for rows from the start; tree k's tip is connected to
// tree k+1's base (k even), welded to it (k % 4 == 1), its hinge coupled to its slide by a joint
// equality, its tendon to tree k+1's by a tendon equality (k % 3 == 0); geoms of condim 1, 3, 4
// and 6 by tree; two pendulums in the air joined to tree 0 only by a limited tendon with friction
// loss over their hinges and tree 0's (rows on three trees), a third one coupled to tree 0's hinge
// by the first joint equality (tree 0 then joins two other trees in a row), and a tendon with
// friction loss but no moment arm (a row without non-zeros)
static char* sceneXML(int ntree, const char* cone, const char* jacobian) {
  size_t cap = 512 * 1024, n = 0;
  char* x = malloc(cap);
  cr_assert(x);
#define PUT(...)                                                                                   \
  do {                                                                                             \
    n += (size_t)snprintf(x + n, cap - n, __VA_ARGS__);                                            \
    cr_assert(n < cap);                                                                            \
  } while (0)
  PUT("<mujoco><option timestep='0.004' cone='%s' jacobian='%s'/>", cone, jacobian);
  PUT("<default><geom friction='0.8 0.02 0.001'/></default><worldbody>");
  PUT("<geom type='plane' size='20 20 .1' condim='1'/>");
  static const int condim[4] = {1, 3, 4, 6};
  for (int k = 0; k < ntree; k++) {
    double px = 0.7 * (k % 8), py = 0.7 * (k / 8);
    PUT("<body name='base%d' pos='%g %g .17'><freejoint/>", k, px, py);
    PUT("<geom type='box' size='.12 .12 .05' condim='%d'/>", condim[k % 4]);
    PUT("<body name='arm%d' pos='.1 0 0'>", k);
    PUT("<joint name='h%d' type='hinge' axis='0 1 0' limited='true' range='-4 4' "
        "margin='.1' frictionloss='.02'/>", k);
    PUT("<geom type='capsule' fromto='0 0 0 .2 0 0' size='.03' condim='%d'/>",
        condim[(k + 1) % 4]);
    PUT("<body name='slider%d' pos='.2 0 0'>", k);
    PUT("<joint name='s%d' type='slide' axis='0 0 1' limited='true' range='-.01 .01' "
        "margin='.02' frictionloss='.01'/>", k);
    PUT("<geom type='sphere' size='.05' condim='%d'/>", condim[(k + 2) % 4]);
    PUT("<body name='tip%d' pos='0 0 -.08'>", k);
    PUT("<joint name='b%d' type='ball' limited='true' range='0 10' margin='.2'/>", k);
    PUT("<geom type='sphere' size='.04' pos='0 0 -.05' condim='%d'/>", condim[(k + 3) % 4]);
    PUT("</body></body></body></body>");
  }
  for (int k = 0; k < 3; k++) {
    PUT("<body pos='%d 0 5'><joint name='p%d' type='hinge' axis='0 1 0'/>", -2 - 2 * k, k);
    PUT("<geom type='capsule' fromto='0 0 0 0 0 -.5' size='.03' contype='0' conaffinity='0'/>");
    PUT("</body>");
  }
  PUT("</worldbody><tendon>");
  for (int k = 0; k < ntree; k++) {
    PUT("<fixed name='t%d' limited='true' range='-.02 .02' margin='.03' frictionloss='.01'>", k);
    PUT("<joint joint='h%d' coef='1'/><joint joint='s%d' coef='.5'/></fixed>", k, k);
  }
  PUT("<fixed name='three' limited='true' range='-.001 .001' margin='.5' frictionloss='.01'>");
  PUT("<joint joint='h0' coef='1'/><joint joint='p0' coef='1'/><joint joint='p1' coef='1'/>");
  PUT("</fixed><fixed name='none' frictionloss='.01'><joint joint='s0' coef='0'/></fixed>");
  PUT("</tendon><equality><joint joint1='h0' joint2='p2' polycoef='0 1 0 0 0'/>");
  for (int k = 0; k + 1 < ntree; k++) {
    if (k % 2 == 0) {
      PUT("<connect body1='tip%d' body2='base%d' anchor='0 0 0'/>", k, k + 1);
    }
    if (k % 4 == 1) {
      PUT("<weld body1='slider%d' body2='base%d'/>", k, k + 1);
    }
    if (k % 3 == 0) {
      PUT("<tendon tendon1='t%d' tendon2='t%d' polycoef='0 1 0 0 0'/>", k, k + 1);
    }
  }
  for (int k = 0; k < ntree; k++) {
    PUT("<joint joint1='h%d' joint2='s%d' polycoef='0 .5 0 0 0'/>", k, k);
  }
  PUT("</equality></mujoco>");
#undef PUT
  return x;
}


static mcModel* loadScene(int ntree, const char* cone, const char* jacobian) {
  char* xml = sceneXML(ntree, cone, jacobian);
  return pt_loadOwnedXML(xml);
}


static unsigned long long mix(unsigned long long h, const void* p, size_t bytes) {
  const unsigned char* c = (const unsigned char*)p;
  for (size_t i = 0; i < bytes; i++) {
    h = (h ^ c[i]) * 1099511628211ULL;
  }
  return h;
}


// hash of every efc array the assembly writes (and the contacts' row addresses), the islands and
// the state
static unsigned long long hashStep(const mcModel* m, const mcData* d, unsigned long long h) {
  size_t n = (size_t)d->nefc, nv = (size_t)m->nv;
  h = mix(h, &d->nefc, sizeof(int));
  h = mix(h, &d->ne, sizeof(int));
  h = mix(h, &d->nf, sizeof(int));
  h = mix(h, d->efc_type, n * sizeof(int));
  h = mix(h, d->efc_id, n * sizeof(int));
  h = mix(h, d->efc_state, n * sizeof(int));
  if (d->efc_J_rownnz) {
    size_t nnz = n ? (size_t)d->efc_J_rowadr[n - 1] + (size_t)d->efc_J_rownnz[n - 1] : 0;
    h = mix(h, d->efc_J_rownnz, n * sizeof(int));
    h = mix(h, d->efc_J_rowadr, n * sizeof(int));
    h = mix(h, d->efc_J_colind, nnz * sizeof(int));
    h = mix(h, d->efc_J_val, nnz * sizeof(mcNum));
  } else {
    h = mix(h, d->efc_J, n * nv * sizeof(mcNum));
  }
  const mcNum* arr[10] = {d->efc_pos,  d->efc_margin, d->efc_frictionloss, d->efc_diagApprox,
                          d->efc_D,    d->efc_R,      d->efc_vel,          d->efc_aref,
                          d->efc_force, d->efc_b};
  for (int a = 0; a < 10; a++) {
    h = mix(h, arr[a], n * sizeof(mcNum));
  }
  h = mix(h, d->efc_KBIP, 4 * n * sizeof(mcNum));
  for (int i = 0; i < d->ncon; i++) {
    h = mix(h, &d->contact[i].efc_address, sizeof(int));
    h = mix(h, &d->contact[i].mu, sizeof(mcNum));
  }
  h = mix(h, &d->nisland, sizeof(int));
  if (d->nisland) {
    size_t ni = (size_t)d->nisland;
    h = mix(h, d->dof_island, nv * sizeof(int));
    h = mix(h, d->island_dofadr, ni * sizeof(int));
    h = mix(h, d->island_dofnum, ni * sizeof(int));
    h = mix(h, d->island_dofind, nv * sizeof(int));
    h = mix(h, d->island_efcadr, ni * sizeof(int));
    h = mix(h, d->island_efcnum, ni * sizeof(int));
    h = mix(h, d->efc_island, n * sizeof(int));
    h = mix(h, d->island_efcind, n * sizeof(int));
  }
  h = mix(h, d->qpos, (size_t)m->nq * sizeof(mcNum));
  h = mix(h, d->qvel, nv * sizeof(mcNum));
  h = mix(h, d->qacc, nv * sizeof(mcNum));
  return h;
}


// the tree (root dof) of row i's first non-zero (sparse: its first stored column), -1 without one
static int firstTree(const mcModel* m, const mcData* d, int i, const int* root) {
  if (d->efc_J_rownnz) {
    return d->efc_J_rownnz[i] ? root[d->efc_J_colind[d->efc_J_rowadr[i]]] : -1;
  }
  for (int k = 0; k < m->nv; k++) {
    if (d->efc_J[(size_t)i * m->nv + k] != 0) {
      return root[k];
    }
  }
  return -1;
}


// give every tree labelled a or b the smaller label
static void merge(int* label, int nv, int a, int b) {
  if (a == b) {
    return;
  }
  int lo = a < b ? a : b, hi = a < b ? b : a;
  for (int k = 0; k < nv; k++) {
    label[k] = label[k] == hi ? lo : label[k];
  }
}


// d's islands against their definition (engine/island.h), found here the slow way: each row
// joins the trees (root dofs) of its non-zeros, the rows of one contact join each other; a row's
// tree is that of its first non-zero, else that of its contact's row before (none: island 0);
// the sets holding a row are numbered by first dof, their dofs and rows listed ascending
static void checkIslands(const mcModel* m, const mcData* d) {
  int nv = m->nv, n = d->nefc;
  if (!(m->opt.enableflags & mcENBL_ISLAND) || n == 0) {
    cr_expect_eq(d->nisland, 0);
    return;
  }
  int* root = malloc(sizeof(int) * (size_t)nv);
  int* label = malloc(sizeof(int) * (size_t)nv);
  int* number = malloc(sizeof(int) * (size_t)nv);
  int* rowtree = malloc(sizeof(int) * (size_t)n);
  cr_assert(root && label && number && rowtree);
  for (int k = 0; k < nv; k++) {
    root[k] = m->dof_parentid[k] < 0 ? k : root[m->dof_parentid[k]];
    label[k] = k;
    number[k] = -1;
  }
  for (int i = 0; i < n; i++) {
    int same = i > 0 && d->efc_type[i] >= mcCNSTR_CONTACT_FRICTIONLESS &&
               d->efc_type[i] == d->efc_type[i - 1] && d->efc_id[i] == d->efc_id[i - 1];
    int first = firstTree(m, d, i, root);
    for (int k = 0, nnz = d->efc_J_rownnz ? d->efc_J_rownnz[i] : nv; k < nnz; k++) {
      int col = d->efc_J_rownnz ? d->efc_J_colind[d->efc_J_rowadr[i] + k] : k;
      if (d->efc_J_rownnz || d->efc_J[(size_t)i * nv + k] != 0) {
        merge(label, nv, label[first], label[root[col]]);
      }
    }
    if (same && rowtree[i - 1] >= 0) {
      if (first >= 0) {
        merge(label, nv, label[first], label[rowtree[i - 1]]);
      } else {
        first = rowtree[i - 1];
      }
    }
    rowtree[i] = first;
  }
  int nisland = 0;
  for (int k = 0; k < nv; k++) {    // number the sets holding a row by first dof
    int has = 0;
    for (int i = 0; i < n && !has; i++) {
      has = rowtree[i] >= 0 && label[rowtree[i]] == label[root[k]];
    }
    if (has && number[label[root[k]]] < 0) {
      number[label[root[k]]] = nisland++;
    }
  }
  cr_assert_eq(d->nisland, nisland, "%d islands, %d by definition", d->nisland, nisland);
  for (int isl = 0, ndof = 0, nrow = 0; isl < nisland; isl++) {
    cr_expect_eq(d->island_dofadr[isl], ndof);
    cr_expect_eq(d->island_efcadr[isl], nrow);
    for (int k = 0; k < nv; k++) {
      if (number[label[root[k]]] == isl) {
        cr_expect_eq(d->island_dofind[ndof++], k, "island %d: dof %d", isl, k);
      }
    }
    for (int i = 0; i < n; i++) {
      if ((rowtree[i] >= 0 ? number[label[rowtree[i]]] : 0) == isl) {
        cr_expect_eq(d->island_efcind[nrow++], i, "island %d: row %d", isl, i);
      }
    }
    cr_expect_eq(d->island_dofnum[isl], ndof - d->island_dofadr[isl]);
    cr_expect_eq(d->island_efcnum[isl], nrow - d->island_efcadr[isl]);
  }
  for (int k = 0; k < nv; k++) {
    cr_expect_eq(d->dof_island[k], number[label[root[k]]], "dof %d", k);
  }
  for (int i = 0; i < n; i++) {
    cr_expect_eq(d->efc_island[i], rowtree[i] >= 0 ? number[label[rowtree[i]]] : 0, "row %d", i);
  }
  free(rowtree);
  free(number);
  free(label);
  free(root);
}


// rows of each type seen over a run (counts summed over steps)
typedef struct {
  long type[mcCNSTR_CONTACT_ELLIPTIC + 1];
  long eqtype[4];                 // equality rows by mcEQ_ type
  int mostrows, mostother;        // most rows in a step, most rows before the contacts' in a step
  long three, none;               // rows of the tendons on three trees and without a moment arm
} Seen;


// hash of NSTEP steps on a pool of nthread (0: none); seen (nullable) gets the rows' kinds
static unsigned long long runHash(const mcModel* m, int nthread, Seen* seen) {
  mcThreadPool* pool;
  mcData* d = pt_makeData(m, nthread, &pool);
  unsigned long long h = PT_HASH0;
  for (int s = 0; s < NSTEP; s++) {
    mc_step(m, d);
    h = hashStep(m, d, h);
    checkIslands(m, d);
    for (int i = 0; seen && i < d->nefc; i++) {
      seen->type[d->efc_type[i]]++;
      seen->three += d->efc_type[i] == mcCNSTR_LIMIT_TENDON && d->efc_id[i] == m->ntendon - 2;
      seen->none += d->efc_type[i] == mcCNSTR_FRICTION_TENDON && d->efc_id[i] == m->ntendon - 1;
      if (d->efc_type[i] == mcCNSTR_EQUALITY) {
        seen->eqtype[m->eq_type[d->efc_id[i]]]++;
      }
    }
    if (seen) {
      int other = 0;
      while (other < d->nefc && d->efc_type[other] < mcCNSTR_CONTACT_FRICTIONLESS) {
        other++;
      }
      seen->mostrows = d->nefc > seen->mostrows ? d->nefc : seen->mostrows;
      seen->mostother = other > seen->mostother ? other : seen->mostother;
    }
  }
  cr_expect(d->warning[mcWARN_BADQACC].number == 0, "the scene diverged");
  pt_deleteData(d, pool);
  return h;
}


// the same hash without a pool and with 1, 2 and 3 threads, islands off and on; the scene has
// rows of every kind, and enough of them for the pool's jobs
static void sameForAnyThreads(int ntree, const char* cone, const char* jacobian, int elliptic) {
  mcModel* m = loadScene(ntree, cone, jacobian);
  for (int island = 0; island < 2; island++) {
    if (island) {
      m->opt.enableflags |= mcENBL_ISLAND;
    } else {
      m->opt.enableflags &= ~mcENBL_ISLAND;
    }
    // (island solves with elliptic cones and the sparse Jacobian: Newton's sparse Hessian finds a
    // cone's rows in the island's own numbering; it once used the whole problem's efc_address
    // there and read out of bounds)
    Seen seen;
    memset(&seen, 0, sizeof(seen));
    unsigned long long h0 = runHash(m, 0, &seen);
    for (int t = 1; t <= 3; t++) {
      cr_expect(runHash(m, t, NULL) == h0, "%s %s, island %d: %d threads differ", cone,
                jacobian, island, t);
    }
    if (island) {
      continue;
    }
    int contact = elliptic ? mcCNSTR_CONTACT_ELLIPTIC : mcCNSTR_CONTACT_PYRAMIDAL;
    cr_expect(seen.type[contact] > 0 && seen.type[mcCNSTR_CONTACT_FRICTIONLESS] > 0,
              "no contact rows");
    cr_expect(seen.type[mcCNSTR_LIMIT_JOINT] > 0 && seen.type[mcCNSTR_LIMIT_TENDON] > 0,
              "no limit rows");
    cr_expect(seen.type[mcCNSTR_FRICTION_DOF] > 0 && seen.type[mcCNSTR_FRICTION_TENDON] > 0,
              "no friction rows");
    for (int e = 0; e < 4; e++) {
      cr_expect(seen.eqtype[e] > 0, "no rows of equality type %d", e);
    }
    cr_expect(seen.three > 0 && seen.none > 0, "no rows on three trees or without non-zeros");
    cr_expect(seen.mostrows >= 128 && seen.mostother >= 96, "few rows: %d (%d before contacts)",
              seen.mostrows, seen.mostother);
  }
  mc_deleteModel(m);
}


Test(constraint_pool, bitwise_any_thread_count_pyramidal_sparse) {
  sameForAnyThreads(NTREE, "pyramidal", "sparse", 0);
}


Test(constraint_pool, bitwise_any_thread_count_elliptic_sparse) {
  sameForAnyThreads(NTREE, "elliptic", "sparse", 1);
}


Test(constraint_pool, bitwise_any_thread_count_pyramidal_dense) {
  sameForAnyThreads(NTREE, "pyramidal", "dense", 0);
}


Test(constraint_pool, bitwise_any_thread_count_elliptic_dense) {
  sameForAnyThreads(NTREE, "elliptic", "dense", 1);
}


// enough friction, limit and contact elements for the count pass's job on the pool (constraint.c
// MINCOUNTELEMS: 1,024 elements)
Test(constraint_pool, bitwise_any_thread_count_count_pass_on_pool) {
  mcModel* m = loadScene(NTREEMANY, "pyramidal", "sparse");
  cr_assert(m->nv + 2 * m->ntendon + m->njnt >= 1024, "only %d elements",
            m->nv + 2 * m->ntendon + m->njnt);
  mc_deleteModel(m);
  sameForAnyThreads(NTREEMANY, "pyramidal", "sparse", 0);
}


// Newton's island solves with elliptic cones in the middle zone and the sparse Jacobian: the
// Hessian's cone blocks are found in the island's own row numbering (once a read out of bounds).
// Every 10 steps of a run without islands, one forward with islands from the same state gives
// qacc within the solver's tolerance of the whole solve.
Test(constraint_pool, newton_island_cones_sparse_match_whole_solve) {
  mcModel* m = loadScene(NTREE, "elliptic", "sparse");
  m->opt.enableflags &= ~mcENBL_ISLAND;
  mcData* d = mc_makeData(m);
  mcData* e = mc_makeData(m);
  cr_assert(d && e);
  int cones = 0, compared = 0;
  for (int s = 1; s <= NSTEP; s++) {
    mc_step(m, d);
    if (s % 10) {
      continue;
    }
    mc_copyData(e, m, d);
    mc_forward(m, e);
    m->opt.enableflags |= mcENBL_ISLAND;
    mc_copyData(d, m, e);
    mc_forward(m, d);
    m->opt.enableflags &= ~mcENBL_ISLAND;
    for (int i = 0; i < d->nefc; i++) {
      cones += d->efc_state[i] == mcCNSTRSTATE_CONE;
    }
    mcNum scale = 1, worst = 0;
    for (int i = 0; i < m->nv; i++) {
      mcNum a = e->qacc[i] < 0 ? -e->qacc[i] : e->qacc[i];
      mcNum diff = d->qacc[i] - e->qacc[i];
      scale = a > scale ? a : scale;
      worst = (diff < 0 ? -diff : diff) > worst ? (diff < 0 ? -diff : diff) : worst;
    }
    cr_expect(d->nisland > 1, "step %d: %d islands", s, d->nisland);
    cr_expect(worst <= 1e-6 * scale, "step %d: qacc %g off the whole solve (scale %g)", s, worst,
              scale);
    compared++;
  }
  cr_expect(cones > 0, "no cone rows in the middle zone");
  cr_expect(compared > 0);
  mc_deleteData(e);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// mc_island on its own (after the assembly, as a caller may run it): on a pool of 2 or 3 threads
// it finds the rows' parts in a job of its own; the islands are those of the definition and
// bitwise those without a pool, sparse and dense
Test(constraint_pool, island_discovery_alone_on_a_pool) {
  static const char* jacobian[2] = {"sparse", "dense"};
  for (int j = 0; j < 2; j++) {
    mcModel* m = loadScene(NTREE, "pyramidal", jacobian[j]);
    m->opt.enableflags |= mcENBL_ISLAND;
    mcData* d = mc_makeData(m);
    mcThreadPool* pool[2] = {mc_threadPoolCreate(2), mc_threadPoolCreate(3)};
    mci_poolSetEager(pool[0], 1);   // the jobs on small models too
    mci_poolSetEager(pool[1], 1);   // the jobs on small models too
    cr_assert(d && pool[0] && pool[1]);
    int checked = 0;
    for (int s = 0; s < NSTEP; s++) {
      mc_step(m, d);
      if (s % 10 || d->nefc < 128) {
        continue;
      }
      mc_island(m, d);
      checkIslands(m, d);
      unsigned long long h0 = hashStep(m, d, 1);
      for (int p = 0; p < 2; p++) {
        cr_assert_eq(mc_bindThreadPool(d, pool[p]), 0);
        mc_island(m, d);
        mc_bindThreadPool(d, NULL);
        checkIslands(m, d);
        cr_expect(hashStep(m, d, 1) == h0, "%s, step %d: %d threads differ", jacobian[j], s,
                  p + 2);
      }
      checked++;
    }
    cr_expect(checked > 0, "never 128 rows");
    mc_threadPoolDelete(pool[1]);
    mc_threadPoolDelete(pool[0]);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


// rows all without non-zeros (a friction-loss tendon without moment arm): no island, whatever
// the pool (the islands' row lists once took a cursor that was never set)
Test(constraint_pool, rows_without_nonzeros_make_no_island) {
  static const char* xml =
    "<mujoco><option><flag island='enable'/></option><worldbody><body><joint name='a' "
    "type='slide'/><geom size='.1'/></body></worldbody><tendon><fixed name='z' "
    "frictionloss='.1'><joint joint='a' coef='0'/></fixed></tendon></mujoco>";
  char error[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  cr_assert(m, "%s", error);
  for (int t = 0; t <= 2; t++) {
    mcData* d = mc_makeData(m);
    mcThreadPool* pool = t ? mc_threadPoolCreate(t) : NULL;
    mci_poolSetEager(pool, 1);   // the jobs on small models too
    cr_assert(d && (!t || (pool && mc_bindThreadPool(d, pool) == 0)));
    for (int s = 0; s < 5; s++) {
      mc_step(m, d);
      cr_expect_eq(d->nefc, 1);
      cr_expect_eq(d->nisland, 0);
      mc_island(m, d);
      cr_expect_eq(d->nisland, 0);
    }
    mc_bindThreadPool(d, NULL);
    mc_threadPoolDelete(pool);
    mc_deleteData(d);
  }
  mc_deleteModel(m);
}


// the floor moving (surface velocity) and adhesive: its contacts' rows get the surface terms of
// efc_vel and efc_aref (mc_surfaceReference)
static void movingStickyFloor(mcModel* m) {
  static const mcNum v[6] = {0.05, -0.03, 0, 0, 0, 0.2};
  memcpy(m->geom_surfacevel, v, sizeof(v));
  m->geom_adhesion[0] = 0.5;
}


// mci_makeConstraint again on d after a step, its arrays in the arena from where the step's end:
// each call of a test from the same place (calls one after the other would fill the arena, and
// rows that do not fit are dropped)
static int remake(const mcModel* m, mcData* d, size_t parena, int reference) {
  d->parena = parena;
  return mci_makeConstraint(m, d, reference);
}


// does a contact of d have rows?
static int contactRows(const mcData* d) {
  for (int i = 0; i < d->ncon; i++) {
    if (d->contact[i].efc_address >= 0) {
      return 1;
    }
  }
  return 0;
}


// mci_makeConstraint with reference on a pool of 2 or 3 threads makes every row's efc_vel and the
// position part of efc_aref, and the contacts' surface terms, in the row tasks (mc_forward's
// early velocity stage then runs no job and no contact pass for them): bitwise those of
// mc_referenceConstraint, sparse and dense, cones pyramidal and elliptic, with a moving and
// adhesive floor; without a pool, or not asked, it leaves them to mc_referenceConstraint (0)
Test(constraint_pool, reference_rows_in_the_assembly_tasks) {
  static const char* jacobian[4] = {"sparse", "dense", "sparse", "dense"};
  static const char* cone[4] = {"pyramidal", "pyramidal", "elliptic", "elliptic"};
  for (int j = 0; j < 4; j++) {
    mcModel* m = loadScene(NTREE, cone[j], jacobian[j]);
    movingStickyFloor(m);
    mcData* d = mc_makeData(m);
    mcThreadPool* pool[2] = {mc_threadPoolCreate(2), mc_threadPoolCreate(3)};
    mci_poolSetEager(pool[0], 1);   // the jobs on small models too
    mci_poolSetEager(pool[1], 1);   // the jobs on small models too
    cr_assert(d && pool[0] && pool[1]);
    int checked = 0;
    for (int s = 0; s < NSTEP; s++) {
      mc_step(m, d);
      if (s % 10 || d->nefc < 128) {
        continue;
      }
      size_t parena = d->parena;
      cr_expect_eq(remake(m, d, parena, 1), 0, "no pool: reference rows made");
      for (int p = 0; p < 2; p++) {
        cr_assert_eq(mc_bindThreadPool(d, pool[p]), 0);
        cr_expect_eq(remake(m, d, parena, 0), 0, "reference rows made unasked");
        int made = remake(m, d, parena, 1);
        cr_expect(made & MCI_REFERENCE_ROWS, "%s, step %d: no reference rows on %d threads",
                  jacobian[j], s, p + 2);
        int noadhesion = contactRows(d) ? 0 : MCI_REFERENCE_NOADHESION;
        cr_expect((made & MCI_REFERENCE_NOADHESION) == noadhesion, "%s, step %d: adhesion missed",
                  jacobian[j], s);
        mc_bindThreadPool(d, NULL);
        int n = d->nefc;
        mcNum* vel = malloc(sizeof(mcNum) * (size_t)n);
        mcNum* aref = malloc(sizeof(mcNum) * (size_t)n);
        cr_assert(vel && aref);
        memcpy(vel, d->efc_vel, sizeof(mcNum) * (size_t)n);
        memcpy(aref, d->efc_aref, sizeof(mcNum) * (size_t)n);
        mc_referenceConstraint(m, d);
        cr_expect(memcmp(vel, d->efc_vel, sizeof(mcNum) * (size_t)n) == 0,
                  "%s %s, step %d: efc_vel", cone[j], jacobian[j], s);
        // (equality rows: mc_referenceConstraint also takes dJ/dt qvel off their efc_aref)
        int same = 1;
        for (int i = d->ne; i < n; i++) {
          same = same && memcmp(aref + i, d->efc_aref + i, sizeof(mcNum)) == 0;
        }
        cr_expect(same, "%s %s, step %d: efc_aref", cone[j], jacobian[j], s);
        free(aref);
        free(vel);
      }
      checked++;
    }
    cr_expect(checked > 0, "never 128 rows");
    mc_threadPoolDelete(pool[1]);
    mc_threadPoolDelete(pool[0]);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


// a moving and adhesive floor: the trajectory and every efc array bitwise the same without a
// pool and with 1, 2 and 3 threads (the surface terms made in the assembly's tasks when the
// velocity stage runs early)
Test(constraint_pool, bitwise_any_thread_count_moving_sticky_floor) {
  static const char* cone[2] = {"pyramidal", "elliptic"};
  for (int c = 0; c < 2; c++) {
    mcModel* m = loadScene(NTREE, cone[c], "sparse");
    movingStickyFloor(m);
    m->opt.enableflags |= mcENBL_ISLAND;
    unsigned long long h0 = runHash(m, 0, NULL);
    for (int t = 1; t <= 3; t++) {
      cr_expect(runHash(m, t, NULL) == h0, "%s: %d threads differ", cone[c], t);
    }
    mc_deleteModel(m);
  }
}


// mci_treeDofs (run every step by the assembly, one loop per set of outputs) against its
// definition for every choice of outputs: the root dof of every dof by its parents, the dofs on
// the chain to the root, and the runs of dofs of one tree (a new run wherever the tree changes)
Test(constraint_pool, tree_dofs_match_their_definition) {
  mcModel* m = loadScene(NTREE, "pyramidal", "sparse");
  int nv = m->nv;
  int* want = malloc(sizeof(int) * (size_t)(4 * nv + 2));
  int* got = malloc(sizeof(int) * (size_t)(4 * nv + 2));
  cr_assert(want && got);
  int nrun = 0;
  for (int k = 0; k < nv; k++) {
    int root = k, depth = 1;
    while (m->dof_parentid[root] >= 0) {
      root = m->dof_parentid[root];
      depth++;
    }
    want[k] = root;
    want[nv + k] = depth;
    if (k == 0 || want[k] != want[k - 1]) {
      want[2 * nv + nrun++] = k;
    }
  }
  want[2 * nv + nrun] = nv;
  cr_assert(nrun > NTREE, "only %d runs", nrun);
  for (int with = 0; with < 4; with++) {
    memset(got, 0xff, sizeof(int) * (size_t)(4 * nv + 2));
    int* depth = with & 1 ? got + nv : NULL;
    int* run = with & 2 ? got + 2 * nv : NULL;
    int n = mci_treeDofs(m, got, depth, run);
    cr_expect(memcmp(got, want, sizeof(int) * (size_t)nv) == 0, "outputs %d: tree", with);
    if (depth) {
      cr_expect(memcmp(depth, want + nv, sizeof(int) * (size_t)nv) == 0, "outputs %d: depth",
                with);
    }
    if (run) {
      cr_expect_eq(n, nrun, "outputs %d: %d runs, not %d", with, n, nrun);
      cr_expect(memcmp(run, want + 2 * nv, sizeof(int) * (size_t)(nrun + 1)) == 0,
                "outputs %d: runs", with);
    }
  }
  free(got);
  free(want);
  mc_deleteModel(m);
}


// without adhesion on any geom mci_makeConstraint's row tasks tell the velocity stage that
// mc_adhesionPassive has nothing to add (it skips the pass over the contacts); with a sticky
// floor they do not (qfrc_passive then gets the pull: bitwise_any_thread_count_moving_sticky_floor)
Test(constraint_pool, no_adhesion_pass_without_adhesion) {
  mcModel* m = loadScene(NTREE, "pyramidal", "sparse");
  mcData* d = mc_makeData(m);
  mcThreadPool* pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(d && pool);
  int checked = 0;
  for (int s = 0; s < NSTEP; s++) {
    mc_step(m, d);
    if (s % 10 || d->nefc < 128) {
      continue;
    }
    cr_assert_eq(mc_bindThreadPool(d, pool), 0);
    size_t parena = d->parena;
    cr_expect_eq(remake(m, d, parena, 1), MCI_REFERENCE_ROWS | MCI_REFERENCE_NOADHESION,
                 "step %d", s);
    m->geom_adhesion[0] = 0.5;   // (the floor touches every tree: contact rows have adhesion)
    int sticky = contactRows(d);
    int want = MCI_REFERENCE_ROWS | (sticky ? 0 : MCI_REFERENCE_NOADHESION);
    cr_expect_eq(remake(m, d, parena, 1), want, "step %d: sticky floor", s);
    checked += sticky;
    m->geom_adhesion[0] = 0;
    mc_bindThreadPool(d, NULL);
  }
  cr_expect(checked > 0, "never 128 rows with contact rows");
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the trees' dofs of mci_treeDofs kept with the pool's workspace (mci_treeDofsCache): the
// assembly fills the cache on its first step instead of making them every step, the cache equals
// what mci_treeDofs makes (a root body welded to the world with moving children: several trees
// under one root body; a body without dofs inside a chain), it is keyed by the model, and there is
// none without a pool or past MCI_TREEDOFMAX dofs
Test(constraint_pool, tree_dofs_kept_with_the_pool_workspace) {
  static const char* welded =
    "<body pos='0 -3 1'><geom size='.1'/><body><joint axis='1 0 0'/><geom size='.05'/>"
    "<body pos='0 0 -.2'><geom size='.05'/><body pos='0 0 -.2'><joint type='ball'/>"
    "<geom size='.05'/></body></body></body><body pos='.5 0 0'><joint type='slide'/>"
    "<geom size='.05'/></body></body>";
  char* scene = sceneXML(NTREE, "pyramidal", "sparse");
  const char* end = strstr(scene, "</worldbody>");
  cr_assert(end);
  size_t size = strlen(scene) + strlen(welded) + 1;
  char* xml = malloc(size);
  cr_assert(xml);
  snprintf(xml, size, "%.*s%s%s", (int)(end - scene), scene, welded, end);
  free(scene);
  mcModel* m = pt_loadOwnedXML(xml);
  m->opt.enableflags |= mcENBL_ISLAND;
  mcData* d = mc_makeData(m);
  mcThreadPool* pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(d && pool);
  cr_expect(mci_treeDofsCache(m, d) == NULL, "no pool: no cache");
  cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  const mciTreeDofs* c = &mci_treeCutCache(d)->dofs;
  cr_expect(c->model == NULL, "bound: empty");
  mc_step(m, d);
  cr_expect(c->model == m && c->nv == m->nv && c->signature == d->model_signature,
            "the assembly made the cache on its first step");
  int* tree = malloc(sizeof(int) * (3 * (size_t)m->nv + 1));
  cr_assert(tree);
  int *depth = tree + m->nv, *run = depth + m->nv;
  int nrun = mci_treeDofs(m, tree, depth, run);
  cr_expect_eq(c->nrun, nrun);
  cr_expect(memcmp(c->tree, tree, sizeof(int) * (size_t)m->nv) == 0, "tree");
  cr_expect(memcmp(c->depth, depth, sizeof(int) * (size_t)m->nv) == 0, "depth");
  cr_expect(memcmp(c->run, run, sizeof(int) * (size_t)(nrun + 1)) == 0, "runs");
  int roots = 0;
  for (int k = 0; k < m->nv; k++) {
    roots += m->dof_parentid[k] < 0;
  }
  cr_expect(nrun == roots && nrun >= NTREE + 2, "%d trees, %d root dofs", nrun, roots);
  free(tree);

  // another model (its copy) on the same workspace: remade for it
  mcModel* m2 = mc_copyModel(NULL, m);
  cr_assert(m2);
  cr_expect(mci_treeDofsCache(m2, d) == c && c->model == m2, "keyed by the model");
  mc_bindThreadPool(d, NULL);
  mc_deleteData(d);
  mc_deleteModel(m2);
  mc_deleteModel(m);

  // 342 free bodies: 2,052 dofs, past the cache's size
  size_t cap = 1 << 16, n = 0;
  xml = malloc(cap);
  cr_assert(xml);
  n += (size_t)snprintf(xml + n, cap - n, "<mujoco><worldbody>");
  for (int k = 0; k < 342; k++) {
    n += (size_t)snprintf(xml + n, cap - n, "<body pos='%d 0 1'><freejoint/><geom size='.1'/>"
                          "</body>", k);
  }
  snprintf(xml + n, cap - n, "</worldbody></mujoco>");
  m = pt_loadOwnedXML(xml);
  cr_assert(m->nv > MCI_TREEDOFMAX);
  d = mc_makeData(m);
  cr_assert(d);
  cr_assert_eq(mc_bindThreadPool(d, pool), 0);
  cr_expect(mci_treeDofsCache(m, d) == NULL, "%d dofs: no cache", m->nv);
  mc_bindThreadPool(d, NULL);
  mc_deleteData(d);
  mc_deleteModel(m);
  mc_threadPoolDelete(pool);
}


// n bodies on slide joints (no contacts, no gravity) with friction loss and limits whose margin
// holds both sides: 3 n rows, each of one non-zero (a dof's friction loss, a slide's limit side),
// in an arena of memory bytes
static mcModel* unitRowsModel(int n, const char* memory) {
  size_t cap = 256 + 192 * (size_t)n, len = 0;
  char* xml = malloc(cap);
  cr_assert(xml);
  len += (size_t)snprintf(xml + len, cap - len,
                          "<mujoco><option gravity='0 0 0' jacobian='sparse'/><size memory='%s'/>"
                          "<worldbody>", memory);
  for (int k = 0; k < n; k++) {
    len += (size_t)snprintf(xml + len, cap - len,
                            "<body pos='%d 0 0'><joint type='slide' limited='true' range='-1 1' "
                            "margin='2' frictionloss='.1'/><geom size='.1' contype='0' "
                            "conaffinity='0'/></body>", k);
    cr_assert(len < cap);
  }
  snprintf(xml + len, cap - len, "</worldbody></mujoco>");
  return pt_loadOwnedXML(xml);
}


// the rows of one non-zero (dof friction loss, hinge and slide limits) are bounded by one non-zero
// in the count pass, not by nv: the sparse Jacobian's room in the arena is their count, and an
// arena far smaller than rows x nv non-zeros holds them all (before: the bound asked for rows x nv
// and the assembly warned mcWARN_CNSTRFULL and dropped rows); serially (300 dofs: the count pass
// on the caller) and on a pool of 2 (600 dofs: the count pass in parts, merged)
Test(constraint_pool, unit_rows_bounded_by_one_nonzero) {
  static const int ndof[2] = {300, 600};
  for (int c = 0; c < 2; c++) {
    int n = ndof[c];
    mcModel* m = unitRowsModel(n, "2M");          // rows x nv x 12 bytes: 3.2M, 13M
    cr_assert(m);
    mcData* d = mc_makeData(m);
    mcThreadPool* pool = c ? mc_threadPoolCreate(2) : NULL;
    mci_poolSetEager(pool, 1);   // the jobs on small models too
    cr_assert(d && (pool || !c));
    if (pool) {
      cr_assert_eq(mc_bindThreadPool(d, pool), 0);
    }
    mc_forward(m, d);
    cr_expect_eq(d->warning[mcWARN_CNSTRFULL].number, 0, "%d dofs: rows dropped", n);
    cr_expect_eq(d->nefc, 3 * n, "%d dofs: %d rows", n, d->nefc);
    int ok = d->efc_J_rownnz != NULL;
    for (int i = 0; ok && i < d->nefc; i++) {
      int adr = d->efc_J_rowadr[i], id = d->efc_id[i];
      mcNum val = d->efc_J_val[adr];
      ok = d->efc_J_rownnz[i] == 1 && d->efc_J_colind[adr] == id &&
           (d->efc_type[i] == mcCNSTR_FRICTION_DOF ? val == 1 : val == 1 || val == -1);
    }
    cr_expect(ok, "%d dofs: every row one non-zero +-1 at its dof", n);
    // (the Jacobian's room: the rows' non-zeros, far below rows x nv)
    cr_expect(d->maxuse_arena < (size_t)d->nefc * (size_t)n * (sizeof(int) + sizeof(mcNum)) / 4,
              "%d dofs: arena %zu bytes", n, d->maxuse_arena);
    if (pool) {
      mc_bindThreadPool(d, NULL);
      mc_threadPoolDelete(pool);
    }
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


// mci_anyPositive, the count pass's branch-free test of a block of dofs for friction loss: 1 with
// one positive entry anywhere in any length (+inf too), 0 with zeros, -0, negatives and NaNs only
Test(constraint_pool, any_positive_finds_one_entry_anywhere) {
  enum { N = 150 };
  mcNum x[N];
  for (int n = 0; n <= N; n++) {
    for (int i = 0; i < n; i++) {
      x[i] = i % 4 == 0 ? -0.0 : i % 4 == 1 ? -1.5 : i % 4 == 2 ? -NAN : NAN;
    }
    cr_expect_eq(mci_anyPositive(x, n), 0, "length %d: none positive", n);
    for (int k = 0; k < n; k++) {
      mcNum keep = x[k];
      x[k] = k % 2 ? 1e-300 : INFINITY;
      cr_expect_eq(mci_anyPositive(x, n), 1, "length %d: entry %d positive", n, k);
      x[k] = keep;
    }
  }
}


// the count pass passes over blocks of dofs without friction loss (frictionDofCount): one dof
// with friction loss anywhere, at a block's edges too, gives its row and no other, serially and
// with the count pass in parts on a pool (520 dofs and joints: past MINCOUNTELEMS); none gives no
// row; the friction loss is read each step (set between steps here)
Test(constraint_pool, friction_loss_rows_of_any_one_dof) {
  enum { NDOF = 520 };
  static const int at[] = {0,   1,   62,  63,  64,  65,  127, 128, 129, 191, 192, 255, 256,
                           259, 260, 261, 383, 384, 385, 447, 448, 511, 512, 513, 518, 519};
  mcModel* m = unitRowsModel(NDOF, "32M");
  cr_assert(m && m->nv == NDOF);
  for (int c = 0; c < 2; c++) {
    mcData* d = mc_makeData(m);
    mcThreadPool* pool = c ? mc_threadPoolCreate(2) : NULL;
    mci_poolSetEager(pool, 1);   // the jobs on small models too
    cr_assert(d && (pool || !c));
    if (pool) {
      cr_assert_eq(mc_bindThreadPool(d, pool), 0);
    }
    int nat = (int)(sizeof(at) / sizeof(at[0]));
    for (int j = -1; j < nat; j++) {
      for (int i = 0; i < NDOF; i++) {
        m->dof_frictionloss[i] = j >= 0 && i == at[j] ? 0.1 : 0;
      }
      mc_forward(m, d);
      int nrow = 0, id = -1;
      for (int r = 0; r < d->nefc; r++) {
        if (d->efc_type[r] == mcCNSTR_FRICTION_DOF) {
          nrow++;
          id = d->efc_id[r];
        }
      }
      cr_expect_eq(nrow, j >= 0, "pool %d, dof %d: %d friction rows", c, j >= 0 ? at[j] : -1,
                   nrow);
      if (j >= 0) {
        cr_expect_eq(id, at[j], "pool %d: the row of dof %d, not %d", c, at[j], id);
      }
    }
    if (pool) {
      mc_bindThreadPool(d, NULL);
      mc_threadPoolDelete(pool);
    }
    mc_deleteData(d);
  }
  mc_deleteModel(m);
}


// the contacts' efc_address is -1 on every return of mci_makeConstraint before its fill pass
// (constraints disabled; no row at all: every contact excluded, every other row kind disabled) and
// with contacts disabled: written there, the assembly keeps no pass of its own over the contacts
Test(constraint_pool, contact_addresses_without_rows) {
  mcModel* m = loadScene(NTREE, "pyramidal", "sparse");
  mcData* d = mc_makeData(m);
  cr_assert(m && d);
  for (int s = 0; s < NSTEP && !contactRows(d); s++) {
    mc_step(m, d);
  }
  cr_assert(d->ncon > 0 && contactRows(d), "no contact rows");
  int saved = m->opt.disableflags;
  static const int flags[3] = {
    mcDSBL_CONSTRAINT, mcDSBL_CONTACT,
    mcDSBL_EQUALITY | mcDSBL_LIMIT | mcDSBL_FRICTIONLOSS};
  size_t parena = d->parena;
  for (int f = 0; f < 3; f++) {
    m->opt.disableflags = saved | flags[f];
    for (int i = 0; i < d->ncon; i++) {
      d->contact[i].efc_address = 12345;
      d->contact[i].exclude = f == 2;   // (then no row at all: contacts enabled, none counted)
    }
    remake(m, d, parena, 0);
    cr_expect_eq(d->nefc > 0, f == 1, "flags %d: %d rows", f, d->nefc);
    int bad = 0;
    for (int i = 0; i < d->ncon; i++) {
      bad += d->contact[i].efc_address != -1;
    }
    cr_expect_eq(bad, 0, "flags %d: %d of %d contacts with an address", f, bad, d->ncon);
  }
  m->opt.disableflags = saved;
  mc_deleteData(d);
  mc_deleteModel(m);
}
