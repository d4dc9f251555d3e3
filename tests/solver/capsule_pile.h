// Moduco solver tests: a pile of free capsule chains dropped on a plane at staggered heights and
// turns, so that the constraint solver sees many contacts and changing active sets.
#ifndef MODUCO_TESTS_SOLVER_CAPSULE_PILE_H_
#define MODUCO_TESTS_SOLVER_CAPSULE_PILE_H_

#ifndef ROLLOUT_PLAIN
#include <criterion/criterion.h>
#endif
#include <stdio.h>

#include <moduco/moduco.h>

// nbody chains of two capsules on a limited hinge (a third link, a sphere on a vertical hinge, when
// sphere is nonzero); option: the attributes of <option>
static mcModel* capsulePile(const char* option, int nbody, int sphere) {
  char xml[8192];
  int n = snprintf(xml, sizeof(xml), "<mujoco>\n<option %s/>\n<worldbody>\n"
                   "<geom type=\"plane\" size=\"5 5 0.1\"/>\n", option);
  for (int b = 0; b < nbody; b++) {
    n += snprintf(xml + n, sizeof(xml) - (size_t)n,
                  "<body pos=\"%g %g %g\" euler=\"%d %d 0\"><freejoint/>"
                  "<geom type=\"capsule\" size=\"0.05\" fromto=\"0 0 0 0.3 0 0\"/>"
                  "<body pos=\"0.3 0 0\"><joint type=\"hinge\" axis=\"0 1 0\" range=\"-60 60\"/>"
                  "<geom type=\"capsule\" size=\"0.04\" fromto=\"0 0 0 0.25 0 0\"/>%s</body>"
                  "</body>\n",
                  0.1 * (b % 3), 0.15 * (b / 3), 0.2 + 0.25 * b, 20 * b, 35 * b,
                  sphere ? "<body pos=\"0.25 0 0\"><joint type=\"hinge\" axis=\"0 0 1\"/>"
                           "<geom type=\"sphere\" size=\"0.06\"/></body>" : "");
  }
  snprintf(xml + n, sizeof(xml) - (size_t)n, "</worldbody>\n</mujoco>\n");
  char error[1024] = "";
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  cr_assert(m, "load: %s", error);
  return m;
}

#endif  // MODUCO_TESTS_SOLVER_CAPSULE_PILE_H_
