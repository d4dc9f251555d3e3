// Example third-party constraint solver "example.pgs": projected Gauss-Seidel on the dual
//
//   minimize 0.5 f' AR f + f' b   over the forces f allowed by each row,
//
// AR = J inv(M) J' + diag(efc_R) and b = efc_b (= J qacc_smooth - aref), one row at a time:
//   f_i <- project_i(f_i - w (AR f + b)_i / AR_ii)
// with a relaxation factor w (config key "relaxation", default 1, range [0.01, 1.99]: the sweep
// converges for 0 < w < 2; the core refuses values outside the range with file:line). Set it in
// the model: <extension><plugin plugin="example.pgs"><config key="relaxation" value="1.5"/>
// </plugin></extension>. Projections:
// equality rows are free, friction-loss rows are boxed by efc_frictionloss, limit, frictionless
// and pyramidal contact rows are non-negative. Elliptic contacts are updated row by row and then
// scaled back into their cone |(f_j / friction_j)| <= f_normal: an approximation (the built-in
// "pgs" solves each cone block exactly), so use it with cone="pyramidal" for exact results.
//
// Everything it reads comes from the solver contract (docs/plugins.md): efc_b, efc_type,
// efc_frictionloss and contact friction from mcData as the core left them before the solver,
// AR from host->makeAR (dense or row-sparse, whichever efc_J is), J through host->rowJ and
// host->mulJT, inv(M) through host->solveM. It writes qacc, efc_force, efc_state,
// qfrc_constraint, qacc_warmstart, solver_iter and solver[].
#include <math.h>
#include <string.h>

#include <moduco/mcplugin.h>

#define DEFAULT_RELAXATION 1.0

static const mcpConfigKey g_keys[] = {
  {"relaxation", mcpCONFIG_REAL, 1, "1.0", 0.01, 1.99, NULL,
   "over-relaxation factor w of the Gauss-Seidel sweep, 0.01 <= w <= 1.99"},
};
static const mcpPluginExt g_ext = {1, g_keys, NULL, NULL, NULL};
static const mcpSolver g_pgs;


// the model's relaxation factor (checked against the key's range by the core); the default when
// the model has no instance of this solver (a solver swapped in after compilation)
static mcNum relaxation(const mcpHost* host, const mcModel* m) {
  mcNum w = DEFAULT_RELAXATION;
  if (host->abi_minor >= 3 && host->config && host->instance) {
    int n = 0;
    const mcNum* v = host->config(m, host->instance(m, &g_pgs.hdr), "relaxation", &n);
    if (v && n == 1) {
      w = v[0];
    }
  }
  return w > 0 && w < 2 ? w : DEFAULT_RELAXATION;
}


// (AR f)_i, and AR_ii in *diag, from the dense or the row-sparse efc_AR
static mcNum rowAR(const mcData* d, int i, const mcNum* f, mcNum* diag) {
  mcNum s = 0;
  if (d->efc_AR_rownnz) {
    const int* col = d->efc_AR_colind + d->efc_AR_rowadr[i];
    const mcNum* val = d->efc_AR + d->efc_AR_rowadr[i];
    for (int k = 0; k < d->efc_AR_rownnz[i]; k++) {
      s += val[k] * f[col[k]];
      if (col[k] == i) {
        *diag = val[k];
      }
    }
  } else {
    const mcNum* row = d->efc_AR + (size_t)i * d->nefc;
    for (int k = 0; k < d->nefc; k++) {
      s += row[k] * f[k];
    }
    *diag = row[i];
  }
  return s;
}


// one Gauss-Seidel row update; return the decrease of the dual cost
static mcNum updateRow(const mcData* d, int i, mcNum w, mcNum* f) {
  mcNum diag = 1;
  mcNum res = rowAR(d, i, f, &diag) + d->efc_b[i];
  if (!(diag > 0)) {
    return 0;
  }
  mcNum old = f[i], v = old - w * res / diag;
  int type = d->efc_type[i];
  if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
    mcNum fl = d->efc_frictionloss[i];
    v = v < -fl ? -fl : (v > fl ? fl : v);
  } else if (type != mcCNSTR_EQUALITY && type != mcCNSTR_CONTACT_ELLIPTIC && v < 0) {
    v = 0;
  }
  mcNum delta = v - old;
  f[i] = v;
  return -delta * (res + 0.5 * diag * delta);
}


// an elliptic contact's forces back into its cone (normal >= 0, tangents scaled)
static void projectCone(const mcContact* con, mcNum* f) {
  if (f[0] <= 0) {
    memset(f, 0, sizeof(mcNum) * (size_t)con->dim);
    return;
  }
  mcNum t2 = 0;
  for (int k = 1; k < con->dim; k++) {
    mcNum u = f[k] / con->friction[k - 1];
    t2 += u * u;
  }
  mcNum t = sqrt(t2);
  if (t > f[0]) {
    for (int k = 1; k < con->dim; k++) {
      f[k] *= f[0] / t;
    }
  }
}


// efc_state from the forces (the dual solution tells which rows push)
static void states(mcData* d) {
  for (int i = 0; i < d->nefc; i++) {
    int type = d->efc_type[i];
    mcNum f = d->efc_force[i];
    int s = mcCNSTRSTATE_QUADRATIC;
    if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
      mcNum fl = d->efc_frictionloss[i];
      s = f >= fl ? mcCNSTRSTATE_LINEARNEG : (f <= -fl ? mcCNSTRSTATE_LINEARPOS : s);
    } else if (type == mcCNSTR_CONTACT_ELLIPTIC) {
      int dim = d->contact[d->efc_id[i]].dim;
      for (int k = 0; k < dim; k++) {
        d->efc_state[i + k] = d->efc_force[i] > 0 ? s : mcCNSTRSTATE_SATISFIED;
      }
      i += dim - 1;
      continue;
    } else if (type != mcCNSTR_EQUALITY && f <= 0) {
      s = mcCNSTRSTATE_SATISFIED;
    }
    d->efc_state[i] = s;
  }
}


// cost scale of the statistics: 1 / (mean diagonal inertia at qpos0 * nv)
static mcNum statScale(const mcModel* m) {
  mcNum sum = 0;
  for (int k = 0; k < m->nv; k++) {
    sum += m->dof_M0[k];
  }
  return sum > 0 ? 1 / sum : 1;
}


static void solve(const mcpHost* host, const mcModel* m, mcData* d, int maxiter) {
  int nv = m->nv, nefc = d->nefc;
  mcNum* f = d->efc_force;
  memset(f, 0, sizeof(mcNum) * (size_t)nefc);
  d->solver_iter = 0;

  // AR in mcData (arena); without it the forces stay zero
  if (host->makeAR(m, d) == 0) {
    mcNum w = relaxation(host, m), scale = statScale(m);
    for (int iter = 0; iter < maxiter; iter++) {
      mcNum improvement = 0;
      for (int i = 0; i < nefc; i++) {
        if (d->efc_type[i] != mcCNSTR_CONTACT_ELLIPTIC) {
          improvement += updateRow(d, i, w, f);
          continue;
        }
        const mcContact* con = d->contact + d->efc_id[i];
        mcNum cost0 = 0;
        for (int k = 0; k < con->dim; k++) {
          cost0 += updateRow(d, i + k, w, f);
        }
        projectCone(con, f + i);
        improvement += cost0;
        i += con->dim - 1;
      }
      mcSolverStat* stat = d->solver + (iter < mcNSOLVER ? iter : mcNSOLVER - 1);
      memset(stat, 0, sizeof(*stat));
      stat->improvement = scale * improvement;
      for (int i = 0; i < nefc; i++) {
        stat->nactive += f[i] != 0;
      }
      d->solver_iter = iter + 1;
      if (stat->improvement < m->opt.tolerance) {
        break;
      }
    }
  }

  // never NaN
  for (int i = 0; i < nefc; i++) {
    if (!isfinite(f[i])) {
      memset(f, 0, sizeof(mcNum) * (size_t)nefc);
      break;
    }
  }

  // qfrc_constraint = J' f, qacc = qacc_smooth + inv(M) J' f
  states(d);
  host->mulJT(m, d, d->qfrc_constraint, f);
  host->solveM(m, d, d->qacc, d->qfrc_constraint, 1);
  for (int k = 0; k < nv; k++) {
    d->qacc[k] += d->qacc_smooth[k];
  }
  memcpy(d->qacc_warmstart, d->qacc, sizeof(mcNum) * (size_t)nv);
}


static const mcpSolver g_pgs = {
  MCP_HEADER(mcpKIND_SOLVER, mcpSolver, "example.pgs", "1.0.0",
             "example: projected Gauss-Seidel on the dual with a relaxation factor", -1),
  solve,
  &g_ext,
};

static const mcpHeader* const g_list[] = {&g_pgs.hdr};
static const mcpLibrary g_library = MCP_LIBRARY("example-pgs", 1, g_list);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  // the solver contract (mulJ, mulJT, rowJ, makeAR) is ABI 1.3
  if (host->abi_minor < 3 || !host->makeAR || !host->mulJT) {
    return NULL;
  }
  return &g_library;
}
