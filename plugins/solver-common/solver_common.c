// Moduco solver plugins: shared pieces (scale, primal constraint update, warmstart, finish).
#include <math.h>
#include <string.h>

#include "solver.h"
#include "solver_internal.h"


mcNum mcs_scale(const mcModel* m, const mcData* d) {
  mcNum tr = 0;
  int nv = m->nv;
  if (d->island_view >= 0 && d->island_model) {
    nv = d->island_model->nv;     // the full problem's scale, its trace summed by the core
    tr = d->island_M0trace;
  } else {
    for (int i = 0; i < nv; i++) {
      tr += m->dof_M0[i];
    }
  }
  mcNum mean = nv > 0 ? tr / nv : 1;
  if (!(mean > mcMINVAL)) {
    mean = 1;
  }
  return 1 / (mean * (nv > 1 ? nv : 1));
}


//---------------------------------- elliptic cone -------------------------------------------------

// transformed coordinates of a contact: U0 = mu jar0, Uj = friction[j-1] jarj
static void coneScale(const mcContact* con, mcNum* s) {
  s[0] = con->mu;
  for (int j = 1; j < con->dim; j++) {
    s[j] = con->friction[j - 1];
  }
}


int mcs_coneZone(const mcContact* con, const mcNum* jar, mcNum* N, mcNum* T) {
  mcNum s[6], t2 = 0;
  coneScale(con, s);
  *N = s[0] * jar[0];
  for (int j = 1; j < con->dim; j++) {
    mcNum u = s[j] * jar[j];
    t2 += u * u;
  }
  *T = sqrt(t2);
  mcNum mu = con->mu;
  if (*N >= mu * *T || (*T <= 0 && *N >= 0)) {
    return mcCNSTRSTATE_SATISFIED;
  }
  if (mu * *N + *T <= 0 || (*T <= 0 && *N < 0)) {
    return mcCNSTRSTATE_QUADRATIC;
  }
  return mcCNSTRSTATE_CONE;
}


// middle zone of an elliptic cone: cost, force and (optionally) the dim x dim Hessian in H
static mcNum coneMiddle(const mcContact* con, const mcNum* jar, mcNum D0, mcNum N, mcNum T,
                        mcNum* force, mcNum* H) {
  int dim = con->dim;
  mcNum mu = con->mu, s[6], U[6];
  coneScale(con, s);
  for (int j = 0; j < dim; j++) {
    U[j] = s[j] * jar[j];
  }
  mcNum Dm = D0 / (mu * mu * (1 + mu * mu));
  mcNum g = N - mu * T;

  // gradient of g in U: (1, -mu U_T / T)
  mcNum dg[6];
  dg[0] = 1;
  for (int j = 1; j < dim; j++) {
    dg[j] = -mu * U[j] / T;
  }

  // force = -d cost / d jar
  for (int j = 0; j < dim; j++) {
    force[j] = -Dm * g * dg[j] * s[j];
  }

  // Hessian: Dm (dg dg' + g d2g), d2g = -mu (I - u u') / T on the tangent block
  if (H) {
    for (int a = 0; a < dim; a++) {
      for (int b = 0; b < dim; b++) {
        mcNum h = dg[a] * dg[b];
        if (a > 0 && b > 0) {
          mcNum ua = U[a] / T, ub = U[b] / T;
          h += g * (-mu) * ((a == b ? 1 : 0) - ua * ub) / T;
        }
        H[a * dim + b] = Dm * h * s[a] * s[b];
      }
    }
  }
  return 0.5 * Dm * g * g;
}


//---------------------------------- primal constraint update --------------------------------------

mcNum mcs_constraintUpdate(const mcModel* m, mcData* d, const mcNum* jar, int flg_hessian) {
  return mcs_constraintUpdateIneq(m, d, jar, flg_hessian, d->nefc);
}


mcNum mcs_constraintUpdateIneq(const mcModel* m, mcData* d, const mcNum* jar, int flg_hessian,
                               int ineq) {
  (void)m;
  mcNum cost = 0;
  for (int i = 0; i < ineq; i++) {
    int type = d->efc_type[i];
    mcNum D = d->efc_D[i], j = jar[i];

    // elliptic cone: whole contact at its first row
    if (type == mcCNSTR_CONTACT_ELLIPTIC) {
      mcContact* con = d->contact + d->efc_id[i];
      int dim = con->dim;
      mcNum N, T;
      int zone = mcs_coneZone(con, jar + i, &N, &T);
      for (int k = 0; k < dim; k++) {
        d->efc_state[i + k] = zone;
      }
      if (zone == mcCNSTRSTATE_SATISFIED) {
        for (int k = 0; k < dim; k++) {
          d->efc_force[i + k] = 0;
        }
      } else if (zone == mcCNSTRSTATE_QUADRATIC) {
        for (int k = 0; k < dim; k++) {
          d->efc_force[i + k] = -d->efc_D[i + k] * jar[i + k];
          cost += 0.5 * d->efc_D[i + k] * jar[i + k] * jar[i + k];
        }
      } else {
        cost += coneMiddle(con, jar + i, D, N, T, d->efc_force + i, flg_hessian ? con->H : NULL);
      }
      i += dim - 1;
      continue;
    }

    // scalar rows
    int state = mcCNSTRSTATE_QUADRATIC;
    mcNum f = -D * j, c = 0.5 * D * j * j;
    if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
      mcNum fl = d->efc_frictionloss[i], Rfl = d->efc_R[i] * fl;
      if (j <= -Rfl) {
        state = mcCNSTRSTATE_LINEARNEG;
        f = fl;
        c = -fl * j - 0.5 * Rfl * fl;
      } else if (j >= Rfl) {
        state = mcCNSTRSTATE_LINEARPOS;
        f = -fl;
        c = fl * j - 0.5 * Rfl * fl;
      }
    } else if (type != mcCNSTR_EQUALITY && j >= 0) {
      state = mcCNSTRSTATE_SATISFIED;
      f = 0;
      c = 0;
    }
    d->efc_state[i] = state;
    d->efc_force[i] = f;
    cost += c;
  }

  // scalar inequalities: satisfied or quadratic (a satisfied row adds +0 above, which leaves the
  // cost as it is: it starts at +0 and a sum is -0 only when both terms are)
  int* state = d->efc_state;
  mcNum *force = d->efc_force, *efcD = d->efc_D;
  for (int i = ineq; i < d->nefc; i++) {
    mcNum j = jar[i];
    if (j >= 0) {
      state[i] = mcCNSTRSTATE_SATISFIED;
      force[i] = 0;
    } else {
      mcNum D = efcD[i];
      state[i] = mcCNSTRSTATE_QUADRATIC;
      force[i] = -D * j;
      cost += 0.5 * D * j * j;
    }
  }
  return cost;
}


//---------------------------------- start and finish ----------------------------------------------

void mcs_unconstrained(const mcModel* m, mcData* d) {
  memcpy(d->qacc, d->qacc_smooth, sizeof(mcNum) * m->nv);
  memset(d->qfrc_constraint, 0, sizeof(mcNum) * m->nv);
  memcpy(d->qacc_warmstart, d->qacc, sizeof(mcNum) * m->nv);
  d->solver_iter = 0;
}


void mcs_finish(const mcpHost* host, const mcModel* m, mcData* d) {
  host->mulJT(m, d, d->qfrc_constraint, d->efc_force);
  memcpy(d->qacc_warmstart, d->qacc, sizeof(mcNum) * m->nv);
}


mcNum mcs_gaussCost(const mcModel* m, const mcData* d, const mcNum* x, const mcNum* Mx) {
  mcNum c = 0;
  for (int i = 0; i < m->nv; i++) {
    c += 0.5 * (Mx[i] - d->qfrc_smooth[i]) * (x[i] - d->qacc_smooth[i]);
  }
  return c;
}


void mcs_warmstartDual(const mcpHost* host, const mcModel* m, mcData* d) {
  int nv = m->nv, nefc = d->nefc;

  if (m->opt.disableflags & mcDSBL_WARMSTART) {
    memset(d->efc_force, 0, sizeof(mcNum) * nefc);
    return;
  }

  host->markStack(d);
  mcNum* jar = host->stackAlloc(d, sizeof(mcNum) * (nefc + 2 * (size_t)nv), 16);
  if (!jar) {
    host->freeStack(d);
    memset(d->efc_force, 0, sizeof(mcNum) * nefc);
    return;
  }

  // forces of the constraint update at the warmstart
  host->mulJ(m, d, jar, d->qacc_warmstart);
  for (int i = 0; i < nefc; i++) {
    jar[i] -= d->efc_aref[i];
  }
  mcs_constraintUpdate(m, d, jar, 0);

  // kept if their dual cost 0.5 f' (A + R) f + f' b is negative; f' A f = u' inv(M) u with
  // u = J' f
  mcNum* u = jar + nefc;
  mcNum* v = u + nv;
  host->mulJT(m, d, u, d->efc_force);
  host->solveM(m, d, v, u, 1);
  mcNum dc = 0.5 * mcs_dot(u, v, nv);
  for (int i = 0; i < nefc; i++) {
    mcNum f = d->efc_force[i];
    dc += f * (0.5 * d->efc_R[i] * f + d->efc_b[i]);
  }
  if (dc > 0) {
    memset(d->efc_force, 0, sizeof(mcNum) * nefc);
  }
  host->freeStack(d);
}
