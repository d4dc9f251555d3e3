// Moduco plugin "ipm": residual, violation metrics and the Newton direction.
//
// Locals of a block (loc[IPM_MAXLOC]):
//   EQ       f
//   ORTH     z s            force z >= 0, gap s = c + h^2 J a >= 0
//   FLOSS    f y0           x = (F, f) in Q2, y = (y0, u) in Q2, u = J v+
//   CONTACT  z s g1 g2 y0   orthant (z, s); x = (z, g) in Q3, y = (y0, w) in Q3, w_k = mu_k J_k v+
// The gap and the velocity duals are affine in a, so u and w are not unknowns of their own.
#include <math.h>
#include <string.h>

#include "ipm.h"


// second-order cone product x o y = (x'y, x0 y1 + y0 x1) of dimension n
static void socProduct(const mcNum* x, const mcNum* y, mcNum* res, int n) {
  res[0] = 0;
  for (int k = 0; k < n; k++) {
    res[0] += x[k] * y[k];
  }
  for (int k = 1; k < n; k++) {
    res[k] = x[0] * y[k] + y[0] * x[k];
  }
}


// velocity dual of the cone of a block (FLOSS: (y0, u), CONTACT: (y0, w1, w2)); dimension
static int velocityDual(const ipmProblem* P, const ipmBlock* b, const mcNum* loc,
                        const mcNum* Ja, mcNum* y) {
  int r = b->row;
  if (b->kind == IPM_FLOSS) {
    y[0] = loc[1];
    y[1] = P->Jv[r] + P->h * Ja[r];
    return 2;
  }
  y[0] = loc[4];
  for (int k = 1; k < 3; k++) {
    y[k] = b->mu[k - 1] * (P->Jv[r + k] + P->h * Ja[r + k]);
  }
  return 3;
}


// force cone of a block (FLOSS: (F, f), CONTACT: (z, g1, g2)); dimension
static int forceCone(const ipmBlock* b, const mcNum* loc, mcNum* x) {
  if (b->kind == IPM_FLOSS) {
    x[0] = b->F;
    x[1] = loc[0];
    return 2;
  }
  x[0] = loc[0];
  x[1] = loc[2];
  x[2] = loc[3];
  return 3;
}


void ipm_start(ipmProblem* P, mcNum kappa0) {
  ipm_mulRows(P, P->a, P->Ja);
  for (int i = 0; i < P->nb; i++) {
    const ipmBlock* b = P->block + i;
    mcNum* loc = P->loc + IPM_MAXLOC * i;
    memset(loc, 0, sizeof(mcNum) * IPM_MAXLOC);
    mcNum y[3];
    if (b->kind == IPM_ORTH || b->kind == IPM_CONTACT) {
      mcNum gap = b->c + P->h * P->h * P->Ja[b->row];
      loc[1] = (gap > 0 ? gap : 0) + sqrt(kappa0);
      loc[0] = kappa0 / loc[1];
    }
    if (b->kind == IPM_CONTACT) {
      velocityDual(P, b, loc, P->Ja, y);
      loc[4] = sqrt(y[1] * y[1] + y[2] * y[2]) + kappa0 / loc[0];
    } else if (b->kind == IPM_FLOSS) {
      velocityDual(P, b, loc, P->Ja, y);
      loc[1] = fabs(y[1]) + kappa0 / b->F;
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
      const mcNum* J = P->Jrow + (size_t)(b->row + k) * nv;
      if (F[k] != 0) {
        for (int j = 0; j < nv; j++) {
          ra[j] -= F[k] * J[j];
        }
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
      mcNum x[3], y[3], xy[3];
      int n = forceCone(b, l, x);
      velocityDual(P, b, l, Ja, y);
      socProduct(x, y, xy, n);
      for (int k = 0; k < n; k++) {
        kv = fmax(kv, fabs(xy[k]));
      }
    }
  }
  *r_vio = rv;
  *kappa_vio = kv;
}


//---------------------------------- Nesterov-Todd scaling of a cone pair --------------------------

// f(u) of the Jordan algebra of Q^n by the spectral decomposition u = l1 c1 + l2 c2
// (l = u0 +- |u1|); inv = 0: square root, 1: inverse square root
static void socSpectral(const mcNum* u, int n, int inv, mcNum* res) {
  mcNum r = 0;
  for (int k = 1; k < n; k++) {
    r += u[k] * u[k];
  }
  r = sqrt(r);
  mcNum f1 = sqrt(fmax(u[0] + r, 0)), f2 = sqrt(fmax(u[0] - r, 0));
  if (inv) {
    f1 = 1 / f1;
    f2 = 1 / f2;
  }
  res[0] = 0.5 * (f1 + f2);
  for (int k = 1; k < n; k++) {
    res[k] = r > 0 ? 0.5 * (f1 - f2) * u[k] / r : 0;
  }
}


// quadratic representation P(u) = 2 u u' - det(u) J (J = diag(1, -1, ..))
static void quadRep(const mcNum* u, int n, mcNum Pm[3][3]) {
  mcNum det = u[0] * u[0];
  for (int k = 1; k < n; k++) {
    det -= u[k] * u[k];
  }
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      Pm[i][j] = 2 * u[i] * u[j] - (i == j ? (i ? -det : det) : 0);
    }
  }
}


static void mat3vec(mcNum Pm[3][3], const mcNum* v, int n, mcNum* res) {
  for (int i = 0; i < n; i++) {
    res[i] = 0;
    for (int j = 0; j < n; j++) {
      res[i] += Pm[i][j] * v[j];
    }
  }
}


// NT scaling of x, y in int Q^n: the point w with P(w) y = x, W = P(w^1/2), W^-1 = P(w^-1/2),
// lambda = W y = W^-1 x. Rows of the scaled linearization lambda o (W^-1 dx + W dy) = -r:
// Ax = L(lambda) W^-1, Ay = L(lambda) W, r = lambda o lambda - kappa e, plus Mehrotra's
// second-order term (W^-1 dx_aff) o (W dy_aff) when the predictor direction is given.
static void ntRows(const mcNum* x, const mcNum* y, int n, mcNum kappa, const mcNum* dxa,
                   const mcNum* dya, mcNum Ax[3][3], mcNum Ay[3][3], mcNum* r) {
  mcNum xh[3], t[3], u[3], w[3], wh[3], Pm[3][3], W[3][3], Wi[3][3], lam[3];
  socSpectral(x, n, 0, xh);
  quadRep(xh, n, Pm);
  mat3vec(Pm, y, n, t);
  socSpectral(t, n, 1, u);
  mat3vec(Pm, u, n, w);
  socSpectral(w, n, 0, wh);
  quadRep(wh, n, W);
  socSpectral(w, n, 1, wh);
  quadRep(wh, n, Wi);
  mat3vec(W, y, n, lam);

  // arrow matrix L(lambda) times W and W^-1
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      mcNum ax = 0, ay = 0;
      for (int k = 0; k < n; k++) {
        mcNum Lik = i == 0 ? lam[k] : (k == 0 ? lam[i] : (i == k ? lam[0] : 0));
        ax += Lik * Wi[k][j];
        ay += Lik * W[k][j];
      }
      Ax[i][j] = ax;
      Ay[i][j] = ay;
    }
  }
  socProduct(lam, lam, r, n);
  r[0] -= kappa;
  if (dxa) {
    mcNum sx[3], sy[3], c[3];
    mat3vec(Wi, dxa, n, sx);
    mat3vec(W, dya, n, sy);
    socProduct(sx, sy, c, n);
    for (int k = 0; k < n; k++) {
      r[k] += c[k];
    }
  }
}


// local linearization of a block: K dl = -r + Pm d (d = J_b da); return the number of locals
static int localSystem(const ipmProblem* P, const ipmBlock* b, const mcNum* l, mcNum kappa,
                       mcNum K[IPM_MAXLOC][IPM_MAXLOC], mcNum Pm[IPM_MAXLOC][IPM_MAXROW],
                       mcNum r[IPM_MAXLOC]) {
  mcNum h = P->h, h2 = h * h;
  mcNum x[3], y[3], Ax[3][3], Ay[3][3], dxa[3] = {0, 0, 0}, dya[3] = {0, 0, 0};
  const mcNum* la = P->corrector ? P->dloc_aff + IPM_MAXLOC * (b - P->block) : NULL;
  const mcNum* Jaa = P->Jda_aff + b->row;
  memset(K, 0, sizeof(mcNum) * IPM_MAXLOC * IPM_MAXLOC);
  memset(Pm, 0, sizeof(mcNum) * IPM_MAXLOC * IPM_MAXROW);
  if (b->kind == IPM_FLOSS) {
    // x = (F, f) with F fixed, y = (y0, u), du = h d
    forceCone(b, l, x);
    velocityDual(P, b, l, P->Ja, y);
    if (la) {
      dxa[1] = la[0];
      dya[0] = la[1];
      dya[1] = h * Jaa[0];
    }
    ntRows(x, y, 2, kappa, la ? dxa : NULL, dya, Ax, Ay, r);
    for (int k = 0; k < 2; k++) {
      K[k][0] = Ax[k][1];
      K[k][1] = Ay[k][0];
      Pm[k][0] = -Ay[k][1] * h;
    }
    return 2;
  }

  // orthant pair (z, s): gap row and complementarity row
  mcNum z = l[0], s = l[1];
  K[0][1] = 1, Pm[0][0] = h2, r[0] = s - b->c - h2 * P->Ja[b->row];
  K[1][0] = s, K[1][1] = z, r[1] = s * z - kappa + (la ? la[0] * la[1] : 0);
  if (b->kind == IPM_ORTH) {
    return 2;
  }

  // cone pair x = (z, g), y = (y0, w), dw_k = mu_k h d_k
  forceCone(b, l, x);
  velocityDual(P, b, l, P->Ja, y);
  if (la) {
    dxa[0] = la[0], dxa[1] = la[2], dxa[2] = la[3];
    dya[0] = la[4], dya[1] = b->mu[0] * h * Jaa[1], dya[2] = b->mu[1] * h * Jaa[2];
  }
  ntRows(x, y, 3, kappa, la ? dxa : NULL, dya, Ax, Ay, r + 2);
  for (int k = 0; k < 3; k++) {
    K[2 + k][0] = Ax[k][0];
    K[2 + k][2] = Ax[k][1];
    K[2 + k][3] = Ax[k][2];
    K[2 + k][4] = Ay[k][0];
    Pm[2 + k][1] = -Ay[k][1] * b->mu[0] * h;
    Pm[2 + k][2] = -Ay[k][2] * b->mu[1] * h;
  }
  return 5;
}


// force rows of the locals: F = S l
static void forceOfLocals(const ipmBlock* b, const mcNum* l, mcNum* F) {
  ipm_blockForce(b, l, F);
}


// eliminate the locals of block i: dF = G d + g; also keep the local solve for recovery
static int eliminate(ipmProblem* P, int i, mcNum kappa, mcNum Kf[IPM_MAXLOC * IPM_MAXLOC],
                     int piv[IPM_MAXLOC], mcNum Pm[IPM_MAXLOC][IPM_MAXROW],
                     mcNum r[IPM_MAXLOC]) {
  const ipmBlock* b = P->block + i;
  mcNum K[IPM_MAXLOC][IPM_MAXLOC];
  int p = localSystem(P, b, P->loc + IPM_MAXLOC * i, kappa, K, Pm, r);
  for (int j = 0; j < p; j++) {
    for (int k = 0; k < p; k++) {
      Kf[j * p + k] = K[j][k];
    }
  }
  if (!ipm_factorLU(Kf, piv, p)) {
    return 0;
  }

  // g = S K^-1 (-r); G column c = S K^-1 Pm[:, c]
  mcNum col[IPM_MAXLOC], F[IPM_MAXROW];
  mcNum* G = P->G + IPM_MAXROW * IPM_MAXROW * i;
  mcNum* g = P->g + IPM_MAXROW * i;
  for (int j = 0; j < p; j++) {
    col[j] = -r[j];
  }
  ipm_solveLU(Kf, piv, col, p);
  forceOfLocals(b, col, g);
  for (int c = 0; c < b->nrow; c++) {
    for (int j = 0; j < p; j++) {
      col[j] = Pm[j][c];
    }
    ipm_solveLU(Kf, piv, col, p);
    forceOfLocals(b, col, F);
    for (int k = 0; k < b->nrow; k++) {
      G[k * IPM_MAXROW + c] = F[k];
    }
  }
  return p;
}


int ipm_direction(ipmProblem* P, mcNum kappa) {
  int nv = P->nv, nk = nv + P->ne;
  mcNum* K = P->K;
  mcNum* rhs = P->rhs;
  memset(K, 0, sizeof(mcNum) * (size_t)nk * nk);

  // dynamics rows: Me da - sum J' G J da  - Je' dfe = -ra + sum J' g
  dynamicsResidual(P, P->a, P->loc, P->ra);
  for (int i = 0; i < nv; i++) {
    memcpy(K + (size_t)i * nk, P->M + (size_t)i * nv, sizeof(mcNum) * nv);
    rhs[i] = -P->ra[i];
  }
  int e = nv;
  for (int i = 0; i < P->nb; i++) {
    const ipmBlock* b = P->block + i;
    const mcNum* J = P->Jrow + (size_t)b->row * nv;
    if (b->kind == IPM_EQ) {
      // equality: J da = -(c + h^2 J a) / h^2, force column -J'
      mcNum* Ke = K + (size_t)e * nk;
      for (int j = 0; j < nv; j++) {
        Ke[j] = J[j];
        K[(size_t)j * nk + e] = -J[j];
      }
      rhs[e] = -(b->c / (P->h * P->h) + P->Ja[b->row]);
      e++;
      continue;
    }
    mcNum Kf[IPM_MAXLOC * IPM_MAXLOC], Pm[IPM_MAXLOC][IPM_MAXROW], r[IPM_MAXLOC];
    int piv[IPM_MAXLOC];
    if (!eliminate(P, i, kappa, Kf, piv, Pm, r)) {
      return 0;
    }
    const mcNum* G = P->G + IPM_MAXROW * IPM_MAXROW * i;
    const mcNum* g = P->g + IPM_MAXROW * i;
    for (int k = 0; k < b->nrow; k++) {
      const mcNum* Jk = J + (size_t)k * nv;
      for (int j = 0; j < nv; j++) {
        rhs[j] += Jk[j] * g[k];
      }
      for (int c = 0; c < b->nrow; c++) {
        mcNum gkc = G[k * IPM_MAXROW + c];
        if (gkc == 0) {
          continue;
        }
        const mcNum* Jc = J + (size_t)c * nv;
        for (int p = 0; p < nv; p++) {
          if (Jk[p] == 0) {
            continue;
          }
          mcNum* Kp = K + (size_t)p * nk;
          mcNum s = Jk[p] * gkc;
          for (int q = 0; q < nv; q++) {
            Kp[q] -= s * Jc[q];
          }
        }
      }
    }
  }

  // solve
  if (!ipm_factorLU(K, P->piv, nk)) {
    return 0;
  }
  ipm_solveLU(K, P->piv, rhs, nk);
  memcpy(P->da, rhs, sizeof(mcNum) * nv);
  ipm_mulRows(P, P->da, P->Jda);

  // recover the locals
  e = nv;
  for (int i = 0; i < P->nb; i++) {
    const ipmBlock* b = P->block + i;
    mcNum* dl = P->dloc + IPM_MAXLOC * i;
    memset(dl, 0, sizeof(mcNum) * IPM_MAXLOC);
    if (b->kind == IPM_EQ) {
      dl[0] = rhs[e++];
      continue;
    }
    mcNum Kf[IPM_MAXLOC * IPM_MAXLOC], Pm[IPM_MAXLOC][IPM_MAXROW], r[IPM_MAXLOC];
    int piv[IPM_MAXLOC];
    int p = eliminate(P, i, kappa, Kf, piv, Pm, r);
    for (int j = 0; j < p; j++) {
      dl[j] = -r[j];
      for (int c = 0; c < b->nrow; c++) {
        dl[j] += Pm[j][c] * P->Jda[b->row + c];
      }
    }
    ipm_solveLU(Kf, piv, dl, p);
  }
  return 1;
}


//---------------------------------- cone line search and centering --------------------------------

// orthant (41): tau times the largest step keeping y + alpha dy >= 0, at most 1
static mcNum orthStep(mcNum y, mcNum dy, mcNum tau) {
  return dy < 0 ? fmin(1, -tau * y / dy) : 1;
}


// second-order cone (42-46): tau times the largest step keeping y + alpha dy in Q^n, at most 1
static mcNum socStep(const mcNum* y, const mcNum* d, mcNum tau, int n) {
  mcNum yy = 0, yd = 0;
  for (int k = 1; k < n; k++) {
    yy += y[k] * y[k];
    yd += y[k] * d[k];
  }
  mcNum nu = y[0] * y[0] - yy;
  if (!(nu > 0) || !(y[0] > 0)) {
    return 0;
  }
  mcNum zeta = y[0] * d[0] - yd, sn = sqrt(nu);
  mcNum rho0 = zeta / nu, c = (zeta / sn + d[0]) / (y[0] * sn + nu), rn = 0;
  for (int k = 1; k < n; k++) {
    mcNum rk = d[k] / sn - c * y[k];
    rn += rk * rk;
  }
  rn = sqrt(rn);
  return rn > rho0 ? fmin(1, tau / (rn - rho0)) : 1;
}


mcNum ipm_coneSearch(const ipmProblem* P, mcNum tau_ort, mcNum tau_soc) {
  mcNum alpha = 1;
  for (int i = 0; i < P->nb; i++) {
    const ipmBlock* b = P->block + i;
    const mcNum* l = P->loc + IPM_MAXLOC * i;
    const mcNum* dl = P->dloc + IPM_MAXLOC * i;
    if (b->kind == IPM_EQ) {
      continue;
    }
    if (b->kind != IPM_FLOSS) {
      alpha = fmin(alpha, orthStep(l[0], dl[0], tau_ort));
      alpha = fmin(alpha, orthStep(l[1], dl[1], tau_ort));
    }
    if (b->kind != IPM_ORTH) {
      mcNum x[3], dx[3], y[3], dy[3];
      int n = forceCone(b, l, x);
      forceCone(b, dl, dx);
      if (b->kind == IPM_FLOSS) {
        dx[0] = 0;  // F is fixed
      }
      velocityDual(P, b, l, P->Ja, y);
      dy[0] = b->kind == IPM_FLOSS ? dl[1] : dl[4];
      for (int k = 1; k < n; k++) {
        mcNum mu = b->kind == IPM_FLOSS ? 1 : b->mu[k - 1];
        dy[k] = mu * P->h * P->Jda[b->row + k - (b->kind == IPM_FLOSS)];
      }
      alpha = fmin(alpha, socStep(x, dx, tau_soc, n));
      alpha = fmin(alpha, socStep(y, dy, tau_soc, n));
    }
  }
  return alpha;
}


// the cone pairs of block i at (loc + alpha dloc, Ja + alpha Jda): products b'c in dot[] and
// the central-path measures in cen[] (orthant: s z; cone: sqrt(det x det y), equal to kappa on
// the central path); return the number of pairs
static int blockPairs(const ipmProblem* P, int i, mcNum alpha, mcNum dot[2], mcNum cen[2]) {
  const ipmBlock* b = P->block + i;
  if (b->kind == IPM_EQ) {
    return 0;
  }
  mcNum l[IPM_MAXLOC];
  for (int k = 0; k < IPM_MAXLOC; k++) {
    l[k] = P->loc[IPM_MAXLOC * i + k] + alpha * P->dloc[IPM_MAXLOC * i + k];
  }
  int n = 0;
  if (b->kind != IPM_FLOSS) {
    dot[n] = cen[n] = l[0] * l[1];
    n++;
  }
  if (b->kind != IPM_ORTH) {
    // the velocity dual is affine in a: evaluate it at the block's rows of Ja + alpha Jda
    mcNum Ja[IPM_MAXROW + 1] = {0, 0, 0, 0}, x[3], y[3];
    ipmBlock local = *b;
    ipmProblem Q = *P;
    local.row = 0;
    Q.Jv = P->Jv + b->row;
    for (int k = 0; k < b->nrow; k++) {
      Ja[k] = P->Ja[b->row + k] + alpha * P->Jda[b->row + k];
    }
    int m = forceCone(&local, l, x);
    velocityDual(&Q, &local, l, Ja, y);
    mcNum xy = 0, dx = x[0] * x[0], dy = y[0] * y[0];
    for (int k = 0; k < m; k++) {
      xy += x[k] * y[k];
    }
    for (int k = 1; k < m; k++) {
      dx -= x[k] * x[k];
      dy -= y[k] * y[k];
    }
    dot[n] = xy;
    cen[n] = dx > 0 && dy > 0 ? sqrt(dx * dy) : 0;
    n++;
  }
  return n;
}


// mean complementarity (52, 53) and the smallest central-path measure at step alpha
static mcNum meanGap(const ipmProblem* P, mcNum alpha, mcNum* mincen) {
  mcNum sum = 0, lo = INFINITY;
  int deg = 0;
  for (int i = 0; i < P->nb; i++) {
    mcNum dot[2], cen[2];
    int n = blockPairs(P, i, alpha, dot, cen);
    for (int k = 0; k < n; k++) {
      sum += dot[k];
      lo = fmin(lo, cen[k]);
    }
    deg += n;
  }
  if (mincen) {
    *mincen = lo;
  }
  return deg ? sum / deg : 0;
}


void ipm_center(const ipmProblem* P, mcNum alpha, mcNum* mu, mcNum* mu_aff) {
  *mu = meanGap(P, 0, NULL);
  *mu_aff = meanGap(P, alpha, NULL);
}


int ipm_centered(const ipmProblem* P, mcNum alpha, mcNum gamma) {
  mcNum lo;
  mcNum mu = meanGap(P, alpha, &lo);
  return lo >= gamma * mu;
}
