// Shared by the ipm suites: a step under the plugin check mode (docs/plugins.md section 17) that
// fails the test on any failure of ipm's results, but for the one documented in docs/dojo.md
// ("Check mode"), which it verifies instead. Include after criterion, math and moduco.
#ifndef MODUCO_TESTS_SOLVER_TEST_IPM_CHECK_H_
#define MODUCO_TESTS_SOLVER_TEST_IPM_CHECK_H_

// the one check failure ipm cannot avoid (docs/dojo.md, "Check mode"): on pyramidal rows, an
// exact-cone force outside the pyramid (sum_k |f_k / mu_k| > fn) has no nonnegative edge forces.
// Verifies that every negative edge is such a contact, whose force (fn, f_k / mu_k = e+ - e-)
// lies in the exact cone, and that every SATISFIED row carries exactly no force
static void expectOnlyOutsidePyramid(const mcModel* m, const mcData* d) {
  cr_assert_eq(m->opt.cone, mcCONE_PYRAMIDAL, "t=%g: plugin check failure on an elliptic model",
               d->time);
  for (int i = 0; i < d->nefc; i++) {
    cr_assert(d->efc_state[i] != mcCNSTRSTATE_SATISFIED || d->efc_force[i] == 0,
              "t=%g: efc_force[%d] = %g on a SATISFIED row", d->time, i, d->efc_force[i]);
  }
  for (int c = 0; c < d->ncon; c++) {
    const mcContact* con = d->contact + c;
    if (con->efc_address < 0 || con->dim < 3) {
      continue;
    }
    const mcNum* e = d->efc_force + con->efc_address;
    double fn = 0, l1 = 0, l2 = 0, low = 0;
    for (int k = 0; k < con->dim - 1; k++) {
      double g = e[2 * k] - e[2 * k + 1];
      fn += e[2 * k] + e[2 * k + 1];
      l1 += fabs(g);
      l2 += g * g;
      low = fmin(low, fmin(e[2 * k], e[2 * k + 1]));
    }
    if (low < 0) {
      cr_assert(l1 > fn, "t=%g: contact %d: negative edge %g inside the pyramid (fn %g, "
                "sum |f_k / mu_k| %g)", d->time, c, low, fn, l1);
      cr_assert(sqrt(l2) <= fn * (1 + 1e-8), "t=%g: contact %d: |f_t / mu| %g outside the exact "
                "cone (fn %g)", d->time, c, sqrt(l2), fn);
    }
  }
}


// one step under the plugin check mode: every result ipm returns must pass it (on pyramidal rows,
// but for the case above), and so must the integrator's. othersOk: failures of other plugins
// (collision) are not these suites' (the solver's and the integrator's checks run after
// collision, so a step whose last failure is a collision's has none of theirs)
static void checkedStep(const mcModel* m, mcData* d, int othersOk) {
  int nfail = d->warning[mcWARN_PLUGINCHECK].number;
  mc_setPluginCheck(d, 1);
  mc_step(m, d);
  if (d->warning[mcWARN_PLUGINCHECK].number != nfail) {
    int who = d->warning[mcWARN_PLUGINCHECK].lastinfo;
    if (!othersOk || who == mcTIMERPLUGIN_SOLVER || who == mcTIMERPLUGIN_INTEGRATOR) {
      cr_assert_eq(who, mcTIMERPLUGIN_SOLVER, "t=%g: a plugin check failure not about the "
                   "solver (the message above names it)", d->time);
      expectOnlyOutsidePyramid(m, d);
    }
  }
}

#endif  // MODUCO_TESTS_SOLVER_TEST_IPM_CHECK_H_
