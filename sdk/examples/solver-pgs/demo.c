// Runs a stack of boxes on a plane with <option solver="example.pgs"/> and with the built-in
// "PGS", on the dense and on the sparse Jacobian, and compares them: contact forces after one
// forward at the settled state, and the trajectories over one second. Exit status 0 when the
// plugin was used and agrees with the built-in solver to 1e-4 (relative), as the built-in PGS
// agrees with MuJoCo's. Then once more with the solver's "relaxation" set to 0.8 in the model
// (<extension><plugin plugin="example.pgs"><config .../>): the value must reach the solver (another
// residual than with 1.0 after the same sweeps) and the result must still agree. (On this stack
// under-relaxation converges faster; 1.5 is ten times further from the solution after 400 sweeps.)
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>

static const char* kModel =
  "<mujoco>\n%s"
  "  <option timestep='0.005' solver='%s' jacobian='%s' iterations='400' tolerance='1e-15'/>\n"
  "  <worldbody>\n"
  "    <geom type='plane' size='2 2 0.1'/>\n"
  "    <body pos='0 0 0.1'><freejoint/><geom type='box' size='0.1 0.1 0.1'/></body>\n"
  "    <body pos='0.01 0 0.3'><freejoint/><geom type='box' size='0.1 0.1 0.1'/></body>\n"
  "    <body pos='0 0.01 0.5'><freejoint/><geom type='box' size='0.1 0.1 0.1'/></body>\n"
  "  </worldbody>\n"
  "</mujoco>\n";

#define NSTEP 200


typedef struct {
  double qpos[21];
  double force[400];
  int nefc, iter;
  double residual;
} Run;


// load, step, and keep the final positions and the forces of the last forward
static int run(const char* solver, const char* jacobian, const char* relaxation, Run* out) {
  char xml[2048], extension[256] = "", error[1024];
  if (relaxation) {
    snprintf(extension, sizeof(extension), "  <extension><plugin plugin='example.pgs'>"
             "<config key='relaxation' value='%s'/></plugin></extension>\n", relaxation);
  }
  snprintf(xml, sizeof(xml), kModel, extension, solver, jacobian);
  mcModel* m = mc_loadXMLString(xml, NULL, error, sizeof(error));
  if (!m) {
    fprintf(stderr, "%s: %s\n", solver, error);
    return -1;
  }
  mcData* d = mc_makeData(m);
  for (int i = 0; i < NSTEP; i++) {
    mc_step(m, d);
  }
  mc_forward(m, d);
  memcpy(out->qpos, d->qpos, sizeof(double) * (size_t)m->nq);
  out->nefc = d->nefc < 400 ? d->nefc : 400;
  memcpy(out->force, d->efc_force, sizeof(double) * (size_t)out->nefc);
  out->iter = d->solver_iter;
  mcNum parts[3];
  mcNum r = mc_solverResidual(m, d, parts);
  out->residual = r;
  printf("%-12s %-6s nefc %3d iter %3d residual %.2e (dynamics %.1e feasibility %.1e "
         "optimality %.1e)\n", solver, jacobian, d->nefc, d->solver_iter, r, parts[0], parts[1],
         parts[2]);
  mc_deleteData(d);
  mc_deleteModel(m);
  return 0;
}


// largest difference relative to max(1, |reference|)
static double relErr(const double* a, const double* b, int n) {
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double e = fabs(a[i] - b[i]) / fmax(1, fabs(b[i]));
    worst = e > worst || isnan(e) ? e : worst;
  }
  return worst;
}


int main(void) {
  int status = 0;
  const char* jac[2] = {"dense", "sparse"};
  for (int j = 0; j < 2; j++) {
    Run ex, ref;
    if (run("example.pgs", jac[j], NULL, &ex) || run("PGS", jac[j], NULL, &ref)) {
      return 1;
    }
    double ef = ex.nefc == ref.nefc ? relErr(ex.force, ref.force, ref.nefc) : INFINITY;
    double eq = relErr(ex.qpos, ref.qpos, 21);
    printf("%s: nefc %d, efc_force difference %.2e, qpos difference %.2e\n", jac[j], ref.nefc,
           ef, eq);
    if (!(ef <= 1e-4 && eq <= 1e-4) || ex.nefc == 0) {
      status = 2;
    }

    // relaxation 0.8 from the model file: another sweep, the same answer
    Run rx;
    if (run("example.pgs", jac[j], "0.8", &rx)) {
      return 1;
    }
    ef = rx.nefc == ref.nefc ? relErr(rx.force, ref.force, ref.nefc) : INFINITY;
    eq = relErr(rx.qpos, ref.qpos, 21);
    printf("%s, relaxation 0.8: residual %.2e (1.0: %.2e), efc_force difference %.2e, qpos "
           "difference %.2e\n", jac[j], rx.residual, ex.residual, ef, eq);
    if (!(ef <= 1e-4 && eq <= 1e-4) || rx.residual == ex.residual) {
      status = 2;
    }
  }
  return status;
}
