// The candidate list of the broad phase (mci_collisionCandidates), pair for pair and in order,
// against a brute-force reference over all geom pairs with the model's filters (contype and
// conaffinity, weld and parent-child, exclude, a collide function, the bounding spheres grown by
// the detection distance, explicit pairs) sorted by body-pair signature: on random scenes that
// take each path of the broad phase (each against each, the body level, the groups of trees, the
// sweep, the grid), with the margin rules (3.14 sums, legacy maxima, override), the parent filter
// off and each collision mode; and across steps on one data (the sweep keeps the last step's
// order as its hint) while bodies creep, jump, teleport far away and back, the data is reset or
// the scene is stepped, against the list of a fresh data.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "engine/collision.h"

typedef struct {
  unsigned sig;
  int kind, a, b;                 // kind 0: explicit pair a; kind 1: geoms a (lower body), b
} Ref;

typedef struct {
  int n;
  int* g1;
  int* g2;
  int* ipair;
} List;


static double uniform(unsigned* s, double lo, double hi) {
  *s = *s * 1664525u + 1013904223u;
  return lo + (hi - lo) * ((*s >> 8) / 16777216.0);
}


static unsigned signature(int b1, int b2) {
  int lo = b1 < b2 ? b1 : b2, hi = b1 < b2 ? b2 : b1;
  return ((unsigned)(lo + 1) << 16) + (unsigned)(hi + 1);
}


static int refLess(const void* x, const void* y) {
  const Ref* p = x;
  const Ref* q = y;
  if (p->sig != q->sig) {
    return p->sig < q->sig ? -1 : 1;
  }
  if (p->kind != q->kind) {
    return p->kind - q->kind;
  }
  if (p->a != q->a) {
    return p->a - q->a;
  }
  return p->b - q->b;
}


// the detection distance of a pair as the driver defines it (docs/mujoco3.md)
static mcNum detectDistance(const mcModel* m, int g1, int g2) {
  int legacy = (m->opt.enableflags & mcENBL_LEGACYMARGIN) != 0;
  mcNum margin = legacy ? fmax(m->geom_margin[g1], m->geom_margin[g2])
                        : m->geom_margin[g1] + m->geom_margin[g2];
  mcNum gap = legacy ? fmax(m->geom_gap[g1], m->geom_gap[g2]) : m->geom_gap[g1] + m->geom_gap[g2];
  if (m->opt.enableflags & mcENBL_OVERRIDE) {
    margin = m->opt.o_margin;
  }
  return legacy ? margin : margin + gap;
}


static int isExplicit(const mcModel* m, int g1, int g2) {
  for (int p = 0; p < m->npair; p++) {
    int p1 = m->pair_geom1[p], p2 = m->pair_geom2[p];
    if ((p1 == g1 && p2 == g2) || (p1 == g2 && p2 == g1)) {
      return 1;
    }
  }
  return 0;
}


// the candidates by brute force, as the driver's list: geoms and explicit pair index
static List reference(const mcModel* m, const mcData* d) {
  int mode = m->opt.collision, cap = m->npair + m->ngeom * (m->ngeom - 1) / 2 + 1, n = 0;
  Ref* r = malloc(sizeof(Ref) * (size_t)cap);
  cr_assert(r);
  if (mode != mcCOL_DYNAMIC) {
    for (int p = 0; p < m->npair; p++) {
      int b1 = m->geom_bodyid[m->pair_geom1[p]], b2 = m->geom_bodyid[m->pair_geom2[p]];
      unsigned sig = m->pair_signature[p] ? (unsigned)m->pair_signature[p] : signature(b1, b2);
      r[n++] = (Ref){sig, 0, p, 0};
    }
  }
  for (int g1 = 0; mode != mcCOL_PAIR && g1 < m->ngeom; g1++) {
    for (int g2 = g1 + 1; g2 < m->ngeom; g2++) {
      int b1 = m->geom_bodyid[g1], b2 = m->geom_bodyid[g2];
      if (!((m->geom_contype[g1] & m->geom_conaffinity[g2]) ||
            (m->geom_contype[g2] & m->geom_conaffinity[g1])) ||
          mci_bodyFilter(m, b1, b2) ||
          !mci_collisionFuncFor(m, m->geom_type[g1], m->geom_type[g2]) ||
          !mci_boundingFilter(m, d, g1, g2, detectDistance(m, g1, g2)) ||
          (mode == mcCOL_ALL && isExplicit(m, g1, g2))) {
        continue;
      }
      int lowfirst = b1 < b2 || (b1 == b2 && g1 < g2);
      r[n++] = (Ref){signature(b1, b2), 1, lowfirst ? g1 : g2, lowfirst ? g2 : g1};
    }
  }
  qsort(r, (size_t)n, sizeof(Ref), refLess);
  List l = {n, malloc(sizeof(int) * (size_t)(n + 1)), malloc(sizeof(int) * (size_t)(n + 1)),
            malloc(sizeof(int) * (size_t)(n + 1))};
  cr_assert(l.g1 && l.g2 && l.ipair);
  for (int i = 0; i < n; i++) {
    l.g1[i] = r[i].kind ? r[i].a : m->pair_geom1[r[i].a];
    l.g2[i] = r[i].kind ? r[i].b : m->pair_geom2[r[i].a];
    l.ipair[i] = r[i].kind ? -1 : r[i].a;
  }
  free(r);
  return l;
}


static List driver(const mcModel* m, mcData* d) {
  int cap = m->npair + m->ngeom * (m->ngeom - 1) / 2 + 1;
  List l = {0, malloc(sizeof(int) * (size_t)cap), malloc(sizeof(int) * (size_t)cap),
            malloc(sizeof(int) * (size_t)cap)};
  cr_assert(l.g1 && l.g2 && l.ipair);
  l.n = mci_collisionCandidates(m, d, l.g1, l.g2, l.ipair, cap);
  cr_assert_geq(l.n, 0, "scratch stack full");
  cr_assert_eq(l.n, mci_collisionPairs(m, d), "the count differs from mci_collisionPairs");
  return l;
}


static void freeList(List* l) {
  free(l->g1);
  free(l->g2);
  free(l->ipair);
}


// does got equal want pair for pair? (prints the first difference)
static int sameList(const List* got, const List* want, const char* label) {
  if (got->n != want->n) {
    printf("%s: %d candidates, brute force %d\n", label, got->n, want->n);
  }
  int n = got->n < want->n ? got->n : want->n;
  for (int i = 0; i < n; i++) {
    if (got->g1[i] != want->g1[i] || got->g2[i] != want->g2[i] ||
        got->ipair[i] != want->ipair[i]) {
      printf("%s: candidate %d is (%d, %d, pair %d), brute force (%d, %d, pair %d)\n", label, i,
             got->g1[i], got->g2[i], got->ipair[i], want->g1[i], want->g2[i], want->ipair[i]);
      return 0;
    }
  }
  return got->n == want->n;
}


// a random scene: nfree free bodies of one geom, nmulti free bodies of three, ntree articulated
// trees (a free root and a hinged chain with a branch), static world geoms (a plane, long
// capsules, boxes), an exclude, explicit pairs, contype variations, margins and gaps
static mcModel* scene(unsigned seed, int nfree, int nmulti, int ntree, double half) {
  size_t cap = (size_t)1 << 21, len = 0;
  char* s = malloc(cap);
  cr_assert(s);
  unsigned r = seed;
#define PUT(...) len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__)
  PUT("<mujoco><size nconmax='20000' njmax='100' memory='64M'/><worldbody>"
      "<geom name='floor' type='plane' size='5 5 .1'/>"
      "<geom name='wall' type='capsule' fromto='-%g %g 0 %g %g 0' size='0.2'/>"
      "<geom type='capsule' fromto='%g -%g 0 %g %g 0' size='0.2' margin='0.05'/>"
      "<geom type='box' size='0.3 0.3 0.3' pos='%g %g 0'/>",
      half, half, half, half, half, half, half, half, -half, -half);
  const char* type[3] = {"sphere", "capsule", "box"};
  for (int i = 0; i < nfree; i++) {
    double a = 0.01 + 0.15 * uniform(&r, 0, 1);
    const char* t = type[i % 3];
    PUT("<body name='f%d'><freejoint/><geom type='%s' size='%.4f %.4f %.4f'%s%s/></body>", i, t,
        a, a, a, i % 11 == 5 ? " contype='2'" : "",
        i % 7 == 3 ? " margin='0.02' gap='0.01'" : "");
  }
  for (int i = 0; i < nmulti; i++) {
    double a = 0.03 + 0.08 * uniform(&r, 0, 1);
    PUT("<body name='m%d'><freejoint/><geom type='sphere' size='%.4f'/>"
        "<geom type='capsule' size='%.4f %.4f' pos='%.4f 0 0'/>"
        "<geom type='box' size='%.4f %.4f %.4f' pos='0 %.4f 0'%s/></body>",
        i, a, 0.5 * a, a, a, 0.5 * a, 0.5 * a, 0.5 * a, -a,
        i % 9 == 4 ? " contype='2' conaffinity='3'" : "");
  }
  for (int i = 0; i < ntree; i++) {
    PUT("<body name='t%d'><freejoint/><geom type='capsule' size='0.06 0.15'/>"
        "<geom type='sphere' size='0.08' pos='0 0 0.2'/>"
        "<body name='t%da' pos='0.2 0 0'><joint type='hinge' axis='0 1 0'/>"
        "<geom type='capsule' size='0.04 0.1' pos='0.1 0 0' euler='0 90 0'/>"
        "<body pos='0.2 0 0'><joint type='hinge' axis='0 0 1'/>"
        "<geom type='capsule' size='0.035 0.08' pos='0.08 0 0' euler='0 90 0'/>"
        "<body pos='0.16 0 0'><joint type='hinge' axis='0 1 0'/>"
        "<geom type='sphere' size='0.05'/></body></body></body>"
        "<body name='t%db' pos='-0.2 0 0'><joint type='hinge' axis='1 0 0'/>"
        "<geom type='box' size='0.05 0.05 0.1' pos='-0.1 0 0'%s/></body></body>",
        i, i, i, i % 4 == 1 ? " margin='0.03'" : "");
  }
  PUT("</worldbody><contact>");
  if (nfree > 2) {
    PUT("<exclude body1='f1' body2='f2'/><pair geom1='floor' geom2='wall'/>");
  }
  if (ntree > 0) {
    PUT("<exclude body1='t0' body2='t0b'/>");
  }
  PUT("</contact></mujoco>");
#undef PUT
  char err[1000] = "";
  mcModel* m = mc_loadXMLString(s, NULL, err, sizeof(err));
  cr_assert(m, "load: %s", err);
  free(s);
  return m;
}


// random poses: free roots in a box of half-width half (far: every 9th far away), hinges +-1.5
static void randomPoses(const mcModel* m, mcData* d, unsigned* r, double half, int far) {
  for (int j = 0; j < m->njnt; j++) {
    mcNum* q = d->qpos + m->jnt_qposadr[j];
    if (m->jnt_type[j] == mcJNT_HINGE) {
      q[0] = uniform(r, -1.5, 1.5);
      continue;
    }
    if (m->jnt_type[j] != mcJNT_FREE) {
      continue;
    }
    q[0] = uniform(r, -half, half);
    q[1] = uniform(r, -half, half);
    q[2] = uniform(r, -0.05, 0.6);
    if (far && j % 9 == 8) {
      q[0] = 1e5 * (1 + j);
    }
    mcNum w[4], n = 0;
    for (int k = 0; k < 4; k++) {
      w[k] = uniform(r, -1, 1);
      n += w[k] * w[k];
    }
    n = sqrt(n) + 1e-12;
    for (int k = 0; k < 4; k++) {
      q[3 + k] = w[k] / n;
    }
  }
}


// the driver's list on d against brute force; and against a fresh data of the same poses (no
// order carried over from earlier calls); return 1 if both hold
static int check(const mcModel* m, mcData* d, const char* label) {
  mc_kinematics(m, d);
  List got = driver(m, d), want = reference(m, d);
  int ok = sameList(&got, &want, label);

  mcData* fresh = mc_makeData(m);
  cr_assert(fresh);
  memcpy(fresh->qpos, d->qpos, sizeof(mcNum) * (size_t)m->nq);
  mc_kinematics(m, fresh);
  List once = driver(m, fresh);
  char l2[200];
  snprintf(l2, sizeof(l2), "%s (fresh data)", label);
  ok = sameList(&got, &once, l2) && ok;
  mc_deleteData(fresh);
  freeList(&got);
  freeList(&want);
  freeList(&once);
  return ok;
}


// the model's flag variants on one scene over npose random poses; return the failures
static int variants(mcModel* m, unsigned seed, int npose, double half, const char* name) {
  mcData* d = mc_makeData(m);
  cr_assert(d);
  int fail = 0, total = 0;
  unsigned r = seed;
  for (int v = 0; v < 6; v++) {
    m->opt.enableflags &= ~(mcENBL_LEGACYMARGIN | mcENBL_OVERRIDE);
    m->opt.disableflags &= ~mcDSBL_FILTERPARENT;
    m->opt.collision = mcCOL_ALL;
    const char* what = "default";
    if (v == 1) {
      m->opt.enableflags |= mcENBL_LEGACYMARGIN;
      what = "legacy margin";
    } else if (v == 2) {
      m->opt.enableflags |= mcENBL_OVERRIDE;
      m->opt.o_margin = 0.04;
      what = "override";
    } else if (v == 3) {
      m->opt.disableflags |= mcDSBL_FILTERPARENT;
      what = "parent filter off";
    } else if (v == 4) {
      m->opt.collision = mcCOL_DYNAMIC;
      what = "dynamic";
    } else if (v == 5) {
      m->opt.collision = mcCOL_PAIR;
      what = "pair";
    }
    for (int i = 0; i < npose; i++) {
      randomPoses(m, d, &r, i % 2 ? half : 0.3 * half, i % 5 == 4);
      char label[200];
      snprintf(label, sizeof(label), "%s, %s, pose %d", name, what, i);
      fail += !check(m, d, label);
      List l = driver(m, d);
      total += l.n;
      freeList(&l);
    }
  }
  m->opt.enableflags &= ~(mcENBL_LEGACYMARGIN | mcENBL_OVERRIDE);
  m->opt.disableflags &= ~mcDSBL_FILTERPARENT;
  m->opt.collision = mcCOL_ALL;
  printf("%s: %d poses x 6 variants, %d candidates, %d lists differ\n", name, npose, total, fail);
  cr_expect_gt(total, 6 * npose, "%s: too few candidates (%d) to mean anything", name, total);
  mc_deleteData(d);
  return fail;
}


Test(broadphase_candidates, each_against_each) {
  mcModel* m = scene(11, 8, 0, 0, 0.5);   // fewer boxes than MCI_ALLPAIRS_MAXBOX
  cr_expect_eq(variants(m, 101, 12, 0.5, "each against each"), 0);
  mc_deleteModel(m);
}


Test(broadphase_candidates, body_level) {
  mcModel* m = scene(12, 0, 24, 0, 0.8);  // three geoms a body: the body level
  cr_expect_eq(variants(m, 102, 12, 0.8, "body level"), 0);
  mc_deleteModel(m);
}


Test(broadphase_candidates, groups_of_trees) {
  mcModel* m = scene(13, 10, 0, 14, 1.2); // trees: the groups
  cr_expect_eq(variants(m, 103, 12, 1.2, "groups"), 0);
  mc_deleteModel(m);
}


Test(broadphase_candidates, sweep) {
  mcModel* m = scene(14, 150, 2, 1, 1.5); // single-geom bodies: the sweep
  cr_expect_eq(variants(m, 104, 12, 1.5, "sweep"), 0);
  mc_deleteModel(m);
}


Test(broadphase_candidates, grid) {
  mcModel* m = scene(15, 1100, 0, 0, 3);  // above MCI_SWEEP_MAXBOX boxes: the grid
  cr_expect_eq(variants(m, 105, 2, 3, "grid"), 0);
  mc_deleteModel(m);
}


// one data across many calls: small moves (the last order nearly sorted), large jumps (the hint
// useless), teleports far away and back, a reset, and real steps
Test(broadphase_candidates, coherence_across_steps) {
  const int shapes[3][3] = {{150, 2, 1}, {10, 0, 14}, {0, 24, 0}};
  for (int sc = 0; sc < 3; sc++) {
    mcModel* m = scene(20 + sc, shapes[sc][0], shapes[sc][1], shapes[sc][2], 1.2);
    mcData* d = mc_makeData(m);
    cr_assert(d);
    unsigned r = 900 + sc;
    int fail = 0, ncheck = 0;
    char label[200];
    randomPoses(m, d, &r, 1.2, 0);
    for (int it = 0; it < 60; it++) {
      int phase = (it / 10) % 6;
      for (int j = 0; j < m->njnt; j++) {
        mcNum* q = d->qpos + m->jnt_qposadr[j];
        if (m->jnt_type[j] != mcJNT_FREE) {
          continue;
        }
        if (phase == 0) {            // creep
          q[0] += uniform(&r, -0.01, 0.01);
          q[1] += uniform(&r, -0.01, 0.01);
        } else if (phase == 1) {     // jump anywhere
          q[0] = uniform(&r, -1.2, 1.2);
          q[1] = uniform(&r, -1.2, 1.2);
        } else if (phase == 2 && j % 4 == it % 4) {  // teleport far away and back
          q[0] = fabs(q[0]) > 1e3 ? uniform(&r, -1.2, 1.2) : 1e4 * (1 + j);
        } else if (phase == 3) {     // reversed along x (the whole order flips)
          q[0] = -q[0];
        }
      }
      if (phase == 4 && it % 10 == 0) {
        mc_resetData(m, d);
        randomPoses(m, d, &r, 1.2, it % 20 == 0);
      }
      if (phase == 5) {              // the scene's own motion
        mc_step(m, d);
      }
      snprintf(label, sizeof(label), "scene %d, call %d (phase %d)", sc, it, phase);
      fail += !check(m, d, label);
      ncheck++;
    }
    printf("coherence, scene %d: %d calls on one data, %d lists differ\n", sc, ncheck, fail);
    cr_expect_eq(fail, 0, "scene %d: %d of %d lists differ", sc, fail, ncheck);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}


// the candidate sort's buckets (one lower body's pairs, core/engine/collision_driver.c
// sortCandidates): a big free body first with more than sixteen small ones around it (a long
// bucket in sweep order, explicit pairs in it), the world's pairs with one plane (a long bucket
// already in order) and with two planes and a wall (two runs and the sweep's pairs), short
// buckets between the small bodies
static mcModel* bucketScene(int nplane, int nsmall) {
  size_t cap = (size_t)1 << 18, len = 0;
  char* s = malloc(cap);
  cr_assert(s);
#define PUT(...) len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__)
  PUT("<mujoco><size nconmax='20000' memory='16M'/><worldbody>"
      "<geom name='floor' type='plane' size='5 5 .1'/>");
  if (nplane > 1) {
    PUT("<geom type='plane' size='5 5 .1' pos='0 0 -0.05'/>"
        "<geom type='capsule' fromto='-2 -1.4 0 2 -1.4 0' size='0.2'/>");
  }
  PUT("<body name='big'><freejoint/><geom name='bigbox' type='box' size='1 1 .3'/>"
      "<geom type='sphere' size='.6' pos='0 0 .4'/></body>");
  for (int i = 0; i < nsmall; i++) {
    PUT("<body name='s%d'><freejoint/><geom name='s%d' type='%s' size='.12 .08 .06'/></body>", i,
        i, i % 3 == 0 ? "sphere" : i % 3 == 1 ? "capsule" : "box");
  }
  PUT("</worldbody><contact><pair geom1='bigbox' geom2='s3'/><pair geom1='s5' geom2='bigbox'/>"
      "<pair geom1='s7' geom2='s2'/></contact></mujoco>");
#undef PUT
  char err[1000] = "";
  mcModel* m = mc_loadXMLString(s, NULL, err, sizeof(err));
  cr_assert(m, "load: %s", err);
  free(s);
  return m;
}


Test(broadphase_candidates, sort_buckets) {
  for (int nplane = 1; nplane <= 2; nplane++) {
    for (int nsmall = 18; nsmall <= 60; nsmall += 42) {
      mcModel* m = bucketScene(nplane, nsmall);
      mcData* d = mc_makeData(m);
      cr_assert(d);
      unsigned r = 1000u + (unsigned)(nplane * 100 + nsmall);
      int fail = 0, nbig = 0;
      for (int pose = 0; pose < 20; pose++) {
        // the big body at the origin, the small ones around and on it, near the floor
        for (int j = 0; j < m->njnt; j++) {
          mcNum* q = d->qpos + m->jnt_qposadr[j];
          q[0] = j == 0 ? 0 : uniform(&r, -1.3, 1.3);
          q[1] = j == 0 ? 0 : uniform(&r, -1.3, 1.3);
          q[2] = j == 0 ? 0.3 : uniform(&r, 0.0, 0.9);
          q[3] = 1;
          q[4] = q[5] = q[6] = 0;
        }
        char label[200];
        snprintf(label, sizeof(label), "%d planes, %d small bodies, pose %d", nplane, nsmall,
                 pose);
        fail += !check(m, d, label);
        List l = driver(m, d);
        int big = 0;
        for (int i = 0; i < l.n; i++) {
          big += m->geom_bodyid[l.g1[i]] == 1 || m->geom_bodyid[l.g2[i]] == 1;
        }
        nbig = big > nbig ? big : nbig;
        freeList(&l);
      }
      cr_expect_eq(fail, 0);
      cr_expect_gt(nbig, 16, "the big body's bucket is short (%d)", nbig);
      mc_deleteData(d);
      mc_deleteModel(m);
    }
  }
}
