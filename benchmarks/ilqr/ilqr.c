// Iterative LQR (ilqr.h): linearize the dynamics along the current trajectory with
// mcd_transitionFD (or mcd_transitionImplicit), solve the time-varying LQR subproblem backwards (Riccati recursion on the
// second-order expansion of the cost, Levenberg-Marquardt regularization of Quu), and roll the
// new feedback policy forward with a backtracking line search on the step of the feedforward
// term. Controls of limited actuators are clamped to their range in the rollouts. A goal
// constraint (IlqrProblem.goalTol) wraps this in an augmented-Lagrangian outer loop: each time
// the subproblem is solved (the LQR step promises less than tolerance x cost, or no step
// regularized up to kMuMax descends) the multipliers are updated and the penalty raised.
#include "ilqr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const double kMuMin = 1e-6, kMuMax = 1e10;  // Levenberg-Marquardt regularization range
static const double kMuReject = 1e-3;              // regularization at least after a rejection
static const double kRhoMax = 1e9;                 // goal-constraint penalty at most

typedef struct {
  const mcModel* m;
  mcData* d;
  const IlqrProblem* p;
  int T, nx, nu, nq;
  double *X, *U, *Xn, *Un;          // trajectories: (T+1) x nx, T x nu; candidates
  double *A, *B, *K, *k;            // T x nx*nx, T x nx*nu, T x nu*nx, T x nu
  double *Vx, *Vxx, *Qx, *Qu, *Qxx, *Quu, *Qux, *L, *tmp, *dx;
  double dV1, dV2;                  // expected cost change: alpha dV1 + alpha^2 dV2
  double *lam, rho;                 // goal constraint: multipliers (nx) and penalty; rho 0: none
} Ilqr;


static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}


// d at state x (time 0 counts from the reset) with control u
static void setState(Ilqr* s, const double* x, const double* u) {
  const mcModel* m = s->m;
  mcData* d = s->d;
  memcpy(d->qpos, x, sizeof(double) * m->nq);
  memcpy(d->qvel, x + m->nq, sizeof(double) * m->nv);
  memcpy(d->act, x + m->nq + m->nv, sizeof(double) * m->na);
  if (u) {
    memcpy(d->ctrl, u, sizeof(double) * m->nu);
  }
}


static void getState(Ilqr* s, double* x) {
  const mcModel* m = s->m;
  memcpy(x, s->d->qpos, sizeof(double) * m->nq);
  memcpy(x + m->nq, s->d->qvel, sizeof(double) * m->nv);
  memcpy(x + m->nq + m->nv, s->d->act, sizeof(double) * m->na);
}


// clamp control j of u to its range when limited
static void clampControls(const mcModel* m, double* u) {
  for (int j = 0; j < m->nu; j++) {
    if (m->actuator_ctrllimited[j]) {
      double lo = m->actuator_ctrlrange[2 * j], hi = m->actuator_ctrlrange[2 * j + 1];
      u[j] = u[j] < lo ? lo : u[j] > hi ? hi : u[j];
    }
  }
}


// weighted squared error 1/2 sum w_i (x_i - g_i)^2
static double quad(const double* w, const double* x, const double* g, int n) {
  double c = 0;
  for (int i = 0; i < n; i++) {
    c += 0.5 * w[i] * (x[i] - g[i]) * (x[i] - g[i]);
  }
  return c;
}


static double trajectoryCost(const Ilqr* s, const double* X, const double* U) {
  const IlqrProblem* p = s->p;
  double c = 0;
  for (int t = 0; t < s->T; t++) {
    c += quad(p->Q, X + t * s->nx, p->goal, s->nx);
    for (int j = 0; j < s->nu; j++) {
      c += 0.5 * p->R[j] * U[t * s->nu + j] * U[t * s->nu + j];
    }
  }
  c += quad(p->Qf, X + s->T * s->nx, p->goal, s->nx);
  if (p->Qmid) {
    c += quad(p->Qmid, X + p->tmid * s->nx, p->mid, s->nx);
  }
  return c;
}


// the augmented-Lagrangian term of the goal constraint c = x_T - goal: lam' c + rho/2 |c|^2
static double goalTerm(const Ilqr* s, const double* X) {
  double v = 0;
  for (int i = 0; s->rho > 0 && i < s->nx; i++) {
    double c = X[s->T * s->nx + i] - s->p->goal[i];
    v += s->lam[i] * c + 0.5 * s->rho * c * c;
  }
  return v;
}


// Euclidean norm of the first n components of x_T - goal (n = nq: the positions)
static double goalError(const Ilqr* s, const double* X, int n) {
  double v = 0;
  for (int i = 0; i < n; i++) {
    double e = X[s->T * s->nx + i] - s->p->goal[i];
    v += e * e;
  }
  return sqrt(v);
}


// warnings of non-finite states raised so far
static int badNumbers(const mcData* d) {
  return d->warning[mcWARN_BADQPOS].number + d->warning[mcWARN_BADQVEL].number +
         d->warning[mcWARN_BADQACC].number + d->warning[mcWARN_BADCTRL].number;
}


// roll out from X[0] with controls Ubar + alpha k + K (x - Xbar) (policy) or plain U (alpha < 0);
// write Xn, Un; return the cost, or INFINITY if the rollout is not finite
static double rollout(Ilqr* s, double alpha) {
  int nx = s->nx, nu = s->nu;
  memcpy(s->Xn, s->X, sizeof(double) * nx);
  mc_resetData(s->m, s->d);
  for (int t = 0; t < s->T; t++) {
    double* u = s->Un + t * nu;
    const double* xt = s->Xn + t * nx;
    memcpy(u, s->U + t * nu, sizeof(double) * nu);
    if (alpha >= 0) {
      for (int i = 0; i < nx; i++) {
        s->dx[i] = xt[i] - s->X[t * nx + i];
      }
      for (int j = 0; j < nu; j++) {
        double v = alpha * s->k[t * nu + j];
        for (int i = 0; i < nx; i++) {
          v += s->K[(size_t)t * nu * nx + j * nx + i] * s->dx[i];
        }
        u[j] += v;
      }
    }
    clampControls(s->m, u);
    for (int j = 0; j < nu; j++) {
      if (!(fabs(u[j]) < 1e9)) {
        return INFINITY;              // the policy diverged (the core would reset on it)
      }
    }
    setState(s, xt, u);
    int warned = badNumbers(s->d);
    mc_step(s->m, s->d);
    if (badNumbers(s->d) != warned) {
      return INFINITY;                // the step was not finite and the core reset the state
    }
    getState(s, s->Xn + (t + 1) * nx);
    for (int i = 0; i < nx; i++) {
      if (!isfinite(s->Xn[(t + 1) * nx + i])) {
        return INFINITY;
      }
    }
  }
  return trajectoryCost(s, s->Xn, s->Un) + goalTerm(s, s->Xn);
}


// in-place Cholesky of the n x n matrix a (lower triangle); 0, or -1 if not positive definite
static int cholesky(double* a, int n) {
  for (int j = 0; j < n; j++) {
    double v = a[j * n + j];
    for (int k = 0; k < j; k++) {
      v -= a[j * n + k] * a[j * n + k];
    }
    if (!(v > 1e-12)) {
      return -1;
    }
    a[j * n + j] = sqrt(v);
    for (int i = j + 1; i < n; i++) {
      double w = a[i * n + j];
      for (int k = 0; k < j; k++) {
        w -= a[i * n + k] * a[j * n + k];
      }
      a[i * n + j] = w / a[j * n + j];
    }
  }
  return 0;
}


// solve L L' x = b in place (L from cholesky)
static void cholSolve(const double* L, double* b, int n) {
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < i; k++) {
      b[i] -= L[i * n + k] * b[k];
    }
    b[i] /= L[i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int k = i + 1; k < n; k++) {
      b[i] -= L[k * n + i] * b[k];
    }
    b[i] /= L[i * n + i];
  }
}


// the Riccati recursion with regularization mu; 0, or -1 if some Quu + mu I is not positive
// definite
static int backward(Ilqr* s, double mu) {
  const IlqrProblem* p = s->p;
  int nx = s->nx, nu = s->nu, T = s->T;
  const double* xT = s->X + T * nx;
  s->dV1 = s->dV2 = 0;
  for (int i = 0; i < nx; i++) {
    s->Vx[i] = p->Qf[i] * (xT[i] - p->goal[i]);
    for (int j = 0; j < nx; j++) {
      s->Vxx[i * nx + j] = i == j ? p->Qf[i] : 0;
    }
    if (p->Qmid && p->tmid == T) {
      s->Vx[i] += p->Qmid[i] * (xT[i] - p->mid[i]);
      s->Vxx[i * nx + i] += p->Qmid[i];
    }
    if (s->rho > 0) {
      s->Vx[i] += s->lam[i] + s->rho * (xT[i] - p->goal[i]);
      s->Vxx[i * nx + i] += s->rho;
    }
  }
  for (int t = T - 1; t >= 0; t--) {
    const double* A = s->A + (size_t)t * nx * nx;
    const double* B = s->B + (size_t)t * nx * nu;
    const double* x = s->X + t * nx;
    const double* u = s->U + t * nu;
    int mid = p->Qmid && p->tmid == t;

    // Qx = lx + A' Vx, Qu = lu + B' Vx
    for (int i = 0; i < nx; i++) {
      double v = p->Q[i] * (x[i] - p->goal[i]) + (mid ? p->Qmid[i] * (x[i] - p->mid[i]) : 0);
      for (int r = 0; r < nx; r++) {
        v += A[r * nx + i] * s->Vx[r];
      }
      s->Qx[i] = v;
    }
    for (int j = 0; j < nu; j++) {
      double v = p->R[j] * u[j];
      for (int r = 0; r < nx; r++) {
        v += B[r * nu + j] * s->Vx[r];
      }
      s->Qu[j] = v;
    }

    // tmp = Vxx A (nx x nx); Qxx = lxx + A' tmp; Qux = B' tmp; Quu = luu + B' Vxx B
    for (int r = 0; r < nx; r++) {
      for (int c = 0; c < nx; c++) {
        double v = 0;
        for (int q = 0; q < nx; q++) {
          v += s->Vxx[r * nx + q] * A[q * nx + c];
        }
        s->tmp[r * nx + c] = v;
      }
    }
    for (int i = 0; i < nx; i++) {
      for (int c = 0; c < nx; c++) {
        double v = i == c ? p->Q[i] + (mid ? p->Qmid[i] : 0) : 0;
        for (int r = 0; r < nx; r++) {
          v += A[r * nx + i] * s->tmp[r * nx + c];
        }
        s->Qxx[i * nx + c] = v;
      }
    }
    for (int j = 0; j < nu; j++) {
      for (int c = 0; c < nx; c++) {
        double v = 0;
        for (int r = 0; r < nx; r++) {
          v += B[r * nu + j] * s->tmp[r * nx + c];
        }
        s->Qux[j * nx + c] = v;
      }
      for (int c = 0; c < nu; c++) {
        double v = j == c ? p->R[j] : 0;
        for (int r = 0; r < nx; r++) {
          double w = 0;
          for (int q = 0; q < nx; q++) {
            w += s->Vxx[r * nx + q] * B[q * nu + c];
          }
          v += B[r * nu + j] * w;
        }
        s->Quu[j * nu + c] = v;
      }
    }

    // gains: k = -(Quu + mu I)^-1 Qu, K = -(Quu + mu I)^-1 Qux
    memcpy(s->L, s->Quu, sizeof(double) * nu * nu);
    for (int j = 0; j < nu; j++) {
      s->L[j * nu + j] += mu;
    }
    if (cholesky(s->L, nu)) {
      return -1;
    }
    double* k = s->k + t * nu;
    double* K = s->K + (size_t)t * nu * nx;
    for (int j = 0; j < nu; j++) {
      k[j] = -s->Qu[j];
    }
    cholSolve(s->L, k, nu);
    for (int c = 0; c < nx; c++) {
      for (int j = 0; j < nu; j++) {
        s->dx[j] = -s->Qux[j * nx + c];
      }
      cholSolve(s->L, s->dx, nu);
      for (int j = 0; j < nu; j++) {
        K[j * nx + c] = s->dx[j];
      }
    }

    for (int j = 0; j < nu; j++) {
      double quuk = 0;
      for (int c = 0; c < nu; c++) {
        quuk += s->Quu[j * nu + c] * k[c];
      }
      s->dV1 += k[j] * s->Qu[j];
      s->dV2 += 0.5 * k[j] * quuk;
    }

    // Vx = Qx + K' Quu k + K' Qu + Qux' k; Vxx = Qxx + K' Quu K + K' Qux + Qux' K
    for (int i = 0; i < nx; i++) {
      double v = s->Qx[i];
      for (int j = 0; j < nu; j++) {
        double quuk = 0;
        for (int c = 0; c < nu; c++) {
          quuk += s->Quu[j * nu + c] * k[c];
        }
        v += K[j * nx + i] * (quuk + s->Qu[j]) + s->Qux[j * nx + i] * k[j];
      }
      s->Vx[i] = v;
    }
    for (int i = 0; i < nx; i++) {
      for (int c = 0; c < nx; c++) {
        double v = s->Qxx[i * nx + c];
        for (int j = 0; j < nu; j++) {
          double quuK = 0;
          for (int q = 0; q < nu; q++) {
            quuK += s->Quu[j * nu + q] * K[q * nx + c];
          }
          v += K[j * nx + i] * (quuK + s->Qux[j * nx + c]) + s->Qux[j * nx + i] * K[j * nx + c];
        }
        s->tmp[i * nx + c] = v;
      }
    }
    for (int i = 0; i < nx; i++) {
      for (int c = 0; c < nx; c++) {
        s->Vxx[i * nx + c] = 0.5 * (s->tmp[i * nx + c] + s->tmp[c * nx + i]);
      }
    }
  }
  return 0;
}


// A, B along the current trajectory; the number of evaluations
static int linearize(Ilqr* s) {
  for (int t = 0; t < s->T; t++) {
    mc_resetData(s->m, s->d);
    setState(s, s->X + t * s->nx, s->U + t * s->nu);
    double* A = s->A + (size_t)t * s->nx * s->nx;
    double* B = s->B + (size_t)t * s->nx * s->nu;
    if (s->p->implicit) {
      mcd_transitionImplicit(s->m, s->d, 1e-6, s->p->kappa, A, B);
    } else {
      mcd_transitionFD(s->m, s->d, 1e-6, 1, A, B, NULL, NULL);
    }
  }
  return s->T;
}


int ilqr_solve(const mcModel* m, mcData* d, const IlqrProblem* p, double* U, IlqrResult* res,
               char* error, int error_sz) {
  memset(res, 0, sizeof(*res));
  if (m->nq != m->nv) {
    snprintf(error, (size_t)error_sz, "ilqr: the model has quaternions (nq %d, nv %d): only "
             "hinge and slide joints are supported", m->nq, m->nv);
    return -1;
  }
  double t0 = now();
  Ilqr s = {.m = m, .d = d, .p = p, .T = p->horizon, .nx = 2 * m->nv + m->na, .nu = m->nu,
            .nq = m->nq};
  int T = s.T, nx = s.nx, nu = s.nu;
  size_t sizes[] = {(size_t)(T + 1) * nx, (size_t)T * nu, (size_t)(T + 1) * nx, (size_t)T * nu,
                    (size_t)T * nx * nx, (size_t)T * nx * nu, (size_t)T * nu * nx, (size_t)T * nu,
                    nx, (size_t)nx * nx, nx, nu, (size_t)nx * nx, (size_t)nu * nu,
                    (size_t)nu * nx, (size_t)nu * nu, (size_t)nx * nx, nx > nu ? nx : nu,
                    nx};
  double** slots[] = {&s.X, &s.U, &s.Xn, &s.Un, &s.A, &s.B, &s.K, &s.k, &s.Vx, &s.Vxx, &s.Qx,
                      &s.Qu, &s.Qxx, &s.Quu, &s.Qux, &s.L, &s.tmp, &s.dx, &s.lam};
  int nslot = (int)(sizeof(slots) / sizeof(slots[0]));
  int ok = 1;
  for (int i = 0; i < nslot; i++) {
    *slots[i] = calloc(sizes[i] ? sizes[i] : 1, sizeof(double));
    ok = ok && *slots[i];
  }
  int rc = -1;
  if (!ok) {
    snprintf(error, (size_t)error_sz, "ilqr: out of memory (horizon %d, %d states)", T, nx);
    goto done;
  }

  // the initial trajectory
  mc_resetData(m, d);
  getState(&s, s.X);
  memcpy(s.U, U, sizeof(double) * T * nu);
  double cost = rollout(&s, -1);
  if (!isfinite(cost)) {
    snprintf(error, (size_t)error_sz, "ilqr: the initial controls give a non-finite rollout");
    goto done;
  }
  memcpy(s.X, s.Xn, sizeof(double) * (T + 1) * nx);
  memcpy(s.U, s.Un, sizeof(double) * T * nu);
  res->cost0 = cost;

  // the goal constraint starts with penalty rho0 = the terminal position weight (at least 1)
  s.rho = p->goalTol > 0 ? fmax(p->Qf[0], 1) : 0;
  cost += goalTerm(&s, s.X);
  double mu = kMuMin, lastViol = INFINITY;
  int stale = 1;                      // the Jacobians are not those of the current trajectory
  int debug = getenv("ILQR_DEBUG") != NULL;
  for (res->iterations = 0; res->iterations < p->maxiter;) {
    if (stale) {
      res->evaluations += linearize(&s);
      stale = 0;
    }
    res->iterations++;
    while (backward(&s, mu) && mu < kMuMax) {
      mu *= 10;
    }
    double expected = mu < kMuMax ? -(s.dV1 + s.dV2) : 0;
    if (debug) {
      fprintf(stderr, "ilqr: iteration %d cost %.6g mu %g expected decrease %.3g rho %g "
              "violation %.3g\n", res->iterations, cost, mu, expected, s.rho,
              goalError(&s, s.X, nx));
    }
    // a minimum of this subproblem: the LQR step promises (almost) nothing, or no step
    // regularized up to mu = kMuMax (Quu indefinite, or every step rejected) descends. (Not
    // stopping on the promise after a rejected step, when it shrinks with mu, only added
    // iterations on the Table III tasks, with the same results.)
    int done = expected < p->tolerance * cost || mu >= kMuMax;
    if (!done) {
      // line search: accept a step that achieves a fair part of the decrease it promises
      double best = INFINITY, alpha = 1;
      for (; alpha > 1e-4; alpha *= 0.5) {
        best = rollout(&s, alpha);
        double promised = -(alpha * s.dV1 + alpha * alpha * s.dV2);
        if (best < cost && cost - best >= 1e-4 * promised) {
          break;
        }
        best = INFINITY;
      }
      if (debug) {
        fprintf(stderr, "ilqr:   line search alpha %g %s\n", alpha,
                best < cost ? "accepted" : "rejected");
      }
      if (best < cost) {
        memcpy(s.X, s.Xn, sizeof(double) * (T + 1) * nx);
        memcpy(s.U, s.Un, sizeof(double) * T * nu);
        cost = best;
        stale = 1;
        mu = fmax(mu / 10, kMuMin);
      } else {
        mu = fmax(mu * 10, kMuReject);  // no descent: more regularization
      }
      continue;
    }
    // the subproblem is solved: done unless the goal constraint is still violated, then
    // the multipliers take the constraint's force (lam += rho c) and the penalty grows
    double viol = goalError(&s, s.X, nx);
    if (s.rho <= 0 || viol <= p->goalTol || s.rho >= kRhoMax) {
      res->converged = s.rho <= 0 || viol <= p->goalTol;
      break;
    }
    for (int i = 0; i < nx; i++) {
      s.lam[i] += s.rho * (s.X[T * nx + i] - p->goal[i]);
    }
    if (viol > 0.25 * lastViol) {
      s.rho *= 10;                    // the multipliers alone did not reduce the violation enough
    }
    lastViol = viol;
    res->outer++;
    cost = trajectoryCost(&s, s.X, s.U) + goalTerm(&s, s.X);
    mu = kMuMin;
  }

  // result: controls, cost, the final state's position error
  memcpy(U, s.U, sizeof(double) * T * nu);
  res->cost = trajectoryCost(&s, s.X, s.U);
  res->violation = goalError(&s, s.X, m->nq);
  setState(&s, s.X + T * nx, NULL);
  rc = 0;

done:
  for (int i = 0; i < nslot; i++) {
    free(*slots[i]);
  }
  res->seconds = now() - t0;
  return rc;
}
