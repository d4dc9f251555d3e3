// Moduco plugin "ipm": hard-contact primal-dual interior-point solver (descriptor, parameters,
// results). The method is described in ipm.h and docs/dojo.md.
//
// Statistics per iteration i (d->solver[i]): improvement = r_vio (infinity norm of the dynamics,
// equality and gap residuals after the step), gradient = kappa_vio (largest complementarity
// product), lineslope = the step length alpha, nactive = blocks carrying force, neval = residual
// evaluations of the line search. d->solver_iter = iterations, d->solver_nnz = entries of the
// dense Newton matrix.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <moduco/mcplugin.h>

#include "ipm.h"
#include "ipm_gradient.h"

// the parameters, in the order readParams uses them
static const mcpConfigKey g_keys[] = {
  {"kappa_tol", mcpCONFIG_REAL, 1, "1e-8", 0, 1, NULL,
   "complementarity tolerance kappa_tol (central path floor kappa_tol/5)"},
  {"residual_tol", mcpCONFIG_REAL, 1, "1e-8", 0, 1, NULL,
   "tolerance on the dynamics, equality and gap residuals r_vio"},
  {"max_iter", mcpCONFIG_INT, 1, "0", 0, 10000, NULL,
   "maximum iterations (0: option iterations)"},
  {"kappa_init", mcpCONFIG_REAL, 1, "100", 1e-12, 1e6, NULL,
   "complementarity of the starting point"},
  {"condition", mcpCONFIG_BOOL, 1, "0", 0, 0, NULL,
   "diagnostics: 1-norm condition number of the Newton matrix per iteration in plugin_data"},
  {"recovery", mcpCONFIG_REAL, 1, "0", 0, 1e10, NULL,
   "speed (m/s, rad/s) removing a violation present at the start of a step (0: only stopped)"},
};

// warnings of an instance (counted in plugin_warncount; info: the iterations taken)
static const char* const g_warnings[] = {"not_converged", NULL};

// plugin_data of an instance: the condition number per iteration (mcNSOLVER values, 0 beyond
// the last iteration; filled when the key 'condition' is true)
static size_t ndata(const mcpHost* host, const mcModel* m, int instance) {
  (void)host;
  (void)m;
  (void)instance;
  return sizeof(mcNum) * mcNSOLVER;
}

static const mcpPluginExt g_ext = {
  (int)(sizeof(g_keys) / sizeof(g_keys[0])), g_keys, NULL, ndata, g_warnings,
};

static void solve(const mcpHost* host, const mcModel* m, mcData* d, int maxiter);

#define IPM_RESTARTS 2            // restarts of a failed solve from a more central point

static const mcpSolver g_ipm = {
  MCP_HEADER(mcpKIND_SOLVER, mcpSolver, "ipm", "0.1.0",
             "hard contact: primal-dual interior point on the exact friction cone (Dojo)", -1),
  solve,
  &g_ext,
  0,
  ipm_derivative,
};


// parameter k: the instance's config value when the host has them, else the declared default
static mcNum param(const mcpHost* host, const mcModel* m, int instance, int k) {
  if (instance >= 0 && host->config) {
    int n = 0;
    const mcNum* v = host->config(m, instance, g_keys[k].name, &n);
    if (v && n >= 1) {
      return v[0];
    }
  }
  return strtod(g_keys[k].def, NULL);
}


static void readParams(const mcpHost* host, const mcModel* m, mcData* d, int maxiter,
                       ipmParam* prm) {
  int inst = host->instance ? host->instance(m, &g_ipm.hdr) : -1;
  prm->kappa_tol = param(host, m, inst, 0);
  prm->residual_tol = param(host, m, inst, 1);
  int it = (int)param(host, m, inst, 2);
  prm->kappa_init = param(host, m, inst, 3);
  prm->max_iter = it > 0 ? it : (maxiter > 0 ? maxiter : 100);
  prm->recovery = param(host, m, inst, 5);
  prm->cond = NULL;
  if (param(host, m, inst, 4) != 0 && inst >= 0 && d->plugin_data && d->plugin_data[inst] &&
      m->plugin_datasize[inst] >= (int)(sizeof(mcNum) * mcNSOLVER)) {
    prm->cond = (mcNum*)d->plugin_data[inst];
    memset(prm->cond, 0, sizeof(mcNum) * mcNSOLVER);
  }
}


void ipm_params(const mcpHost* host, const mcModel* m, mcData* d, int maxiter, ipmParam* prm) {
  readParams(host, m, d, maxiter, prm);
}


// efc_force and efc_state of one block from its locals
static void writeBlock(const mcModel* m, mcData* d, const ipmBlock* b, const mcNum* l) {
  mcNum F[IPM_MAXROW] = {0};
  ipm_blockForce(b, l, F);
  int r0 = b->efc;

  // state: equality and friction loss carry force always; others when the force dominates
  int state = mcCNSTRSTATE_QUADRATIC;
  if (b->kind == IPM_ORTH || b->kind == IPM_CONTACT) {
    state = l[0] > l[1] ? mcCNSTRSTATE_QUADRATIC : mcCNSTRSTATE_SATISFIED;
  } else if (b->kind == IPM_FLOSS && fabs(l[0]) >= b->F * (1 - 1e-6)) {
    state = l[0] > 0 ? mcCNSTRSTATE_LINEARPOS : mcCNSTRSTATE_LINEARNEG;
  }
  for (int k = 0; k < b->nefc; k++) {
    d->efc_state[r0 + k] = state;
    d->efc_force[r0 + k] = 0;
  }

  // a separated row (its slack dominates) is reported as the complementary solution it
  // approximates: no force. The interior point leaves kappa / s there (about 1e-8 N), which no
  // row reported SATISFIED may carry (docs/plugins.md section 17, docs/dojo.md)
  if (state == mcCNSTRSTATE_SATISFIED) {
    return;
  }

  // pyramid edges n +- mu_k t_k carry (n_k +- g_k) / 2, g_k = F_k / mu_k, with the normal force
  // shared as n_k = |g_k| + (fn - sum |g|) / npair: the same J' f, and every edge nonnegative
  // whenever the exact-cone force lies in the pyramid (sum |g_k| <= fn). Outside it (sliding
  // with two friction components) no nonnegative edge forces give that force (docs/dojo.md).
  if (b->pyramidal) {
    int npair = b->nefc / 2;
    mcNum g[IPM_MAXROW] = {0}, spare = F[0];
    for (int k = 0; k < npair; k++) {
      int fr = b->kind == IPM_CONTACT && b->mu[k] > mcMINVAL;
      g[k] = fr ? F[k + 1] / b->mu[k] : 0;
      spare -= fabs(g[k]);
    }
    for (int k = 0; k < npair; k++) {
      mcNum n = fabs(g[k]) + spare / npair;
      d->efc_force[r0 + 2 * k] = (n + g[k]) / 2;
      d->efc_force[r0 + 2 * k + 1] = (n - g[k]) / 2;
    }
    return;
  }
  for (int k = 0; k < b->nrow; k++) {
    d->efc_force[r0 + k] = F[k];
  }
  (void)m;
}


// qfrc_constraint = J' efc_force on the core's rows
static void constraintForce(const mcpHost* host, const mcModel* m, mcData* d) {
  int nv = m->nv;
  if (host->mulJT) {
    host->mulJT(m, d, d->qfrc_constraint, d->efc_force);
    return;
  }
  memset(d->qfrc_constraint, 0, sizeof(mcNum) * (size_t)nv);
  for (int i = 0; i < d->nefc; i++) {
    mcNum f = d->efc_force[i];
    if (f == 0) {
      continue;
    }
    if (d->efc_J) {
      const mcNum* J = d->efc_J + (size_t)i * nv;
      for (int j = 0; j < nv; j++) {
        d->qfrc_constraint[j] += f * J[j];
      }
    } else {
      const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
      const mcNum* val = d->efc_J_val + d->efc_J_rowadr[i];
      for (int k = 0; k < d->efc_J_rownnz[i]; k++) {
        d->qfrc_constraint[col[k]] += f * val[k];
      }
    }
  }
}


static void solve(const mcpHost* host, const mcModel* m, mcData* d, int maxiter) {
  int nv = m->nv;
  ipmParam prm;
  readParams(host, m, d, maxiter, &prm);

  host->markStack(d);
  ipmProblem P;
  mcNum r_vio = 0, kappa_vio = 0;
  int iter = 0;
  if (ipm_build(host, m, d, &P)) {
    // a solve that does not converge (singular Newton matrix, or the iteration limit: a jam of
    // short steps near the cones' boundary, or a stall just above the tolerances) starts again
    // from a more central point, kappa_init 100 and 10^4 times larger: the path from a point
    // closer to the central path avoids the jam (H1 at h = 0.1). Every unconverged attempt used
    // to be kept unless it was far off (r_vio or kappa_vio above 1e-3); restarting those too
    // rescues most of them (docs/dojo.md). When no attempt converges, the one with the smallest
    // violation is applied.
    int converged = 0, nloc = P.nb * IPM_MAXLOC;
    mcNum kappa0 = prm.kappa_init, best = INFINITY, best_r = 0, best_k = 0;
    mcNum* bestLoc = host->stackAlloc(d, sizeof(mcNum) * (size_t)(nloc + 1), _Alignof(mcNum));
    ipm_recovery(&P, d, prm.recovery);
    for (int attempt = 0; attempt < IPM_RESTARTS + 1 && !converged; attempt++) {
      memcpy(P.a, d->qacc_smooth, sizeof(mcNum) * (size_t)nv);
      ipm_start(&P, kappa0);
      iter += ipm_optimize(d, &P, &prm, &r_vio, &kappa_vio);
      converged = r_vio < prm.residual_tol && kappa_vio < prm.kappa_tol;
      mcNum viol = fmax(r_vio, kappa_vio);
      if (!converged && bestLoc && viol < best) {  // NaN never replaces a finite best
        best = viol, best_r = r_vio, best_k = kappa_vio;
        memcpy(bestLoc, P.loc, sizeof(mcNum) * (size_t)nloc);
      }
      kappa0 *= 100;
    }
    if (!converged && bestLoc && !(fmax(r_vio, kappa_vio) <= best)) {
      memcpy(P.loc, bestLoc, sizeof(mcNum) * (size_t)nloc);
      r_vio = best_r, kappa_vio = best_k;
    }
    converged = r_vio < prm.residual_tol && kappa_vio < prm.kappa_tol;
    int inst = host->instance ? host->instance(m, &g_ipm.hdr) : -1;
    if (P.nb && !converged && inst >= 0 && host->pluginWarning) {
      host->pluginWarning(m, d, inst, 0, iter);  // the unconverged forces are applied
    }
    for (int i = 0; i < P.nb; i++) {
      writeBlock(m, d, P.block + i, P.loc + IPM_MAXLOC * i);
    }
    d->solver_nnz = (nv + P.ne) * (nv + P.ne);
  } else {
    // host stack full (the host warned): no constraint force rather than garbage
    memset(d->efc_force, 0, sizeof(mcNum) * (size_t)d->nefc);
    host->message("solver 'ipm': host stack too small for the dense Newton system; no "
                  "constraint force this step (raise memory in <size>)");
  }
  host->freeStack(d);

  // qacc = M^-1 (qfrc_smooth + J' f), warmstart
  constraintForce(host, m, d);
  for (int i = 0; i < nv; i++) {
    d->qacc_warmstart[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
  }
  host->solveM(m, d, d->qacc, d->qacc_warmstart, 1);
  memcpy(d->qacc_warmstart, d->qacc, sizeof(mcNum) * (size_t)nv);
  d->solver_iter = iter;
}


static const mcpHeader* const g_list[] = {&g_ipm.hdr, &ipm_eulerIntegrator.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("solver-ipm", 2, g_list);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  (void)host;
  return &g_library;
}
