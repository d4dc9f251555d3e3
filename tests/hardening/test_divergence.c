// Divergence and warnings: NaN/Inf/huge values injected into ctrl, qfrc_applied, xfrc_applied,
// qpos or qvel give a clean reset and one warning naming the dof/actuator and the time; never NaN
// in the state. mcDSBL_AUTORESET leaves the state alone but still warns. A user handler receives
// the messages. A bad ctrl zeroes all controls (no reset).
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>

#include "common.h"

static const mcNum kBad[] = {NAN, INFINITY, -INFINITY, 1e11, -1e300};
#define NBAD ((int)(sizeof(kBad) / sizeof(kBad[0])))


// a humanoid that has stepped a little (contacts, nonzero warmstart)
static mcData* warmData(const mcModel* m) {
  mcData* d = mc_makeData(m);
  cr_assert_not_null(d);
  hardRun(m, d, 20);
  return d;
}


// the data looks freshly reset and stepped once: time is one step, nothing non-finite
static void expectResetStep(const mcModel* m, const mcData* d, const char* what) {
  cr_expect(!hardHasNonFinite(m, d), "%s: non-finite state after the step", what);
  cr_expect_eq(d->time, m->opt.timestep, "%s: time %g, expected one step after a reset", what,
               d->time);
}


// inject into qpos[i]: BADQPOS with info i, message names the dof and the time
Test(divergence, bad_qpos_resets_and_warns) {
  mcModel* m = hardLoad("models/humanoid.xml");
  for (int b = 0; b < NBAD; b++) {
    mcData* d = warmData(m);
    mcNum t = d->time;
    int i = 9;
    d->qpos[i] = kBad[b];
    hardCaptureBegin();
    mc_step(m, d);
    hardCaptureEnd();
    cr_expect_eq(d->warning[mcWARN_BADQPOS].number, 1);
    cr_expect_eq(d->warning[mcWARN_BADQPOS].lastinfo, i);
    expectResetStep(m, d, "qpos");
    cr_expect_eq(hardCaptureCount(), 1);
    char want[128];
    snprintf(want, sizeof(want), "Time = %.4f", t);
    cr_expect_eq(hardCaptureCountWith("QPOS at DOF 9"), 1, "got '%s'", hardCaptureMessage(0));
    cr_expect_eq(hardCaptureCountWith(want), 1, "got '%s'", hardCaptureMessage(0));
    mc_deleteData(d);
  }
  mc_deleteModel(m);
}


Test(divergence, bad_qvel_resets_and_warns) {
  mcModel* m = hardLoad("models/humanoid.xml");
  for (int b = 0; b < NBAD; b++) {
    mcData* d = warmData(m);
    d->qvel[4] = kBad[b];
    hardCaptureBegin();
    mc_step(m, d);
    hardCaptureEnd();
    cr_expect_eq(d->warning[mcWARN_BADQVEL].number, 1);
    cr_expect_eq(d->warning[mcWARN_BADQVEL].lastinfo, 4);
    expectResetStep(m, d, "qvel");
    cr_expect_eq(hardCaptureCountWith("QVEL at DOF 4"), 1, "got '%s'", hardCaptureMessage(0));
    cr_expect_eq(hardCaptureCountWith("Time = "), 1);
    mc_deleteData(d);
  }
  mc_deleteModel(m);
}


// a bad applied force makes qacc bad: BADQACC, reset, no NaN left anywhere in the inputs
Test(divergence, bad_qfrc_applied_resets_and_warns) {
  mcModel* m = hardLoad("models/humanoid.xml");
  for (int b = 0; b < NBAD; b++) {
    if (isfinite(kBad[b]) && fabs(kBad[b]) < 1e200) {
      continue;                   // a merely large force is legal input
    }
    mcData* d = warmData(m);
    d->qfrc_applied[7] = kBad[b];
    hardCaptureBegin();
    mc_step(m, d);
    hardCaptureEnd();
    cr_expect_eq(d->warning[mcWARN_BADQACC].number, 1, "value %g", kBad[b]);
    expectResetStep(m, d, "qfrc_applied");
    cr_expect_eq(d->qfrc_applied[7], 0.0);
    cr_expect_eq(hardCaptureCountWith("QACC at DOF"), 1, "got '%s'", hardCaptureMessage(0));
    mc_deleteData(d);
  }
  mc_deleteModel(m);
}


Test(divergence, bad_xfrc_applied_resets_and_warns) {
  mcModel* m = hardLoad("models/humanoid.xml");
  for (int b = 0; b < NBAD; b++) {
    if (isfinite(kBad[b]) && fabs(kBad[b]) < 1e200) {
      continue;
    }
    mcData* d = warmData(m);
    d->xfrc_applied[6 * 2 + 4] = kBad[b];
    hardCaptureBegin();
    mc_step(m, d);
    hardCaptureEnd();
    cr_expect_eq(d->warning[mcWARN_BADQACC].number, 1, "value %g", kBad[b]);
    expectResetStep(m, d, "xfrc_applied");
    cr_expect_eq(d->xfrc_applied[6 * 2 + 4], 0.0);
    mc_deleteData(d);
  }
  mc_deleteModel(m);
}


// a bad control zeroes every control and warns with the actuator index; no reset
Test(divergence, bad_ctrl_zeroes_controls) {
  mcModel* m = hardLoad("models/humanoid.xml");
  cr_assert_gt(m->nu, 3);
  for (int b = 0; b < NBAD; b++) {
    mcData* d = warmData(m);
    mcNum t = d->time;
    for (int i = 0; i < m->nu; i++) {
      d->ctrl[i] = 0.5;
    }
    d->ctrl[3] = kBad[b];
    hardCaptureBegin();
    mc_step(m, d);
    hardCaptureEnd();
    cr_expect_eq(d->warning[mcWARN_BADCTRL].number, 1, "value %g", kBad[b]);
    cr_expect_eq(d->warning[mcWARN_BADCTRL].lastinfo, 3);
    for (int i = 0; i < m->nu; i++) {
      cr_expect_eq(d->ctrl[i], 0.0, "ctrl[%d] not zeroed", i);
    }
    cr_expect(!hardHasNonFinite(m, d));
    cr_expect_gt(d->time, t, "a bad control must not reset the simulation");
    cr_expect_eq(hardCaptureCountWith("CTRL at actuator 3"), 1, "got '%s'", hardCaptureMessage(0));
    mc_deleteData(d);
  }
  mc_deleteModel(m);
}


// the same warning repeated: counted every time, printed once
Test(divergence, warning_printed_once_counted_always) {
  mcModel* m = hardLoad("models/humanoid.xml");
  mcData* d = warmData(m);
  hardCaptureBegin();
  for (int k = 0; k < 5; k++) {
    d->qvel[k] = NAN;
    mc_step(m, d);
  }
  hardCaptureEnd();
  cr_expect_eq(d->warning[mcWARN_BADQVEL].number, 5);
  cr_expect_eq(d->warning[mcWARN_BADQVEL].lastinfo, 4);
  cr_expect_eq(hardCaptureCountWith("QVEL"), 1);
  cr_expect(!hardHasNonFinite(m, d));

  // a user reset clears the statistics, so the next occurrence is printed again
  mc_resetData(m, d);
  cr_expect_eq(d->warning[mcWARN_BADQVEL].number, 0);
  hardCaptureBegin();
  d->qvel[0] = NAN;
  mc_step(m, d);
  hardCaptureEnd();
  cr_expect_eq(hardCaptureCountWith("QVEL at DOF 0"), 1);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// autoreset disabled: warn, but leave the state alone (no reset); the library does not crash
Test(divergence, autoreset_disabled_warns_without_reset) {
  mcModel* m = hardLoad("models/humanoid.xml");
  m->opt.disableflags |= mcDSBL_AUTORESET;
  mcData* d = warmData(m);
  mcNum t = d->time;
  d->qvel[2] = NAN;
  hardCaptureBegin();
  mc_step(m, d);
  hardCaptureEnd();
  cr_expect_eq(d->warning[mcWARN_BADQVEL].number, 1);
  cr_expect_gt(d->time, t, "the data must not be reset");
  cr_expect(isnan(d->qvel[2]) || d->warning[mcWARN_BADQACC].number > 0,
            "the bad value must be left for the caller to see");
  cr_expect_geq(hardCaptureCountWith("QVEL at DOF 2"), 1);

  // stepping on with a NaN state keeps warning without crashing
  for (int k = 0; k < 10; k++) {
    mc_step(m, d);
  }
  cr_expect_geq(d->warning[mcWARN_BADQVEL].number, 1);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the flag can also come from MJCF
Test(divergence, autoreset_flag_from_mjcf) {
  mcModel* m = hardLoadString(
      "<mujoco><option><flag autoreset=\"disable\"/></option><worldbody><body>"
      "<joint type=\"slide\"/><geom size=\"0.1\"/></body></worldbody></mujoco>");
  cr_expect(m->opt.disableflags & mcDSBL_AUTORESET);
  mcData* d = mc_makeData(m);
  d->qpos[0] = INFINITY;
  hardCaptureBegin();
  mc_step(m, d);
  hardCaptureEnd();
  cr_expect_eq(d->warning[mcWARN_BADQPOS].number, 1);
  cr_expect_eq(d->time, m->opt.timestep);
  cr_expect(!isfinite(d->qpos[0]));
  mc_deleteData(d);
  mc_deleteModel(m);
}


// mc_step1/mc_step2 check as mc_step does
Test(divergence, step1_step2_check_too) {
  mcModel* m = hardLoad("models/humanoid.xml");
  mcData* d = warmData(m);
  d->qpos[8] = NAN;
  hardCaptureBegin();
  mc_step1(m, d);
  d->qfrc_applied[0] = NAN;
  mc_step2(m, d);
  hardCaptureEnd();
  cr_expect_eq(d->warning[mcWARN_BADQPOS].number, 1);
  cr_expect_eq(d->warning[mcWARN_BADQACC].number, 1);
  cr_expect(!hardHasNonFinite(m, d));
  mc_deleteData(d);
  mc_deleteModel(m);
}


// random injections into every input for many steps: never a non-finite state after a step (a
// force on the world body moves nothing and, as in MuJoCo, is not checked)
Test(divergence, random_injection_never_leaves_nan, .timeout = 300) {
  mcModel* m = hardLoad("models/humanoid.xml");
  mcData* d = mc_makeData(m);
  unsigned int seed = 12345;
  hardCaptureBegin();
  for (int k = 0; k < 400; k++) {
    hardControl(m, d);
    seed = seed * 1103515245u + 12345u;
    unsigned int r = seed >> 8;
    mcNum bad = kBad[r % NBAD];
    switch ((r / 8) % 8) {
    case 0: d->qpos[(r / 64) % (unsigned)m->nq] = bad; break;
    case 1: d->qvel[(r / 64) % (unsigned)m->nv] = bad; break;
    case 2: d->ctrl[(r / 64) % (unsigned)m->nu] = bad; break;
    case 3: d->qfrc_applied[(r / 64) % (unsigned)m->nv] = isfinite(bad) ? NAN : bad; break;
    case 4: d->xfrc_applied[6 + (r / 64) % (unsigned)(6 * (m->nbody - 1))] =
                isfinite(bad) ? NAN : bad;
            break;
    default: break;
    }
    mc_step(m, d);
    cr_assert(!hardHasNonFinite(m, d), "non-finite state after step %d", k);
    for (int i = 0; i < m->nv; i++) {
      cr_assert(isfinite(d->qfrc_applied[i]), "qfrc_applied[%d] left bad at step %d", i, k);
    }
    for (int i = 6; i < 6 * m->nbody; i++) {
      cr_assert(isfinite(d->xfrc_applied[i]), "xfrc_applied[%d] left bad at step %d", i, k);
    }
  }
  hardCaptureEnd();
  int printed = hardCaptureCount();
  cr_expect_leq(printed, 4, "each warning type is printed once (got %d messages)", printed);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// the warning texts name what users grep for
Test(divergence, warning_texts) {
  cr_expect(strstr(mc_warningText(mcWARN_BADQACC, 12), "QACC at DOF 12"));
  cr_expect(strstr(mc_warningText(mcWARN_BADCTRL, 2), "actuator 2"));
  cr_expect(strstr(mc_warningText(mcWARN_CONTACTFULL, 5), "memory"));
  cr_expect(strstr(mc_warningText(mcWARN_CNSTRFULL, 5), "memory"));
  cr_expect(strstr(mc_warningText(mcWARN_INERTIA, 1), "DOF 1"));
}


// an unknown warning type is reported, not a crash or out-of-bounds write
Test(divergence, unknown_warning_type) {
  mcModel* m = hardLoad("models/pendulum.xml");
  mcData* d = mc_makeData(m);
  hardCaptureBegin();
  mc_warning(d, -1, 0);
  mc_warning(d, mcNWARNING, 0);
  hardCaptureEnd();
  cr_expect_eq(hardCaptureCount(), 2);
  mc_deleteData(d);
  mc_deleteModel(m);
}
