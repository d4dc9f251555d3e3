// Tests of the tree-sparse inertia: L'DL factor and solve against a dense reference on random
// tree-structured SPD matrices, mulM against fullM, and crb against RNE.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

#include "build.h"
#include "testutil.h"
#include "engine/engine.h"
#include "engine/threadpool.h"
#include "math/math.h"

#define NB 14


// a random tree of NB bodies with random joint types
static mcModel* randomTree(unsigned seed) {
  int parent[NB], jtype[NB];
  unsigned s = seed + 1;
  for (int i = 1; i < NB; i++) {
    parent[i] = (int)(tb_rand(&s, 0, 1) * i);
    double r = tb_rand(&s, 0, 1);
    jtype[i] = r < 0.1 ? -1 : (r < 0.2 ? mcJNT_BALL : (r < 0.4 ? mcJNT_SLIDE : mcJNT_HINGE));
    if (parent[i] == 0 && r < 0.3) {
      jtype[i] = mcJNT_FREE;
    }
  }
  tbBody b[NB];
  tb_random(NB, b, parent, jtype, seed);
  return tb_build(NB, b);
}


// is j an ancestor of i (or i itself) in the dof tree
static int ancestor(const mcModel* m, int i, int j) {
  for (; i >= 0; i = m->dof_parentid[i]) {
    if (i == j) {
      return 1;
    }
  }
  return 0;
}


Test(factor, randomTreesMatchDense) {
  for (unsigned seed = 0; seed < 60; seed++) {
    mcModel* m = randomTree(seed);
    int nv = m->nv, nM = m->nM;
    if (nv == 0) {
      mc_deleteModel(m);
      continue;
    }
    unsigned s = 1000 + seed;

    // random unit L on the ancestor pattern and positive D: A = L' D L is SPD, no fill-in
    double* L = calloc((size_t)(nv * nv), sizeof(double));
    double* D = calloc((size_t)nv, sizeof(double));
    double* A = calloc((size_t)(nv * nv), sizeof(double));
    for (int i = 0; i < nv; i++) {
      L[i * nv + i] = 1;
      D[i] = tb_rand(&s, 0.5, 2);
      for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) {
        L[i * nv + j] = tb_rand(&s, -1, 1);
      }
    }
    for (int i = 0; i < nv; i++) {
      for (int j = 0; j < nv; j++) {
        double a = 0;
        for (int k = 0; k < nv; k++) {
          a += L[k * nv + i] * D[k] * L[k * nv + j];
        }
        A[i * nv + j] = a;
      }
    }

    // the pattern holds: entries off the ancestor relation vanish
    for (int i = 0; i < nv; i++) {
      for (int j = 0; j < nv; j++) {
        if (!ancestor(m, i, j) && !ancestor(m, j, i)) {
          cr_assert(fabs(A[i * nv + j]) < 1e-12);
        }
      }
    }

    // sparse copy of A
    double* M = calloc((size_t)nM, sizeof(double));
    for (int i = 0; i < nv; i++) {
      int adr = m->dof_Madr[i];
      M[adr++] = A[i * nv + i];
      for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) {
        M[adr++] = A[i * nv + j];
      }
    }

    // fullM restores A
    double* F = calloc((size_t)(nv * nv), sizeof(double));
    mc_fullM(m, F, M);
    for (int k = 0; k < nv * nv; k++) {
      cr_assert(fabs(F[k] - A[k]) < 1e-12);
    }

    // the factor recovers L and D
    double* LD = calloc((size_t)nM, sizeof(double));
    double* Dinv = calloc((size_t)nv, sizeof(double));
    mc_factorI(m, M, LD, Dinv);
    for (int i = 0; i < nv; i++) {
      int adr = m->dof_Madr[i];
      cr_assert(fabs(LD[adr] - D[i]) < 1e-9 * D[i], "seed %u D[%d]", seed, i);
      cr_assert(fabs(Dinv[i] * D[i] - 1) < 1e-9);
      adr++;
      for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) {
        cr_assert(fabs(LD[adr++] - L[i * nv + j]) < 1e-9, "seed %u L[%d,%d]", seed, i, j);
      }
    }

    // solve two right-hand sides against dense elimination
    double* x = calloc((size_t)(2 * nv), sizeof(double));
    double* b = calloc((size_t)(2 * nv), sizeof(double));
    double* xd = calloc((size_t)nv, sizeof(double));
    for (int k = 0; k < 2 * nv; k++) {
      x[k] = b[k] = tb_rand(&s, -1, 1);
    }
    mc_solveLD(m, x, 2, LD, Dinv);
    for (int c = 0; c < 2; c++) {
      memcpy(F, A, sizeof(double) * (size_t)(nv * nv));
      double bb[256];
      memcpy(bb, b + c * nv, sizeof(double) * (size_t)nv);
      tu_denseSolve(nv, F, bb, xd);
      for (int i = 0; i < nv; i++) {
        cr_assert(fabs(x[c * nv + i] - xd[i]) < 1e-8 * (1 + fabs(xd[i])), "seed %u", seed);
      }
    }

    // mulM matches the dense product
    mcData dd;
    memset(&dd, 0, sizeof(dd));
    dd.qM = M;
    double* r = calloc((size_t)nv, sizeof(double));
    mc_mulM(m, &dd, r, b);
    for (int i = 0; i < nv; i++) {
      double e = 0;
      for (int j = 0; j < nv; j++) {
        e += A[i * nv + j] * b[j];
      }
      cr_assert(fabs(r[i] - e) < 1e-12 * (1 + fabs(e)));
    }

    // in-place factorization (M aliased with qLD) gives the same result
    mc_factorI(m, M, M, Dinv);
    for (int k = 0; k < nM; k++) {
      cr_assert(M[k] == LD[k]);
    }

    free(L), free(D), free(A), free(M), free(F), free(LD), free(Dinv);
    free(x), free(b), free(xd), free(r);
    mc_deleteModel(m);
  }
}


Test(factor, crbMatchesRne) {
  // M qacc = rne(qacc) - rne(0) for random states of random trees; mulM and solveM invert
  for (unsigned seed = 0; seed < 30; seed++) {
    mcModel* m = randomTree(seed);
    mcData* d = mc_makeData(m);
    int nv = m->nv;
    unsigned s = 77 + seed;
    for (int i = 0; i < m->nq; i++) {
      d->qpos[i] += tb_rand(&s, -1, 1);
    }
    mc_normalizeQuat(m, d->qpos);
    for (int i = 0; i < nv; i++) {
      d->qvel[i] = tb_rand(&s, -1, 1);
      d->qacc[i] = tb_rand(&s, -1, 1);
    }
    mc_forward(m, d);

    // compare M qacc with the acceleration-dependent part of RNE
    double f1[256], f0[256], Mq[256], x[256], qacc[256];
    memcpy(qacc, d->qacc, sizeof(double) * (size_t)nv);
    for (int i = 0; i < nv; i++) {
      d->qacc[i] = tb_rand(&s, -1, 1);
      qacc[i] = d->qacc[i];
    }
    mc_rne(m, d, 1, f1);
    mc_rne(m, d, 0, f0);
    mc_mulM(m, d, Mq, qacc);
    for (int i = 0; i < nv; i++) {
      cr_assert(fabs(f1[i] - f0[i] - Mq[i]) < 1e-10 * (1 + fabs(Mq[i])), "seed %u dof %d", seed, i);
    }

    // solveM inverts mulM
    mc_solveM(m, d, x, Mq, 1);
    for (int i = 0; i < nv; i++) {
      cr_assert(fabs(x[i] - qacc[i]) < 1e-9 * (1 + fabs(qacc[i])));
    }

    // forward dynamics: M qacc = qfrc_smooth
    mc_mulM(m, d, Mq, d->qacc_smooth);
    for (int i = 0; i < nv; i++) {
      cr_assert(fabs(Mq[i] - d->qfrc_smooth[i]) < 1e-9 * (1 + fabs(Mq[i])));
    }
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


// simple bodies (free bodies whose inertial frame is the body frame): the inertia block is stored
// diagonal with exact zeros, and M^-1 M x = x still holds on a model mixing them with a tree
Test(factor, simpleBodiesDiagonal) {
  const char* xml =
      "<mujoco><worldbody>"
      "<body pos='0 0 1'><freejoint/><geom type='box' size='.1 .2 .3'/></body>"
      "<body pos='1 0 1' euler='10 20 30'><freejoint/><geom type='capsule' size='.1 .3'/></body>"
      "<body pos='0 1 1'><joint type='hinge' axis='1 0 0'/>"
      "<geom type='sphere' size='.1' pos='0 0 .2'/>"
      "<body pos='0 0 .4'><joint type='hinge' axis='0 1 0'/><geom type='sphere' size='.1'/>"
      "</body></body></worldbody></mujoco>";
  char err[256] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  cr_assert(m->dof_simplenum[0] == 12 && m->dof_simplenum[12] == 0);
  mcData* d = mc_makeData(m);
  for (int i = 0; i < m->nv; i++) {
    d->qvel[i] = 0.3 * i - 1;
  }
  for (int s = 0; s < 20; s++) {
    mc_step(m, d);
  }
  mc_forward(m, d);

  // off-diagonal entries of the two free bodies: exact zeros
  for (int i = 0; i < 12; i++) {
    int len = m->dof_Madr[i + 1] - m->dof_Madr[i];
    for (int k = 1; k < len; k++) {
      cr_assert(d->qM[m->dof_Madr[i] + k] == 0, "M row %d entry %d", i, k);
    }
  }

  // the factorization still inverts M
  mcNum x[16], y[16], z[16];
  for (int i = 0; i < m->nv; i++) {
    x[i] = sin(1.0 + i);
  }
  mc_mulM(m, d, y, x);
  mc_solveM(m, d, z, y, 1);
  for (int i = 0; i < m->nv; i++) {
    cr_assert(fabs(z[i] - x[i]) < 1e-12, "dof %d: %g vs %g", i, z[i], x[i]);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the product and solve skip the rows of simple dofs (zero off the diagonal) unless tendon
// armature couples them: a fixed tendon with armature over two slide joints of a simple body puts
// a J'J entry between them, and both must still act like the dense matrix
Test(factor, simpleBodiesTendonArmature) {
  const char* xml =
      "<mujoco><worldbody>"
      "<body pos='0 0 1'><freejoint/><geom type='box' size='.1 .2 .3'/></body>"
      "<body pos='0 1 1'><joint name='sx' type='slide' axis='1 0 0'/>"
      "<joint name='sy' type='slide' axis='0 1 0'/><geom type='sphere' size='.1'/></body>"
      "<body pos='1 1 1'><joint type='hinge' axis='1 0 0'/>"
      "<geom type='capsule' size='.1 .2' pos='0 0 .2'/></body>"
      "</worldbody><tendon><fixed armature='0.7'><joint joint='sx' coef='1'/>"
      "<joint joint='sy' coef='-2'/></fixed></tendon></mujoco>";
  char err[256] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  cr_assert(m->dof_simplenum[0] == 8 && m->dof_simplenum[8] == 0, "free and slide bodies simple: %d %d",
            m->dof_simplenum[0], m->dof_simplenum[8]);
  mcData* d = mc_makeData(m);
  mc_forward(m, d);
  int nv = m->nv;
  cr_assert(d->qM[m->dof_Madr[7] + 1] != 0, "armature couples the two slides");

  mcNum F[81], x[9], y[9], z[9];
  mc_fullM(m, F, d->qM);
  for (int i = 0; i < nv; i++) {
    x[i] = cos(0.5 + i);
  }
  mc_mulM(m, d, y, x);
  for (int i = 0; i < nv; i++) {
    mcNum e = 0;
    for (int j = 0; j < nv; j++) {
      e += F[i * nv + j] * x[j];
    }
    cr_assert(fabs(y[i] - e) < 1e-12 * (1 + fabs(e)), "mulM dof %d: %g vs %g", i, y[i], e);
  }
  mc_solveM(m, d, z, y, 1);
  for (int i = 0; i < nv; i++) {
    cr_assert(fabs(z[i] - x[i]) < 1e-12, "solveM dof %d: %g vs %g", i, z[i], x[i]);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the diagonal of a simple dof comes from the model (armature + mass |a|^2 for a translation,
// armature + sum_k I_k a_k^2 for a rotation): it agrees with the composite-inertia product
// cdof' I cdof in any configuration up to rounding, and follows a run-time edit of body_mass and
// body_inertia without mc_setConst
Test(factor, simpleDiagonalFromModel) {
  const char* xml =
      "<mujoco><worldbody>"
      "<body pos='0 0 1' euler='10 20 30'><freejoint/><geom type='box' size='.1 .2 .3'/></body>"
      "<body pos='0 1 1'><joint type='slide' axis='1 2 0' armature='0.3'/>"
      "<geom type='sphere' size='.1'/></body>"
      "<body pos='1 1 1'><joint type='hinge' axis='1 1 1' armature='0.2'/>"
      "<geom type='box' size='.1 .2 .3'/></body>"
      "<body pos='2 1 1'><joint type='ball'/><geom type='ellipsoid' size='.1 .2 .3'/></body>"
      "</worldbody></mujoco>";
  char err[256] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  int nv = m->nv;
  cr_assert(nv == 11 && m->dof_simplenum[0] == 11, "all simple: nv %d run %d", nv,
            m->dof_simplenum[0]);
  mcData* d = mc_makeData(m);
  for (int i = 0; i < nv; i++) {
    d->qvel[i] = 0.7 * i - 2;
  }
  m->opt.gravity[2] = 0;
  m->opt.enableflags |= mcENBL_ENERGY;
  for (int s = 0; s < 30; s++) {
    mc_step(m, d);
  }

  for (int pass = 0; pass < 2; pass++) {
    mc_forward(m, d);
    for (int i = 0; i < nv; i++) {
      // the composite-inertia product (a simple body has no child: crb is its cinert)
      const mcNum* I = d->cinert + 10 * m->dof_bodyid[i];
      const mcNum* c = d->cdof + 6 * i;
      mcNum f[6];
      mcu_mulInertVec(f, I, c);
      mcNum ref = m->dof_armature[i] + mcu_dot6(f, c);
      mcNum got = d->qM[m->dof_Madr[i]];
      cr_assert(fabs(got - ref) < 1e-12 * ref, "pass %d dof %d: %.17g vs %.17g", pass, i, got,
                ref);
    }

    // the free body's translations: its mass, exactly
    for (int k = 0; k < 3; k++) {
      cr_assert(d->qM[m->dof_Madr[k]] == m->body_mass[1], "pass %d dof %d", pass, k);
    }

    // kinetic energy (the quadratic form skips the simple rows) against 0.5 v' (M v)
    mcNum Mv[11], ke = 0;
    mc_mulM(m, d, Mv, d->qvel);
    for (int i = 0; i < nv; i++) {
      ke += 0.5 * Mv[i] * d->qvel[i];
    }
    cr_assert(ke > 0 && fabs(d->energy[1] - ke) < 1e-12 * ke, "pass %d: %.17g vs %.17g", pass,
              d->energy[1], ke);

    // a run-time edit of the inertias, seen by the next forward without mc_setConst
    for (int b = 1; b < m->nbody; b++) {
      m->body_mass[b] *= 1.5;
      for (int k = 0; k < 3; k++) {
        m->body_inertia[3 * b + k] *= 1.5;
      }
    }
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}


// mci_solveMDamped (Euler's implicit damping): trees without damping reuse d->qLD, the others are
// factored again; the result is bitwise that of mc_factorI and mc_solveLD on M + diag(D) whole
// (the skipped simple rows could only change the sign of a zero, and no entry here is zero),
// with or without a thread pool bound, and (M + diag(D)) x reproduces the right-hand side
Test(factor, solveMDampedPerTree) {
  const char* xml =
      "<mujoco><worldbody>"
      "<body pos='0 0 1'><freejoint/><geom type='box' size='.1 .2 .3'/></body>"
      "<body pos='0 1 1'><joint type='hinge' axis='1 0 0'/><geom type='capsule' size='.1 .2'/>"
      "<body pos='0 0 .4'><joint type='ball'/><geom type='sphere' size='.1' pos='0 .1 0'/>"
      "</body></body>"
      "<body pos='1 0 1' euler='10 20 30'><freejoint/><geom type='capsule' size='.1 .3'/>"
      "<body pos='0 0 .5'><joint type='hinge' axis='0 1 0'/><geom type='sphere' size='.1'/>"
      "</body></body>"
      "<body pos='2 1 1'><joint type='slide' axis='1 0 0'/><geom type='sphere' size='.1'/></body>"
      "</worldbody></mujoco>";
  char err[256] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  int nv = m->nv, nM = m->nM;
  cr_assert(nv == 18, "nv %d", nv);
  mcData* d = mc_makeData(m);
  for (int i = 0; i < nv; i++) {
    d->qvel[i] = 0.4 * i - 3;
  }
  for (int s = 0; s < 10; s++) {
    mc_step(m, d);
  }
  mc_forward(m, d);
  mcThreadPool* pool = mc_threadPoolCreate(2);
  mci_poolSetEager(pool, 1);   // the jobs on small models too
  cr_assert(pool);

  // damping patterns over the four trees (dofs 0-5, 6-9, 10-16, 17): none, some, all
  const int pattern[5][4] = {{0, 0, 0, 0}, {0, 1, 0, 0}, {1, 0, 1, 0}, {0, 1, 1, 1}, {1, 1, 1, 1}};
  const int first[5] = {0, 6, 10, 17, 18};
  mcNum D[18], b[18], x[18], ref[18], H[128], Hinv[18], LD[128], LDinv[18], y[18];
  cr_assert(nM <= 128, "nM %d", nM);
  for (int p = 0; p < 5; p++) {
    for (int tree = 0; tree < 4; tree++) {
      for (int i = first[tree]; i < first[tree + 1]; i++) {
        D[i] = pattern[p][tree] && i % 3 != 1 ? 0.05 * (1 + i) : 0;
      }
    }
    for (int i = 0; i < nv; i++) {
      b[i] = sin(2.0 + i);
    }

    // reference: M + diag(D) factored whole
    memcpy(H, d->qM, sizeof(mcNum) * (size_t)nM);
    for (int i = 0; i < nv; i++) {
      H[m->dof_Madr[i]] += D[i];
    }
    mc_factorI(m, H, H, Hinv);
    memcpy(ref, b, sizeof(ref));
    mc_solveLD(m, ref, 1, H, Hinv);

    for (int threads = 1; threads <= 2; threads++) {
      mc_bindThreadPool(d, threads == 2 ? pool : NULL);
      memcpy(x, b, sizeof(x));
      mci_solveMDamped(m, d, D, x, LD, LDinv);
      cr_assert(memcmp(x, ref, sizeof(x)) == 0, "pattern %d, %d thread(s): not the same bits", p,
                threads);
    }
    mc_bindThreadPool(d, NULL);

    // (M + D) x = b
    mc_mulM(m, d, y, x);
    for (int i = 0; i < nv; i++) {
      y[i] += D[i] * x[i];
      cr_assert(fabs(y[i] - b[i]) < 1e-10, "pattern %d dof %d: %g vs %g", p, i, y[i], b[i]);
    }
  }
  mc_threadPoolDelete(pool);
  mc_deleteData(d);
  mc_deleteModel(m);
}
