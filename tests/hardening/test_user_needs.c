// tests/hardening: regression tests for the edge cases users report against MuJoCo-style engines
// (/work/shared/USER-NEEDS.md sections 1 and 3; the audit is docs/user-needs.md). Every test
// compares against MuJoCo 2.2.2 (linked into this test), MuJoCo 3.14 (@mujoco/mujoco under node,
// for <replicate> and mesh inertia), or an analytic expectation.
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#include "common.h"
#include "testutil.h"

//---------------------------------- helpers -------------------------------------------------------

// write xml to a temporary file; path receives its name
static void writeTemp(const char* xml, char* path, int path_sz) {
  snprintf(path, (size_t)path_sz, "/tmp/moduco-needs-XXXXXX.xml");
  int fd = mkstemps(path, 4);
  cr_assert(fd >= 0, "cannot create %s", path);
  size_t len = strlen(xml);
  cr_assert(write(fd, xml, len) == (ssize_t)len);
  close(fd);
}

// load the same MJCF text in MuJoCo 2.2.2; NULL (and err) if it does not compile
static mjModel* mjLoad(const char* xml, char* err, int err_sz) {
  char path[256];
  writeTemp(xml, path, sizeof(path));
  mjModel* m = mj_loadXML(path, NULL, err, err_sz);
  unlink(path);
  return m;
}

// load in Moduco; NULL (and err) if it does not compile
static mcModel* mcLoad(const char* xml, char* err, int err_sz) {
  err[0] = 0;
  return mc_loadXMLString(xml, NULL, err, err_sz);
}

// the same MJCF text in Moduco (returned) and MuJoCo 2.2.2 (*mm); both must compile
static mcModel* loadBoth(const char* xml, mjModel** mm) {
  char err[1024];
  mcModel* m = mcLoad(xml, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  tu_legacy222(m);  // MuJoCo 2.2.2's rules where Moduco follows 3.x (testutil.h)
  *mm = mjLoad(xml, err, sizeof(err));
  cr_assert_not_null(*mm, "%s", err);
  tu_legacyCollision(m);
  return m;
}

// largest |a - b| over n entries
static double maxDiff(const double* a, const double* b, int n) {
  double w = 0;
  for (int i = 0; i < n; i++) {
    w = fmax(w, fabs(a[i] - b[i]));
  }
  return w;
}

// largest |x|
static double maxAbs(const double* x, int n) {
  double w = 0;
  for (int i = 0; i < n; i++) {
    w = fmax(w, fabs(x[i]));
  }
  return w;
}

// run both engines nstep steps from the model's initial state (optionally with qvel0 set) and
// return the largest qpos difference seen
static double trajectoryGap(const mcModel* m, const mjModel* mm, int nstep, const double* qvel0) {
  mcData* d = mc_makeData(m);
  mjData* md = mj_makeData(mm);
  cr_assert(d && md);
  cr_assert_eq(m->nq, mm->nq);
  if (qvel0) {
    memcpy(d->qvel, qvel0, sizeof(double) * (size_t)m->nv);
    memcpy(md->qvel, qvel0, sizeof(double) * (size_t)m->nv);
  }
  double gap = 0;
  for (int k = 0; k < nstep; k++) {
    mc_step(m, d);
    mj_step(mm, md);
    gap = fmax(gap, maxDiff(d->qpos, md->qpos, m->nq));
    cr_assert(!hardHasNonFinite(m, d), "non-finite state at step %d", k);
  }
  mc_deleteData(d);
  mj_deleteData(md);
  return gap;
}

// trajectoryGap of the MJCF text xml loaded in both engines (loadBoth); Moduco's model in *m
// (caller deletes)
static double trajectoryGapOf(const char* xml, int nstep, const double* qvel0, mcModel** m) {
  mjModel* mm;
  *m = loadBoth(xml, &mm);
  double gap = trajectoryGap(*m, mm, nstep, qvel0);
  mj_deleteModel(mm);
  return gap;
}

// total warnings counted
static int warnings(const mcData* d) {
  int n = 0;
  for (int i = 0; i < mcNWARNING; i++) {
    n += d->warning[i].number;
  }
  return n;
}

//---------------------------------- <replicate> (MJ#2365, MJ#3071) -------------------------------

static const char* const rep_xml =
  "<mujoco>\n"
  "  <worldbody>\n"
  "    <body name='base' pos='0 0 1'>\n"
  "      <joint name='root' type='slide' axis='1 0 0'/>\n"
  "      <geom name='bg' size='.1'/>\n"
  "      <replicate count='3' sep='_' offset='0.5 0 0'>\n"
  "        <replicate count='2' offset='0 0.25 0'>\n"
  "          <body name='leg' pos='0 0 -0.5'>\n"
  "            <joint name='hip' axis='0 1 0'/>\n"
  "            <geom name='shin' type='capsule' fromto='0 0 0 0 0 -0.5' size='.05'/>\n"
  "            <site name='foot' pos='0 0 -0.5'/>\n"
  "          </body>\n"
  "        </replicate>\n"
  "      </replicate>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "  <actuator><motor name='m' joint='hip1_2'/></actuator>\n"
  "  <sensor><jointpos joint='hip0_0'/></sensor>\n"
  "  <keyframe><key qpos='%s'/></keyframe>\n"
  "</mujoco>\n";

// the same model written out by hand: inner suffix first, outer index major
static const char* const rep_hand_xml =
  "<mujoco>\n"
  "  <worldbody>\n"
  "    <body name='base' pos='0 0 1'>\n"
  "      <joint name='root' type='slide' axis='1 0 0'/>\n"
  "      <geom name='bg' size='.1'/>\n"
  "%s"
  "    </body>\n"
  "  </worldbody>\n"
  "  <actuator><motor name='m' joint='hip1_2'/></actuator>\n"
  "  <sensor><jointpos joint='hip0_0'/></sensor>\n"
  "  <keyframe><key qpos='1 2 3 4 5 6 7'/></keyframe>\n"
  "</mujoco>\n";

static char* handExpanded(void) {
  static char legs[4096], xml[8192];
  legs[0] = 0;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 2; j++) {
      char one[512];
      snprintf(one, sizeof(one),
               "      <body name='leg%d_%d' pos='%g %g -0.5'>\n"
               "        <joint name='hip%d_%d' axis='0 1 0'/>\n"
               "        <geom name='shin%d_%d' type='capsule' fromto='0 0 0 0 0 -0.5' "
               "size='.05'/>\n"
               "        <site name='foot%d_%d' pos='0 0 -0.5'/>\n"
               "      </body>\n",
               j, i, 0.5 * i, 0.25 * j, j, i, j, i, j, i);
      strcat(legs, one);
    }
  }
  snprintf(xml, sizeof(xml), rep_hand_xml, legs);
  return xml;
}

// compare every size and array of two models (X-macros of mcmodel.h); tol 0: bitwise
static void compareModels(const mcModel* a, const mcModel* b, double tol) {
#define X(name) cr_assert_eq(a->name, b->name, "size %s: %d vs %d", #name, a->name, b->name);
  MC_MODEL_SIZES(X)
#undef X
  int narray = 0;
#define X(name)                                                                                    \
  int name = a->name;                                                                              \
  (void)name;
  MC_MODEL_SIZES(X)
#undef X
#define X(type, name, nr, nc)                                                                      \
  {                                                                                                \
    size_t n = (size_t)(nr) * (size_t)(nc);                                                        \
    narray++;                                                                                      \
    if (tol == 0 || sizeof(type) != sizeof(mcNum)) {                                               \
      cr_assert(!n || !memcmp(a->name, b->name, n * sizeof(type)), "array %s differs", #name);    \
    } else {                                                                                       \
      for (size_t i = 0; i < n; i++) {                                                             \
        double x = (double)((const mcNum*)a->name)[i], y = (double)((const mcNum*)b->name)[i];     \
        cr_assert(fabs(x - y) <= tol, "%s[%zu]: %.17g vs %.17g", #name, i, x, y);                  \
      }                                                                                            \
    }                                                                                              \
  }
  MC_MODEL_POINTERS(X)
#undef X
  cr_assert(narray > 100);
}

Test(replicate, equals_hand_expanded_model) {
  char xml[8192], err[1024];
  snprintf(xml, sizeof(xml), rep_xml, "1 2 3 4 5 6 7");
  mcModel* r = mcLoad(xml, err, sizeof(err));
  cr_assert_not_null(r, "%s", err);
  mcModel* h = mcLoad(handExpanded(), err, sizeof(err));
  cr_assert_not_null(h, "%s", err);
  compareModels(r, h, 0);

  // names as MuJoCo forms them (inner suffix, then outer), references resolve to them
  cr_assert_eq(r->nbody, 8);
  cr_assert_str_eq(mc_id2name(r, mcOBJ_BODY, 2), "leg0_0");
  cr_assert_str_eq(mc_id2name(r, mcOBJ_BODY, 3), "leg1_0");
  cr_assert_str_eq(mc_id2name(r, mcOBJ_BODY, 7), "leg1_2");
  cr_assert_eq(r->actuator_trnid[0], mc_name2id(r, mcOBJ_JOINT, "hip1_2"));
  cr_assert_eq(r->sensor_objid[0], mc_name2id(r, mcOBJ_JOINT, "hip0_0"));
  mc_deleteModel(r);
  mc_deleteModel(h);
}

Test(replicate, rotated_replicas_compose_poses) {
  // replica i is the i-fold composition of (offset, euler): body pos = sum_k R(30k) (1,0,0) +
  // R(30i) (0,1,0), body quat = rotation of 30i degrees about z
  const char* xml =
    "<mujoco><worldbody>"
    "<replicate count='5' sep='-' offset='1 0 0' euler='0 0 30'>"
    "  <body name='b' pos='0 1 0'><joint type='hinge'/><geom size='.1'/></body>"
    "</replicate></worldbody></mujoco>";
  char err[1024];
  mcModel* m = mcLoad(xml, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(m->nbody, 6);
  for (int i = 0; i < 5; i++) {
    double px = 0, py = 0;
    for (int k = 0; k < i; k++) {
      px += cos(k * M_PI / 6);
      py += sin(k * M_PI / 6);
    }
    double a = i * M_PI / 6;
    px += -sin(a);
    py += cos(a);
    const double* p = m->body_pos + 3 * (i + 1);
    const double* q = m->body_quat + 4 * (i + 1);
    cr_expect(fabs(p[0] - px) < 1e-12 && fabs(p[1] - py) < 1e-12 && fabs(p[2]) < 1e-12,
              "replica %d pos %g %g %g, expected %g %g 0", i, p[0], p[1], p[2], px, py);
    cr_expect(fabs(q[0] - cos(a / 2)) < 1e-12 && fabs(q[3] - sin(a / 2)) < 1e-12,
              "replica %d quat", i);
    char name[16];
    snprintf(name, sizeof(name), "b-%d", i);
    cr_expect_eq(mc_name2id(m, mcOBJ_BODY, name), i + 1, "%s", name);
  }
  mc_deleteModel(m);
}

Test(replicate, names_and_poses_match_mujoco_3_3_8) {
  TU_MJS314_REQUIRE();
  const char* xml =
    "<mujoco><compiler eulerseq='zyx'/><worldbody>\n"
    "<body name='base' pos='0 0 1'>\n"
    "<replicate count='2' sep='A' offset='0.1 0.2 0.3' euler='10 20 30'>\n"
    "  <replicate count='2' sep='B' offset='1 0 0' euler='0 90 0'>\n"
    "    <body name='b' pos='0 1 0' euler='5 6 7'>\n"
    "      <joint name='j' type='slide' axis='0 0 1'/><geom name='g' size='.1'/>\n"
    "      <body><geom size='.1' pos='1 0 0'/><joint type='hinge'/><site name='s'/></body>\n"
    "    </body>\n"
    "  </replicate>\n"
    "</replicate>\n"
    "<replicate count='11' offset='0 0 1'><geom name='w' size='.1' pos='0 0 0.5'/></replicate>\n"
    "</body></worldbody></mujoco>\n";
  char path[256], err[1024];
  writeTemp(xml, path, sizeof(path));
  const char* args[] = {path, NULL};
  int status;
  char* text = tu_mjs3Run("tests/hardening/mjs3_model.mjs", args, &status, err, sizeof(err));
  unlink(path);
  cr_assert_not_null(text, "%s", err);
  mcModel* m = mcLoad(xml, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);

  int nbody = 0, ngeom = 0, njnt = 0, nsite = 0, nsize = 0;
  char* save = NULL;
  for (char* line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char kind[16], name[128];
    double v[7];
    int id;
    cr_assert(strncmp(line, "error", 5), "MuJoCo 3.14 rejected the model: %s", line);
    if (sscanf(line, "size %d %d", &id, &nsize) == 2) {
      cr_assert_eq(id, m->nq, "nq %d vs %d", m->nq, id);
      cr_assert_eq(nsize, m->nbody);
      continue;
    }
    int n = sscanf(line, "%15s %127s %d %lf %lf %lf %lf %lf %lf %lf", kind, name, &id, v, v + 1,
                   v + 2, v + 3, v + 4, v + 5, v + 6);
    const char* mine = NULL;
    if (!strcmp(kind, "body") && n == 10) {
      int b = nbody++;
      mine = mc_id2name(m, mcOBJ_BODY, b);
      cr_assert_eq(m->body_parentid[b], id, "body %d parent", b);
      cr_assert(maxDiff(m->body_pos + 3 * b, v, 3) < 1e-12, "body %s pos", name);
      cr_assert(maxDiff(m->body_quat + 4 * b, v + 3, 4) < 1e-12, "body %s quat", name);
    } else if (!strcmp(kind, "geom") && n == 6) {
      int g = ngeom++;
      mine = mc_id2name(m, mcOBJ_GEOM, g);
      cr_assert_eq(m->geom_bodyid[g], id, "geom %s body", name);
      cr_assert(maxDiff(m->geom_pos + 3 * g, v, 3) < 1e-12, "geom %s pos", name);
    } else if (!strcmp(kind, "jnt") && n == 3) {
      int j = njnt++;
      mine = mc_id2name(m, mcOBJ_JOINT, j);
      cr_assert_eq(m->jnt_bodyid[j], id);
    } else if (!strcmp(kind, "site") && n == 3) {
      int s = nsite++;
      mine = mc_id2name(m, mcOBJ_SITE, s);
      cr_assert_eq(m->site_bodyid[s], id);
    } else {
      cr_assert_fail("unexpected line from node: %s", line);
    }
    cr_assert_str_eq(mine ? mine : "-", name, "%s name", kind);
  }
  free(text);
  cr_assert_eq(status, 0, "node failed");
  cr_assert(nsize > 0, "no output from MuJoCo 3.14");
  cr_assert_eq(nbody, m->nbody);
  cr_assert_eq(ngeom, m->ngeom);
  cr_assert_eq(njnt, m->njnt);
  cr_assert_eq(nsite, m->nsite);
  mc_deleteModel(m);
}

Test(replicate, keyframe_must_match_replicated_model) {
  // MJ#2365: a keyframe sized for one replica (nq 1+1) is an error naming its line (8 in the
  // <keyframe> line of rep_xml: the 19th line)
  char xml[8192], err[1024];
  snprintf(xml, sizeof(xml), rep_xml, "1 2");
  cr_assert_null(mcLoad(xml, err, sizeof(err)));
  cr_assert(strstr(err, ":19:") && strstr(err, "qpos") && strstr(err, "expected 7"), "%s", err);

  // the right size loads and restores exactly
  snprintf(xml, sizeof(xml), rep_xml, "1 2 3 4 5 6 7");
  mcModel* m = mcLoad(xml, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  mcData* d = mc_makeData(m);
  cr_assert_eq(mc_resetDataKeyframe(m, d, 0), 0);
  for (int i = 0; i < 7; i++) {
    cr_assert_eq(d->qpos[i], i + 1.0);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}

#define SEP10 "abcdefghij"
#define SEP100 SEP10 SEP10 SEP10 SEP10 SEP10 SEP10 SEP10 SEP10 SEP10 SEP10
#define SEP300 SEP100 SEP100 SEP100

Test(replicate, errors_name_file_and_line) {
  static const struct {
    const char* inner;
    const char* needle;
  } cases[] = {
    {"<replicate count='0'><geom size='1'/></replicate>", "count"},
    {"<replicate><geom size='1'/></replicate>", "count"},
    {"<replicate count='2' scale='1'><geom size='1'/></replicate>", "scale"},
    {"<replicate count='2' offset='1 2'><geom size='1'/></replicate>", "offset"},
    {"<replicate count='2'><geom name='g' size='1'/></replicate><geom name='g1' size='1'/>",
     "g1"},
    {"<replicate count='1000'><replicate count='1000'><replicate count='1000'>"
     "<geom size='1'/></replicate></replicate></replicate>", "more than"},
    {"<replicate count='abc'><geom size='1'/></replicate>", "malformed integer"},
    {"<replicate count='-5'><geom size='1'/></replicate>", "count"},
    {"<replicate count='2' euler='1 2'><geom size='1'/></replicate>", "euler"},
    {"<replicate count='2' sep='" SEP300 "'><geom size='1'/></replicate>", "separator"},
    {"<replicate count='2'><joint/></replicate>", "worldbody"},
  };
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
    char xml[2048], err[1024];
    snprintf(xml, sizeof(xml), "<mujoco>\n<worldbody>\n%s\n</worldbody>\n</mujoco>",
             cases[k].inner);
    mcModel* m = mcLoad(xml, err, sizeof(err));
    cr_assert_null(m, "case %zu loaded", k);
    cr_expect(strstr(err, ":3:") && strstr(err, cases[k].needle), "case %zu: %s", k, err);
  }

  // MJ#3071 ("Element 'replicate', line 0"): an error inside a replica names the element's own
  // line
  char err[1024];
  cr_assert_null(mcLoad("<mujoco>\n<worldbody>\n<replicate count='2'>\n<body>\n"
                        "<geom size='0.1' typo='1'/>\n</body>\n</replicate>\n</worldbody>\n"
                        "</mujoco>", err, sizeof(err)));
  cr_assert(strstr(err, ":5:") && strstr(err, "typo"), "%s", err);

  // an empty replicate is nothing
  mcModel* m = mcLoad("<mujoco><worldbody><replicate count='3'/><body><replicate count='2'/>"
                      "<geom size='1'/></body></worldbody></mujoco>", err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(m->nbody, 2);
  cr_assert_eq(m->ngeom, 1);
  mc_deleteModel(m);
}

//---------------------------------- warnings as errors (NEWTON#3702, MPY#736, MJ#168) ------------

static int g_nerror = 0;
static char g_error[512];

static void onError(void* user, const char* message) {
  (void)user;
  g_nerror++;
  snprintf(g_error, sizeof(g_error), "%s", message);
}

// a pile of spheres that needs more contacts than a tiny arena holds
static const char* const pile_xml =
  "<mujoco><size %s/><worldbody><geom type='plane' size='5 5 .1'/>%s</worldbody>"
  "</mujoco>";

static mcModel* pileModel(const char* size) {
  static char bodies[16384], xml[20000];
  bodies[0] = 0;
  for (int i = 0; i < 60; i++) {
    char one[256];
    snprintf(one, sizeof(one), "<body pos='%g %g %g'><freejoint/><geom size='.1'/></body>",
             0.15 * (i % 4), 0.15 * ((i / 4) % 4), 0.1 + 0.15 * (i / 16));
    strcat(bodies, one);
  }
  snprintf(xml, sizeof(xml), pile_xml, size, bodies);
  return hardLoadString(xml);
}

Test(warnings, contact_overflow_counted_by_default_error_when_escalated) {
  mcModel* m = pileModel("nconmax='10'");
  mcData* d = mc_makeData(m);
  cr_assert_not_null(d);
  g_nerror = 0;
  mc_setErrorHandler(onError, NULL);
  hardCaptureBegin();

  // default: counted, the simulation goes on
  mc_step(m, d);
  cr_assert_gt(d->warning[mcWARN_CONTACTFULL].number, 0, "the arena should overflow");
  cr_assert_eq(mc_warningError(d), -1);
  cr_assert_eq(g_nerror, 0);
  cr_assert_gt(d->time, 0);

  // escalated: the error handler is called once, mc_step stops advancing
  mc_resetData(m, d);
  cr_assert_eq(mc_setWarningPolicy(d, 1u << mcWARN_CONTACTFULL), 0u);
  mc_step(m, d);
  cr_assert_eq(mc_warningError(d), mcWARN_CONTACTFULL);
  cr_assert_eq(g_nerror, 1);
  cr_assert(strstr(g_error, "ERROR") && strstr(g_error, "contacts"), "%s", g_error);
  double q[3] = {d->qpos[0], d->qpos[1], d->qpos[2]};
  cr_assert_eq(d->time, 0);
  mc_step(m, d);
  mc_step(m, d);
  cr_assert_eq(d->time, 0, "mc_step advanced with an error pending");
  cr_assert(!memcmp(q, d->qpos, sizeof(q)));
  cr_assert_eq(g_nerror, 1, "one call per pending error");

  // clear: stepping resumes (and stops again at the next overflow)
  mc_clearWarningError(d);
  cr_assert_eq(mc_warningError(d), -1);
  mc_step(m, d);
  cr_assert_eq(g_nerror, 2);

  // reset clears the error and keeps the policy; copyData copies both
  mc_resetData(m, d);
  cr_assert_eq(mc_warningError(d), -1);
  cr_assert_eq(d->warning_policy, 1u << mcWARN_CONTACTFULL);
  mcData* d2 = mc_copyData(NULL, m, d);
  cr_assert_eq(d2->warning_policy, d->warning_policy);
  mc_deleteData(d2);

  // a large enough arena never triggers it
  mcModel* big = pileModel("memory='16M'");
  mcData* db = mc_makeData(big);
  mc_setWarningPolicy(db, mcWARNING_ALL);
  for (int k = 0; k < 50; k++) {
    mc_step(big, db);
  }
  cr_assert_eq(mc_warningError(db), -1);
  cr_assert_gt(db->ncon, 0);
  cr_assert(fabs(db->time - 50 * big->opt.timestep) < 1e-12);
  hardCaptureEnd();
  mc_setErrorHandler(NULL, NULL);
  mc_deleteData(db);
  mc_deleteModel(big);
  mc_deleteData(d);
  mc_deleteModel(m);
}

Test(warnings, bad_qacc_escalated_keeps_state_instead_of_autoreset) {
  mcModel* m = hardLoadString(
    "<mujoco><worldbody><body><joint name='a' axis='0 1 0'/>"
    "<geom type='capsule' fromto='0 0 0 0 0 -1' size='.05'/></body></worldbody></mujoco>");
  mcData* d = mc_makeData(m);
  hardCaptureBegin();
  g_nerror = 0;
  mc_setErrorHandler(onError, NULL);

  // default: auto-reset (MuJoCo's behaviour, MJ#168)
  d->qpos[0] = 0.5;
  for (int k = 0; k < 10; k++) {
    mc_step(m, d);
  }
  d->qfrc_applied[0] = NAN;
  mc_step(m, d);
  cr_assert_eq(d->warning[mcWARN_BADQACC].number, 1);
  cr_assert_eq(d->time, m->opt.timestep, "autoreset then one step");
  cr_assert_eq(g_nerror, 0);

  // escalated: no reset, the state of the failing step is kept, the caller sees the error
  mc_resetData(m, d);
  mc_setWarningPolicy(d, mcWARNING_ALL);
  d->qpos[0] = 0.5;
  for (int k = 0; k < 10; k++) {
    mc_step(m, d);
  }
  double t = d->time, q = d->qpos[0];
  d->qfrc_applied[0] = NAN;
  mc_step(m, d);
  cr_assert_eq(mc_warningError(d), mcWARN_BADQACC);
  cr_assert_eq(d->warning[mcWARN_BADQACC].lastinfo, 0, "the dof");
  cr_assert_eq(d->time, t);
  cr_assert_eq(d->qpos[0], q);
  cr_assert_eq(g_nerror, 1);
  cr_assert(strstr(g_error, "QACC") && strstr(g_error, "DOF 0"), "%s", g_error);

  // the autoreset-disable flag still only counts (no error, no reset)
  mcModel* m2 = hardLoadString(
    "<mujoco><option><flag autoreset='disable'/></option><worldbody><body><joint axis='0 1 0'/>"
    "<geom type='capsule' fromto='0 0 0 0 0 -1' size='.05'/></body></worldbody></mujoco>");
  mcData* d2 = mc_makeData(m2);
  d2->qfrc_applied[0] = NAN;
  mc_step(m2, d2);
  cr_assert_eq(d2->warning[mcWARN_BADQACC].number, 1);
  cr_assert_eq(mc_warningError(d2), -1);
  cr_assert_eq(g_nerror, 1);
  hardCaptureEnd();
  mc_setErrorHandler(NULL, NULL);
  mc_deleteData(d2);
  mc_deleteModel(m2);
  mc_deleteData(d);
  mc_deleteModel(m);
}

// only bad qpos escalated: the bad qacc that follows in the same step (not escalated) must not
// auto-reset the data and so discard the kept state and the pending error
Test(warnings, escalated_bad_qpos_not_undone_by_following_bad_qacc) {
  mcModel* m = hardLoadString(
    "<mujoco><worldbody><body><joint name='a' axis='0 1 0'/>"
    "<geom type='capsule' fromto='0 0 0 0 0 -1' size='.05'/></body></worldbody></mujoco>");
  mcData* d = mc_makeData(m);
  hardCaptureBegin();
  g_nerror = 0;
  mc_setErrorHandler(onError, NULL);
  mc_setWarningPolicy(d, 1u << mcWARN_BADQPOS);
  for (int k = 0; k < 5; k++) {
    mc_step(m, d);
  }
  double t = d->time;
  d->qpos[0] = NAN;
  mc_step(m, d);
  cr_assert_eq(mc_warningError(d), mcWARN_BADQPOS, "the escalated error stays pending");
  cr_assert(isnan(d->qpos[0]), "the bad state is kept for inspection, not reset");
  cr_assert_eq(d->time, t, "no reset and no integration");
  cr_assert_eq(g_nerror, 1);
  hardCaptureEnd();
  mc_setErrorHandler(NULL, NULL);
  mc_deleteData(d);
  mc_deleteModel(m);
}

//---------------------------------- mass and kinematics -------------------------------------------

Test(mass, two_massless_geoms_in_one_body) {
  // MJ#2754: a moving body whose geoms all have mass 0 is refused by both engines, with the line
  const char* moving =
    "<mujoco>\n<worldbody>\n<body>\n<joint/>\n<geom size='.1' mass='0'/>\n"
    "<geom size='.1' pos='1 0 0' mass='0'/>\n</body>\n</worldbody>\n</mujoco>";
  char err[1024];
  cr_assert_null(mjLoad(moving, err, sizeof(err)), "MuJoCo 2.2.2 accepted it");
  cr_assert_null(mcLoad(moving, err, sizeof(err)));
  cr_assert(strstr(err, ":3:") && strstr(err, "mass"), "%s", err);

  // welded to the world the body's mass does not enter the dynamics: MuJoCo 2.2.2 refuses it
  // ("body mass is too small"), Moduco accepts it (what MJ#2754 asks for) with finite, zero
  // mass properties, and the model steps
  const char* fixed =
    "<mujoco>\n<worldbody>\n<body>\n<geom size='.1' mass='0'/>\n"
    "<geom size='.1' pos='1 0 0' mass='0'/>\n</body>\n<body pos='0 0 1'><freejoint/>"
    "<geom size='.1'/></body>\n</worldbody>\n</mujoco>";
  mcModel* mcf = mcLoad(fixed, err, sizeof(err));
  cr_assert_not_null(mcf, "%s", err);
  cr_assert_eq(mcf->body_mass[1], 0);
  for (int i = 0; i < 3; i++) {
    cr_assert(isfinite(mcf->body_ipos[3 + i]) && mcf->body_inertia[3 + i] == 0);
  }
  for (int i = 0; i < 4; i++) {
    cr_assert(isfinite(mcf->body_iquat[4 + i]));
  }
  mcData* df = mc_makeData(mcf);
  for (int k = 0; k < 100; k++) {
    mc_step(mcf, df);
  }
  cr_assert(!hardHasNonFinite(mcf, df) && warnings(df) == 0);
  mc_deleteData(df);
  mc_deleteModel(mcf);

  // a massive sibling geom carries the massless ones: same masses and inertias as MuJoCo
  const char* carried =
    "<mujoco><worldbody><body pos='0 0 1'><joint/><geom size='.1' mass='0'/>"
    "<geom size='.1' pos='1 0 0' mass='0'/><geom size='.1' mass='2'/>"
    "</body></worldbody></mujoco>";
  mjModel* mm;
  mcModel* m = loadBoth(carried, &mm);
  cr_assert(maxDiff(m->body_mass, mm->body_mass, m->nbody) == 0);
  cr_assert(maxDiff(m->body_inertia, mm->body_inertia, 3 * m->nbody) < 1e-15);
  mc_deleteModel(m);
  mj_deleteModel(mm);
}

// MJ#759: tiny pieces of a decomposed mesh ("eigenvalue of mesh inertia too small"). A body of a
// 0.2 m box carries a mesh cube scaled to 2e-3, 2e-5, a 0.2 x 0.2 x 2e-6 sliver and a
// 2e-6 x 2e-6 x 0.2 needle: each loads, the piece adds its own mass and inertia, and the body's
// mass properties equal MuJoCo 3.14's (tests/mesh/inertia_ref.mjs; Moduco's mesh inertia is
// 3.x's, 2.2.2 weighed the sliver's equivalent inertia box); the model steps. A piece of 2e-9
// (no measurable surface) is refused by both engines, with the mesh named. Alone on a moving
// body a tiny piece is refused (mass below mcMINVAL) with a hint, like MuJoCo 2.2.2.
#define CUBE_MESH(SCALE)                                                                          \
  "<mujoco><asset><mesh name='piece' scale='" SCALE "' vertex='-1 -1 -1 1 -1 -1 1 1 -1 -1 1 -1 " \
  "-1 -1 1 1 -1 1 1 1 1 -1 1 1' face='0 2 1 0 3 2 4 5 6 4 6 7 0 1 5 0 5 4 1 2 6 1 6 5 2 3 7 "     \
  "2 7 6 3 0 4 3 4 7'/></asset><worldbody><geom type='plane' size='1 1 1'/>"
// R diag(d) R' of a principal inertia d in the frame q
static void fullInertia(const double q[4], const double d[3], double T[9]) {
  double R[9];
  mju_quat2Mat(R, q);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      T[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) {
        T[3 * i + j] += R[3 * i + k] * d[k] * R[3 * j + k];
      }
    }
  }
}

// the n numbers of field of the reference model k, from index at
static void refNums(const cJSON* out, int k, const char* field, int at, double* v, int n) {
  const cJSON* model = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(out, "models"), k);
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(model, field);
  cr_assert(cJSON_IsArray(a) && cJSON_GetArraySize(a) >= at + n, "model %d: no %s in the "
            "MuJoCo 3.14 reference", k, field);
  for (int i = 0; i < n; i++) {
    v[i] = cJSON_GetArrayItem(a, at + i)->valuedouble;
  }
}

Test(mass, tiny_mesh_pieces, .timeout = 600) {
  static const char* const scales[] = {"1e-3 1e-3 1e-3", "1e-5 1e-5 1e-5", "0.1 0.1 1e-6",
                                       "1e-6 1e-6 0.1"};
  char dir[64] = "/tmp/moduco-needs-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char names[4][16];
  char xml[4][2048];
  const char* args[6] = {dir};
  for (int i = 0; i < 4; i++) {
    snprintf(xml[i], sizeof(xml[i]), CUBE_MESH("%s") "<body pos='0 0 0.3'><freejoint/>"
             "<geom type='box' size='.1 .1 .1'/><geom type='mesh' mesh='piece' pos='.05 0 0'/>"
             "</body></worldbody></mujoco>", scales[i]);
    snprintf(names[i], sizeof(names[i]), "piece%d.xml", i);
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    FILE* f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(xml[i], f);
    fclose(f);
    args[1 + i] = names[i];
  }
  args[5] = NULL;
  TU_MJS314_REQUIRE();
  char err3[1024] = "";
  cJSON* out = tu_mjs3Json("tests/mesh/inertia_ref.mjs", args, NULL, err3, sizeof(err3));
  for (int i = 0; i < 4; i++) {
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
  cr_assert_not_null(out, "MuJoCo 3.14 reference: %s", err3);
  for (int i = 0; i < 4; i++) {
    char err[1024];
    mcModel* m = mcLoad(xml[i], err, sizeof(err));
    cr_assert_not_null(m, "%s: %s", scales[i], err);
    cr_assert(m->body_mass[1] > 8, "%s: the piece adds no mass (%.17g)", scales[i],
              m->body_mass[1]);
    double mass, ipos[3], iquat[4], inertia[3], T1[9], T2[9];
    refNums(out, i, "body_mass", 1, &mass, 1);
    refNums(out, i, "body_ipos", 3, ipos, 3);
    refNums(out, i, "body_iquat", 4, iquat, 4);
    refNums(out, i, "body_inertia", 3, inertia, 3);
    cr_expect(fabs(m->body_mass[1] - mass) < 1e-12 * mass, "%s: mass %.17g, MuJoCo 3.14 %.17g",
              scales[i], m->body_mass[1], mass);
    fullInertia(iquat, inertia, T1);               // the order of principal axes may differ
    fullInertia(m->body_iquat + 4, m->body_inertia + 3, T2);
    cr_expect(maxDiff(T1, T2, 9) < 1e-12 * 0.05, "%s: inertia differs from MuJoCo 3.14 by %g",
              scales[i], maxDiff(T1, T2, 9));
    cr_expect(maxDiff(m->body_ipos + 3, ipos, 3) < 1e-12, "%s: ipos", scales[i]);
    mcData* d = mc_makeData(m);
    for (int k = 0; k < 200; k++) {
      mc_step(m, d);
    }
    cr_expect(!hardHasNonFinite(m, d) && warnings(d) == 0, "%s: the model does not step cleanly",
              scales[i]);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
  cJSON_Delete(out);

  char err[1024];
  const char* vanishing = CUBE_MESH("1e-9 1e-9 1e-9") "<body pos='0 0 0.3'><freejoint/>"
    "<geom type='box' size='.1 .1 .1'/><geom type='mesh' mesh='piece'/></body></worldbody>"
    "</mujoco>";
  cr_assert_null(mjLoad(vanishing, err, sizeof(err)), "MuJoCo 2.2.2 accepted a 2e-9 mesh");
  cr_assert_null(mcLoad(vanishing, err, sizeof(err)), "a 2e-9 mesh was accepted");
  cr_expect(strstr(err, "mesh 'piece'") && strstr(err, "surface area"), "%s", err);

  const char* alone = CUBE_MESH("1e-5 1e-5 1e-5") "<body pos='0 0 0.3'><freejoint/>"
    "<geom type='mesh' mesh='piece'/></body></worldbody></mujoco>";
  cr_assert_null(mjLoad(alone, err, sizeof(err)), "MuJoCo 2.2.2 accepted a lone tiny piece");
  cr_assert_null(mcLoad(alone, err, sizeof(err)), "a lone tiny piece was accepted");
  cr_expect(strstr(err, "mcMINVAL") && strstr(err, "boundmass"), "%s", err);
}
#undef CUBE_MESH


// a two-link pendulum with lengths scaled by s (masses scale as s^3 through density)
static char* scaledPendulum(double s) {
  static char xml[2048];
  snprintf(xml, sizeof(xml),
           "<mujoco><option timestep='%g'/><worldbody><body pos='0 0 %g'>"
           "<joint axis='0 1 0'/><geom type='capsule' fromto='0 0 0 %g 0 0' size='%g'/>"
           "<body pos='%g 0 0'><joint axis='0 1 0'/>"
           "<geom type='capsule' fromto='0 0 0 %g 0 0' size='%g'/></body></body></worldbody>"
           "</mujoco>",
           0.002 * sqrt(s), 2 * s, 0.5 * s, 0.05 * s, 0.5 * s, 0.5 * s, 0.05 * s);
  return xml;
}

Test(mass, model_scaled_down_50_and_100_times) {
  // MJ#1086: scale lengths by 1/50 and 1/100 (masses by 1e-6): both engines load it, the motion
  // is the full-size motion in time scaled by sqrt(s), and Moduco follows MuJoCo 2.2.2
  double full[2] = {0, 0};
  for (int k = 0; k < 3; k++) {
    double s = k == 0 ? 1 : k == 1 ? 0.02 : 0.01;
    char err[1024];
    const char* xml = scaledPendulum(s);
    mjModel* mm = mjLoad(xml, err, sizeof(err));
    cr_assert_not_null(mm, "MuJoCo: %s", err);
    mcModel* m = mcLoad(xml, err, sizeof(err));
    cr_assert_not_null(m, "%s", err);
    double v0[2] = {1 / sqrt(s), -2 / sqrt(s)};
    cr_expect(trajectoryGap(m, mm, 500, v0) < 1e-8, "scale %g differs from MuJoCo", s);
    mcData* d = mc_makeData(m);
    memcpy(d->qvel, v0, sizeof(v0));
    for (int i = 0; i < 500; i++) {
      mc_step(m, d);
    }
    cr_assert_eq(warnings(d), 0);
    if (k == 0) {
      full[0] = d->qpos[0];
      full[1] = d->qpos[1];
    } else {
      cr_expect(fabs(d->qpos[0] - full[0]) < 1e-4 && fabs(d->qpos[1] - full[1]) < 1e-4,
                "scale %g: angles %g %g vs full size %g %g", s, d->qpos[0], d->qpos[1], full[0],
                full[1]);
    }
    mc_deleteData(d);
    mc_deleteModel(m);
    mj_deleteModel(mm);
  }
}

Test(mass, identical_joints_singular_hessian) {
  // MJ#720: two hinges with the same anchor and axis make M singular; with a contact the solver
  // Hessian is rank-deficient too. No NaN in any solver, and the sum of the two angles moves like
  // the single-hinge pendulum (MuJoCo 2.2.2 trajectory of that pendulum)
  const char* two =
    "<mujoco><option solver='%s'/><worldbody><geom type='plane' size='2 2 .1'/>"
    "<body pos='0 0 1'><joint axis='0 1 0'/><joint axis='0 1 0'/>"
    "<geom type='capsule' fromto='0 0 0 0.9 0 0' size='.05'/>"
    "<geom pos='0.9 0 -0.9' size='.1'/></body></worldbody></mujoco>";
  static const char* const solvers[3] = {"Newton", "CG", "PGS"};
  for (int s = 0; s < 3; s++) {
    char xml[1024], err[1024];
    snprintf(xml, sizeof(xml), two, solvers[s]);
    mcModel* m = mcLoad(xml, err, sizeof(err));
    cr_assert_not_null(m, "%s", err);
    mcData* d = mc_makeData(m);
    hardCaptureBegin();
    int contacts = 0;
    for (int k = 0; k < 1000; k++) {
      mc_step(m, d);
      contacts += d->ncon > 0;
      cr_assert(!hardHasNonFinite(m, d), "%s: non-finite at step %d", solvers[s], k);
    }
    hardCaptureEnd();
    cr_assert_gt(contacts, 0, "%s: the ball never touched the floor", solvers[s]);
    // the pendulum swings down onto the floor: the total angle settles between 0 and 90 deg
    double a = d->qpos[0] + d->qpos[1];
    cr_expect(a > 0 && a < M_PI / 2, "%s: total angle %g", solvers[s], a);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}

Test(mass, inertia_triangle_inequality) {
  // MJ#375: diaginertia 1 1 3 violates A + B >= C: an error naming the line and the fix;
  // balanceinertia repairs it exactly as MuJoCo 2.2.2 does
  const char* bad =
    "<mujoco>\n<compiler balanceinertia='%s'/>\n<worldbody>\n<body>\n<joint/>\n"
    "<inertial pos='0 0 0' mass='1' diaginertia='1 1 3'/>\n</body>\n</worldbody>\n</mujoco>";
  char xml[1024], err[1024];
  snprintf(xml, sizeof(xml), bad, "false");
  cr_assert_null(mjLoad(xml, err, sizeof(err)));
  cr_assert_null(mcLoad(xml, err, sizeof(err)));
  cr_assert(strstr(err, ":4:") && strstr(err, "balanceinertia"), "%s", err);
  snprintf(xml, sizeof(xml), bad, "true");
  mjModel* mm;
  mcModel* m = loadBoth(xml, &mm);
  cr_assert(maxDiff(m->body_inertia, mm->body_inertia, 6) < 1e-15, "%g %g %g vs %g %g %g",
            m->body_inertia[3], m->body_inertia[4], m->body_inertia[5], mm->body_inertia[3],
            mm->body_inertia[4], mm->body_inertia[5]);

  // a negative eigenvalue (fullinertia) is an error naming the line in either setting
  const char* neg =
    "<mujoco>\n<worldbody>\n<body>\n<joint/>\n"
    "<inertial pos='0 0 0' mass='1' fullinertia='1 1 1 2 0 0'/>\n</body>\n</worldbody>\n</mujoco>";
  cr_assert_null(mcLoad(neg, err, sizeof(err)));
  cr_assert(strstr(err, ":5:") && strstr(err, "definite"), "%s", err);
  mc_deleteModel(m);
  mj_deleteModel(mm);
}

Test(mass, fusestatic_rotated_child_same_world_poses) {
  // MJ#2982: a static child body rotated relative to its moving parent. MuJoCo 2.2.2 fuses it
  // (fusestatic); Moduco keeps the body. The world-frame geometry, inertia and dynamics agree.
  const char* xml =
    "<mujoco><compiler fusestatic='true'/><worldbody><body pos='0 0 1' euler='10 20 30'>"
    "<joint axis='0 1 0'/><geom type='box' size='.1 .2 .3'/>"
    "<body pos='0.3 0.1 0' euler='0 60 45'><geom type='box' size='.3 .1 .05' pos='0.1 0 0'/>"
    "<site name='s' pos='0.2 0 0'/><body pos='0 0.2 0' euler='90 0 0'><geom type='capsule' "
    "fromto='0 0 0 0.2 0 0' size='.03'/></body></body></body></worldbody></mujoco>";
  mjModel* mm;
  mcModel* m = loadBoth(xml, &mm);
  cr_assert_lt(mm->nbody, m->nbody, "MuJoCo should have fused the static bodies");
  mjData* md = mj_makeData(mm);
  mcData* d = mc_makeData(m);
  md->qpos[0] = d->qpos[0] = 0.7;
  md->qvel[0] = d->qvel[0] = -1.3;
  mj_forward(mm, md);
  mc_forward(m, d);
  cr_assert_eq(m->ngeom, mm->ngeom);
  cr_assert(maxDiff(d->geom_xpos, md->geom_xpos, 3 * m->ngeom) < 1e-12);
  cr_assert(maxDiff(d->geom_xmat, md->geom_xmat, 9 * m->ngeom) < 1e-12);
  cr_assert(maxDiff(d->site_xpos, md->site_xpos, 3) < 1e-12);
  // MuJoCo diagonalises the fused inertia with its iterative eig3 (relative error about 1e-7)
  cr_assert(fabs(d->qM[0] - md->qM[0]) < 1e-6 * fabs(md->qM[0]), "qM %.17g vs %.17g", d->qM[0],
            md->qM[0]);
  cr_assert(fabs(d->qacc[0] - md->qacc[0]) < 1e-6 * fmax(1, fabs(md->qacc[0])), "qacc %g vs %g",
            d->qacc[0], md->qacc[0]);
  mc_deleteData(d);
  mj_deleteData(md);
  mc_deleteModel(m);
  mj_deleteModel(mm);
}

Test(mass, unnormalised_quaternions_mjcf_and_qpos) {
  // strands-labs/robots PR#2692, DRAKE#14800: quat='1 -1 0 0' in MJCF is normalised at compile;
  // a user-set qpos quaternion of any length gives the same kinematics and dynamics as MuJoCo
  const char* xml =
    "<mujoco><worldbody><body pos='0 0 1' quat='1 -1 0 0'><freejoint/>"
    "<geom type='box' size='.1 .2 .3'/><body pos='0 0.4 0' quat='0 0 0 3'><joint type='ball'/>"
    "<geom type='capsule' fromto='0 0 0 0 0.3 0' size='.04'/></body></body></worldbody>"
    "</mujoco>";
  mjModel* mm;
  mcModel* m = loadBoth(xml, &mm);
  cr_assert(maxDiff(m->body_quat, mm->body_quat, 4 * m->nbody) < 1e-15);
  cr_assert(fabs(m->body_quat[4] - sqrt(0.5)) < 1e-15 && fabs(m->body_quat[5] + sqrt(0.5)) < 1e-15);
  mjData* md = mj_makeData(mm);
  mcData* d = mc_makeData(m);
  double q[14] = {0.1, 0.2, 1.3, 2, 0.5, -1, 0.3, 0.2, 0, 0, 0.05, 0, 0, 0};
  memcpy(md->qpos, q, sizeof(double) * 11);
  memcpy(d->qpos, q, sizeof(double) * 11);
  for (int i = 0; i < 6; i++) {
    md->qvel[i] = d->qvel[i] = 0.3 * (i + 1);
  }
  mj_forward(mm, md);
  mc_forward(m, d);
  cr_assert(maxDiff(d->xquat, md->xquat, 4 * m->nbody) < 1e-12);
  cr_assert(maxDiff(d->xpos, md->xpos, 3 * m->nbody) < 1e-12);
  cr_assert(maxDiff(d->qacc, md->qacc, m->nv) < 1e-8 * fmax(1, maxAbs(md->qacc, m->nv)));
  for (int k = 0; k < 100; k++) {
    mc_step(m, d);
    mj_step(mm, md);
  }
  cr_assert(maxDiff(d->qpos, md->qpos, m->nq) < 1e-9, "after 100 steps");
  double n1 = 0, n2 = 0;
  for (int i = 0; i < 4; i++) {
    n1 += d->qpos[3 + i] * d->qpos[3 + i];
    n2 += d->qpos[7 + i] * d->qpos[7 + i];
  }
  cr_assert(fabs(n1 - 1) < 1e-12 && fabs(n2 - 1) < 1e-12, "stepping normalises: %g %g", n1, n2);
  mc_deleteData(d);
  mj_deleteData(md);
  mc_deleteModel(m);
  mj_deleteModel(mm);
}

//---------------------------------- integration and stability -------------------------------------

// angular momentum of the whole model about the world origin (world frame), from cinert and cvel
static void angularMomentum(const mcModel* m, mcData* d, double L[3]) {
  L[0] = L[1] = L[2] = 0;
  for (int b = 1; b < m->nbody; b++) {
    // inertia about the com, world frame: R diag(I) R'
    const double* R = d->ximat + 9 * b;
    const double* I = m->body_inertia + 3 * b;
    const double* w = d->cvel + 6 * b;  // rotational velocity (world)
    double wl[3], Iw[3];
    for (int i = 0; i < 3; i++) {
      wl[i] = R[0 + i] * w[0] + R[3 + i] * w[1] + R[6 + i] * w[2];
    }
    for (int i = 0; i < 3; i++) {
      Iw[i] = R[3 * i] * I[0] * wl[0] + R[3 * i + 1] * I[1] * wl[1] + R[3 * i + 2] * I[2] * wl[2];
    }
    // linear momentum of the com about the origin: m x_com x v_com
    double v[3], c[3];
    for (int i = 0; i < 3; i++) {
      c[i] = d->xipos[3 * b + i] - d->subtree_com[3 * m->body_rootid[b] + i];
      v[i] = w[3 + i];  // the linear part of cvel is taken at the root's subtree com
    }
    // v_com = v_root_com + w x (x_com - root_com)
    double vc[3] = {v[0] + w[1] * c[2] - w[2] * c[1], v[1] + w[2] * c[0] - w[0] * c[2],
                    v[2] + w[0] * c[1] - w[1] * c[0]};
    const double* x = d->xipos + 3 * b;
    double mb = m->body_mass[b];
    L[0] += Iw[0] + mb * (x[1] * vc[2] - x[2] * vc[1]);
    L[1] += Iw[1] + mb * (x[2] * vc[0] - x[0] * vc[2]);
    L[2] += Iw[2] + mb * (x[0] * vc[1] - x[1] * vc[0]);
  }
}

Test(stability, dzhanibekov_free_body_with_fixed_child_implicitfast) {
  // MJ#3553, BRAX#156: a free body whose inertia sits in a welded child, spun about its
  // intermediate axis without gravity. Under implicitfast (and the others) there is no BADQACC,
  // the body flips (the Dzhanibekov effect), and the angular momentum and energy stay put.
  const char* xml =
    "<mujoco><option gravity='0 0 0' timestep='0.002' integrator='%s'/><worldbody>"
    "<body><freejoint/><geom size='.01' mass='1e-3'/>"
    "<body pos='0 0 0'><inertial pos='0.01 0 0' mass='1' diaginertia='1 2 3'/></body>"
    "</body></worldbody></mujoco>";
  static const char* const integrators[] = {"implicitfast", "implicit", "Euler", "RK4"};
  for (int k = 0; k < 4; k++) {
    char text[1024], err[1024];
    snprintf(text, sizeof(text), xml, integrators[k]);
    mcModel* m = mcLoad(text, err, sizeof(err));
    cr_assert_not_null(m, "%s", err);
    mcData* d = mc_makeData(m);
    d->qvel[4] = 5;      // about body y (the intermediate axis)
    d->qvel[3] = 1e-3;   // a small perturbation
    mc_forward(m, d);
    double L0[3], L[3], e0 = mc_totalEnergy(m, d);
    angularMomentum(m, d, L0);
    double n0 = sqrt(L0[0] * L0[0] + L0[1] * L0[1] + L0[2] * L0[2]);
    double ymin = 1, drift = 0;
    hardCaptureBegin();
    for (int i = 0; i < 5000; i++) {
      mc_step(m, d);
      mc_forward(m, d);
      angularMomentum(m, d, L);
      drift = fmax(drift, sqrt((L[0] - L0[0]) * (L[0] - L0[0]) + (L[1] - L0[1]) * (L[1] - L0[1]) +
                               (L[2] - L0[2]) * (L[2] - L0[2])) / n0);
      ymin = fmin(ymin, d->xmat[9 * 1 + 4]);  // body y axis . world y
    }
    hardCaptureEnd();
    cr_assert_eq(warnings(d), 0, "%s: %d warnings", integrators[k], warnings(d));
    cr_assert(!hardHasNonFinite(m, d));
    cr_expect(ymin < -0.5, "%s: no flip (min y.y %g)", integrators[k], ymin);
    cr_expect(drift < 0.05, "%s: angular momentum drift %g", integrators[k], drift);
    double e = mc_totalEnergy(m, d);
    cr_expect(e < e0 * 1.05, "%s: energy grew %g -> %g", integrators[k], e0, e);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}

// largest |x| of the last 50 of nstep steps of a servo-held slider released at x0 = 0.1
static double servoAmplitude(const char* integrator, double y, double zeta, int damping_in_joint) {
  double h = 0.01, mass = 1, w = y / h, kp = w * w * mass, kv = 2 * zeta * w * mass;
  char xml[1024], err[1024];
  snprintf(xml, sizeof(xml),
           "<mujoco><option timestep='%g' gravity='0 0 0' integrator='%s'>"
           "<flag autoreset='disable'/></option><worldbody><body>"
           "<joint name='x' type='slide' axis='1 0 0' damping='%.17g'/>"
           "<inertial pos='0 0 0' mass='%g' diaginertia='1 1 1'/></body></worldbody>"
           "<actuator><position joint='x' kp='%.17g' kv='%.17g'/></actuator></mujoco>",
           h, integrator, damping_in_joint ? kv : 0, mass, kp, damping_in_joint ? 0 : kv);
  mcModel* m = mcLoad(xml, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  mcData* d = mc_makeData(m);
  d->qpos[0] = 0.1;
  double amp = 0;
  for (int k = 0; k < 300; k++) {
    mc_step(m, d);
    if (k >= 250) {
      amp = fmax(amp, fabs(d->qpos[0]));
    }
  }
  mc_deleteData(d);
  mc_deleteModel(m);
  return amp;
}

Test(stability, stiff_position_servo_bound) {
  // MJ#3443: with the damping integrated implicitly and the stiffness explicitly, the servo is
  // stable iff wn h < 2 zeta + 2 sqrt(zeta^2 + 1) (semi-implicit Euler, characteristic
  // polynomial). implicitfast treats the actuator's kv implicitly; Euler the joint damping.
  for (int z = 0; z < 3; z++) {
    double zeta = z == 0 ? 0.2 : z == 1 ? 0.7 : 2.0;
    double bound = 2 * zeta + 2 * sqrt(zeta * zeta + 1);
    double in1 = servoAmplitude("implicitfast", 0.93 * bound, zeta, 0);
    double out1 = servoAmplitude("implicitfast", 1.07 * bound, zeta, 0);
    double in2 = servoAmplitude("Euler", 0.93 * bound, zeta, 1);
    double out2 = servoAmplitude("Euler", 1.07 * bound, zeta, 1);
    cr_expect(in1 < 0.1 && in2 < 0.1, "zeta %g: inside the bound it must decay: %g %g", zeta,
              in1, in2);
    cr_expect(!(out1 < 1) && !(out2 < 1), "zeta %g: outside the bound it must grow: %g %g", zeta,
              out1, out2);
  }
}

Test(stability, rk4_strong_damping_bound) {
  // MJ#548: RK4 treats damping explicitly; for x' = -lambda x it is stable iff h lambda is below
  // the real stability limit of RK4 (2.785293563...). Moduco must match MuJoCo 2.2.2 on both
  // sides of the limit.
  const double limit = 2.785293563405282;
  for (int s = 0; s < 2; s++) {
    double hl = s ? 1.03 * limit : 0.97 * limit, h = 0.01, b = hl / h;
    char xml[1024];
    snprintf(xml, sizeof(xml),
             "<mujoco><option timestep='%g' gravity='0 0 0' integrator='RK4'/><worldbody><body>"
             "<joint type='slide' axis='1 0 0' damping='%.17g'/>"
             "<inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/></body></worldbody></mujoco>",
             h, b);
    mcModel* m;
    double v0 = 1;
    double gap = trajectoryGapOf(xml, 100, &v0, &m);
    mcData* d = mc_makeData(m);
    d->qvel[0] = 1;
    for (int k = 0; k < 100; k++) {
      mc_step(m, d);
    }
    if (s) {
      cr_expect(fabs(d->qvel[0]) > 100, "beyond the limit RK4 must diverge: %g", d->qvel[0]);
    } else {
      cr_expect(fabs(d->qvel[0]) < 1e-3, "inside the limit RK4 must decay: %g", d->qvel[0]);
    }
    cr_expect(gap <= 1e-9 * fmax(1, fabs(d->qpos[0])), "vs MuJoCo: %g", gap);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}

Test(stability, bodies_start_in_penetration) {
  // MJ#752: a sphere half sunk into the floor is pushed out by the soft contact; the exit speed
  // is a property of the contact model (solref/solimp), so it must equal MuJoCo 2.2.2's, and the
  // sphere comes to rest on the floor
  const char* floor_xml =
    "<mujoco><worldbody><geom type='plane' size='2 2 .1'/>"
    "<body pos='0 0 0.05'><freejoint/><geom size='.1'/></body></worldbody></mujoco>";
  mcModel* m;
  double gap = trajectoryGapOf(floor_xml, 1000, NULL, &m);
  cr_expect(gap < 1e-9, "vs MuJoCo 2.2.2: %g", gap);
  mcData* d = mc_makeData(m);
  for (int k = 0; k < 2000; k++) {
    mc_step(m, d);
  }
  cr_expect(fabs(d->qpos[2] - 0.1) < 2e-3 && maxAbs(d->qvel, 6) < 1e-3, "rest: z %g", d->qpos[2]);
  mc_deleteData(d);
  mc_deleteModel(m);

  // two interpenetrating spheres without gravity separate symmetrically: total momentum stays
  // zero, and the separation speed is MuJoCo's
  const char* pair_xml =
    "<mujoco><option gravity='0 0 0'/><worldbody>"
    "<body><freejoint/><geom size='.1'/></body>"
    "<body pos='0.12 0.05 0'><freejoint/><geom size='.1'/></body></worldbody></mujoco>";
  gap = trajectoryGapOf(pair_xml, 300, NULL, &m);
  cr_expect(gap < 1e-9, "pair vs MuJoCo 2.2.2: %g", gap);
  d = mc_makeData(m);
  for (int k = 0; k < 300; k++) {
    mc_step(m, d);
  }
  for (int i = 0; i < 3; i++) {
    cr_expect(fabs(d->qvel[i] + d->qvel[6 + i]) < 1e-12, "momentum %d: %g", i,
              d->qvel[i] + d->qvel[6 + i]);
  }
  double dx = d->qpos[7] - d->qpos[0], dy = d->qpos[8] - d->qpos[1];
  cr_expect(sqrt(dx * dx + dy * dy) > 0.2, "still overlapping");
  cr_assert(!hardHasNonFinite(m, d));
  mc_deleteData(d);
  mc_deleteModel(m);
}

//---------------------------------- solver --------------------------------------------------------

Test(solver, cg_single_hinge_cylinder) {
  // MJW#656: CG on a single hinged cylinder resting on the floor: no NaN, MuJoCo 2.2.2's motion
  const char* xml =
    "<mujoco><option solver='CG'/><worldbody><geom type='plane' size='2 2 .1'/>"
    "<body pos='0 0 0.3'><joint axis='1 0 0'/>"
    "<geom type='cylinder' size='.1 .2' pos='0 0.2 -0.15' euler='0 90 0'/></body>"
    "</worldbody></mujoco>";
  mcModel* m;
  double gap = trajectoryGapOf(xml, 1000, NULL, &m);
  cr_expect(gap < 1e-6, "vs MuJoCo 2.2.2: %g", gap);
  mcData* d = mc_makeData(m);
  int contact = 0;
  for (int k = 0; k < 1000; k++) {
    mc_step(m, d);
    contact += d->ncon > 0;
  }
  cr_assert_gt(contact, 0);
  cr_assert(!hardHasNonFinite(m, d) && warnings(d) == 0);
  mc_deleteData(d);
  mc_deleteModel(m);
}

Test(solver, elliptic_cone_near_apex) {
  // MJW#1657: contacts barely touching (normal force near zero) with tangential and spinning
  // velocities, condim 3, 4 and 6, elliptic cone: Newton, CG and PGS give finite forces equal to
  // MuJoCo 2.2.2's
  static const char* const solvers[3] = {"Newton", "CG", "PGS"};
  for (int c = 0; c < 3; c++) {
    int condim = c == 0 ? 3 : c == 1 ? 4 : 6;
    for (int s = 0; s < 3; s++) {
      char xml[1024];
      snprintf(xml, sizeof(xml),
               "<mujoco><option cone='elliptic' impratio='10' solver='%s' gravity='0 0 -1e-6'/>"
               "<worldbody><geom type='plane' size='2 2 .1' condim='%d'/>"
               "<body pos='0 0 0.1'><freejoint/><geom size='.1' condim='%d'/></body>"
               "</worldbody></mujoco>",
               solvers[s], condim, condim);
      mjModel* mm;
      mcModel* m = loadBoth(xml, &mm);
      mcData* d = mc_makeData(m);
      mjData* md = mj_makeData(mm);
      for (int k = 0; k < 6; k++) {
        double z = 0.1 + (k - 3) * 1e-9, v[6] = {1e-3 * k, -2e-3, -1e-7 * k, 0.3, -0.2, 0.5 * k};
        d->qpos[2] = md->qpos[2] = z;
        memcpy(d->qvel, v, sizeof(v));
        memcpy(md->qvel, v, sizeof(v));
        mc_forward(m, d);
        mj_forward(mm, md);
        cr_assert(!hardHasNonFinite(m, d), "%s condim %d: non-finite", solvers[s], condim);
        cr_assert_eq(d->nefc, md->nefc, "%s condim %d state %d: nefc %d vs %d (ncon %d vs %d)",
                     solvers[s], condim, k, d->nefc, md->nefc, d->ncon, md->ncon);
        double scale = fmax(1e-12, maxAbs(md->efc_force, md->nefc));
        double gap = maxDiff(d->efc_force, md->efc_force, d->nefc);
        // PGS stops at its iteration limit: compare to a looser tolerance
        cr_expect(gap < (s == 2 ? 1e-4 : 1e-6) * scale, "%s condim %d state %d: force gap %g of %g",
                  solvers[s], condim, k, gap, scale);
      }
      mc_deleteData(d);
      mj_deleteData(md);
      mc_deleteModel(m);
      mj_deleteModel(mm);
    }
  }
}

Test(solver, pgs_friction_much_larger_than_one) {
  // thowell/RoboDojo.jl#5: mu = 50 with PGS. A block (slide x, slide z) pushed by 10 m g and by
  // 60 m g: the soft (regularised) friction of the MuJoCo model lets it creep in both cases, far
  // from the rigid answer (held / a = 10 g); PGS converges to MuJoCo 2.2.2's creep, the block
  // stays on the floor, and the stronger push moves it further.
  double x[2] = {0, 0};
  for (int s = 0; s < 2; s++) {
    double push = s ? 60 : 10, g = 9.81;
    char xml[1024];
    snprintf(xml, sizeof(xml),
             "<mujoco><option solver='PGS' iterations='200'/><worldbody>"
             "<geom type='plane' size='20 20 .1' friction='50'/>"
             "<body pos='0 0 0.05'><joint type='slide' axis='1 0 0'/>"
             "<joint type='slide' axis='0 0 1'/>"
             "<geom type='box' size='.2 .2 .05' mass='1' friction='50'/></body>"
             "</worldbody></mujoco>");
    mjModel* mm;
    mcModel* m = loadBoth(xml, &mm);
    mcData* d = mc_makeData(m);
    mjData* md = mj_makeData(mm);
    for (int k = 0; k < 500; k++) {
      d->qfrc_applied[0] = md->qfrc_applied[0] = push * g;
      mc_step(m, d);
      mj_step(mm, md);
    }
    cr_assert(!hardHasNonFinite(m, d));
    cr_expect(fabs(d->qpos[0] - md->qpos[0]) < 1e-3 * fmax(1, fabs(md->qpos[0])),
              "push %g: x %g vs MuJoCo %g", push, d->qpos[0], md->qpos[0]);
    cr_expect(fabs(d->qpos[1] - md->qpos[1]) < 1e-4, "push %g: z %g vs MuJoCo %g", push,
              d->qpos[1], md->qpos[1]);
    x[s] = d->qpos[0];
    mc_deleteData(d);
    mj_deleteData(md);
    mc_deleteModel(m);
    mj_deleteModel(mm);
  }
  cr_expect(x[1] > x[0] && x[0] > 0, "creep %g (10 m g) vs %g (60 m g)", x[0], x[1]);
}

Test(solver, heavy_box_on_light_box_100_to_1) {
  // DART#3442: a 100 kg box resting on a 1 kg box resting on the floor does not sink through:
  // after 2 s the stack stands (boxes centred above each other, penetrations of millimetres) and
  // the floor carries the total weight
  const char* xml =
    "<mujoco><option cone='elliptic'/><worldbody><geom type='plane' size='2 2 .1'/>"
    "<body pos='0 0 0.1'><freejoint/><geom type='box' size='.2 .2 .1' mass='1'/></body>"
    "<body pos='0 0 0.3'><freejoint/><geom type='box' size='.2 .2 .1' mass='100'/></body>"
    "</worldbody></mujoco>";
  mjModel* mm;
  mcModel* m = loadBoth(xml, &mm);
  mcData* d = mc_makeData(m);
  mjData* md = mj_makeData(mm);
  for (int k = 0; k < 1000; k++) {
    mc_step(m, d);
    mj_step(mm, md);
  }
  cr_assert(!hardHasNonFinite(m, d));
  double z1 = d->qpos[2], z2 = d->qpos[9];
  // the soft contact lets the heavy box sink about 1 cm into the light one, in MuJoCo too
  cr_expect(fabs(z1 - md->qpos[2]) < 1e-5 && fabs(z2 - md->qpos[9]) < 1e-5,
            "z %g %g, MuJoCo 2.2.2 %g %g", z1, z2, md->qpos[2], md->qpos[9]);
  mj_deleteData(md);
  mj_deleteModel(mm);
  cr_expect(z1 > 0.1 - 0.01 && z1 < 0.1 + 1e-3, "light box z %g", z1);
  cr_expect(z2 - z1 > 0.2 - 0.015 && z2 - z1 < 0.2 + 1e-3, "heavy box above light: dz %g",
            z2 - z1);
  cr_expect(fabs(d->qpos[7]) < 1e-3 && fabs(d->qpos[8]) < 1e-3, "heavy box slid");
  // normal forces on the floor (geom 0) sum to the total weight
  double fn = 0;
  for (int i = 0; i < d->ncon; i++) {
    if (d->contact[i].geom1 == 0 || d->contact[i].geom2 == 0) {
      fn += d->efc_force[d->contact[i].efc_address];
    }
  }
  double w = 101 * 9.81;
  cr_expect(fabs(fn - w) < 1e-3 * w, "floor carries %g N, weight %g N", fn, w);
  mc_deleteData(d);
  mc_deleteModel(m);
}

// slip of a box squeezed between two pads while the hand accelerates up, over 0.5 s
static double graspSlip(int noslip) {
  char xml[2048], err[1024];
  snprintf(xml, sizeof(xml),
           "<mujoco><option noslip_iterations='%d' cone='pyramidal'/><worldbody>"
           "<body name='hand' pos='0 0 0.5'><joint name='lift' type='slide' axis='0 0 1'/>"
           "<geom type='box' size='.1 .02 .02' pos='0 0 .12' mass='1' contype='0' "
           "conaffinity='0'/>"
           "<body pos='-0.06 0 0'><joint name='l' type='slide' axis='1 0 0'/>"
           "<geom type='box' size='.01 .03 .1' mass='.1' friction='1'/></body>"
           "<body pos='0.06 0 0'><joint name='r' type='slide' axis='1 0 0'/>"
           "<geom type='box' size='.01 .03 .1' mass='.1' friction='1'/></body></body>"
           "<body name='obj' pos='0 0 0.5'><freejoint/>"
           "<geom size='.045' mass='.5' friction='1'/></body>"
           "</worldbody><actuator><motor joint='lift'/><motor joint='l'/><motor joint='r'/>"
           "</actuator></mujoco>",
           noslip);
  mcModel* m = mcLoad(xml, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  mcData* d = mc_makeData(m);
  double slip0 = 0;
  for (int k = 0; k < 750; k++) {
    d->ctrl[1] = 20;   // squeeze
    d->ctrl[2] = -20;
    d->ctrl[0] = k < 250 ? 1.7 * 9.81 : 1.7 * 9.81 * 3;   // hold, then accelerate up at 2 g
    mc_step(m, d);
    if (k == 249) {
      slip0 = d->qpos[5] - d->qpos[0];   // object z relative to the hand
    }
  }
  cr_assert(!hardHasNonFinite(m, d));
  double slip = fabs(d->qpos[5] - d->qpos[0] - slip0);
  cr_assert(d->qpos[0] > 0.3, "the hand did not accelerate up: %g", d->qpos[0]);
  mc_deleteData(d);
  mc_deleteModel(m);
  return slip;
}

Test(solver, noslip_holds_accelerated_grasp) {
  // MEN#235, MJ#698: squeezed with 20 N and mu 1 (40 N of friction for 15 N of load at 2 g), the
  // object should not slip; the soft contact lets it creep, noslip removes the creep
  double soft = graspSlip(0), hard = graspSlip(20);
  fprintf(stderr, "grasp slip over 1 s at 2 g: %g m without noslip, %g m with\n", soft, hard);
  cr_expect(hard < 1e-4, "noslip: slipped %g m", hard);
  cr_expect(hard < 0.2 * soft, "noslip should reduce the slip: %g vs %g", hard, soft);
}

//---------------------------------- actuators and sensors -----------------------------------------

Test(actuators, dcmotor_vmax_in_voltage_mode) {
  // MJ#3489 (Vmax silently ignored for voltage input): Moduco clamps the drive voltage in every
  // input mode, so at stall the torque is K Vmax / R, not K u / R
  char err[1024];
  mcModel* m = mcLoad("<mujoco><worldbody><body><joint name='j'/><geom size='.1' mass='1'/>"
                      "</body></worldbody><actuator><dcmotor joint='j' resistance='2' "
                      "motorconst='0.1' input='voltage' controller='0 0 0 0 0 5'/></actuator>"
                      "</mujoco>",
                      err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  mcData* d = mc_makeData(m);
  d->ctrl[0] = 24;
  mc_forward(m, d);
  cr_expect(fabs(d->actuator_force[0] - 0.1 * 5 / 2) < 1e-12, "stall torque %g, clamped %g",
            d->actuator_force[0], 0.1 * 5 / 2);
  d->ctrl[0] = -24;
  mc_forward(m, d);
  cr_expect(fabs(d->actuator_force[0] + 0.1 * 5 / 2) < 1e-12);
  d->ctrl[0] = 3;
  mc_forward(m, d);
  cr_expect(fabs(d->actuator_force[0] - 0.1 * 3 / 2) < 1e-12, "below Vmax: %g",
            d->actuator_force[0]);
  mc_deleteData(d);
  mc_deleteModel(m);
}

Test(sensors, static_net_contact_force_equals_weight) {
  // MJ#1823: a box resting on the floor with 4 corner contacts, and a capsule resting on two
  // spheres: the normal contact forces sum to the weight (elliptic: efc_force of the normal row;
  // pyramidal: the pyramid edges sum to the normal force), and a touch sensor reads the same
  for (int cone = 0; cone < 2; cone++) {
    char xml[2048], err[1024];
    snprintf(xml, sizeof(xml),
             "<mujoco><option cone='%s'/><worldbody><geom type='plane' size='2 2 .1'/>"
             "<body pos='0 0 0.1'><freejoint/><geom type='box' size='.2 .3 .1' mass='3'/>"
             "<site name='s' type='box' size='.21 .31 .11'/></body>"
             "<body pos='1 0 0.2'><freejoint/><geom type='capsule' fromto='-0.3 0 0 0.3 0 0' "
             "size='.05' mass='2'/></body>"
             "<geom pos='0.8 0 0.05' size='.1'/><geom pos='1.2 0 0.05' size='.1'/>"
             "</worldbody><sensor><touch site='s'/></sensor></mujoco>",
             cone ? "elliptic" : "pyramidal");
    mcModel* m = mcLoad(xml, err, sizeof(err));
    cr_assert_not_null(m, "%s", err);
    mcData* d = mc_makeData(m);
    for (int k = 0; k < 2000; k++) {
      mc_step(m, d);
    }
    mc_forward(m, d);
    double fbox = 0, fcap = 0;
    for (int i = 0; i < d->ncon; i++) {
      const mcContact* c = d->contact + i;
      int body = m->geom_bodyid[c->geom1] ? m->geom_bodyid[c->geom1] : m->geom_bodyid[c->geom2];
      double fn = 0;
      if (cone) {
        fn = d->efc_force[c->efc_address];
      } else {
        for (int r = 0; r < 2 * (c->dim - 1); r++) {
          fn += d->efc_force[c->efc_address + r];
        }
      }
      if (body == 1) {
        fbox += fn;
      } else {
        fcap += fn;
      }
    }
    double g = 9.81;
    cr_expect(fabs(fbox - 3 * g) < 1e-6 * 3 * g, "%s: box %g N vs %g", cone ? "elliptic" : "pyr",
              fbox, 3 * g);
    cr_expect(fabs(fcap - 2 * g) < 1e-6 * 2 * g, "%s: capsule %g N vs %g",
              cone ? "elliptic" : "pyr", fcap, 2 * g);
    cr_expect(fabs(d->sensordata[0] - fbox) < 1e-6 * fbox, "touch %g vs %g", d->sensordata[0],
              fbox);
    mc_deleteData(d);
    mc_deleteModel(m);
  }
}

//---------------------------------- plugins and state --------------------------------------------

Test(plugins, step_with_data_of_another_model_is_refused) {
  // MJ#2644: mc_step(m_a, d_b) must not mix configurations: it is refused with a message and
  // leaves d_b untouched; m_a with its own data steps normally
  mcModel* a = hardLoadString("<mujoco><worldbody><body><joint/><geom size='.1'/></body>"
                              "</worldbody></mujoco>");
  mcModel* b = hardLoadString("<mujoco><worldbody><body><joint/><joint/><geom size='.1'/></body>"
                              "</worldbody></mujoco>");
  mcData* db = mc_makeData(b);
  db->qvel[0] = 1;
  hardCaptureBegin();
  mc_step(a, db);
  hardCaptureEnd();
  cr_assert_eq(db->time, 0);
  cr_assert_eq(db->qpos[0], 0);
  cr_assert_geq(hardCaptureCountWith("another model"), 1);
  mcData* da = mc_makeData(a);
  mc_step(a, da);
  cr_assert_gt(da->time, 0);
  mc_deleteData(da);
  mc_deleteData(db);
  mc_deleteModel(a);
  mc_deleteModel(b);
}

//---------------------------------- collision (not box-box) --------------------------------------

Test(collision, box_sphere_depth_up_to_full_penetration) {
  // MJ#2206: sweep a sphere (r 0.1) into a box (half-size 0.3 along x) until its centre is 0.18
  // inside the face: the depth is r - gap, continuous, with the face normal, also once the centre
  // is inside (there MuJoCo 2.2.2 stays at dist = -r, the bug; 3.3.8 and Moduco keep growing,
  // compared with 3.3.8 in tests/collision/test_collision_boxes.c)
  const char* xml =
    "<mujoco><worldbody><geom type='box' size='.3 .4 .5'/>"
    "<body><freejoint/><geom size='.1'/></body></worldbody></mujoco>";
  mcModel* m = hardLoadString(xml);
  mcData* d = mc_makeData(m);
  for (int side = -1; side <= 1; side += 2) {
    for (int i = 0; i <= 100; i++) {
      double x = side * (0.42 - i * 0.003);   // gap from +0.02 to -0.28 (centre 0.18 inside)
      d->qpos[0] = x;
      d->qpos[1] = 0.05;
      d->qpos[2] = -0.02;
      mc_forward(m, d);
      double gap = fabs(x) - 0.3 - 0.1;
      if (gap > 0) {
        cr_assert_eq(d->ncon, 0, "x %g: separated but %d contacts", x, d->ncon);
        continue;
      }
      cr_assert_eq(d->ncon, 1, "x %g: %d contacts", x, d->ncon);
      cr_expect(fabs(d->contact[0].dist - gap) < 1e-9, "x %g: dist %g, expected %g", x,
                d->contact[0].dist, gap);
      cr_expect(fabs(d->contact[0].frame[0] + side) < 1e-9, "x %g: normal %g %g %g", x,
                d->contact[0].frame[0], d->contact[0].frame[1], d->contact[0].frame[2]);
    }
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}

Test(collision, small_sphere_on_hfield_not_sucked_in) {
  // MJ#2883 (a small sphere sucked into the field), MJ#689 (flat field): a sphere of radius 0.02
  // dropped from 0.5 onto a 10x10 height field, flat and bumpy (the same elevations set in both
  // engines), rests on the surface and follows MuJoCo 2.2.2 (whose flat-field drift, MJ#689, it
  // shares)
  const char* xml =
    "<mujoco><asset><hfield name='h' nrow='10' ncol='10' size='1 1 0.2 0.1'/></asset>"
    "<worldbody><geom type='hfield' hfield='h'/>"
    "<body pos='0.13 -0.07 0.5'><freejoint/><geom size='.02'/></body></worldbody></mujoco>";
  for (int bumpy = 0; bumpy < 2; bumpy++) {
    mjModel* mm;
    mcModel* m = loadBoth(xml, &mm);
    cr_assert_eq(m->nhfielddata, 100);
    for (int i = 0; i < 100; i++) {
      float e = bumpy ? (float)(0.5 + 0.5 * sin(0.7 * i) * cos(0.3 * i)) : 0.0f;
      m->hfield_data[i] = mm->hfield_data[i] = e;
    }
    // end to end (broad phase included): the deepest contact at a few poses equals MuJoCo's
    mcData* d = mc_makeData(m);
    mjData* md = mj_makeData(mm);
    for (int k = 0; k < 20; k++) {
      double pos[3] = {-0.9 + 0.09 * k, 0.8 - 0.08 * k, 0.005 * (k % 7)};
      memcpy(d->qpos, pos, sizeof(pos));
      memcpy(md->qpos, pos, sizeof(pos));
      mc_forward(m, d);
      mj_forward(mm, md);
      cr_assert_eq(d->ncon > 0, md->ncon > 0, "pose %d: ncon %d vs %d", k, d->ncon, md->ncon);
      double dmin = 1, mjmin = 1;
      for (int i = 0; i < d->ncon; i++) {
        dmin = fmin(dmin, d->contact[i].dist);
      }
      for (int i = 0; i < md->ncon; i++) {
        mjmin = fmin(mjmin, md->contact[i].dist);
      }
      cr_expect(fabs(dmin - mjmin) < 1e-9, "pose %d: deepest %g vs %g", k, dmin, mjmin);
    }
    mj_deleteData(md);
    mc_resetData(m, d);
    for (int k = 0; k < 1500; k++) {
      mc_step(m, d);
    }
    cr_assert(!hardHasNonFinite(m, d));
    cr_assert_gt(d->ncon, 0, "no contact with the field");
    if (!bumpy) {
      cr_expect(fabs(d->qpos[2] - 0.02) < 1e-3, "rests at z %g, expected 0.02", d->qpos[2]);
    } else {
      cr_expect(d->qpos[2] > 0.01, "sucked into the field: z %g", d->qpos[2]);
    }
    mc_deleteData(d);
    mc_deleteModel(m);
    mj_deleteModel(mm);
  }

  // an inline field of more than 64 samples loads (it was refused: "expects 100 to 64 values")
  char big[4096], elev[1024] = "";
  for (int i = 0; i < 100; i++) {
    strcat(elev, i % 3 ? "0.2 " : "0.7 ");
  }
  snprintf(big, sizeof(big),
           "<mujoco><asset><hfield name='h' nrow='10' ncol='10' size='1 1 0.2 0.1' "
           "elevation='%s'/></asset><worldbody><geom type='hfield' hfield='h'/></worldbody>"
           "</mujoco>",
           elev);
  mcModel* m = hardLoadString(big);
  cr_assert_eq(m->hfield_data[0], 1.0f);
  cr_assert_eq(m->hfield_data[99], 1.0f);
  cr_assert_eq(m->hfield_data[98], 0.0f);
  mc_deleteModel(m);
}

Test(replicate, long_keyframe_of_a_large_replicated_model) {
  // 70 replicated sliders: the keyframe has 70 values (lists longer than 64 numbers used to read
  // past a 64-entry buffer)
  char vals[1024] = "", xml[2048], err[1024];
  for (int i = 0; i < 70; i++) {
    char one[16];
    snprintf(one, sizeof(one), "%d ", i);
    strcat(vals, one);
  }
  snprintf(xml, sizeof(xml),
           "<mujoco><worldbody><replicate count='70' offset='0.3 0 0'><body name='b'>"
           "<joint name='x' type='slide'/><geom size='.1'/></body></replicate></worldbody>"
           "<keyframe><key qpos='%s'/></keyframe></mujoco>",
           vals);
  mcModel* m = mcLoad(xml, err, sizeof(err));
  cr_assert_not_null(m, "%s", err);
  cr_assert_eq(m->nq, 70);
  for (int i = 0; i < 70; i++) {
    cr_assert_eq(m->key_qpos[i], (double)i);
  }
  cr_assert_str_eq(mc_id2name(m, mcOBJ_JOINT, 69), "x69");
  cr_assert_str_eq(mc_id2name(m, mcOBJ_BODY, 1), "b00");
  cr_assert(fabs(m->body_pos[3 * 70] - 0.3 * 69) < 1e-12);
  mc_deleteModel(m);
}

Test(collision, contact_in_gap_is_detected_not_constrained) {
  // found with the elliptic-apex test: a contact whose distance lies in [margin - gap, margin] is
  // reported (ncon) but makes no constraint rows, as in MuJoCo 2.2.2
  static const char* const gaps[3] = {"0.08", "0.04", "0.05"};
  for (int i = 0; i < 3; i++) {
    char xml[1024];
    snprintf(xml, sizeof(xml),
             "<mujoco><worldbody><geom type='plane' size='1 1 1'/><body pos='0 0 0.15'>"
             "<freejoint/><geom size='.1' margin='0.1' gap='%s'/></body></worldbody></mujoco>",
             gaps[i]);
    mjModel* mm;
    mcModel* m = loadBoth(xml, &mm);
    mcData* d = mc_makeData(m);
    mjData* md = mj_makeData(mm);
    mc_forward(m, d);
    mj_forward(mm, md);
    cr_assert_eq(d->ncon, md->ncon, "gap %s", gaps[i]);
    cr_assert_eq(d->nefc, md->nefc, "gap %s: nefc %d vs %d", gaps[i], d->nefc, md->nefc);
    cr_assert_eq(d->contact[0].exclude, md->contact[0].exclude);
    cr_assert(maxDiff(d->qacc, md->qacc, m->nv) < 1e-9);
    mc_deleteData(d);
    mj_deleteData(md);
    mc_deleteModel(m);
    mj_deleteModel(mm);
  }
}

Test(collision, several_hfields_in_one_model) {
  // MJW PR#825: two height fields of different sizes and resolutions (and a plane) in one model;
  // a sphere dropped on each rests on its own field, and the contacts at poses over either field
  // equal MuJoCo 2.2.2's
  const char* xml =
    "<mujoco><asset><hfield name='a' nrow='6' ncol='9' size='1 0.8 0.3 0.1'/>"
    "<hfield name='b' nrow='12' ncol='5' size='0.6 1.2 0.5 0.2'/></asset><worldbody>"
    "<geom type='plane' size='10 10 .1' pos='0 0 -1'/>"
    "<geom type='hfield' hfield='a' pos='-1.5 0 0'/>"
    "<geom type='hfield' hfield='b' pos='1.5 0 0.2' euler='0 0 20'/>"
    "<body pos='-1.4 0.1 1'><freejoint/><geom size='.05'/></body>"
    "<body pos='1.6 -0.2 1'><freejoint/><geom size='.05'/></body></worldbody></mujoco>";
  mjModel* mm;
  mcModel* m = loadBoth(xml, &mm);
  cr_assert_eq(m->nhfielddata, mm->nhfielddata);
  for (int i = 0; i < m->nhfielddata; i++) {
    m->hfield_data[i] = mm->hfield_data[i] = (float)(0.5 + 0.5 * sin(1.3 * i));
  }
  mcData* d = mc_makeData(m);
  mjData* md = mj_makeData(mm);
  for (int k = 0; k < 30; k++) {
    double x = k < 15 ? -1.5 + 0.1 * (k - 7) : 1.5 + 0.05 * (k - 22);
    double pose[14] = {x, 0.03 * (k % 5), 0.02 * (k % 9), 1, 0, 0, 0,
                       -x, 0.1, 0.01 * (k % 11), 1, 0, 0, 0};
    memcpy(d->qpos, pose, sizeof(pose));
    memcpy(md->qpos, pose, sizeof(pose));
    mc_forward(m, d);
    mj_forward(mm, md);
    cr_assert_eq(d->ncon > 0, md->ncon > 0, "pose %d: ncon %d vs %d", k, d->ncon, md->ncon);
    for (int s = 0; s < 2; s++) {
      double dmin = 1, mjmin = 1;
      int geom = m->body_geomadr[s + 1];
      for (int i = 0; i < d->ncon; i++) {
        if (d->contact[i].geom1 == geom || d->contact[i].geom2 == geom) {
          dmin = fmin(dmin, d->contact[i].dist);
        }
      }
      for (int i = 0; i < md->ncon; i++) {
        if (md->contact[i].geom1 == geom || md->contact[i].geom2 == geom) {
          mjmin = fmin(mjmin, md->contact[i].dist);
        }
      }
      cr_expect(fabs(dmin - mjmin) < 1e-9, "pose %d sphere %d: deepest %g vs %g", k, s, dmin,
                mjmin);
    }
  }
  mj_deleteData(md);
  mc_resetData(m, d);
  for (int k = 0; k < 2000; k++) {
    mc_step(m, d);
  }
  cr_assert(!hardHasNonFinite(m, d));
  cr_expect(d->qpos[2] > 0 && d->qpos[9] > 0.2, "fell through: z %g %g", d->qpos[2], d->qpos[9]);
  cr_expect(fabs(d->qpos[0] + 1.5) < 1 && fabs(d->qpos[7] - 1.5) < 1, "left its field");
  mc_deleteData(d);
  mc_deleteModel(m);
  mj_deleteModel(mm);
}

Test(warnings, escalation_in_a_rollout_stops_only_the_failing_item) {
  // docs/warnings.md: with the policy on every thread's data, a rollout whose applied force is
  // NaN stops at its first step (its states repeat the start), the others run as without policy
  mcModel* m = hardLoadString(
    "<mujoco><worldbody><body><joint axis='0 1 0'/>"
    "<geom type='capsule' fromto='0 0 0 0 0 -1' size='.05'/></body></worldbody></mujoco>");
  mcRolloutPool* pool = mc_rolloutCreate(m, 2, 4);
  cr_assert_not_null(pool);
  for (int i = 0; i < mc_rolloutThreads(pool); i++) {
    mc_setWarningPolicy(mc_rolloutData(pool, i), mcWARNING_ALL);
  }
  unsigned int spec = mcSTATE_QPOS | mcSTATE_QVEL | mcSTATE_QFRC_APPLIED | mcSTATE_TIME;
  int ns = mc_stateSize(m, spec), nstep = 20;
  cr_assert_eq(ns, 4);
  mcNum state0[16], out[4 * 20 * 4];
  for (int r = 0; r < 4; r++) {
    mcNum s[4] = {0, 0.3 + 0.1 * r, 0, r == 2 ? NAN : 0};   // time, qpos, qvel, qfrc_applied
    memcpy(state0 + 4 * r, s, sizeof(s));
  }
  hardCaptureBegin();
  mc_setErrorHandler(onError, NULL);
  g_nerror = 0;
  cr_assert_eq(mc_rollout(pool, 4, nstep, spec, state0, NULL, out, NULL), 0);
  hardCaptureEnd();
  mc_setErrorHandler(NULL, NULL);
  cr_assert_eq(g_nerror, 1, "one error, from the NaN item");
  const int* warned = mc_rolloutWarnings(pool);
  for (int r = 0; r < 4; r++) {
    const mcNum* last = out + ((size_t)r * nstep + nstep - 1) * ns;
    if (r == 2) {
      cr_assert_gt(warned[r], 0);
      cr_assert_eq(last[0], 0, "the failing item advanced: t %g", last[0]);
      cr_assert_eq(last[1], state0[4 * r + 1]);
    } else {
      cr_assert_eq(warned[r], 0);
      cr_assert(fabs(last[0] - nstep * m->opt.timestep) < 1e-12);
      cr_assert(isfinite(last[1]) && last[1] != state0[4 * r + 1]);
    }
  }
  mc_rolloutDelete(pool);
  mc_deleteModel(m);
}
