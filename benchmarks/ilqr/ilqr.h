// Iterative LQR over Moduco's transition Jacobians (mcd_transitionFD, or mcd_transitionImplicit): the
// trajectory-optimization example of docs/derivatives.md (the Dojo paper's Table III tasks).
//
// State x = (qpos, qvel, act) of a model without quaternions (nq == nv: hinge and slide joints
// only, so qpos is its own tangent space), controls u (nu). Cost, with e = x - goal:
//   sum_{t<T} 1/2 (e_t' Q e_t + u_t' R u_t) + 1/2 e_T' Qf e_T + 1/2 e_mid' Qmid e_mid
// with diagonal weights, the last term at step tmid against its own target (cost shaping of an
// intermediate state; Qmid may be NULL). With goalTol > 0 the goal state at T is also a
// constraint, x_T = goal, handled by an augmented Lagrangian: the terminal cost gains
// lam' c + rho/2 |c|^2 (c = x_T - goal), and after each solved subproblem lam += rho c, rho
// growing tenfold when |c| fell by less than a factor 4, until |c| <= goalTol.
#ifndef MODUCO_BENCHMARKS_ILQR_ILQR_H_
#define MODUCO_BENCHMARKS_ILQR_ILQR_H_

#include <moduco/moduco.h>

typedef struct {
  int horizon;                 // T steps of the model's timestep
  const double* goal;          // (ndx) target state
  const double* Q;             // (ndx) running state weights
  const double* R;             // (nu) control weights
  const double* Qf;            // (ndx) terminal state weights
  int tmid;                    // step of the intermediate target (with Qmid)
  const double* mid;           // (ndx) intermediate target
  const double* Qmid;          // (ndx) its weights; NULL: none
  int maxiter;                 // iterations at most
  double tolerance;            // a subproblem is solved when the LQR step promises less than
                               // this fraction of the cost
  double goalTol;              // > 0: x_T = goal is a constraint (augmented Lagrangian, see
                               // above) met when |x_T - goal| <= goalTol (positions and
                               // velocities alike); 0: the goal is only the terminal cost
  int implicit;                // 1: Jacobians by mcd_transitionImplicit (the solver's implicit
                               // derivative at kappa); 0: mcd_transitionFD
  double kappa;                // smoothing of the implicit derivative (ipm: central-path kappa)
} IlqrProblem;

typedef struct {
  int iterations;              // backward/forward passes taken
  int converged;               // 1: stopped on the tolerance (and the goal constraint met);
                               // 0: maxiter, or the penalty at its limit
  int outer;                   // multiplier updates of the goal constraint
  double cost0;                // cost of the initial controls
  double cost;                 // final cost (the objective, without the constraint's terms)
  double violation;            // |positions of x_T - goal positions| (Euclidean, qpos part)
  double seconds;              // wall time
  int evaluations;             // transition Jacobians taken
} IlqrResult;

// Optimize the controls U (T x nu, row per step; in: the initial guess, out: the result) from the
// model's reset state (qpos0, zero velocities and activations). d is used as scratch and holds the
// final rollout's last state on return. Return 0, or -1 with a message in error (model with quaternions, out of
// memory, a non-finite rollout from the initial guess).
int ilqr_solve(const mcModel* m, mcData* d, const IlqrProblem* p, double* U, IlqrResult* res,
               char* error, int error_sz);

#endif  // MODUCO_BENCHMARKS_ILQR_ILQR_H_
