// Collision tests: the driver against MuJoCo 2.2.2 on whole scenes (pair generation, order,
// parameter mixing, frames), and one test per filter rule that fails if the rule is removed.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "engine/collision.h"
#include "engine/io.h"
#include "oracle.h"

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


// MuJoCo forward at the current qpos, then Moduco's collision on the same geom poses
static int collideBoth(Scene* s, double tol, const char* label, OrcStats* st) {
  mj_forward(s->mm, s->md);
  orc_copyPoses(s->mm, s->md, s->m, s->d);
  mc_collision(s->m, s->d);
  return orc_compare(s->md->contact, s->md->ncon, s->d->contact, s->d->ncon, tol, 1, label, st);
}


// randomize free-joint positions and orientations inside a box
static void randomFree(Scene* s, OrcRng* r, double half, double zlo, double zhi) {
  for (int j = 0; j < s->mm->njnt; j++) {
    if (s->mm->jnt_type[j] != mjJNT_FREE) {
      continue;
    }
    double* q = s->md->qpos + s->mm->jnt_qposadr[j];
    q[0] = orc_uniform(r, -half, half);
    q[1] = orc_uniform(r, -half, half);
    q[2] = orc_uniform(r, zlo, zhi);
    orc_quat(r, q + 3);
  }
}


//---------------------------------- scenes vs MuJoCo ----------------------------------------------

// spheres and capsules with mixed parameters on a plane and on each other
static const char* g_pile =
  "<mujoco><worldbody>"
  "<geom type='plane' size='5 5 .1' friction='0.8 0.01 0.001' solref='0.03 0.9'/>"
  "<body><freejoint/><geom type='sphere' size='0.1' priority='1' condim='4'/></body>"
  "<body><freejoint/><geom type='sphere' size='0.15' solmix='2' solref='0.01 0.5' margin='0.02'/>"
  "</body>"
  "<body><freejoint/><geom type='capsule' size='0.05 0.2' condim='6' gap='0.01'"
  " friction='1.5 0.1 0.01'/></body>"
  "<body><freejoint/><geom type='capsule' size='0.08 0.1' solref='-1000 -50'/></body>"
  "<body><freejoint/><geom type='sphere' size='0.12' solmix='0' solimp='0.8 0.9 0.01 0.4 3'/>"
  "<geom type='capsule' size='0.04 0.15' pos='0.1 0 0'/></body>"
  "</worldbody></mujoco>";


Test(scenes, pile_random_poses) {
  Scene s = loadScene(g_pile);
  OrcStats st = {0};
  OrcRng r = {12345};
  for (int i = 0; i < 300; i++) {
    randomFree(&s, &r, 0.3, -0.05, 0.4);
    collideBoth(&s, 1e-9, "pile", &st);
  }
  printf("pile: %d poses, %d differ, %d contacts, max err %.3g\n", st.ncases, st.ncasefail,
         st.ncompared, st.maxerr);
  cr_expect_eq(st.ncasefail, 0, "%d of %d poses differ from MuJoCo", st.ncasefail, st.ncases);
  freeScene(&s);
}


// explicit pairs merged into the dynamic list, excludes, collision modes, override
static const char* g_pairs =
  "<mujoco><worldbody>"
  "<geom name='floor' type='plane' size='5 5 .1'/>"
  "<body name='A' pos='0 0 0.09'><freejoint/>"
  "<geom name='a1' type='sphere' size='0.1'/><geom name='a2' type='sphere' size='0.1'"
  " pos='0 0.05 0'/><geom name='a3' type='capsule' size='0.05 0.1' pos='0 -0.05 0'/></body>"
  "<body name='B' pos='0.15 0 0.09'><freejoint/>"
  "<geom name='b1' type='sphere' size='0.1'/><geom name='b2' type='capsule' size='0.1 0.1'/>"
  "</body>"
  "<body name='C' pos='0.3 0 0.09'><freejoint/><geom name='c1' type='sphere' size='0.1'/></body>"
  "<body name='D' pos='0.45 0 0.09'><freejoint/><geom name='d1' type='sphere' size='0.1'/></body>"
  "</worldbody><contact>"
  "<pair geom1='b2' geom2='a2' condim='1' margin='0.01' gap='0.005'/>"
  "<pair geom1='c1' geom2='b1' friction='0.3 0.3 0.01 0.001 0.001' solref='0.05 2'/>"
  "<pair geom1='a1' geom2='b1' solimp='0.5 0.6 0.01 0.5 2'/>"
  "<pair geom1='floor' geom2='d1' margin='0.05'/>"
  "<exclude body1='D' body2='C'/>"
  "</contact></mujoco>";


Test(scenes, pairs_excludes_modes) {
  Scene s = loadScene(g_pairs);
  OrcStats st = {0};
  OrcRng r = {777};
  for (int mode = 0; mode < 3; mode++) {
    s.mm->opt.collision = mode;
    s.m->opt.collision = mode;
    for (int ov = 0; ov < 2; ov++) {
      s.mm->opt.enableflags = ov ? mjENBL_OVERRIDE : 0;
      s.m->opt.enableflags = (ov ? mcENBL_OVERRIDE : 0) | mcENBL_LEGACYMARGIN;  // 2.2.2's rules
      mj_resetData(s.mm, s.md);
      collideBoth(&s, 1e-9, "pairs initial", &st);
      for (int i = 0; i < 50; i++) {
        randomFree(&s, &r, 0.25, 0.0, 0.3);
        collideBoth(&s, 1e-9, "pairs random", &st);
      }
    }
  }
  printf("pairs: %d poses, %d differ, %d contacts\n", st.ncases, st.ncasefail, st.ncompared);
  cr_expect_eq(st.ncasefail, 0);
  freeScene(&s);
}


// kinematic trees: parent-child filter, welded bodies, filterparent flag
static const char* g_tree =
  "<mujoco><worldbody><geom type='plane' size='5 5 .1'/>"
  "<body pos='0 0 0.5'><joint type='hinge' axis='0 1 0'/><geom type='capsule' size='0.05 0.2'"
  " fromto='0 0 0 0.3 0 0'/>"
  "<body pos='0.3 0 0'><joint type='hinge' axis='0 1 0'/>"
  "<geom type='capsule' fromto='0.02 0 0 0.3 0 0' size='0.05'/>"
  "<body pos='0.3 0 0'><geom type='sphere' size='0.08'/>"
  "<body pos='0.05 0 0'><joint type='ball'/><geom type='capsule' fromto='0 0 0 0 0 -0.3'"
  " size='0.04'/></body></body></body></body>"
  "<body pos='0.2 0.1 0.3'><freejoint/><geom type='sphere' size='0.1'/></body>"
  "</worldbody></mujoco>";


Test(scenes, tree_filters) {
  Scene s = loadScene(g_tree);
  OrcStats st = {0};
  OrcRng r = {99};
  for (int fp = 0; fp < 2; fp++) {
    s.mm->opt.disableflags = fp ? mjDSBL_FILTERPARENT : 0;
    s.m->opt.disableflags = fp ? mcDSBL_FILTERPARENT : 0;
    for (int i = 0; i < 100; i++) {
      for (int k = 0; k < s.mm->nq; k++) {
        s.md->qpos[k] = orc_uniform(&r, -2, 2);
      }
      mj_normalizeQuat(s.mm, s.md->qpos);
      collideBoth(&s, 1e-9, "tree", &st);
    }
  }
  printf("tree: %d poses, %d differ, %d contacts\n", st.ncases, st.ncasefail, st.ncompared);
  cr_expect_eq(st.ncasefail, 0);
  freeScene(&s);
}


// scenes with boxes, ellipsoids and cylinders: box-box, capsule-box and the MPR normals do not
// match MuJoCo 2.2.2 everywhere yet; the test reports the agreement
static const char* g_boxes =
  "<mujoco><worldbody><geom type='plane' size='5 5 .1'/>"
  "<body><freejoint/><geom type='box' size='0.1 0.1 0.1'/></body>"
  "<body><freejoint/><geom type='box' size='0.2 0.05 0.1'/></body>"
  "<body><freejoint/><geom type='sphere' size='0.1'/></body>"
  "<body><freejoint/><geom type='capsule' size='0.05 0.15'/></body>"
  "<body><freejoint/><geom type='ellipsoid' size='0.1 0.08 0.05'/></body>"
  "<body><freejoint/><geom type='cylinder' size='0.1 0.05'/></body>"
  "</worldbody></mujoco>";


Test(scenes, boxes_report) {
  Scene s = loadScene(g_boxes);
  OrcStats st = {0};
  OrcRng r = {4242};
  for (int i = 0; i < 300; i++) {
    randomFree(&s, &r, 0.25, 0.0, 0.3);
    collideBoth(&s, 1e-9, "boxes", &st);
  }
  printf("boxes: %d poses, %d differ (box-box, capsule-box, MPR), %d contacts\n", st.ncases,
         st.ncasefail, st.ncompared);
  freeScene(&s);
}


// MuJoCo's stock model files
Test(scenes, stock_models) {
  const char* files[] = {"/usr/share/mujoco/model/humanoid/humanoid.xml",
                         "/usr/share/mujoco/model/humanoid/22_humanoids.xml"};
  for (int f = 0; f < 2; f++) {
    char err[1000];
    mjModel* mm = mj_loadXML(files[f], NULL, err, sizeof(err));
    if (!mm) {
      printf("skip %s: %s\n", files[f], err);
      continue;
    }
    Scene s = {mm, mj_makeData(mm), orc_convert(mm), NULL};
    s.d = mc_makeData(s.m);
    OrcStats st = {0};
    for (int step = 0; step < 300; step++) {
      mj_step(s.mm, s.md);
      if (step % 10 == 0) {
        collideBoth(&s, 1e-9, files[f], &st);
      }
    }
    printf("%s: %d states, %d differ, %d contacts\n", files[f], st.ncases, st.ncasefail,
           st.ncompared);
    cr_expect_eq(st.ncasefail, 0);
    freeScene(&s);
  }
}


//---------------------------------- filters, one rule each ----------------------------------------

// two overlapping spheres, given extra attributes
static int twoSpheres(const char* attr1, const char* attr2, const char* extra, int* mjcon) {
  char xml[2048];
  snprintf(xml, sizeof(xml),
           "<mujoco>%s<worldbody>"
           "<body name='a'><freejoint/><geom name='a' type='sphere' size='0.1' %s/></body>"
           "<body name='b' pos='0.15 0 0'><freejoint/><geom name='b' type='sphere' size='0.1' %s/>"
           "</body></worldbody></mujoco>", extra, attr1, attr2);
  Scene s = loadScene(xml);
  mj_forward(s.mm, s.md);
  orc_copyPoses(s.mm, s.md, s.m, s.d);
  mc_collision(s.m, s.d);
  int n = s.d->ncon;
  *mjcon = s.md->ncon;
  freeScene(&s);
  return n;
}


Test(filters, contype_conaffinity) {
  int mj;
  cr_expect_eq(twoSpheres("contype='1' conaffinity='0'", "contype='1' conaffinity='0'", "", &mj),
               0);
  cr_expect_eq(mj, 0);
  cr_expect_eq(twoSpheres("contype='2' conaffinity='0'", "contype='0' conaffinity='2'", "", &mj),
               1);
  cr_expect_eq(mj, 1);
}


Test(filters, exclude_and_pair) {
  int mj;
  const char* ex = "<contact><exclude body1='a' body2='b'/></contact>";
  cr_expect_eq(twoSpheres("", "", ex, &mj), 0);
  cr_expect_eq(mj, 0);

  // an explicit pair bypasses contype/conaffinity and excludes
  const char* pr = "<contact><exclude body1='b' body2='a'/><pair geom1='a' geom2='b'/></contact>";
  cr_expect_eq(twoSpheres("contype='0' conaffinity='0'", "contype='0'", pr, &mj), 1);
  cr_expect_eq(mj, 1);

  // collision="dynamic" ignores pairs; "predefined" ignores everything else
  const char* dyn = "<option collision='dynamic'/><contact><pair geom1='a' geom2='b'/></contact>";
  cr_expect_eq(twoSpheres("contype='0' conaffinity='0'", "", dyn, &mj), 0);
  const char* pre = "<option collision='predefined'/>";
  cr_expect_eq(twoSpheres("", "", pre, &mj), 0);
  cr_expect_eq(mj, 0);
  const char* off = "<option><flag contact='disable'/></option>";
  cr_expect_eq(twoSpheres("", "", off, &mj), 0);
}


Test(filters, same_body_weld_parent) {
  const char* xml =
    "<mujoco><worldbody><geom name='w' type='sphere' size='0.1'/>"
    "<body name='p'><joint type='hinge'/><geom type='sphere' size='0.1' pos='0.1 0 0'/>"
    "<geom type='sphere' size='0.1' pos='0.15 0 0'/>"
    "<body name='weld' pos='0.1 0 0'><geom type='sphere' size='0.1'/>"
    "<body name='c' pos='0.05 0 0'><joint type='hinge'/><geom type='sphere' size='0.1'/>"
    "</body></body></body></worldbody></mujoco>";
  Scene s = loadScene(xml);
  OrcStats st = {0};
  for (int fp = 0; fp < 2; fp++) {
    s.mm->opt.disableflags = fp ? mjDSBL_FILTERPARENT : 0;
    s.m->opt.disableflags = fp ? mcDSBL_FILTERPARENT : 0;
    cr_expect(collideBoth(&s, 1e-9, "weld", &st));

    // body 'p' (geoms 1, 2) and its welded child (geom 3) never collide with each other; the
    // world (geom 0) always collides with 'p'; the jointed child 'c' (geom 4) collides with
    // its parent weld only when filterparent is disabled
    int pc = 0, same = 0, world = 0;
    for (int i = 0; i < s.d->ncon; i++) {
      int g1 = s.d->contact[i].geom1, g2 = s.d->contact[i].geom2;
      if ((g1 >= 1 && g1 <= 3) && (g2 >= 1 && g2 <= 3)) {
        same++;
      }
      if (g1 == 0 && (g2 == 1 || g2 == 2)) {
        world++;
      }
      if ((g1 >= 1 && g1 <= 3) && g2 == 4) {
        pc++;
      }
    }
    cr_expect_eq(same, 0);
    cr_expect_gt(world, 0);
    if (fp) {
      cr_expect_gt(pc, 0);
    } else {
      cr_expect_eq(pc, 0);
    }
  }
  freeScene(&s);
}


Test(filters, bounding_sphere) {
  const char* xml =
    "<mujoco><worldbody><geom type='plane' size='1 1 .1'/>"
    "<body pos='0 0 0.05'><freejoint/><geom type='sphere' size='0.1'/></body>"
    "<body pos='0.15 0 0.05'><freejoint/><geom type='sphere' size='0.1'/></body>"
    "</worldbody></mujoco>";
  Scene s = loadScene(xml);
  mj_forward(s.mm, s.md);
  orc_copyPoses(s.mm, s.md, s.m, s.d);
  mc_collision(s.m, s.d);
  cr_expect_eq(s.d->ncon, 3);

  // shrinking the bounding spheres hides the pairs (plane test and sphere-sphere test)
  s.m->geom_rbound[1] = s.m->geom_rbound[2] = 0.01;
  mc_collision(s.m, s.d);
  cr_expect_eq(s.d->ncon, 0);
  cr_expect_not(mci_boundingFilter(s.m, s.d, 1, 2, 0));
  cr_expect(mci_boundingFilter(s.m, s.d, 1, 2, 0.2));
  freeScene(&s);
}


Test(filters, collide_function_exists) {
  // plane-plane has no function: no contact, not reported
  cr_expect_null(mci_collisionFunc(mcGEOM_PLANE, mcGEOM_PLANE));
  cr_expect_not_null(mci_collisionFunc(mcGEOM_SPHERE, mcGEOM_PLANE));
  cr_expect_not_null(mci_collisionFunc(mcGEOM_BOX, mcGEOM_CAPSULE));
  cr_expect_not_null(mci_collisionFunc(mcGEOM_MESH, mcGEOM_ELLIPSOID));

  // a model with a height field reports the hfield pairs once (no hfield plugin yet)
  mcModel sz;
  memset(&sz, 0, sizeof(sz));
  sz.ngeom = 2;
  sz.nbody = 2;
  mci_defaultOption(&sz.opt);
  mcModel* m = mci_makeModel(&sz);
  m->geom_type[0] = mcGEOM_HFIELD;
  m->geom_type[1] = mcGEOM_SPHERE;
  m->geom_contype[0] = m->geom_contype[1] = 1;
  char msg[512];
  int n = mci_collisionCheck(m, msg, sizeof(msg));
  cr_expect_eq(n, mci_collisionFunc(mcGEOM_HFIELD, mcGEOM_SPHERE) ? 0 : 1, "%s", msg);
  mc_deleteModel(m);
}


//---------------------------------- parameter mixing ----------------------------------------------

Test(mixing, rules) {
  const char* xml =
    "<mujoco><worldbody>"
    "<body><geom type='sphere' size='.1' priority='1' condim='1' friction='.2 .1 .1'"
    " solref='.05 2'/></body>"
    "<body><geom type='sphere' size='.1' condim='6' friction='2 .2 .2' solmix='0'/></body>"
    "<body><geom type='sphere' size='.1' solref='-100 -10' solmix='3' margin='0.1' gap='0.02'/>"
    "</body>"
    "<body><geom type='sphere' size='.1' solref='-200 -5' solmix='0'"
    " solimp='.5 .6 .1 .5 2'/></body>"
    "<body><geom type='sphere' size='.1' solref='.1 3' solmix='2' solimp='.7 .8 .1 .5 2'"
    " friction='0 0 0' margin='0.2' gap='0.01'/></body>"
    "<body><geom type='sphere' size='.1' solref='.2 1' solmix='1' solimp='.6 .7 .2 .4 3'/></body>"
    "</worldbody></mujoco>";
  mjModel* mm = orc_loadMj(xml);
  cr_assert(mm);
  mcModel* m = orc_convert(mm);
  int ng = mm->ngeom;
  for (int g1 = 0; g1 < ng; g1++) {
    for (int g2 = g1 + 1; g2 < ng; g2++) {
      mcContact c;
      mcNum margin, gap;
      mci_contactParam(m, &c, g1, g2, &margin, &gap);

      // expected from the rules, written out
      int p1 = mm->geom_priority[g1], p2 = mm->geom_priority[g2];
      int dim = p1 > p2 ? mm->geom_condim[g1] : p2 > p1 ? mm->geom_condim[g2] :
                fmax(mm->geom_condim[g1], mm->geom_condim[g2]);
      cr_expect_eq(c.dim, dim, "geoms %d %d", g1, g2);
      cr_expect_float_eq(margin, fmax(mm->geom_margin[g1], mm->geom_margin[g2]), 1e-15);
      cr_expect_float_eq(gap, fmax(mm->geom_gap[g1], mm->geom_gap[g2]), 1e-15);
      if (p1 == p2) {
        double s1 = mm->geom_solmix[g1], s2 = mm->geom_solmix[g2];
        double mix = (s1 < mjMINVAL && s2 < mjMINVAL) ? 0.5 : s1 / (s1 + s2);
        for (int k = 0; k < mjNIMP; k++) {
          double e = mix*mm->geom_solimp[5*g1 + k] + (1 - mix)*mm->geom_solimp[5*g2 + k];
          cr_expect_float_eq(c.solimp[k], e, 1e-12, "geoms %d %d solimp %d", g1, g2, k);
        }
        double r1 = mm->geom_solref[2*g1], r2 = mm->geom_solref[2*g2];
        for (int k = 0; k < mjNREF; k++) {
          double a = mm->geom_solref[2*g1 + k], b = mm->geom_solref[2*g2 + k];
          double e = (r1 > 0 && r2 > 0) ? mix*a + (1 - mix)*b : fmin(a, b);
          cr_expect_float_eq(c.solref[k], e, 1e-12, "geoms %d %d solref %d", g1, g2, k);
        }
        cr_expect_float_eq(c.friction[0], fmax(mm->geom_friction[3*g1], mm->geom_friction[3*g2]),
                           1e-15);
        cr_expect_float_eq(c.friction[3], c.friction[4], 1e-15);
      }
    }
  }
  mc_deleteModel(m);
  mj_deleteModel(mm);
}


Test(mixing, frame_orthonormal) {
  OrcRng r = {5};
  for (int i = 0; i < 100; i++) {
    mcNum f[9] = {orc_uniform(&r, -1, 1), orc_uniform(&r, -1, 1), orc_uniform(&r, -1, 1)};
    mci_makeFrame(f);
    for (int a = 0; a < 3; a++) {
      for (int b = 0; b < 3; b++) {
        double dp = f[3*a]*f[3*b] + f[3*a + 1]*f[3*b + 1] + f[3*a + 2]*f[3*b + 2];
        cr_expect_float_eq(dp, a == b ? 1.0 : 0.0, 1e-12);
      }
    }
  }
}


Test(driver, contact_full) {
  // many overlapping spheres, room for a few contacts only
  char xml[8192];
  int len = snprintf(xml, sizeof(xml), "<mujoco><size nconmax='5'/><worldbody>");
  for (int i = 0; i < 10; i++) {
    len += snprintf(xml + len, sizeof(xml) - (size_t)len,
                    "<body pos='%g 0 0'><freejoint/><geom type='sphere' size='0.1'/></body>",
                    0.15*i);
  }
  snprintf(xml + len, sizeof(xml) - (size_t)len, "</worldbody></mujoco>");
  Scene s = loadScene(xml);
  mj_forward(s.mm, s.md);
  orc_copyPoses(s.mm, s.md, s.m, s.d);
  mc_collision(s.m, s.d);
  cr_expect_eq(s.d->ncon, 5);
  cr_expect_gt(s.d->warning[mcWARN_CONTACTFULL].number, 0);
  cr_expect_leq((size_t)s.d->ncon * sizeof(mcContact), s.d->parena);
  cr_expect_eq((void*)s.d->contact, s.d->arena);

  // the same without the limit: all 9 neighbour contacts
  s.m->nconmax = -1;
  mc_collision(s.m, s.d);
  cr_expect_eq(s.d->ncon, 9);
  freeScene(&s);
}
