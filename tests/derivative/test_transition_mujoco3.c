// mcd_transitionFD against MuJoCo 3.14.0's mjd_transitionFD (@mujoco/mujoco, WebAssembly, through
// tests/derivative/transition_ref.mjs) on the same model file and state: A, B, C, D entry by
// entry, centered and forward, for every integrator 3.14 differentiates (Euler, implicit,
// implicitfast; it refuses RK4), with free, ball, hinge and slide joints, actuators with
// activation, sensors of every stage, and contacts. D is compared with 3.14's differences of
// whole mj_steps: 3.14's centered mjd_transitionFD gives the acceleration-stage sensors' D with
// the wrong sign (its forward differences and its own steps agree with ours).
//
// Both engines start from the model's first keyframe (or qpos0), set ctrl_i = 0.2 sin(i + 1) and
// take NSTEP steps; the states must then agree (1e-9), so the Jacobians are taken at the same
// point. Tolerances as test_transition_mujoco.c explains: entries are differences of two steps
// over eps = 1e-6, so steps agreeing to delta give entries agreeing to ~2 delta / eps: 1e-6 of
// the matrix's largest entry without contacts, 1e-4 with them. Measured errors are printed.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>

#include <moduco/moduco.h>

#include "fdtest.h"
#include "testutil.h"

#define NSTEP 5

// every joint kind, a filter actuator with a limited control, a motor, sensors of each stage; no
// contacts. %s: the integrator
static const char kArm[] =
  "<mujoco model=\"arm\">\n"
  "  <option timestep=\"0.004\" integrator=\"%s\"/>\n"
  "  <default><geom contype=\"0\" conaffinity=\"0\"/></default>\n"
  "  <worldbody>\n"
  "    <body name=\"arm\" pos=\"0 0 1\">\n"
  "      <joint name=\"h1\" type=\"hinge\" axis=\"0 1 0\" damping=\"0.1\"/>\n"
  "      <geom type=\"capsule\" fromto=\"0 0 0 0.4 0 0\" size=\"0.04\"/>\n"
  "      <site name=\"tip\" pos=\"0.4 0 0\"/>\n"
  "      <body pos=\"0.4 0 0\">\n"
  "        <joint name=\"b1\" type=\"ball\" damping=\"0.05\" stiffness=\"0.3\"/>\n"
  "        <geom type=\"box\" size=\"0.1 0.05 0.05\" pos=\"0.1 0 0\"/>\n"
  "        <site name=\"s2\" pos=\"0.2 0 0\"/>\n"
  "        <body pos=\"0.2 0 0\">\n"
  "          <joint name=\"sl\" type=\"slide\" axis=\"1 0 0\" stiffness=\"5\" damping=\"0.3\"/>\n"
  "          <geom type=\"sphere\" size=\"0.05\"/>\n"
  "        </body>\n"
  "      </body>\n"
  "    </body>\n"
  "    <body name=\"free\" pos=\"1 0 2\">\n"
  "      <freejoint/>\n"
  "      <geom type=\"ellipsoid\" size=\"0.1 0.07 0.05\"/>\n"
  "      <site name=\"fs\" pos=\"0.05 0 0\"/>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "  <actuator>\n"
  "    <motor name=\"m\" joint=\"h1\" gear=\"0.5\"/>\n"
  "    <general name=\"f\" joint=\"sl\" dyntype=\"filter\" dynprm=\"0.1\" gainprm=\"2\"\n"
  "             ctrllimited=\"true\" ctrlrange=\"-1 1\"/>\n"
  "  </actuator>\n"
  "  <sensor>\n"
  "    <jointpos joint=\"h1\"/>\n"
  "    <jointvel joint=\"sl\"/>\n"
  "    <ballquat joint=\"b1\"/>\n"
  "    <framepos objtype=\"site\" objname=\"s2\"/>\n"
  "    <velocimeter site=\"fs\"/>\n"
  "    <gyro site=\"s2\"/>\n"
  "    <accelerometer site=\"tip\"/>\n"
  "    <actuatorfrc actuator=\"f\"/>\n"
  "  </sensor>\n"
  "</mujoco>\n";

// a box resting on a plane, pushed by a motor on a slide, and a sphere on the box: contacts. The
// box carries a child body: MuJoCo 3.14 computes body_invweight0 of a body moved only by sliders
// along its own axes, with no child, as 1/mass (2.2.2: the mean over the three directions;
// Moduco now follows 3.x, docs/mujoco3.md), which changes the contacts' regularization
static const char kContact[] =
  "<mujoco model=\"contact\">\n"
  "  <option timestep=\"0.002\" integrator=\"%s\"/>\n"
  "  <worldbody>\n"
  "    <geom type=\"plane\" size=\"2 2 0.1\"/>\n"
  "    <body name=\"box\" pos=\"0 0 0.1\">\n"
  "      <joint name=\"x\" type=\"slide\" axis=\"1 0 0\"/>\n"
  "      <joint name=\"z\" type=\"slide\" axis=\"0 0 1\"/>\n"
  "      <geom type=\"box\" size=\"0.2 0.2 0.1\" mass=\"1\"/>\n"
  "      <site name=\"top\" type=\"box\" size=\"0.2 0.2 0.02\" pos=\"0 0 0.1\"/>\n"
  "      <body name=\"tag\" pos=\"0.1 0 0.15\">\n"
  "        <geom type=\"sphere\" size=\"0.02\" mass=\"0.1\" contype=\"0\" conaffinity=\"0\"/>\n"
  "      </body>\n"
  "    </body>\n"
  "    <body name=\"ball\" pos=\"0.05 0 0.3\">\n"
  "      <freejoint/>\n"
  "      <geom type=\"sphere\" size=\"0.1\" mass=\"0.3\"/>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "  <actuator><motor joint=\"x\" gear=\"2\"/></actuator>\n"
  "  <sensor><jointpos joint=\"x\"/><touch site=\"top\"/></sensor>\n"
  "</mujoco>\n";


// the model text with the integrator put in, written to model.xml in a new temporary folder (the
// reference script copies the model's folder)
static void writeModel(const char* fmt, const char* integrator, char* path, int path_sz) {
  char dir[] = "/tmp/moduco-fd3-XXXXXX";
  cr_assert(mkdtemp(dir), "no temporary folder");
  snprintf(path, (size_t)path_sz, "%s/model.xml", dir);
  FILE* f = fopen(path, "w");
  cr_assert(f, "cannot write %s", path);
  fprintf(f, fmt, integrator);
  fclose(f);
}


// remove the model file and its folder
static void removeModel(const char* path) {
  char dir[128];
  snprintf(dir, sizeof(dir), "%s", path);
  char* slash = strrchr(dir, '/');
  remove(path);
  if (slash) {
    *slash = 0;
    rmdir(dir);
  }
}


// a flat JSON array of n numbers into x
static void readArray(const cJSON* o, const char* key, double* x, int n) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(o, key);
  cr_assert(cJSON_IsArray(a) && cJSON_GetArraySize(a) == n, "%s: expected %d numbers", key, n);
  for (int i = 0; i < n; i++) {
    x[i] = cJSON_GetArrayItem(a, i)->valuedouble;
  }
}


// fd_matErr, or the absolute error when the reference is all zero (a sensor no control reaches)
static double matErr(const double* got, const double* ref, int n) {
  if (n == 0) {
    return 0;
  }
  if (fd_maxAbs(ref, n) > 0) {
    return fd_matErr(got, ref, n);
  }
  return fd_maxAbs(got, n);
}


// compare Moduco with MuJoCo 3.14 on the model file path; tol: the matrix tolerance
static void compare(const char* name, const char* path, int nstep, int centered, double tol) {
  char err[512];
  char steps[16];
  snprintf(steps, sizeof(steps), "%d", nstep);
  const char* args[] = {path, steps, centered ? "1" : "0", NULL};
  cJSON* ref = tu_mjs3Json("tests/derivative/transition_ref.mjs", args, NULL, err, sizeof(err));
  cr_assert(ref, "%s: %s", name, err);
  cr_assert(!cJSON_GetObjectItemCaseSensitive(ref, "error"), "%s: MuJoCo 3.14 refused it", name);

  mcModel* m = mc_loadXML(path, err, sizeof(err));
  cr_assert(m, "%s: %s", name, err);
  mcData* d = mc_makeData(m);
  if (m->nkey > 0) {
    mc_resetDataKeyframe(m, d, 0);
  }
  for (int i = 0; i < m->nu; i++) {
    d->ctrl[i] = 0.2 * sin(i + 1.0);
  }
  for (int i = 0; i < nstep; i++) {
    mc_step(m, d);
  }

  // the same point
  double* x = malloc(sizeof(double) * (size_t)(m->nq + m->nv + 1));
  readArray(ref, "qpos", x, m->nq);
  double dq = 0;
  for (int i = 0; i < m->nq; i++) {
    dq = fmax(dq, fabs(x[i] - d->qpos[i]));
  }
  readArray(ref, "qvel", x, m->nv);
  for (int i = 0; i < m->nv; i++) {
    dq = fmax(dq, fabs(x[i] - d->qvel[i]));
  }
  free(x);
  cr_assert(dq < 1e-9, "%s: the states after %d steps differ by %g", name, nstep, dq);

  // the matrices
  FdMats got, want;
  fd_alloc(&got, m->nv, m->na, m->nu, m->nsensordata);
  fd_alloc(&want, m->nv, m->na, m->nu, m->nsensordata);
  cr_assert_eq(mcd_transitionFD(m, d, 1e-6, centered, got.A, got.B, got.C, got.D), 0, "%s", name);
  int n[4] = {got.ndx * got.ndx, got.ndx * got.nu, got.ns * got.ndx, got.ns * got.nu};
  double* gm[4] = {got.A, got.B, got.C, got.D};
  double* wm[4] = {want.A, want.B, want.C, want.D};
  const char* names[4] = {"A", "B", "C", "D"};
  for (int k = 0; k < 4; k++) {
    // D: against 3.14's steps (its centered mjd_transitionFD flips the sign of the acc-stage
    // sensors' D); how far its mjd_transitionFD is, printed
    if (k == 3) {
      readArray(ref, "D", wm[k], n[k]);
      printf("MuJoCo 3.14's own mjd_transitionFD %s %s D: %.2e from ours\n", name,
             centered ? "centered" : "forward ", matErr(gm[k], wm[k], n[k]));
    }
    readArray(ref, k == 3 ? "D_steps" : names[k], wm[k], n[k]);
    double e = matErr(gm[k], wm[k], n[k]);
    printf("agreement with MuJoCo 3.14 %-24s %s %s: %.2e (tolerance %.0e)\n", name,
           centered ? "centered" : "forward ", names[k], e, tol);
    cr_expect(e <= tol, "%s %s: %s differs from MuJoCo 3.14 by %g of its largest entry", name,
              centered ? "centered" : "forward", names[k], e);
  }
  fd_free(&got);
  fd_free(&want);
  mc_deleteData(d);
  mc_deleteModel(m);
  cJSON_Delete(ref);
  removeModel(path);
}


Test(transition_mujoco3, smooth_every_integrator) {
  TU_MJS314_REQUIRE();
  // 3.14's mjd_transitionFD refuses RK4 ("RK4 integrator is not supported")
  static const char* const integrators[3] = {"Euler", "implicit", "implicitfast"};
  for (int k = 0; k < 3; k++) {
    for (int centered = 0; centered < 2; centered++) {
      char path[128], name[64];
      writeModel(kArm, integrators[k], path, sizeof(path));
      snprintf(name, sizeof(name), "arm %s", integrators[k]);
      compare(name, path, NSTEP, centered, 1e-6);
    }
  }
}


Test(transition_mujoco3, contacts) {
  TU_MJS314_REQUIRE();
  static const char* const integrators[2] = {"Euler", "implicitfast"};
  for (int k = 0; k < 2; k++) {
    char path[128], name[64];
    writeModel(kContact, integrators[k], path, sizeof(path));
    snprintf(name, sizeof(name), "contact %s", integrators[k]);
    compare(name, path, NSTEP, 1, 1e-4);
  }
}
