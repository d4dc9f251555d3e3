// Moduco plugin "ipm": the problem from the core's rows (blocks, dense rows, effective inertia).
#include <math.h>
#include <string.h>

#include "ipm.h"


// row i of efc_J into the dense res (nv): through host->rowJ, else the dense or row-sparse arrays
static void efcRow(const mcpHost* host, const mcModel* m, const mcData* d, int i, mcNum* res) {
  int nv = m->nv;
  const int* col = NULL;
  const mcNum* val = NULL;
  int n = 0;
  if (host->rowJ) {
    n = host->rowJ(m, d, i, &col, &val);
  } else if (d->efc_J) {
    n = nv;
    val = d->efc_J + (size_t)i * nv;
  } else {
    n = d->efc_J_rownnz[i];
    col = d->efc_J_colind + d->efc_J_rowadr[i];
    val = d->efc_J_val + d->efc_J_rowadr[i];
  }
  if (!col) {
    memcpy(res, val, sizeof(mcNum) * (size_t)nv);
    return;
  }
  memset(res, 0, sizeof(mcNum) * (size_t)nv);
  for (int k = 0; k < n; k++) {
    res[col[k]] = val[k];
  }
}


static mcNum dot(const mcNum* a, const mcNum* b, int n) {
  mcNum s = 0;
  for (int i = 0; i < n; i++) {
    s += a[i] * b[i];
  }
  return s;
}


// efc rows of the contact starting at row i, and whether it has friction (mu > 0 both tangents)
static int contactRows(const mcData* d, int i, int* frictional) {
  const mcContact* con = d->contact + d->efc_id[i];
  int dim = con->dim;
  *frictional = dim >= 3 && con->friction[0] > mcMINVAL && con->friction[1] > mcMINVAL;
  if (d->efc_type[i] == mcCNSTR_CONTACT_FRICTIONLESS) {
    return 1;
  }
  return d->efc_type[i] == mcCNSTR_CONTACT_ELLIPTIC ? dim : 2 * (dim - 1);
}


// count blocks and problem rows
static void countBlocks(const mcData* d, int* nb, int* nrow, int* ne) {
  *nb = *nrow = *ne = 0;
  for (int i = 0; i < d->nefc;) {
    int type = d->efc_type[i], n = 1, rows = 1, fr = 0;
    if (type >= mcCNSTR_CONTACT_FRICTIONLESS) {
      n = contactRows(d, i, &fr);
      rows = fr ? d->contact[d->efc_id[i]].dim : 1;
    }
    *ne += type == mcCNSTR_EQUALITY;
    (*nb)++;
    *nrow += rows;
    i += n;
  }
}


// one contact: the normal and friction problem rows (sliding, torsion, rolling: condim - 1)
// from its efc rows
static void contactBlock(const mcpHost* host, const mcModel* m, const mcData* d, int i,
                         ipmBlock* b, mcNum* J, mcNum* scratch) {
  int nv = m->nv, fr;
  const mcContact* con = d->contact + d->efc_id[i];
  b->nefc = contactRows(d, i, &fr);
  b->kind = fr ? IPM_CONTACT : IPM_ORTH;
  b->nrow = fr ? con->dim : 1;
  b->pyramidal = d->efc_type[i] == mcCNSTR_CONTACT_PYRAMIDAL;
  for (int k = 0; k + 1 < b->nrow; k++) {
    b->mu[k] = con->friction[k];
  }

  // elliptic and frictionless: the rows are normal and friction rows already
  if (!b->pyramidal) {
    for (int k = 0; k < b->nrow; k++) {
      efcRow(host, m, d, i + k, J + (size_t)k * nv);
    }
    return;
  }

  // pyramidal edges e(k,+-) = n +- mu_k t_k: n = (e+ + e-) / 2, t_k = (e+ - e-) / (2 mu_k)
  mcNum* ep = scratch;
  mcNum* em = scratch + nv;
  for (int k = 0; k < b->nefc / 2; k++) {
    efcRow(host, m, d, i + 2 * k, ep);
    efcRow(host, m, d, i + 2 * k + 1, em);
    for (int j = 0; j < nv; j++) {
      if (k == 0) {
        J[j] = 0.5 * (ep[j] + em[j]);
      }
      if (fr) {  // a zero coefficient (torsion, rolling) gives equal edges and no force
        mcNum mu = con->friction[k];
        J[(size_t)(k + 1) * nv + j] = mu > mcMINVAL ? (ep[j] - em[j]) / (2 * mu) : 0;
      }
    }
  }
}


// dense effective inertia: M, plus h D on the diagonal when the Euler integrator (or ipm-euler)
// damps implicitly
static void denseInertia(const mcpHost* host, const mcModel* m, const mcData* d, mcNum* M,
                         mcNum* e, mcNum* col) {
  int nv = m->nv;
  int euler = m->opt.integrator == mcINT_EULER || m->integrator == &ipm_eulerIntegrator;
  int damp = euler && !(m->opt.disableflags & mcDSBL_EULERDAMP);
  memset(e, 0, sizeof(mcNum) * (size_t)nv);
  for (int j = 0; j < nv; j++) {
    e[j] = 1;
    host->mulM(m, d, col, e);
    e[j] = 0;
    for (int i = 0; i < nv; i++) {
      M[(size_t)i * nv + j] = col[i];
    }
    if (damp) {
      M[(size_t)j * nv + j] += m->opt.timestep * m->dof_damping[j];
    }
  }
}


#define ALLOC(ptr, type, n)                                                                        \
  do {                                                                                             \
    ptr = (type*)host->stackAlloc(d, sizeof(type) * (size_t)((n) > 0 ? (n) : 1), _Alignof(type)); \
    if (!ptr) {                                                                                    \
      return 0;                                                                                    \
    }                                                                                              \
  } while (0)


int ipm_build(const mcpHost* host, const mcModel* m, mcData* d, ipmProblem* P) {
  int nv = m->nv;
  memset(P, 0, sizeof(*P));
  countBlocks(d, &P->nb, &P->nrow, &P->ne);
  P->nv = nv;
  P->h = m->opt.timestep;
  P->qfrc = d->qfrc_smooth;
  int nb = P->nb, nr = P->nrow, nk = nv + P->ne;

  ALLOC(P->block, ipmBlock, nb);
  ALLOC(P->Jrow, mcNum, (size_t)nr * nv);
  ALLOC(P->Jcol, int, (size_t)nr * nv);
  ALLOC(P->Jn, int, nr);
  ALLOC(P->Jv, mcNum, nr);
  ALLOC(P->M, mcNum, (size_t)nv * nv);
  ALLOC(P->a, mcNum, nv);
  ALLOC(P->loc, mcNum, nb * IPM_MAXLOC);
  ALLOC(P->Ja, mcNum, nr);
  ALLOC(P->da, mcNum, nv);
  ALLOC(P->dloc, mcNum, nb * IPM_MAXLOC);
  ALLOC(P->Jda, mcNum, nr);
  ALLOC(P->dloc_aff, mcNum, nb * IPM_MAXLOC);
  ALLOC(P->Jda_aff, mcNum, nr);
  ALLOC(P->a_t, mcNum, nv);
  ALLOC(P->loc_t, mcNum, nb * IPM_MAXLOC);
  ALLOC(P->Ja_t, mcNum, nr);
  ALLOC(P->K, mcNum, (size_t)nk * nk);
  ALLOC(P->rhs, mcNum, nk);
  ALLOC(P->piv, int, nk);
  ALLOC(P->local, ipmLocal, nb);
  ALLOC(P->ework, mcNum, nk);
  ALLOC(P->ucol, int, nv);
  ALLOC(P->umark, int, nv);
  ALLOC(P->ublock, mcNum, 2 * IPM_MAXROW * nv + (size_t)nv * nv);
  memset(P->umark, 0, sizeof(int) * (size_t)nv);
  ALLOC(P->G, mcNum, nb * IPM_MAXROW * IPM_MAXROW);
  ALLOC(P->g, mcNum, nb * IPM_MAXROW);
  ALLOC(P->ra, mcNum, nv);
  ALLOC(P->tmp, mcNum, 2 * nv);

  // inertia (P->K as scratch for the unit vector)
  denseInertia(host, m, d, P->M, P->K, P->tmp);

  // blocks in efc order
  int row = 0;
  ipmBlock* b = P->block;
  for (int i = 0; i < d->nefc; b++) {
    int type = d->efc_type[i];
    memset(b, 0, sizeof(*b));
    b->row = row;
    b->efc = i;
    b->nefc = b->nrow = 1;
    mcNum* J = P->Jrow + (size_t)row * nv;
    if (type >= mcCNSTR_CONTACT_FRICTIONLESS) {
      contactBlock(host, m, d, i, b, J, P->tmp);
    } else {
      efcRow(host, m, d, i, J);
      b->kind = type == mcCNSTR_EQUALITY ? IPM_EQ
              : (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) ? IPM_FLOSS
              : IPM_ORTH;
      b->F = d->efc_frictionloss[i];
    }

    // velocity and nonzero columns per row; gap at the end of the step: pos + h J v+ = c + h^2 J a
    for (int k = 0; k < b->nrow; k++) {
      const mcNum* Jk = J + (size_t)k * nv;
      int* col = P->Jcol + (size_t)(row + k) * nv;
      int n = 0;
      for (int j = 0; j < nv; j++) {
        if (Jk[j] != 0) {
          col[n++] = j;
        }
      }
      P->Jn[row + k] = n;
      P->Jv[row + k] = dot(Jk, d->qvel, nv);
    }
    b->c = d->efc_pos[i] + P->h * P->Jv[row];
    row += b->nrow;
    i += b->nefc;
  }
  return 1;
}

#undef ALLOC


void ipm_mulRows(const ipmProblem* P, const mcNum* a, mcNum* Ja) {
  for (int r = 0; r < P->nrow; r++) {
    const mcNum* J = P->Jrow + (size_t)r * P->nv;
    const int* col = P->Jcol + (size_t)r * P->nv;
    mcNum s = 0;
    for (int t = 0; t < P->Jn[r]; t++) {
      s += J[col[t]] * a[col[t]];
    }
    Ja[r] = s;
  }
}


int ipm_blockForce(const ipmBlock* b, const mcNum* loc, mcNum* F) {
  F[0] = loc[0];
  if (b->kind == IPM_CONTACT) {
    for (int k = 1; k < b->nrow; k++) {
      F[k] = b->mu[k - 1] * loc[1 + k];
    }
    return b->nrow;
  }
  return 1;
}


void ipm_recovery(ipmProblem* P, const mcData* d, mcNum speed) {
  for (int i = 0; i < P->nb; i++) {
    ipmBlock* b = P->block + i;
    if (b->kind == IPM_ORTH || b->kind == IPM_CONTACT) {
      b->c = fmax(d->efc_pos[b->efc], -speed * P->h) + P->h * P->Jv[b->row];
    }
  }
}
