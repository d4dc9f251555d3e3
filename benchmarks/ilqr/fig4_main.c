// moduco-fig4: the Dojo paper's Fig. 4 experiment with Moduco's ipm. A 1 kg box (0.2 m cube,
// friction 0.5, so static friction holds up to mu m g = 4.9 N) rests on a plane; a horizontal
// force f is applied for the horizon (10 steps of 0.01 s); the displacement Delta = x_T - x_0 and
// its gradient d Delta / d f are printed for f = 0 ... 20 N:
//   - the step simulated with ipm at its default tolerance (kappa_tol 1e-8) and at kappa_tol
//     5e-4 (kappa floor 1e-4), to show what the smoothing costs in accuracy;
//   - the gradient chained through finite-difference Jacobians (mcd_transitionFD, centered),
//   - the rollout's own finite difference (Delta(f + 1e-3) - Delta(f - 1e-3)) / 2e-3,
//   - the gradient chained through implicit Jacobians (mcd_transitionImplicit) at kappa = 1e-4,
//     1e-6 and 1e-8, each on the trajectory simulated at that kappa.
// The chain: g_0 = 0, g_{t+1} = A_t g_t + B_t e_x (the same f at every step), Delta' = g_T[x].
//
//   moduco-fig4 [--steps N] [--df F]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/moduco.h>

#define NKAPPA 3

static const double kKappa[NKAPPA] = {1e-4, 1e-6, 1e-8};


// the planar box (slide x, slide z, hinge y; motor on x) under ipm with the given kappa_tol
static mcModel* boxModel(double kappa_tol) {
  char xml[2048], err[1024];
  snprintf(xml, sizeof(xml),
           "<mujoco><option timestep='0.01' cone='elliptic' solver='ipm'/>"
           "<extension><plugin plugin='ipm'><config key='kappa_tol' value='%g'/>"
           "<config key='residual_tol' value='1e-10'/></plugin></extension><worldbody>"
           "<geom type='plane' size='50 50 0.1' friction='0.5' margin='0.01'/>"
           "<body pos='0 0 0.1'><joint name='x' type='slide' axis='1 0 0'/>"
           "<joint type='slide' axis='0 0 1'/><joint type='hinge' axis='0 1 0'/>"
           "<geom type='box' size='0.1 0.1 0.1' mass='1' friction='0.5' margin='0.01'/></body>"
           "</worldbody><actuator><motor joint='x'/></actuator></mujoco>",
           kappa_tol);
  mcModel* m = mc_loadXMLString(xml, NULL, err, sizeof(err));
  if (!m) {
    fprintf(stderr, "moduco-fig4: %s\n", err);
  }
  return m;
}


// settle the box for 50 steps without force, then apply f for nstep steps; return Delta. With
// mode 1 (FD) or 2 (implicit at kappa) also chain the gradient into *grad.
static double push(const mcModel* m, mcData* d, double f, int nstep, int mode, double kappa,
                   double* grad) {
  int ndx = 2 * m->nv + m->na;
  double A[36], B[6], g[6] = {0}, gn[6];
  mc_resetData(m, d);
  for (int t = 0; t < 50; t++) {
    mc_step(m, d);
  }
  double x0 = d->qpos[0];
  for (int t = 0; t < nstep; t++) {
    d->ctrl[0] = f;
    if (mode == 1) {
      mcd_transitionFD(m, d, 1e-6, 1, A, B, NULL, NULL);
    } else if (mode == 2) {
      mcd_transitionImplicit(m, d, 1e-6, kappa, A, B);
    }
    if (mode) {
      for (int i = 0; i < ndx; i++) {
        gn[i] = B[i];
        for (int j = 0; j < ndx; j++) {
          gn[i] += A[i * ndx + j] * g[j];
        }
      }
      memcpy(g, gn, sizeof(g));
    }
    mc_step(m, d);
  }
  if (grad) {
    *grad = g[0];
  }
  return d->qpos[0] - x0;
}


int main(int argc, char** argv) {
  int nstep = 10;
  double df = 1e-3;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc) {
      nstep = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--df") && i + 1 < argc) {
      df = atof(argv[++i]);
    } else {
      fprintf(stderr, "usage: moduco-fig4 [--steps N] [--df F]\n");
      return 2;
    }
  }
  if (nstep < 1 || !(df > 0)) {
    fprintf(stderr, "moduco-fig4: --steps must be positive, --df positive\n");
    return 2;
  }
  mcModel* mk[NKAPPA];
  mcData* dk[NKAPPA];
  for (int k = 0; k < NKAPPA; k++) {
    mk[k] = boxModel(5 * kKappa[k]);
    if (!mk[k]) {
      return 1;
    }
    dk[k] = mc_makeData(mk[k]);
  }
  mcModel* m = boxModel(1e-8);    // ipm's default tolerance: the reference simulation
  mcData* d = m ? mc_makeData(m) : NULL;
  if (!d) {
    return 1;
  }
  printf("| f (N) | Delta (m), kappa_tol 1e-8 | Delta (m), kappa 1e-4 | FD chain | rollout FD | "
         "implicit 1e-4 | implicit 1e-6 | implicit 1e-8 |\n");
  printf("|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i <= 40; i++) {
    double f = 0.5 * i, gfd, gim[NKAPPA], delta4 = 0;
    double delta = push(m, d, f, nstep, 1, 0, &gfd);
    double roll = (push(m, d, f + df, nstep, 0, 0, NULL) - push(m, d, f - df, nstep, 0, 0, NULL)) /
                  (2 * df);
    for (int k = 0; k < NKAPPA; k++) {
      double dl = push(mk[k], dk[k], f, nstep, 2, kKappa[k], gim + k);
      if (k == 0) {
        delta4 = dl;
      }
    }
    printf("| %.1f | %.4e | %.4e | %.4e | %.4e | %.4e | %.4e | %.4e |\n", f, delta, delta4, gfd,
           roll, gim[0], gim[1], gim[2]);
  }
  for (int k = 0; k < NKAPPA; k++) {
    mc_deleteData(dk[k]);
    mc_deleteModel(mk[k]);
  }
  mc_deleteData(d);
  mc_deleteModel(m);
  return 0;
}
