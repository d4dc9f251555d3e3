// The separating-direction cache of collision-gjk (mcData.collision_sepdir, nativeccd.c): a
// pair found apart keeps the direction, and the next query checks it by the exact supports
// before GJK. It must never change a contact: the contacts with a cache carried over random
// poses, or filled with arbitrary directions under the pairs' own keys, equal those of a data
// whose cache is empty, bit for bit (climb starts out of range too); and pairs near but apart
// must leave their direction there.
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include <moduco/moduco.h>

#include "testutil.h"

static unsigned long long g_seed = 0x243f6a8885a308d3ull;

static double uniform(double lo, double hi) {
  return tu_xorshiftUniform(&g_seed, lo, hi);
}


// six free convex geoms (every pair goes to collision-gjk except sphere/capsule/box among
// themselves), no gravity
static const char* g_xml =
    "<mujoco><option gravity='0 0 0'/><asset><mesh name='m' vertex='0 0 0.3  0.2 -0.1 0"
    "  -0.15 0.12 0.05  0.05 0.2 -0.1  -0.1 -0.2 -0.08  0.12 0.1 0.2'/></asset><worldbody>"
    "<body><freejoint/><geom type='sphere' size='0.1' margin='0.01'/></body>"
    "<body><freejoint/><geom type='capsule' size='0.05 0.2'/></body>"
    "<body><freejoint/><geom type='ellipsoid' size='0.1 0.2 0.05'/></body>"
    "<body><freejoint/><geom type='cylinder' size='0.08 0.15'/></body>"
    "<body><freejoint/><geom type='box' size='0.1 0.05 0.2'/></body>"
    "<body><freejoint/><geom type='mesh' mesh='m' margin='0.02'/></body>"
    "</worldbody></mujoco>";


static void randomPose(mcData* d, double spread) {
  tu_randomFreePoses(&g_seed, d->qpos, 6, spread);
}


static void expectSameContacts(const mcData* a, const mcData* b, int pose) {
  cr_assert_eq(a->ncon, b->ncon, "pose %d: %d contacts against %d", pose, a->ncon, b->ncon);
  for (int i = 0; i < a->ncon; i++) {
    const mcContact* x = a->contact + i;
    const mcContact* y = b->contact + i;
    cr_assert(x->geom1 == y->geom1 && x->geom2 == y->geom2 && x->dist == y->dist &&
              !memcmp(x->pos, y->pos, sizeof(x->pos)) &&
              !memcmp(x->frame, y->frame, sizeof(x->frame)),
              "pose %d contact %d differs", pose, i);
  }
}


Test(collision_sepdir, cache_never_changes_a_contact) {
  char err[1000];
  mcModel* m = mc_loadXMLString(g_xml, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  mcData* warm = mc_makeData(m);
  mcData* cold = mc_makeData(m);
  cr_assert(warm && cold && warm->collision_sepdir);
  size_t nslot = 2*(size_t)m->ngeom;
  long ncon = 0, nkept = 0;
  for (int t = 0; t < 3000; t++) {
    // small moves between poses (as steps make them), a jump now and then
    if (t % 50 == 0) {
      randomPose(warm, 0.3);
    } else {
      for (int i = 0; i < m->nq; i++) {
        warm->qpos[i] += uniform(-0.01, 0.01);
      }
    }
    if (t % 7 == 3) {
      // arbitrary directions (any unit vector, zero, huge) under keys of real pairs
      for (size_t s = 0; s < nslot; s++) {
        int g1 = (int)uniform(0, 6), g2 = (int)uniform(0, 6);
        mcNum* slot = warm->collision_sepdir + 6*s;
        slot[0] = (mcNum)g1*m->ngeom + g2 + 1;
        for (int k = 1; k < 4; k++) {
          slot[k] = t % 21 == 3 ? 0 : uniform(-1, 1);
        }
        slot[4] = (int)uniform(-2, 10);   // climb starts in and out of the hull's range
        slot[5] = t % 14 == 3 ? 1e300 : (int)uniform(-2, 10);
      }
    }
    memcpy(cold->qpos, warm->qpos, sizeof(mcNum)*(size_t)m->nq);
    memset(cold->collision_sepdir, 0, sizeof(mcNum)*6*nslot);
    mc_forward(m, warm);
    mc_forward(m, cold);
    expectSameContacts(warm, cold, t);
    ncon += warm->ncon;
  }
  for (size_t s = 0; s < nslot; s++) {
    nkept += warm->collision_sepdir[6*s] != 0;
  }
  cr_expect(ncon > 1000, "contacts over all poses: %ld", ncon);
  cr_expect(nkept > 0);
  mc_deleteData(warm);
  mc_deleteData(cold);
  mc_deleteModel(m);
}


// a thin box facing a sloped face of a mesh pyramid across a gap of 0.01 (not apart by their
// boxes): the pair leaves its key and a unit direction
Test(collision_sepdir, near_pair_keeps_its_direction) {
  const char* xml =
      "<mujoco><option gravity='0 0 0'/><asset><mesh name='m' vertex='-0.1 -0.1 -0.1"
      "  0.1 -0.1 -0.1  -0.1 0.1 -0.1  0.1 0.1 -0.1  0 0 0.1'/></asset><worldbody>"
      "<body pos='0 0 0'><freejoint/><geom type='mesh' mesh='m'/></body>"
      "<body pos='0.06789 0 0.00894' euler='0 63.4349 0'><freejoint/>"
      "<geom type='box' size='0.05 0.05 0.01'/></body>"
      "</worldbody></mujoco>";
  char err[1000];
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  mcData* d = mc_makeData(m);
  mc_forward(m, d);
  cr_expect_eq(d->ncon, 0);
  int found = 0;
  for (int s = 0; s < 2*m->ngeom; s++) {
    const mcNum* slot = d->collision_sepdir + 6*s;
    if (slot[0] == 0) {
      continue;
    }
    found++;
    cr_expect(slot[0] == 0*m->ngeom + 1 + 1 || slot[0] == 1*m->ngeom + 0 + 1);
    cr_expect(fabs(slot[1]*slot[1] + slot[2]*slot[2] + slot[3]*slot[3] - 1) < 1e-12);
  }
  cr_expect_eq(found, 1);
  // the same again from the kept direction, and after a reset (an empty cache)
  mc_forward(m, d);
  cr_expect_eq(d->ncon, 0);
  mc_resetData(m, d);
  for (int s = 0; s < 12*m->ngeom; s++) {
    cr_expect_eq(d->collision_sepdir[s], 0);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}
