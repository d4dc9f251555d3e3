// Checks of Moduco features MuJoCo 2.2.2 lacks, against closed-form references.
#include <math.h>
#include <stdio.h>

#include <criterion/criterion.h>

#include <moduco/moduco.h>

static const char kFilterExact[] =
  "<mujoco model=\"filterexact\">\n"
  "  <worldbody>\n"
  "    <body pos=\"0 0 1\">\n"
  "      <joint name=\"j\" type=\"hinge\" axis=\"0 1 0\"/>\n"
  "      <geom type=\"sphere\" size=\"0.1\" contype=\"0\" conaffinity=\"0\"/>\n"
  "    </body>\n"
  "  </worldbody>\n"
  "  <actuator>\n"
  "    <general joint=\"j\" dyntype=\"filterexact\" dynprm=\"0.05\"/>\n"
  "  </actuator>\n"
  "</mujoco>\n";


// filterexact: act(t+h) = ctrl + (act(t) - ctrl) * exp(-h / tau), step after step
Test(moduco_only, filterexact_activation) {
  char error[1024] = "";
  mcModel* m = mc_loadXMLString(kFilterExact, NULL, error, sizeof(error));
  cr_assert_not_null(m, "%s", error);
  cr_assert_eq(m->na, 1);
  mcData* d = mc_makeData(m);
  double h = m->opt.timestep, tau = 0.05, ctrl = 0.8, act = -0.3;
  d->act[0] = act;
  d->ctrl[0] = ctrl;
  for (int i = 0; i < 50; i++) {
    mc_step(m, d);
    act = ctrl + (act - ctrl) * exp(-h / tau);
    cr_assert(fabs(d->act[0] - act) <= 1e-12, "step %d: act %.17g, expected %.17g", i + 1,
              d->act[0], act);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
}
