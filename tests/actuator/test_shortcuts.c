// MuJoCo 3 semantics of the position/intvelocity shortcuts' dampratio and inheritrange (MuJoCo
// 2.2.2, the oracle elsewhere, predates them): kv = dampratio 2 sqrt(kp m_reflected) with
// m_reflected = sum_dof M0 / moment^2 at qpos0; ctrlrange (actrange) = midpoint +- inheritrange
// half-width of the target's range.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <moduco/moduco.h>


static mcModel* load(const char* actuators, char* err, int err_sz) {
  char xml[2048];
  snprintf(xml, sizeof(xml),
           "<mujoco><compiler angle='radian'/><worldbody><body><joint name='j' axis='0 0 1' "
           "range='-0.5 1.5' limited='true' armature='0.1'/><geom type='box' size='.1 .2 .3' "
           "mass='2'/><body pos='0.5 0 0'><joint name='s' type='slide' axis='1 0 0'/>"
           "<geom size='.1' mass='1'/></body></body></worldbody><actuator>%s</actuator>"
           "</mujoco>", actuators);
  return mc_loadXMLString(xml, NULL, err, err_sz);
}


Test(shortcuts, dampratio_position_and_intvelocity) {
  char err[512] = "";
  mcModel* m = load("<position joint='j' kp='30' dampratio='0.7' gear='3'/>"
                    "<intvelocity joint='s' kp='5' dampratio='1' actrange='-1 1'/>"
                    "<position joint='j' kp='30' kv='2'/>", err, sizeof(err));
  cr_assert(m, "%s", err);
  double kv0 = 0.7 * 2 * sqrt(30 * m->dof_M0[0] / 9);
  double kv1 = 1 * 2 * sqrt(5 * m->dof_M0[1]);
  cr_expect(fabs(m->actuator_biasprm[2] + kv0) < 1e-12 * kv0, "kv %.15g vs %.15g",
            -m->actuator_biasprm[2], kv0);
  cr_expect(fabs(m->actuator_biasprm[mcNBIAS + 2] + kv1) < 1e-12 * kv1, "kv %.15g vs %.15g",
            -m->actuator_biasprm[mcNBIAS + 2], kv1);
  cr_expect_eq(m->actuator_biasprm[2 * mcNBIAS + 2], -2);
  mc_deleteModel(m);

  // a default class carries the ratio; kv on the element replaces it
  m = mc_loadXMLString("<mujoco><default><position kp='10' dampratio='1'/></default><worldbody>"
                       "<body><joint name='j' axis='0 0 1'/><geom size='.1' mass='1'/></body>"
                       "</worldbody><actuator><position joint='j'/><position joint='j' kv='3'/>"
                       "</actuator></mujoco>", NULL, err, sizeof(err));
  cr_assert(m, "%s", err);
  double kv = 2 * sqrt(10 * m->dof_M0[0]);
  cr_expect(fabs(m->actuator_biasprm[2] + kv) < 1e-12 * kv);
  cr_expect_eq(m->actuator_biasprm[mcNBIAS + 2], -3);
  mc_deleteModel(m);
}


Test(shortcuts, inheritrange) {
  char err[512] = "";
  mcModel* m = load("<position joint='j' kp='1' inheritrange='1'/>"
                    "<position joint='j' kp='1' inheritrange='0.5'/>"
                    "<intvelocity joint='j' kp='1' inheritrange='2'/>", err, sizeof(err));
  cr_assert(m, "%s", err);
  cr_expect(m->actuator_ctrllimited[0] && m->actuator_ctrllimited[1]);
  cr_expect(fabs(m->actuator_ctrlrange[0] + 0.5) < 1e-15 && fabs(m->actuator_ctrlrange[1] - 1.5) <
            1e-15);
  cr_expect(fabs(m->actuator_ctrlrange[2] - 0) < 1e-15 && fabs(m->actuator_ctrlrange[3] - 1) <
            1e-15);
  cr_expect(m->actuator_actlimited[2]);
  cr_expect(fabs(m->actuator_actrange[4] + 1.5) < 1e-15 && fabs(m->actuator_actrange[5] - 2.5) <
            1e-15);
  mc_deleteModel(m);
}


Test(shortcuts, bad_dampratio_and_inheritrange) {
  const char* cases[][2] = {
    {"<position joint='j' kp='1' kv='1' dampratio='1'/>", "dampratio"},
    {"<position joint='j' kp='1' dampratio='-1'/>", "dampratio"},
    {"<position joint='j' kp='1' inheritrange='-1'/>", "inheritrange"},
    {"<position joint='j' kp='1' inheritrange='1' ctrlrange='0 1'/>", "ctrlrange"},
    {"<position joint='s' kp='1' inheritrange='1'/>", "range"},
    {"<position site='x' kp='1' inheritrange='1'/>", "x"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char err[512] = "";
    mcModel* m = load(cases[i][0], err, sizeof(err));
    cr_expect(!m, "accepted: %s", cases[i][0]);
    cr_expect(strstr(err, cases[i][1]) != NULL, "'%s': '%s' lacks '%s'", cases[i][0], err,
              cases[i][1]);
    mc_deleteModel(m);
  }
}
