// dcmotor against the seed's closed forms (stall torque, no-load speed, ZOH stability) and its
// attribute errors.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <moduco/moduco.h>


// a one-hinge model with the given dcmotor attributes
static mcModel* motorModel(const char* attrs, char* err, int err_sz) {
  char xml[2048];
  snprintf(xml, sizeof(xml),
           "<mujoco><option timestep='0.001'/><worldbody><body><joint name='j' axis='0 0 1'/>"
           "<geom size='.1' mass='1'/></body></worldbody><actuator><dcmotor joint='j' %s/>"
           "</actuator></mujoco>", attrs);
  return mc_loadXMLString(xml, NULL, err, err_sz);
}


Test(dcmotor, stall_torque_and_slope) {
  char err[512] = "";
  mcModel* m = motorModel("resistance='2' motorconst='0.5'", err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  d->ctrl[0] = 12;
  mc_forward(m, d);
  cr_expect(fabs(d->actuator_force[0] - 0.5 * 12 / 2) < 1e-12, "stall %.15g", d->actuator_force[0]);
  d->qvel[0] = 3;
  mc_forward(m, d);
  cr_expect(fabs(d->actuator_force[0] - 0.5 / 2 * (12 - 0.5 * 3)) < 1e-12);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(dcmotor, nominal_resolution_and_saturation) {
  char err[512] = "";
  // K = v/w0 = 24/100, R = K v / tau0 = 0.24*24/2
  mcModel* m = motorModel("nominal='24 2 100' saturation='0 3'", err, sizeof(err));
  cr_assert(m, "%s", err);
  cr_expect(fabs(m->actuator_gainprm[1] - 0.24) < 1e-15);
  cr_expect(fabs(m->actuator_gainprm[0] - 0.24 * 24 / 2) < 1e-15);
  cr_expect(fabs(m->actuator_forcerange[1] - 0.24 * 3) < 1e-15);
  mcData* d = mc_makeData(m);
  d->ctrl[0] = 24;
  mc_forward(m, d);
  cr_expect(fabs(d->actuator_force[0] - 0.72) < 1e-12, "clamped %.15g", d->actuator_force[0]);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(dcmotor, no_load_speed_with_drag) {
  char err[512] = "";
  mcModel* m = motorModel("resistance='1' motorconst='0.1' damping='0.01'", err, sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  double v = 6, K = 0.1, R = 1, B = 0.01, w0 = v * K / (K * K + R * B);
  d->ctrl[0] = v;
  d->qvel[0] = w0;
  mc_forward(m, d);
  cr_expect(fabs(d->actuator_force[0]) < 1e-12, "net torque at w0: %.3g", d->actuator_force[0]);
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(dcmotor, state_order_table18) {
  char err[512] = "";
  mcModel* m = motorModel("resistance='1' motorconst='0.1' inductance='0 0.002' "
                          "thermal='2 10 0 0.0039 25 25' lugre='1e3 0.1 0.1 0.2 0.05' "
                          "input='position' controller='5 1 0.1 2 1 12'", err, sizeof(err));
  cr_assert(m, "%s", err);
  cr_expect_eq(m->na, 5);
  mcData* d = mc_makeData(m);
  for (int s = 0; s < 2000; s++) {
    d->ctrl[0] = 1;
    mc_step(m, d);
  }
  for (int k = 0; k < 5; k++) {
    cr_expect(isfinite(d->act[k]), "act[%d]", k);
  }
  cr_expect(fabs(d->act[0] - 1) < 1e-12, "slew state reached the setpoint");
  mc_deleteData(d);
  mc_deleteModel(m);
}


Test(dcmotor, zoh_stable_where_euler_diverges) {
  // sigma0 = 1e6, h = 1 ms, constant velocity: z -> g(w)/sigma0 sgn(w)
  char err[512] = "";
  mcModel* m = motorModel("resistance='1' motorconst='0.1' lugre='1e6 0 0.1 0.1 0'", err,
                          sizeof(err));
  cr_assert(m, "%s", err);
  mcData* d = mc_makeData(m);
  for (int s = 0; s < 50; s++) {
    d->qvel[0] = 2;
    mc_step(m, d);
  }
  cr_expect(fabs(d->act[0] - 0.1 / 1e6) < 1e-12, "z %.6g", d->act[0]);
  mc_deleteData(d);
  mc_deleteModel(m);
}


// every bad combination names its attribute with file:line
Test(dcmotor, errors_name_the_attribute) {
  const char* cases[][2] = {
    {"motorconst='0.1'", "resistance"},
    {"resistance='1'", "motorconst"},
    {"resistance='1' motorconst='0.1' nominal='24 0 100'", "motorconst"},
    {"resistance='-1' motorconst='0.1'", "resistance"},
    {"resistance='1' motorconst='0.1 x'", "motorconst"},
    {"resistance='1' motorconst='0.1 0.2 0.3'", "motorconst"},
    {"resistance='1' motorconst='0.1' saturation='1 2'", "saturation"},
    {"resistance='1' motorconst='0.1' inductance='0.1 0.2'", "inductance"},
    {"resistance='1' motorconst='0.1' thermal='2'", "thermal"},
    {"resistance='1' motorconst='0.1' input='torque'", "input"},
    {"resistance='1' motorconst='0.1' controller='1'", "controller"},
    {"resistance='1' motorconst='0.1' input='position'", "kp"},
    {"resistance='1' motorconst='0.1' lugre='1e5 0 0.2 0.1 0'", "lugre"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char err[512] = "";
    mcModel* m = motorModel(cases[i][0], err, sizeof(err));
    cr_expect(!m, "accepted: %s", cases[i][0]);
    cr_expect(strstr(err, cases[i][1]) != NULL, "'%s': message '%s' lacks '%s'", cases[i][0],
              err, cases[i][1]);
    cr_expect(strstr(err, ":1:") != NULL || strstr(err, "line") != NULL, "no line: %s", err);
    mc_deleteModel(m);
  }
}
