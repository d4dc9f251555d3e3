// Moduco plugin "ipm": hard-contact primal-dual interior-point solver (the Dojo seed).
//
// The step the integrator takes is semi-implicit Euler: v+ = v + h a, q+ = q (+) h v+. With the
// generalized acceleration a as the primal unknown and the constraint forces f, every row the
// core assembles becomes one block of a nonlinear complementarity problem:
//   dynamics      Me a - J' f = qfrc_smooth                 (Me = M, or M + h D with Euler damping)
//   equality      pos + h J v+ = 0                          (f free)
//   limit/contact s = pos + h J v+ >= 0, f >= 0, s f = 0    (normal; the gap at the end of step)
//   friction      (fn, g) in Q3, (y0, mu J_t v+) in Q3, complementary (maximum dissipation;
//                 g = friction / mu, so anisotropic mu is the exact ellipse)
//   friction loss (F, f) in Q2, (y0, J v+) in Q2, complementary (|f| <= F opposing J v+)
// solved by Algorithm 2 of the seed with the relaxed complementarity x o y = kappa e.
// Every block's local unknowns are eliminated per Newton step, leaving a dense system in a (and
// the equality forces) of size nv + ne; all scratch comes from the host stack.
#ifndef MODUCO_PLUGINS_SOLVER_IPM_IPM_H_
#define MODUCO_PLUGINS_SOLVER_IPM_IPM_H_

#include <moduco/mcplugin.h>

#define IPM_MAXCONE 6             // largest second-order cone: (normal, 5 friction) of condim 6
#define IPM_MAXROW 6              // problem rows of one block (contact: normal and friction rows)
#define IPM_MAXLOC 8              // local unknowns of one block (contact: z s g1..g5 y0)

typedef enum {                    // kinds of block
  IPM_EQ = 0,                     // equality row: J a = target, free force
  IPM_ORTH,                       // limit or frictionless contact: (z, s) in the orthant
  IPM_FLOSS,                      // friction loss: second-order cone of dimension 2
  IPM_CONTACT                     // frictional contact: orthant (z, s) and cone Q3
} ipmKind;

typedef struct {                  // one block of the problem
  int kind;                       // ipmKind
  int row;                        // first problem row (in Jrow)
  int nrow;                       // problem rows: 1, or condim for IPM_CONTACT
  int efc;                        // first efc row it came from
  int nefc;                       // efc rows it came from
  int pyramidal;                  // contact assembled as pyramid edges
  mcNum c;                        // gap/target constant: pos + h J v (EQ: target of J a)
  mcNum F;                        // friction loss
  mcNum mu[IPM_MAXROW - 1];       // friction coefficient of each friction row
} ipmBlock;

typedef struct {                  // local linearization of a block at the current point
  int p;                          // local unknowns
  int piv[IPM_MAXLOC];            // pivots of the local LU
  mcNum K[IPM_MAXLOC * IPM_MAXLOC];       // LU of the local matrix: K dl = -r + Pm d
  mcNum Pm[IPM_MAXLOC * IPM_MAXROW];      // the coupling Pm to d = J_b da
  mcNum r[IPM_MAXLOC];                    // -r for the current kappa
  mcNum Kr[IPM_MAXLOC];                   // K^-1 (-r)
  mcNum W[IPM_MAXCONE * IPM_MAXCONE];     // Nesterov-Todd scaling W and W^-1 of the cone pair,
  mcNum Wi[IPM_MAXCONE * IPM_MAXCONE];    // and lambda = W y = W^-1 x
  mcNum lam[IPM_MAXCONE];
} ipmLocal;

typedef struct {                  // parameters (plugin config keys, else defaults)
  mcNum kappa_tol;
  mcNum residual_tol;
  mcNum kappa_init;
  int max_iter;
  mcNum recovery;                 // speed removing a violation present at the start (m/s, rad/s)
  mcNum* cond;                    // condition number per iteration (mcNSOLVER), or NULL
} ipmParam;

typedef struct {                  // the problem and the iterate; arrays on the host stack
  int nv, nb, nrow, ne;           // dofs, blocks, problem rows, equality blocks
  mcNum h;                        // timestep
  ipmBlock* block;                // (nb)
  mcNum* Jrow;                    // dense problem rows (nrow x nv)
  int* Jcol;                      // nonzero columns of each row (nrow x nv, first Jn[r] used)
  int* Jn;                        // nonzeros per row (nrow)
  mcNum* Jv;                      // J qvel per row (nrow)
  mcNum* M;                       // dense effective inertia Me (nv x nv)
  const mcNum* qfrc;              // qfrc_smooth

  // iterate: a, the locals of each block, J a per row
  mcNum* a;                       // (nv)
  mcNum* loc;                     // (nb x IPM_MAXLOC)
  mcNum* Ja;                      // (nrow)

  // direction: da, locals, J da per row
  mcNum* da;
  mcNum* dloc;
  mcNum* Jda;

  // affine (predictor) direction, for the second-order term of the corrector
  int corrector;                  // nonzero: add the predictor's product to the complementarity
  mcNum* dloc_aff;                // (nb x IPM_MAXLOC)
  mcNum* Jda_aff;                 // (nrow)

  // trial point of the line search
  mcNum* a_t;
  mcNum* loc_t;
  mcNum* Ja_t;

  // Newton system at the current point (ipm_factor), shared by predictor and corrector
  mcNum* K;                       // (nk x nk), nk = nv + ne, LU-factored
  mcNum* rhs;                     // (nk)
  int* piv;                       // (nk)
  ipmLocal* local;                // (nb) local linearizations
  mcNum cond;                     // 1-norm condition number of the last Newton matrix (or 0)
  int wantCond;                   // nonzero: compute cond in ipm_factor (nk solves)
  mcNum* ework;                   // (nk)
  int* ucol;                      // (nv) union of a block's nonzero columns
  int* umark;                     // (nv) stamp of the block call that last marked a column
  int ustamp;                     // stamps given so far (one per block per factorization)
  mcNum* ublock;                  // (2 x IPM_MAXROW x nv + nv x nv) the block's rows on ucol, G
                                  // times them, and J_b' G J_b on ucol
  mcNum* G;                       // (nb x IPM_MAXROW x IPM_MAXROW): dF = G J da + g
  mcNum* g;                       // (nb x IPM_MAXROW)
  mcNum* ra;                      // dynamics residual (nv)
  int raFresh;                    // nonzero: ra holds the residual at (a, loc) (ipm_direction
                                  // then skips recomputing it; set and cleared by ipm_optimize)
  mcNum* tmp;                     // (nv)
} ipmProblem;

// dense LU with partial pivoting of the n x n row-major A in place; 0 if singular
int ipm_factorLU(mcNum* A, int* piv, int n);

// x = A^-1 x with the factor
void ipm_solveLU(const mcNum* A, const int* piv, mcNum* x, int n);

// Blocks and rows from the efc arrays; 0 if the host stack is full. (ipm_problem.c)
int ipm_build(const mcpHost* host, const mcModel* m, mcData* d, ipmProblem* P);

// A violation present at the start of the step (pos < 0 on a limit or contact) is removed at
// most at 'speed' (m/s or rad/s): the gap constant becomes max(pos, -speed h) + h J v.
// (ipm_problem.c)
void ipm_recovery(ipmProblem* P, const mcData* d, mcNum speed);

// Starting point: a = qacc_smooth, interior cone variables at complementarity ~ kappa0.
void ipm_start(ipmProblem* P, mcNum kappa0);

// J a per row for the given acceleration.
void ipm_mulRows(const ipmProblem* P, const mcNum* a, mcNum* Ja);

// Force of a block along its problem rows (EQ/ORTH/FLOSS: 1, CONTACT: fn, mu_k g_k).
int ipm_blockForce(const ipmBlock* b, const mcNum* loc, mcNum* F);

// Residual infinity norm (dynamics, equality, gap) and complementarity violation of a point.
void ipm_violation(ipmProblem* P, const mcNum* a, const mcNum* loc, const mcNum* Ja,
                   mcNum* r_vio, mcNum* kappa_vio);

// Linearize every block at the current point and factor the Newton matrix; 0 if singular.
int ipm_factor(ipmProblem* P);

// Newton direction on r(w; kappa) with the factor into da, dloc, Jda.
void ipm_direction(ipmProblem* P, mcNum kappa);

// Second-order cone algebra of dimension n <= IPM_MAXCONE (ipm_cone.c).
void ipm_socProduct(const mcNum* x, const mcNum* y, mcNum* res, int n);
mcNum ipm_socDet(const mcNum* x, int n);
// Nesterov-Todd scaling of x, y in int Q^n: W (n x n) with W y = W^-1 x = lambda
void ipm_ntScaling(const mcNum* x, const mcNum* y, int n, mcNum* W, mcNum* Wi, mcNum* lam);
// res = A v for an n x n row-major A
void ipm_matVec(const mcNum* A, const mcNum* v, int n, mcNum* res);
// tau times the largest step in [0, 1] keeping y + alpha d in Q^n (seed eqs. 42-46)
mcNum ipm_socStep(const mcNum* y, const mcNum* d, mcNum tau, int n);

// Cone variables of a block (ipm_newton.c): force cone x (FLOSS: (F, f), CONTACT: (z, g)) and
// velocity dual y (FLOSS: (y0, J v+), CONTACT: (y0, mu_k J_k v+)) at Ja + alpha Jda (rows of the
// problem; Jda may be NULL); return the dimension.
int ipm_forceCone(const ipmBlock* b, const mcNum* loc, mcNum* x);
int ipm_velocityDual(const ipmProblem* P, const ipmBlock* b, const mcNum* loc, const mcNum* Ja,
                     const mcNum* Jda, mcNum alpha, mcNum* y);

// Direction of the velocity dual for the local direction dloc and row direction Jd (Jd + b->row
// are the block's rows): (dy0, h J_b da) for FLOSS, (dy0, mu_k h J_k da) for CONTACT.
int ipm_velocityStep(const ipmProblem* P, const ipmBlock* b, const mcNum* dloc, const mcNum* Jd,
                     mcNum* dy);

// Local unknown index of the velocity dual's y0 (FLOSS: 1, CONTACT: after z, s and the g_k).
int ipm_y0(const ipmBlock* b);

// Largest step in [0, 1] keeping every cone variable inside (scaled by tau_ort / tau_soc).
mcNum ipm_coneSearch(const ipmProblem* P, mcNum tau_ort, mcNum tau_soc);

// Centering: mu (52) at the iterate, mu_aff (53) after step alpha along the direction.
void ipm_center(const ipmProblem* P, mcNum alpha, mcNum* mu, mcNum* mu_aff);

// Whether every cone pair at step alpha keeps its central-path measure above gamma times the mean
// complementarity (a wide neighbourhood of the central path).
int ipm_centered(const ipmProblem* P, mcNum alpha, mcNum gamma);

// Solve from the start point (Algorithm 2); return the number of iterations.
int ipm_optimize(mcData* d, ipmProblem* P, const ipmParam* prm, mcNum* r_vio, mcNum* kappa_vio);

// Position projection at the configuration whose rows d holds (ipm_project.c): dq (nv) with
// pos + J dq >= 0 for contacts and limits, J dq = 0 for equalities, smallest in M; return the
// iterations (-1: host stack full, dq = 0).
int ipm_project(const mcpHost* host, const mcModel* m, mcData* d, const ipmParam* prm,
                mcNum* dq, mcNum* r_vio, mcNum* kappa_vio);

// The paired integrator "ipm-euler" (ipm_euler.c); the step's problem uses its implicit damping.
extern const mcpIntegrator ipm_eulerIntegrator;

#endif  // MODUCO_PLUGINS_SOLVER_IPM_IPM_H_
