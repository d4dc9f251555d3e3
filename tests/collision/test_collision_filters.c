// Collision tests: the pair filters of the seed ("Collision detection"), one case per rule, each
// built so that only that rule decides the outcome (removing the rule from the driver changes
// the contact count or crashes the test). Where MuJoCo 2.2.2 can load the scene its contacts are
// compared too, so an expectation written here cannot drift from the reference.
//
// Rule -> test (tests/collision/test_collision_driver.c already covers some rules; they are not
// repeated here):
//   1. a collide function exists for the type pair
//        table lookup, unsupported pairs reported ........ driver: filters.collide_function_exists
//        driver skips dynamic and explicit pairs without a
//        function and goes on with the others ............ filters_rules.type_pair_function
//   2. bounding sphere with margin
//        rbound decides (sphere-sphere and plane) ......... driver: filters.bounding_sphere
//        geom margin, pair margin ......................... filters_rules.bounding_margin
//        override margin (as MuJoCo 3.14) ............. filters_rules.override_margin_as_mujoco3
//        explicit pairs are bounding-tested too ........... filters_rules.bounding_explicit_pair
//        planes: half space, unbounded sideways ........... filters_rules.bounding_plane_halfspace
//   3. same body (welded bodies merged) .................. driver: filters.same_body_weld_parent
//      parent-child, welds merged, filterparent flag ..... driver: filters.same_body_weld_parent
//      parent welded to the world, grandparents ...... filters_rules.parent_world_and_grandparent
//   4. contype / conaffinity (either direction) ........... driver: filters.contype_conaffinity
//   explicit <pair> bypasses 3 and 4
//        contype/conaffinity and exclude .................. driver: filters.exclude_and_pair
//        same body and parent-child ..................... filters_rules.pair_bypasses_body_filters
//   <exclude> (either order) .............................. driver: filters.exclude_and_pair,
//                                                           filters_rules.exclude_only_listed
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>

#include <moduco/moduco.h>

#include "engine/collision.h"
#include "engine/io.h"
#include "oracle.h"
#include "testutil.h"

// a MuJoCo model, its Moduco copy and both data, at the same poses
typedef OrcScene Scene;


static Scene loadScene(const char* xml) {
  Scene s;
  cr_assert(orc_sceneLoad(&s, xml), "the scene does not load in MuJoCo or does not convert");
  return s;
}


static void freeScene(Scene* s) {
  orc_sceneFree(s);
}


// MuJoCo forward, Moduco collision on the same poses; expect both to agree; return Moduco's ncon
static int collideBoth(Scene* s, const char* label) {
  mj_forward(s->mm, s->md);
  orc_copyPoses(s->mm, s->md, s->m, s->d);
  mc_collision(s->m, s->d);
  OrcStats st = {0};
  cr_expect(orc_compare(s->md->contact, s->md->ncon, s->d->contact, s->d->ncon, 1e-9, 1, label,
                        &st), "%s: Moduco and MuJoCo differ", label);
  return s->d->ncon;
}


// load, collide in both engines, free; return Moduco's ncon
static int sceneContacts(const char* xml, const char* label) {
  Scene s = loadScene(xml);
  int n = collideBoth(&s, label);
  freeScene(&s);
  return n;
}


// does Moduco's contact list hold the geom pair (either order)?
static int hasPair(const mcData* d, int g1, int g2) {
  for (int i = 0; i < d->ncon; i++) {
    int a = d->contact[i].geom1, b = d->contact[i].geom2;
    if ((a == g1 && b == g2) || (a == g2 && b == g1)) {
      return 1;
    }
  }
  return 0;
}


//---------------------------------- rule 1: collide function --------------------------------------

// MuJoCo refuses such scenes, so the Moduco copy of a loadable scene is edited: the overlapping
// spheres of the world and of a free body become type pairs without a collide function
// (hfield-hfield, plane-hfield) whose bounding test passes; neither the dynamic candidate nor
// the explicit pair may produce a contact, and the sphere pair after them must still be
// collided. Without the rule the driver would call a NULL function.
Test(filters_rules, type_pair_function) {
  const char* xml =
    "<mujoco><worldbody>"
    "<geom name='w' type='sphere' size='0.1'/>"
    "<body name='p'><freejoint/><geom name='p' type='sphere' size='0.1' pos='0.05 0 0'/></body>"
    "<body name='a' pos='0 0 1'><freejoint/><geom name='a' type='sphere' size='0.1'/></body>"
    "<body name='b' pos='0.15 0 1'><freejoint/><geom name='b' type='sphere' size='0.1'/></body>"
    "</worldbody><contact><pair geom1='w' geom2='p'/></contact></mujoco>";
  Scene s = loadScene(xml);
  cr_expect_eq(collideBoth(&s, "before edit"), 2);
  const int types[2][2] = {{mcGEOM_HFIELD, mcGEOM_HFIELD}, {mcGEOM_PLANE, mcGEOM_HFIELD}};
  for (int k = 0; k < 2; k++) {
    cr_assert_null(mci_collisionFunc(types[k][0], types[k][1]));
    s.m->geom_type[0] = types[k][0];
    s.m->geom_type[1] = types[k][1];
    s.m->geom_rbound[0] = types[k][0] == mcGEOM_PLANE ? 0 : 0.1;

    // the bounding test alone would keep the pair
    cr_assert(mci_boundingFilter(s.m, s.d, 0, 1, 0));
    for (int mode = mcCOL_ALL; mode <= mcCOL_DYNAMIC; mode++) {
      s.m->opt.collision = mode;
      mc_collision(s.m, s.d);
      int expect = mode == mcCOL_PAIR ? 0 : 1;
      cr_expect_eq(s.d->ncon, expect, "types %d-%d, collision mode %d: ncon %d", types[k][0],
                   types[k][1], mode, s.d->ncon);
      cr_expect_eq(hasPair(s.d, 2, 3), expect);
      cr_expect_not(hasPair(s.d, 0, 1));
    }
  }
  freeScene(&s);
}


//---------------------------------- rule 2: bounding sphere ---------------------------------------

// two free spheres of radius 0.1 with centres 0.25 apart: distance 0.05, so a contact exists
// exactly when the margin in effect exceeds 0.05; the bounding test passes only with that margin
static const char* g_gap =
  "<mujoco>%s<worldbody>"
  "<body name='a'><freejoint/><geom name='a' type='sphere' size='0.1' %s/></body>"
  "<body name='b' pos='0.25 0 0'><freejoint/><geom name='b' type='sphere' size='0.1' %s/></body>"
  "</worldbody>%s</mujoco>";


static int gapContacts(const char* option, const char* attr1, const char* attr2,
                       const char* contact, const char* label) {
  char xml[2048];
  snprintf(xml, sizeof(xml), g_gap, option, attr1, attr2, contact);
  return sceneContacts(xml, label);
}


Test(filters_rules, bounding_margin) {
  // no margin: separated, no contact
  cr_expect_eq(gapContacts("", "", "", "", "no margin"), 0);

  // the larger geom margin is in the test (either geom)
  cr_expect_eq(gapContacts("", "margin='0.1'", "", "", "margin a"), 1);
  cr_expect_eq(gapContacts("", "", "margin='0.1'", "", "margin b"), 1);
  cr_expect_eq(gapContacts("", "margin='0.02'", "margin='0.04'", "", "small margins"), 0);

  // explicit pair: the pair's margin, not the geoms'
  const char* pair = "<contact><pair geom1='a' geom2='b' margin='0.1'/></contact>";
  cr_expect_eq(gapContacts("", "contype='0' conaffinity='0'", "contype='0' conaffinity='0'", pair,
                           "pair margin"), 1);
  const char* pair0 = "<contact><pair geom1='a' geom2='b' margin='0'/></contact>";
  cr_expect_eq(gapContacts("", "contype='0' margin='0.1'", "contype='0' margin='0.1'", pair0,
                           "pair margin 0"), 0);
}


// <flag override="enable"/>: o_margin replaces every margin, in the bounding test too. Here the
// free geoms are 0.09 apart (sphere-box) and 0.05 (ellipsoid-box) with geom margins 0 and o_margin
// 0.3: MuJoCo 3.14 reports both pairs, 2.2.2 neither (its broad phase keeps the geom margins
// while its narrow phase uses o_margin; only the plane contacts, which pass, agree). The same MJCF
// text goes to Moduco and 3.14; the contact lists must match pair by pair, with distances to
// 1e-6 (the ellipsoid-box pair: GJK/EPA in both, 3.14 stopping at its tolerance; measured 1.6e-7).
Test(filters_rules, override_margin_as_mujoco3) {
  TU_MJS314_REQUIRE();
  const char* xml =
    "<mujoco><option o_margin='0.3'><flag override='enable'/></option><worldbody>"
    "<geom type='plane' size='1 1 1'/>"
    "<body pos='0 0 0.35'><freejoint/><geom type='sphere' size='0.1'/></body>"
    "<body pos='0.49 0 0.35'><freejoint/><geom type='box' size='0.1 0.1 0.1'/></body>"
    "<body pos='0.49 0.45 0.35'><freejoint/><geom type='ellipsoid' size='0.1 0.1 0.1'/></body>"
    "</worldbody></mujoco>";
  char err[1024];
  cJSON* out = tu_mjs3Contacts(&xml, 1, err, sizeof(err));
  cr_assert(out, "%s", err);
  const cJSON* ref = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(out, "models"), 0),
                                         "contacts");
  cr_assert(cJSON_IsArray(ref), "3.14 did not compile the scene");
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  mc_forward(m, d);
  cr_expect(hasPair(d, 1, 2) && hasPair(d, 3, 2), "sphere-box or ellipsoid-box missing");
  cr_assert_eq(d->ncon, cJSON_GetArraySize(ref), "%d contacts, MuJoCo 3.14 %d", d->ncon,
               cJSON_GetArraySize(ref));
  for (int i = 0; i < d->ncon; i++) {
    const cJSON* c = cJSON_GetArrayItem(ref, i);
    cr_expect(d->contact[i].geom1 == cJSON_GetArrayItem(c, 0)->valueint &&
              d->contact[i].geom2 == cJSON_GetArrayItem(c, 1)->valueint &&
              fabs(d->contact[i].dist - cJSON_GetArrayItem(c, 2)->valuedouble) < 1e-6,
              "contact %d: geoms %d %d dist %g, 3.14 %d %d %g", i, d->contact[i].geom1,
              d->contact[i].geom2, d->contact[i].dist, cJSON_GetArrayItem(c, 0)->valueint,
              cJSON_GetArrayItem(c, 1)->valueint, cJSON_GetArrayItem(c, 2)->valuedouble);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
  cJSON_Delete(out);
}


// explicit pairs bypass the body and contype filters but not the bounding test: shrinking the
// bounding spheres of an overlapping pair removes its contact
Test(filters_rules, bounding_explicit_pair) {
  const char* xml =
    "<mujoco><worldbody>"
    "<body name='a'><freejoint/><geom name='a' type='sphere' size='0.1' contype='0'"
    " conaffinity='0'/></body>"
    "<body name='b' pos='0.15 0 0'><freejoint/><geom name='b' type='sphere' size='0.1'"
    " contype='0' conaffinity='0'/></body>"
    "</worldbody><contact><pair geom1='a' geom2='b' margin='0.01'/></contact></mujoco>";
  Scene s = loadScene(xml);
  cr_expect_eq(collideBoth(&s, "explicit pair"), 1);
  s.m->geom_rbound[0] = s.m->geom_rbound[1] = 0.02;
  mc_collision(s.m, s.d);
  cr_expect_eq(s.d->ncon, 0, "explicit pair with tiny bounding spheres: %d contacts", s.d->ncon);
  cr_expect_not(mci_boundingFilter(s.m, s.d, 0, 1, 0.01));
  cr_expect(mci_boundingFilter(s.m, s.d, 0, 1, 0.12));
  freeScene(&s);
}


// a plane's test is the other geom's sphere against the half space: far sideways from the
// plane's centre (and beyond its size), deep below it, or above it within the margin all pass;
// a plain sphere-sphere test would reject all three
Test(filters_rules, bounding_plane_halfspace) {
  const char* xml =
    "<mujoco><worldbody><geom type='plane' size='1 1 .1'/>"
    "<body pos='30 0 0.05'><freejoint/><geom type='sphere' size='0.1'/></body>"
    "<body pos='0 30 -5'><freejoint/><geom type='sphere' size='0.1'/></body>"
    "<body pos='-30 0 0.15'><freejoint/><geom type='sphere' size='0.1' margin='0.1'/></body>"
    "<body pos='0 -30 0.25'><freejoint/><geom type='sphere' size='0.1' margin='0.1'/></body>"
    "</worldbody></mujoco>";
  Scene s = loadScene(xml);
  cr_expect_eq(collideBoth(&s, "plane half space"), 3);
  for (int g = 1; g <= 3; g++) {
    cr_expect(hasPair(s.d, 0, g), "plane-sphere %d missing", g);
  }
  cr_expect_not(hasPair(s.d, 0, 4));

  // the margin is part of the plane test: without it the third sphere is filtered out
  cr_expect(mci_boundingFilter(s.m, s.d, 0, 3, 0.1));
  cr_expect_not(mci_boundingFilter(s.m, s.d, 0, 3, 0));
  cr_expect(mci_boundingFilter(s.m, s.d, 3, 0, 0.1));

  // a tilted plane: the test follows the plane normal, not the world z axis
  const char* tilted =
    "<mujoco><worldbody><geom type='plane' size='1 1 .1' euler='90 0 0'/>"
    "<body pos='0 -0.05 30'><freejoint/><geom type='sphere' size='0.1'/></body>"
    "</worldbody></mujoco>";
  cr_expect_eq(sceneContacts(tilted, "tilted plane"), 1);
  freeScene(&s);
}


//---------------------------------- rule 3: body filters ------------------------------------------

// S is a static body welded to the world: its jointed child C collides with it (the parent weld
// is the world); G-P-C is a hinge chain where only the grandparent G overlaps C, which is not a
// parent-child pair and collides; P overlaps neither
Test(filters_rules, parent_world_and_grandparent) {
  const char* xml =
    "<mujoco><worldbody>"
    "<body name='S' pos='0 0 1'><geom type='sphere' size='0.1'/>"
    "<body name='C' pos='0.1 0 0'><joint type='hinge'/><geom type='sphere' size='0.1'/>"
    "</body></body>"
    "<body name='G' pos='2 0 1'><joint type='hinge'/><geom type='sphere' size='0.1'/>"
    "<body name='P' pos='0.5 0 0'><joint type='hinge'/><geom type='sphere' size='0.01'/>"
    "<body name='C2' pos='-0.4 0 0'><joint type='hinge'/><geom type='sphere' size='0.1'/>"
    "</body></body></body>"
    "</worldbody></mujoco>";
  Scene s = loadScene(xml);
  for (int fp = 0; fp < 2; fp++) {
    s.mm->opt.disableflags = fp ? mjDSBL_FILTERPARENT : 0;
    s.m->opt.disableflags = fp ? mcDSBL_FILTERPARENT : 0;
    cr_expect_eq(collideBoth(&s, "world weld and grandparent"), 2);
    cr_expect(hasPair(s.d, 0, 1), "static parent S vs child C filtered (filterparent off %d)", fp);
    cr_expect(hasPair(s.d, 2, 4), "grandparent G vs grandchild C2 filtered");
  }
  freeScene(&s);
}


//---------------------------------- explicit pairs and excludes -----------------------------------

// geoms of one body and of a parent and its child never collide dynamically, but explicit pairs
// between them do
Test(filters_rules, pair_bypasses_body_filters) {
  const char* xml =
    "<mujoco><worldbody>"
    "<body name='P'><joint type='hinge'/><geom name='pa' type='sphere' size='0.1'/>"
    "<geom name='pb' type='sphere' size='0.1' pos='0.1 0 0'/>"
    "<body name='C'><joint type='hinge'/><geom name='ca' type='sphere' size='0.1'"
    " pos='0 0.1 0'/></body></body>"
    "</worldbody>%s</mujoco>";
  char buf[1024];
  snprintf(buf, sizeof(buf), xml, "");
  cr_expect_eq(sceneContacts(buf, "no pairs"), 0);
  snprintf(buf, sizeof(buf), xml,
           "<contact><pair geom1='pa' geom2='pb'/><pair geom1='ca' geom2='pa'/></contact>");
  Scene s = loadScene(buf);
  cr_expect_eq(collideBoth(&s, "pairs in one body and parent-child"), 2);
  cr_expect(hasPair(s.d, 0, 1), "same-body explicit pair filtered");
  cr_expect(hasPair(s.d, 0, 2), "parent-child explicit pair filtered");

  // with filterparent disabled the dynamic parent-child pairs (pb-ca) join, pa-ca stays single
  s.mm->opt.disableflags = mjDSBL_FILTERPARENT;
  s.m->opt.disableflags = mcDSBL_FILTERPARENT;
  cr_expect_eq(collideBoth(&s, "pairs, filterparent disabled"), 3);
  freeScene(&s);
}


// an exclude removes only its own body pair, given in either order, and leaves the other pairs
// of the same bodies alone
Test(filters_rules, exclude_only_listed) {
  const char* xml =
    "<mujoco><worldbody>"
    "<body name='a'><freejoint/><geom type='sphere' size='0.1'/></body>"
    "<body name='b' pos='0.15 0 0'><freejoint/><geom type='sphere' size='0.1'/></body>"
    "<body name='c' pos='0.3 0 0'><freejoint/><geom type='sphere' size='0.1'/></body>"
    "</worldbody><contact>%s</contact></mujoco>";
  char buf[1024];
  snprintf(buf, sizeof(buf), xml, "");
  cr_expect_eq(sceneContacts(buf, "no exclude"), 2);
  snprintf(buf, sizeof(buf), xml, "<exclude body1='c' body2='b'/>");
  Scene s = loadScene(buf);
  cr_expect_eq(collideBoth(&s, "exclude c-b"), 1);
  cr_expect(hasPair(s.d, 0, 1));
  cr_expect_eq(mci_bodyFilter(s.m, 2, 3), 1);
  cr_expect_eq(mci_bodyFilter(s.m, 3, 2), 1);
  cr_expect_eq(mci_bodyFilter(s.m, 1, 2), 0);
  freeScene(&s);
  snprintf(buf, sizeof(buf), xml, "<exclude body1='a' body2='b'/>");
  cr_expect_eq(sceneContacts(buf, "exclude a-b"), 1);
}

