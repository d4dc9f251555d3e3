// Moduco plugin "ipm": residual, violation metrics and the Newton direction.
//
// Locals of a block (loc[IPM_MAXLOC]):
//   EQ       f
//   ORTH     z s              force z >= 0, gap s = c + h^2 J a >= 0
//   FLOSS    f y0             x = (F, f) in Q2, y = (y0, u) in Q2, u = J v+
//   CONTACT  z s g1..gm y0    orthant (z, s); x = (z, g) in Q(m+1), y = (y0, w), w_k = mu_k J_k v+
//                             (m = condim - 1 friction rows: sliding, torsion, rolling)
// The gap and the velocity duals are affine in a, so u and w are not unknowns of their own.
//
// The Newton matrix depends on the point only (the Nesterov-Todd scaling, not kappa), so
// ipm_factor linearizes and factors once per iteration and the predictor and the corrector are
// two solves with it (ipm_direction).
#include <math.h>
#include <string.h>

#include "ipm.h"


int ipm_y0(const ipmBlock* b) {
  return b->kind == IPM_FLOSS ? 1 : 1 + b->nrow;
}


int ipm_velocityDual(const ipmProblem* P, const ipmBlock* b, const mcNum* loc, const mcNum* Ja,
                     const mcNum* Jda, mcNum alpha, mcNum* y) {
  int r = b->row;
  y[0] = loc[ipm_y0(b)];
  if (b->kind == IPM_FLOSS) {
    y[1] = P->Jv[r] + P->h * (Ja[r] + (Jda ? alpha * Jda[r] : 0));
    return 2;
  }
  for (int k = 1; k < b->nrow; k++) {
    mcNum ja = Ja[r + k] + (Jda ? alpha * Jda[r + k] : 0);
    y[k] = b->mu[k - 1] * (P->Jv[r + k] + P->h * ja);
  }
  return b->nrow;
}


int ipm_velocityStep(const ipmProblem* P, const ipmBlock* b, const mcNum* dloc, const mcNum* Jd,
                     mcNum* dy) {
  int r = b->row;
  dy[0] = dloc[ipm_y0(b)];
  if (b->kind == IPM_FLOSS) {
    dy[1] = P->h * Jd[r];
    return 2;
  }
  for (int k = 1; k < b->nrow; k++) {
    dy[k] = b->mu[k - 1] * P->h * Jd[r + k];
  }
  return b->nrow;
}


int ipm_forceCone(const ipmBlock* b, const mcNum* loc, mcNum* x) {
  if (b->kind == IPM_FLOSS) {
    x[0] = b->F;
    x[1] = loc[0];
    return 2;
  }
  x[0] = loc[0];
  for (int k = 1; k < b->nrow; k++) {
    x[k] = loc[1 + k];
  }
  return b->nrow;
}


void ipm_start(ipmProblem* P, mcNum kappa0) {
  ipm_mulRows(P, P->a, P->Ja);
  for (int i = 0; i < P->nb; i++) {
    const ipmBlock* b = P->block + i;
    mcNum* loc = P->loc + IPM_MAXLOC * i;
    memset(loc, 0, sizeof(mcNum) * IPM_MAXLOC);
    if (b->kind == IPM_ORTH || b->kind == IPM_CONTACT) {
      mcNum gap = b->c + P->h * P->h * P->Ja[b->row];
      loc[1] = (gap > 0 ? gap : 0) + sqrt(kappa0);
      loc[0] = kappa0 / loc[1];
    }
    if (b->kind == IPM_CONTACT || b->kind == IPM_FLOSS) {
      mcNum y[IPM_MAXCONE];
      int n = ipm_velocityDual(P, b, loc, P->Ja, NULL, 0, y);
      mcNum w = 0;
      for (int k = 1; k < n; k++) {
        w += y[k] * y[k];
      }
      loc[ipm_y0(b)] = sqrt(w) + kappa0 / (b->kind == IPM_FLOSS ? b->F : loc[0]);
    }
  }
}


// dynamics residual ra = Me a - qfrc_smooth - J' F
static void dynamicsResidual(ipmProblem* P, const mcNum* a, const mcNum* loc, mcNum* ra) {
  int nv = P->nv;
  for (int i = 0; i < nv; i++) {
    ra[i] = -P->qfrc[i];
    const mcNum* Mi = P->M + (size_t)i * nv;
    for (int j = 0; j < nv; j++) {
      ra[i] += Mi[j] * a[j];
    }
  }
  for (int i = 0; i < P->nb; i++) {
    const ipmBlock* b = P->block + i;
    mcNum F[IPM_MAXROW];
    int n = ipm_blockForce(b, loc + IPM_MAXLOC * i, F);
    for (int k = 0; k < n; k++) {
      int r = b->row + k;
      const mcNum* J = P->Jrow + (size_t)r * nv;
      const int* col = P->Jcol + (size_t)r * nv;
      for (int t = 0; t < P->Jn[r]; t++) {
        ra[col[t]] -= F[k] * J[col[t]];
      }
    }
  }
}


void ipm_violation(ipmProblem* P, const mcNum* a, const mcNum* loc, const mcNum* Ja,
                   mcNum* r_vio, mcNum* kappa_vio) {
  mcNum rv = 0, kv = 0, h2 = P->h * P->h;
  dynamicsResidual(P, a, loc, P->ra);
  for (int i = 0; i < P->nv; i++) {
    rv = fmax(rv, fabs(P->ra[i]));
  }
  for (int i = 0; i < P->nb; i++) {
    const ipmBlock* b = P->block + i;
    const mcNum* l = loc + IPM_MAXLOC * i;
    mcNum gap = b->c + h2 * Ja[b->row];
    if (b->kind == IPM_EQ) {
      rv = fmax(rv, fabs(gap));
      continue;
    }
    if (b->kind != IPM_FLOSS) {
      rv = fmax(rv, fabs(l[1] - gap));
      kv = fmax(kv, fabs(l[0] * l[1]));
    }
    if (b->kind != IPM_ORTH) {
      mcNum x[IPM_MAXCONE], y[IPM_MAXCONE], xy[IPM_MAXCONE];
      int n = ipm_forceCone(b, l, x);
      ipm_velocityDual(P, b, l, Ja, NULL, 0, y);
      ipm_socProduct(x, y, xy, n);
      for (int k = 0; k < n; k++) {
        kv = fmax(kv, fabs(xy[k]));
      }
    }
  }
  *r_vio = rv;
  *kappa_vio = kv;
}


//---------------------------------- local linearization of a block -------------------------------

// Rows of the scaled cone linearization lambda o (W^-1 dx + W dy) = -r: Ax = L(lambda) W^-1,
// Ay = L(lambda) W (L the arrow matrix)
// (row 0 of L(lam) is lam', row i > 0 is lam_i e_0' + lam_0 e_i': O(n^2))
static void ntRows(const ipmLocal* L, int n, mcNum* Ax, mcNum* Ay) {
  const mcNum* lam = L->lam;
  for (int j = 0; j < n; j++) {
    mcNum ax = 0, ay = 0;
    for (int k = 0; k < n; k++) {
      ax += lam[k] * L->Wi[k * n + j];
      ay += lam[k] * L->W[k * n + j];
    }
    Ax[j] = ax;
    Ay[j] = ay;
  }
  for (int i = 1; i < n; i++) {
    for (int j = 0; j < n; j++) {
      Ax[i * n + j] = lam[i] * L->Wi[j] + lam[0] * L->Wi[i * n + j];
      Ay[i * n + j] = lam[i] * L->W[j] + lam[0] * L->W[i * n + j];
    }
  }
}


// local matrix of a block at the current point: K dl = -r + Pm d (d = J_b da); the number of
// locals. Also the cone pair's NT scaling in L.
static int localMatrix(const ipmProblem* P, const ipmBlock* b, const mcNum* l, ipmLocal* L,
                       mcNum K[IPM_MAXLOC][IPM_MAXLOC], mcNum Pm[IPM_MAXLOC][IPM_MAXROW]) {
  mcNum h = P->h;
  mcNum x[IPM_MAXCONE], y[IPM_MAXCONE];
  mcNum Ax[IPM_MAXCONE * IPM_MAXCONE], Ay[IPM_MAXCONE * IPM_MAXCONE];
  memset(K, 0, sizeof(mcNum) * IPM_MAXLOC * IPM_MAXLOC);
  memset(Pm, 0, sizeof(mcNum) * IPM_MAXLOC * IPM_MAXROW);
  if (b->kind == IPM_FLOSS) {
    // x = (F, f) with F fixed, y = (y0, u), du = h d
    ipm_forceCone(b, l, x);
    ipm_velocityDual(P, b, l, P->Ja, NULL, 0, y);
    ipm_ntScaling(x, y, 2, L->W, L->Wi, L->lam);
    ntRows(L, 2, Ax, Ay);
    for (int k = 0; k < 2; k++) {
      K[k][0] = Ax[k * 2 + 1];
      K[k][1] = Ay[k * 2 + 0];
      Pm[k][0] = -Ay[k * 2 + 1] * h;
    }
    return 2;
  }

  // orthant pair (z, s): gap row and complementarity row
  K[0][1] = 1, Pm[0][0] = h * h;
  K[1][0] = l[1], K[1][1] = l[0];
  if (b->kind == IPM_ORTH) {
    return 2;
  }

  // cone pair x = (z, g), y = (y0, w), dw_k = mu_k h d_k
  int n = ipm_forceCone(b, l, x), y0 = ipm_y0(b);
  ipm_velocityDual(P, b, l, P->Ja, NULL, 0, y);
  ipm_ntScaling(x, y, n, L->W, L->Wi, L->lam);
  ntRows(L, n, Ax, Ay);
  for (int k = 0; k < n; k++) {
    K[2 + k][0] = Ax[k * n];
    for (int j = 1; j < n; j++) {
      K[2 + k][1 + j] = Ax[k * n + j];
      Pm[2 + k][j] = -Ay[k * n + j] * b->mu[j - 1] * h;
    }
    K[2 + k][y0] = Ay[k * n];
  }
  return y0 + 1;
}


// residual of the local rows for kappa (and Mehrotra's second-order term of the predictor
// direction when P->corrector): gap, s z - kappa, lambda o lambda - kappa e
static void localResidual(const ipmProblem* P, int i, mcNum kappa, mcNum* r) {
  const ipmBlock* b = P->block + i;
  const ipmLocal* L = P->local + i;
  const mcNum* l = P->loc + IPM_MAXLOC * i;
  const mcNum* la = P->corrector ? P->dloc_aff + IPM_MAXLOC * i : NULL;
  int c = 0;
  if (b->kind != IPM_FLOSS) {
    r[0] = l[1] - b->c - P->h * P->h * P->Ja[b->row];
    r[1] = l[0] * l[1] - kappa + (la ? la[0] * la[1] : 0);
    c = 2;
  }
  if (b->kind == IPM_ORTH) {
    return;
  }
  int n = b->kind == IPM_FLOSS ? 2 : b->nrow;
  ipm_socProduct(L->lam, L->lam, r + c, n);
  r[c] -= kappa;
  if (la) {
    // predictor's cone directions: dx from the locals, dy = (dy0, mu_k h J_k da_aff)
    mcNum dxa[IPM_MAXCONE], dya[IPM_MAXCONE];
    mcNum sx[IPM_MAXCONE], sy[IPM_MAXCONE], q[IPM_MAXCONE];
    ipm_forceCone(b, la, dxa);
    if (b->kind == IPM_FLOSS) {
      dxa[0] = 0;
    }
    ipm_velocityStep(P, b, la, P->Jda_aff, dya);
    ipm_matVec(L->Wi, dxa, n, sx);
    ipm_matVec(L->W, dya, n, sy);
    ipm_socProduct(sx, sy, q, n);
    for (int k = 0; k < n; k++) {
      r[c + k] += q[k];
    }
  }
}


// force rows of a local vector (EQ/ORTH/FLOSS: 1, CONTACT: fn, mu_k g_k)
static void forceOfLocals(const ipmBlock* b, const mcNum* l, mcNum* F) {
  ipm_blockForce(b, l, F);
}


// x = K^-1 x with the local matrix of block i; the orthant pair in closed form
// (K = [0 1; s z]: ds = x0, dz = (x1 - z ds) / s), the others by their LU
static void localSolve(const ipmProblem* P, int i, mcNum* x) {
  const ipmLocal* L = P->local + i;
  if (P->block[i].kind == IPM_ORTH) {
    const mcNum* l = P->loc + IPM_MAXLOC * i;
    mcNum ds = x[0];
    x[0] = (x[1] - l[0] * ds) / l[1];
    x[1] = ds;
    return;
  }
  ipm_solveLU(L->K, L->piv, x, L->p);
}


// linearize block i: local LU, Pm and G = S K^-1 Pm (dF = G d + g)
static int linearize(ipmProblem* P, int i) {
  const ipmBlock* b = P->block + i;
  ipmLocal* L = P->local + i;
  mcNum K[IPM_MAXLOC][IPM_MAXLOC], Pm[IPM_MAXLOC][IPM_MAXROW];
  int p = localMatrix(P, b, P->loc + IPM_MAXLOC * i, L, K, Pm);
  L->p = p;
  for (int j = 0; j < p; j++) {
    for (int k = 0; k < p; k++) {
      L->K[j * p + k] = K[j][k];
    }
  }
  if (b->kind != IPM_ORTH && !ipm_factorLU(L->K, L->piv, p)) {
    return 0;
  }
  mcNum col[IPM_MAXLOC], F[IPM_MAXROW];
  mcNum* G = P->G + IPM_MAXROW * IPM_MAXROW * i;
  for (int c = 0; c < b->nrow; c++) {
    for (int j = 0; j < p; j++) {
      col[j] = L->Pm[j * IPM_MAXROW + c] = Pm[j][c];
    }
    localSolve(P, i, col);
    forceOfLocals(b, col, F);
    for (int k = 0; k < b->nrow; k++) {
      G[k * IPM_MAXROW + c] = F[k];
    }
  }
  return 1;
}


// K -= J_b' G J_b on the union U of the block's nonzero columns: B = G J_b(:, U), then
// K(U, U) -= J_b(:, U)' B
static void subtractBlock(ipmProblem* P, int i, mcNum* K, int nk) {
  const ipmBlock* b = P->block + i;
  int nv = P->nv, nu = 0, stamp = ++P->ustamp;
  int* U = P->ucol;
  mcNum* Jb = P->ublock;
  mcNum* B = P->ublock + (size_t)IPM_MAXROW * nv;
  for (int k = 0; k < b->nrow; k++) {
    const int* col = P->Jcol + (size_t)(b->row + k) * nv;
    for (int t = 0; t < P->Jn[b->row + k]; t++) {
      if (P->umark[col[t]] != stamp) {
        P->umark[col[t]] = stamp;
        U[nu++] = col[t];
      }
    }
  }
  for (int k = 0; k < b->nrow; k++) {
    const mcNum* Jk = P->Jrow + (size_t)(b->row + k) * nv;
    for (int u = 0; u < nu; u++) {
      Jb[k * nu + u] = Jk[U[u]];
    }
  }
  const mcNum* G = P->G + IPM_MAXROW * IPM_MAXROW * i;
  for (int k = 0; k < b->nrow; k++) {
    for (int u = 0; u < nu; u++) {
      mcNum v = 0;
      for (int c = 0; c < b->nrow; c++) {
        v += G[k * IPM_MAXROW + c] * Jb[c * nu + u];
      }
      B[k * nu + u] = v;
    }
  }
  // T = Jb' B in a contiguous nu x nu buffer (rank-one updates the compiler vectorizes), then
  // scattered into K
  mcNum* T = B + (size_t)IPM_MAXROW * nv;
  for (int p = 0; p < nu; p++) {
    mcNum* Tp = T + (size_t)p * nu;
    mcNum jp = Jb[p];
    for (int q = 0; q < nu; q++) {
      Tp[q] = jp * B[q];
    }
    for (int k = 1; k < b->nrow; k++) {
      const mcNum* Bk = B + k * nu;
      jp = Jb[k * nu + p];
      for (int q = 0; q < nu; q++) {
        Tp[q] += jp * Bk[q];
      }
    }
  }
  for (int p = 0; p < nu; p++) {
    mcNum* Kp = K + (size_t)U[p] * nk;
    const mcNum* Tp = T + (size_t)p * nu;
    for (int q = 0; q < nu; q++) {
      Kp[U[q]] -= Tp[q];
    }
  }
}


int ipm_factor(ipmProblem* P) {
  int nv = P->nv, nk = nv + P->ne;
  mcNum* K = P->K;
  memset(K, 0, sizeof(mcNum) * (size_t)nk * nk);

  // dynamics rows: Me da - sum J' G J da - Je' dfe
  for (int i = 0; i < nv; i++) {
    memcpy(K + (size_t)i * nk, P->M + (size_t)i * nv, sizeof(mcNum) * nv);
  }
  int e = nv;
  for (int i = 0; i < P->nb; i++) {
    const ipmBlock* b = P->block + i;
    const mcNum* J = P->Jrow + (size_t)b->row * nv;
    if (b->kind == IPM_EQ) {
      // equality row J da and force column -J'
      mcNum* Ke = K + (size_t)e * nk;
      for (int j = 0; j < nv; j++) {
        Ke[j] = J[j];
        K[(size_t)j * nk + e] = -J[j];
      }
      e++;
      continue;
    }
    if (!linearize(P, i)) {
      return 0;
    }
    subtractBlock(P, i, K, nk);
  }
  if (!P->wantCond) {
    return ipm_factorLU(K, P->piv, nk);
  }

  // diagnostics: kappa_1 = |K|_1 |K^-1|_1, the inverse column by column with the factor
  mcNum norm = 0, inorm = 0;
  for (int j = 0; j < nk; j++) {
    mcNum c = 0;
    for (int i = 0; i < nk; i++) {
      c += fabs(K[(size_t)i * nk + j]);
    }
    norm = fmax(norm, c);
  }
  if (!ipm_factorLU(K, P->piv, nk)) {
    P->cond = INFINITY;
    return 0;
  }
  for (int j = 0; j < nk; j++) {
    memset(P->ework, 0, sizeof(mcNum) * (size_t)nk);
    P->ework[j] = 1;
    ipm_solveLU(K, P->piv, P->ework, nk);
    mcNum c = 0;
    for (int i = 0; i < nk; i++) {
      c += fabs(P->ework[i]);
    }
    inorm = fmax(inorm, c);
  }
  P->cond = norm * inorm;
  return 1;
}


void ipm_direction(ipmProblem* P, mcNum kappa) {
  int nv = P->nv, nk = nv + P->ne;
  mcNum* rhs = P->rhs;

  // right side: -ra + sum J' g (g = S K^-1 (-r)), equality targets; ra at the current point is
  // kept from the line search's last evaluation when the caller says so (P->raFresh)
  if (!P->raFresh) {
    dynamicsResidual(P, P->a, P->loc, P->ra);
  }
  for (int i = 0; i < nv; i++) {
    rhs[i] = -P->ra[i];
  }
  int e = nv;
  for (int i = 0; i < P->nb; i++) {
    const ipmBlock* b = P->block + i;
    if (b->kind == IPM_EQ) {
      rhs[e++] = -(b->c / (P->h * P->h) + P->Ja[b->row]);
      continue;
    }
    ipmLocal* L = P->local + i;
    mcNum r[IPM_MAXLOC], g[IPM_MAXROW];
    localResidual(P, i, kappa, r);
    for (int j = 0; j < L->p; j++) {
      L->Kr[j] = L->r[j] = -r[j];
    }
    localSolve(P, i, L->Kr);
    forceOfLocals(b, L->Kr, g);
    for (int k = 0; k < b->nrow; k++) {
      int row = b->row + k;
      const mcNum* Jk = P->Jrow + (size_t)row * nv;
      const int* col = P->Jcol + (size_t)row * nv;
      for (int t = 0; t < P->Jn[row]; t++) {
        rhs[col[t]] += Jk[col[t]] * g[k];
      }
    }
  }

  // solve, then recover the locals: dl = K^-1 (-r + Pm J_b da)
  ipm_solveLU(P->K, P->piv, rhs, nk);
  memcpy(P->da, rhs, sizeof(mcNum) * nv);
  ipm_mulRows(P, P->da, P->Jda);
  e = nv;
  for (int i = 0; i < P->nb; i++) {
    const ipmBlock* b = P->block + i;
    mcNum* dl = P->dloc + IPM_MAXLOC * i;
    memset(dl, 0, sizeof(mcNum) * IPM_MAXLOC);
    if (b->kind == IPM_EQ) {
      dl[0] = rhs[e++];
      continue;
    }
    const ipmLocal* L = P->local + i;
    for (int j = 0; j < L->p; j++) {
      dl[j] = L->r[j];
      for (int c = 0; c < b->nrow; c++) {
        dl[j] += L->Pm[j * IPM_MAXROW + c] * P->Jda[b->row + c];
      }
    }
    localSolve(P, i, dl);
  }
}
