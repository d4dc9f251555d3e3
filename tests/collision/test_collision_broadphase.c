// Collision tests: the broad phase. Scenes whose geom sizes span four orders of magnitude (so the
// grid has both crowded cells and geoms far larger than a cell), compared with MuJoCo 2.2.2
// contact for contact, and with a brute-force pass over all geom pairs (the sweep below
// MCI_SWEEP_MAXBOX geoms, the grid above); and the arena of a model too large for dense nv x nv
// work.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "engine/broadphase.h"
#include "engine/collision.h"
#include "engine/io.h"
#include "oracle.h"

#define NBODY 160

// free spheres and capsules of log-uniform size, two-geom bodies, huge static spheres and
// capsules, a plane, contype variations, an exclude and explicit pairs
static char* mixedScene(int nbody) {
  size_t cap = (size_t)1 << 20, len = 0;
  char* s = malloc(cap);
  cr_assert(s);
  OrcRng r = {777};
#define PUT(...) len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__)
  PUT("<mujoco><size nconmax='4000' njmax='100'/><worldbody>"
      "<geom name='floor' type='plane' size='5 5 .1'/>"
      "<geom name='bigball' type='sphere' size='2' pos='3 0 -1.6'/>"
      "<geom name='bigcap' type='capsule' size='0.3 3' pos='0 -1.2 0.1' euler='0 90 0'/>");
  for (int i = 0; i < nbody; i++) {
    double size = 0.004 * pow(50.0, orc_uniform(&r, 0, 1));
    PUT("<body name='b%d'><freejoint/>", i);
    if (i % 3 == 0) {
      PUT("<geom type='capsule' size='%.5f %.5f'/>", size, 1.5 * size);
    } else {
      PUT("<geom type='sphere' size='%.5f'%s/>", size, i % 11 == 5 ? " contype='2'" : "");
    }
    if (i % 7 == 0) {
      PUT("<geom type='sphere' size='%.5f' pos='%.5f 0 0' margin='0.01'/>", 0.5 * size, size);
    }
    PUT("</body>");
  }
  PUT("</worldbody><contact><exclude body1='b1' body2='b2'/>"
      "<pair geom1='floor' geom2='bigcap'/><pair geom1='bigball' geom2='bigcap' margin='0.5'/>"
      "</contact></mujoco>");
#undef PUT
  return s;
}


// random free-body poses in a box of half-width half (hinges: an angle within +-1.5); with far,
// every 13th body far away (the grid then hashes its cells instead of storing the occupied block
// densely)
static void randomPoses(mjModel* mm, mjData* md, OrcRng* r, double half, int far) {
  for (int j = 0; j < mm->njnt; j++) {
    double* q = md->qpos + mm->jnt_qposadr[j];
    if (mm->jnt_type[j] == mjJNT_HINGE) {
      q[0] = orc_uniform(r, -1.5, 1.5);
      continue;
    }
    q[0] = orc_uniform(r, -half, half);
    q[1] = orc_uniform(r, -half, half);
    q[2] = orc_uniform(r, -0.02, 0.5);
    if (far && j % 13 == 12) {
      q[0] = 1e5 * (1 + j);
    }
    orc_quat(r, q + 3);
  }
}


// the dynamic pairs mc_collision should collide, by brute force over all geom pairs
static int bruteForcePairs(const mcModel* m, const mcData* d) {
  int n = m->npair;
  for (int g1 = 0; g1 < m->ngeom; g1++) {
    for (int g2 = g1 + 1; g2 < m->ngeom; g2++) {
      int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
      if (!((m->geom_contype[g1] & m->geom_conaffinity[g2]) ||
            (m->geom_contype[g2] & m->geom_conaffinity[g1]))) {
        continue;
      }
      if (mci_bodyFilter(m, m->geom_bodyid[g1], m->geom_bodyid[g2]) ||
          !mci_collisionFunc(t1, t2)) {
        continue;
      }
      // the detection distance: MuJoCo 3.14 sums margins and gaps, 2.2.2 took the larger margin
      mcNum detect = (m->opt.enableflags & mcENBL_LEGACYMARGIN)
                         ? fmax(m->geom_margin[g1], m->geom_margin[g2])
                         : m->geom_margin[g1] + m->geom_margin[g2] + m->geom_gap[g1] +
                               m->geom_gap[g2];
      if (!mci_boundingFilter(m, d, g1, g2, detect)) {
        continue;
      }
      int explicit = 0;
      for (int p = 0; p < m->npair; p++) {
        int p1 = m->pair_geom1[p], p2 = m->pair_geom2[p];
        explicit |= (p1 == g1 && p2 == g2) || (p1 == g2 && p2 == g1);
      }
      n += !explicit;
    }
  }
  return n;
}


// xml's contacts against MuJoCo 2.2.2 (in order) and its pair count against brute force, over
// npose random poses (half-widths alternating 0.4 and wide); return the contacts found
static int againstMujocoAndBruteForce(const char* xml, int npose, double wide, unsigned seed,
                                      const char* label) {
  mjModel* mm = orc_loadMj(xml);
  cr_assert(mm, "MuJoCo could not load the scene");
  mjData* md = mj_makeData(mm);
  mcModel* m = orc_convert(mm);
  cr_assert(m);
  mcData* d = mc_makeData(m);
  cr_assert(d);

  OrcStats st = {0};
  OrcRng r = {seed};
  int total = 0, npairfail = 0;
  for (int i = 0; i < npose; i++) {
    randomPoses(mm, md, &r, i % 2 ? 0.4 : wide, i % 4 >= 2);
    mj_kinematics(mm, md);
    mj_collision(mm, md);
    orc_copyPoses(mm, md, m, d);
    mc_collision(m, d);
    orc_compare(md->contact, md->ncon, d->contact, d->ncon, 1e-9, 1, label, &st);
    total += d->ncon;

    // every pair the filters accept is generated, once
    int got = mci_collisionPairs(m, d), want = bruteForcePairs(m, d);
    if (got != want) {
      npairfail++;
      printf("%s, poses %d: broad phase %d pairs, brute force %d\n", label, i, got, want);
    }
  }
  printf("%s: %d poses, %d differ from MuJoCo, %d contacts, %d pair counts differ\n", label,
         st.ncases, st.ncasefail, total, npairfail);
  cr_expect_eq(st.ncasefail, 0, "%s: %d of %d poses differ from MuJoCo", label, st.ncasefail,
               st.ncases);
  cr_expect_eq(npairfail, 0, "%s: %d poses: broad phase and brute force disagree", label,
               npairfail);

  mc_deleteData(d);
  mc_deleteModel(m);
  mj_deleteData(md);
  mj_deleteModel(mm);
  return total;
}


Test(broadphase, mixed_sizes_against_mujoco_and_brute_force) {
  char* xml = mixedScene(NBODY);
  int total = againstMujocoAndBruteForce(xml, 40, 1.5, 4242, "mixed sizes");
  free(xml);
  cr_expect_gt(total, 40 * 20, "too few contacts (%d) for a meaningful comparison", total);
}


// bodies of three geoms each (spheres and capsules, whose contacts match 2.2.2's; the body level of the broad phase: two geoms or more per body on
// average, at most MCI_BODYSWEEP_MAX bodies), an exclude and a parent-child pair; several
// contacts per body pair, which MuJoCo orders by geom within the pair
Test(broadphase, multi_geom_bodies_against_mujoco_and_brute_force) {
  size_t cap = (size_t)1 << 16, len = 0;
  char* s = malloc(cap);
  cr_assert(s);
  OrcRng r = {31};
#define PUT(...) len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__)
  PUT("<mujoco><size nconmax='4000' njmax='100'/><worldbody>"
      "<geom name='floor' type='plane' size='5 5 .1'/>"
      "<geom type='capsule' size='0.05 0.2' pos='0.3 0 0.05' euler='0 90 0'/>"
      "<geom type='sphere' size='0.15' pos='-0.3 0.2 0'/>");
  for (int i = 0; i < 30; i++) {
    double a = 0.03 + 0.05 * orc_uniform(&r, 0, 1);
    PUT("<body name='b%d'><freejoint/><geom type='sphere' size='%.4f'/>"
        "<geom type='capsule' size='%.4f %.4f' pos='%.4f 0 0'/>"
        "<geom type='sphere' size='%.4f' pos='0 %.4f 0'%s/>", i, a, 0.5 * a, a, a, 0.6 * a,
        -a, i % 9 == 4 ? " contype='2'" : "");
    if (i % 10 == 0) {
      PUT("<body><joint type='hinge'/><geom type='sphere' size='%.4f' pos='0 0 %.4f'/>"
          "<geom type='sphere' size='%.4f' pos='0 0 %.4f'/></body>", 0.5 * a, a, 0.4 * a, -a);
    }
    PUT("</body>");
  }
  PUT("</worldbody><contact><exclude body1='b1' body2='b2'/></contact></mujoco>");
#undef PUT
  int total = againstMujocoAndBruteForce(s, 30, 0.8, 555, "multi-geom bodies");
  free(s);
  cr_expect_gt(total, 30 * 10, "too few contacts (%d) for a meaningful comparison", total);
}


// a crowd of articulated trees (a free root of two geoms, a chain and a branch on hinges) whose
// parent-child and same-body pairs the broad phase's groups leave out (core/engine/
// broadphase_groups.c), with an exclude inside a tree, a contype variation, a body welded to the
// world with two geoms of its own and a plane
static char* crowdScene(int ntree) {
  size_t cap = (size_t)1 << 18, len = 0;
  char* s = malloc(cap);
  cr_assert(s);
  OrcRng r = {2024};
#define PUT(...) len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__)
  PUT("<mujoco><size nconmax='4000' njmax='100'/><worldbody>"
      "<geom name='floor' type='plane' size='5 5 .1'/>"
      "<body name='post' pos='0.1 0.1 0.2'><geom type='capsule' size='0.05 0.2'/>"
      "<geom type='sphere' size='0.1' pos='0 0 0.25'/></body>");
  for (int t = 0; t < ntree; t++) {
    double a = 0.04 + 0.03 * orc_uniform(&r, 0, 1);
    PUT("<body name='t%d'><freejoint/><geom type='capsule' size='%.4f %.4f'/>"
        "<geom type='sphere' size='%.4f' pos='0 0 %.4f'%s/>", t, a, 2 * a, 1.2 * a, 3 * a,
        t % 5 == 2 ? " contype='2' conaffinity='2'" : "");
    for (int k = 0; k < 4; k++) {
      PUT("<body name='t%dc%d' pos='0 0 %.4f'><joint type='hinge' axis='%d %d 0'/>"
          "<geom type='capsule' size='%.4f %.4f' pos='0 0 %.4f'/>", t, k, -3 * a, k % 2,
          1 - k % 2, 0.8 * a, 1.2 * a, -1.5 * a);
    }
    PUT("</body></body></body></body>");
    PUT("<body name='t%db' pos='%.4f 0 0'><joint type='hinge' axis='0 0 1'/>"
        "<geom type='sphere' size='%.4f' pos='%.4f 0 0'/><geom type='capsule' size='%.4f %.4f' "
        "pos='%.4f 0 0' euler='0 90 0'/></body></body>", t, 2 * a, a, a, 0.5 * a, a, 3 * a);
  }
  PUT("</worldbody><contact><exclude body1='t0' body2='t0c2'/></contact></mujoco>");
#undef PUT
  return s;
}


Test(broadphase, tree_groups_against_mujoco_and_brute_force) {
  char* xml = crowdScene(24);
  int total = againstMujocoAndBruteForce(xml, 40, 0.5, 8080, "tree groups");
  free(xml);
  cr_expect_gt(total, 40 * 20, "too few contacts (%d) for a meaningful comparison", total);
}


// the groups follow the filters changed between steps (contype, the parent filter flag), and a
// geom cube that is not finite (a NaN position, an infinite margin) sends the step to the sweep
Test(broadphase, tree_groups_follow_filter_changes) {
  char* xml = crowdScene(16);
  char err[500] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  free(xml);
  cr_assert(m, "load: %s", err);
  mcData* d = mc_makeData(m);
  cr_assert(d);
  OrcRng r = {5};
  int npairfail = 0, total = 0;
  for (int i = 0; i < 24; i++) {
    for (int j = 0; j < m->njnt; j++) {
      mcNum* q = d->qpos + m->jnt_qposadr[j];
      if (m->jnt_type[j] == mcJNT_HINGE) {
        q[0] = orc_uniform(&r, -1.5, 1.5);
        continue;
      }
      q[0] = orc_uniform(&r, -0.4, 0.4);
      q[1] = orc_uniform(&r, -0.4, 0.4);
      q[2] = orc_uniform(&r, 0, 0.3);
      orc_quat(&r, q + 3);
    }
    // every few poses another filter: a geom's contype, the parent filter, both back
    int g = 1 + (7 * i) % (m->ngeom - 1);
    if (i % 4 == 1) {
      m->geom_contype[g] = 0;
    } else if (i % 4 == 2) {
      m->opt.disableflags ^= mcDSBL_FILTERPARENT;
    } else if (i % 4 == 3) {
      m->geom_contype[g] = 1;
    }
    mc_kinematics(m, d);
    if (i % 6 == 5) {
      d->geom_xpos[3 * g + 1] = NAN;
    }
    mcNum margin = m->geom_margin[g];
    if (i % 6 == 3) {
      m->geom_margin[g] = INFINITY;  // a cube of infinite size: meets every other
    }
    int got = mci_collisionPairs(m, d), want = bruteForcePairs(m, d);
    m->geom_margin[g] = margin;
    if (got != want) {
      npairfail++;
      printf("filter changes, pose %d: broad phase %d pairs, brute force %d\n", i, got, want);
    }
    total += got;
  }
  cr_expect_gt(total, 24 * 20, "too few pairs (%d)", total);
  cr_expect_eq(npairfail, 0, "%d poses: groups and brute force disagree", npairfail);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// more geoms than the sweep takes: the uniform grid (dense and hashed) against brute force
Test(broadphase, many_geoms_grid_against_brute_force) {
  int nbody = MCI_SWEEP_MAXBOX + 100;
  char* xml = mixedScene(nbody);
  char err[500] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  free(xml);
  cr_assert(m, "load: %s", err);
  cr_assert_gt(m->ngeom, MCI_SWEEP_MAXBOX + 3);
  mcData* d = mc_makeData(m);
  cr_assert(d);
  OrcRng r = {99};
  int npairfail = 0, total = 0;
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < m->njnt; j++) {
      mcNum* q = d->qpos + m->jnt_qposadr[j];
      q[0] = orc_uniform(&r, -3, 3);
      q[1] = orc_uniform(&r, -3, 3);
      q[2] = orc_uniform(&r, -0.02, 0.5);
      if (i % 2 && j % 13 == 12) {
        q[0] = 1e5 * (1 + j);
      }
      orc_quat(&r, q + 3);
    }
    mc_kinematics(m, d);
    int got = mci_collisionPairs(m, d), want = bruteForcePairs(m, d);
    npairfail += got != want;
    total += got;
  }
  cr_expect_gt(total, 6 * 50, "too few pairs (%d)", total);
  cr_expect_eq(npairfail, 0, "%d poses: grid and brute force disagree", npairfail);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// 2,000 free spheres (nv 12,000): no nv x nv reservation; the data allocates and steps
Test(broadphase, large_model_arena_and_step) {
  int n = 2000, side = 23;
  size_t cap = 1 << 20, len = 0;
  char* xml = malloc(cap);
  cr_assert(xml);
  len += (size_t)snprintf(xml + len, cap - len, "<mujoco><option solver='CG' iterations='10'/>"
                          "<worldbody><geom type='plane' size='0 0 1'/>");
  for (int i = 0; i < n; i++) {
    len += (size_t)snprintf(xml + len, cap - len, "<body pos='%.3f %.3f %.3f'><freejoint/>"
                            "<geom type='sphere' size='0.05'/></body>", 0.098 * (i % side),
                            0.098 * ((i / side) % side), 0.049 + 0.098 * (i / (side * side)));
  }
  snprintf(xml + len, cap - len, "</worldbody></mujoco>");
  char err[500] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  free(xml);
  cr_assert(m, "load: %s", err);
  cr_assert_eq(m->nv, 6 * n);
  cr_expect_not(mci_denseJacobian(m), "nv %d should take the sparse path", m->nv);
  size_t arena = mci_arenaSize(m), dense = (size_t)m->nv * m->nv * sizeof(mcNum);
  cr_expect_lt(arena, dense, "arena %zu bytes reserves dense nv x nv work (%zu)", arena, dense);

  mcData* d = mc_makeData(m);
  cr_assert(d, "mc_makeData failed for %zu bytes of arena", arena);
  for (int i = 0; i < 2; i++) {
    mc_step(m, d);
  }
  int nwarn = 0, finite = 1;
  for (int w = 0; w < mcNWARNING; w++) {
    nwarn += d->warning[w].number;
  }
  for (int i = 0; i < m->nv; i++) {
    finite = finite && isfinite(d->qacc[i]);
  }
  cr_expect_gt(d->ncon, n, "the lattice should touch the floor and its neighbours");
  cr_expect_gt(d->nefc, 0);
  cr_expect_eq(nwarn, 0, "%d warnings while stepping", nwarn);
  cr_expect(finite, "qacc not finite");
  cr_expect_null(d->efc_J, "sparse path kept a dense efc_J");
  mc_deleteData(d);
  mc_deleteModel(m);
}
