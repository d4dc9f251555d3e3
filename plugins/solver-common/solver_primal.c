// Moduco solver plugins: primal solvers (Newton, CG) with exact line search.
#include <float.h>
#include <math.h>
#include <string.h>

#include "solver.h"
#include "solver_internal.h"

// working set of a primal solve
typedef struct {
  const mcpHost* host;
  const mcModel* m;
  mcData* d;
  int nv, nefc;
  mcNum* x;                       // acceleration (d->qacc)
  mcNum* Ma;                      // M x
  mcNum* jar;                     // J x - aref
  mcNum* grad;                    // M x - qfrc_smooth - J' f
  mcNum* jtf;                     // J' f of the last gradient (the constraint force at the end)
  mcNum* Mgrad;                   // preconditioned gradient (CG: inv(M) grad, Newton: inv(H) grad)
  mcNum* Mgrad_old;               // CG: previous preconditioned gradient
  mcNum* grad_old;                // CG: previous gradient
  mcNum* search;                  // search direction
  mcNum* Mv;                      // M search
  mcNum* Jv;                      // J search
  mcNum* H;                       // Newton: nv x nv Hessian / its factor L' L (solver_ltl.c)
  int* oldstate;                  // states before the last update
  int* flip;                      // Newton: scratch of the Hessian update (nefc)
  int ineq;                       // rows ineq .. nefc - 1 are all scalar inequalities (limits,
                                  // frictionless and pyramidal contacts): the line search treats
                                  // them in a loop of their own
  int sparse;                     // Newton on the row-sparse efc_J: factor in S, not H
  const int* rnnz;                // rows of efc_J: the row-sparse efc_J, or a compressed copy of
  const int* radr;                //   the dense one (non-zeros only) made for the solve
  const int* rcol;
  const mcNum* rval;
  const int* rrun;                // rows r .. r + rrun[r] - 1 have the columns of row r (the
                                  //   sparse factor's, or made with the dense copy); or NULL
  mcsSparseH S;
} Primal;


//---------------------------------- Hessian -------------------------------------------------------

// H = M (dense, lower triangle only: the factor and its updates never read the upper one) from
// the tree-sparse qM
static void denseM(const mcModel* m, const mcData* d, mcNum* H) {
  int nv = m->nv;
  for (int i = 0; i < nv; i++) {
    mcNum* Hi = H + (size_t)i * nv;
    memset(Hi, 0, sizeof(mcNum) * (size_t)(i + 1));
    int adr = m->dof_Madr[i];
    Hi[i] = d->qM[adr++];
    for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) {
      Hi[j] = d->qM[adr++];
    }
  }
}


// H += sum over g < ng of D[g] J_g' J_g on the lower triangle, for rows J_g with the same nnz
// columns col (ascending) and values val[g]; each entry receives the terms in the order of g.
// Called with a literal ng for the common run lengths, so that the loop over g unrolls
static inline void addRun(mcNum* H, int nv, const int* col, int nnz, const mcNum* const* val,
                          const mcNum* D, int ng) {
  for (int a = 0; a < nnz; a++) {
    mcNum dr[8];
    for (int g = 0; g < ng; g++) {
      dr[g] = D[g] * val[g][a];
    }
    mcNum* Hr = H + (size_t)col[a] * nv;
    for (int b = 0; b <= a; b++) {
      mcNum h = Hr[col[b]];
      for (int g = 0; g < ng; g++) {
        h += dr[g] * val[g][b];
      }
      Hr[col[b]] = h;
    }
  }
}


// H = M + J' D J over active rows + cone Hessians; then factor
static void makeHessian(Primal* p) {
  const mcModel* m = p->m;
  mcData* d = p->d;
  int nv = p->nv;
  mcNum* H = p->H;

  // sparse factor
  if (p->sparse) {
    mcs_sparseFactor(m, d, &p->S);
    d->solver_nnz = p->S.nnz;
    return;
  }
  denseM(m, d, H);

  for (int i = 0; i < p->nefc;) {
    int state = d->efc_state[i];
    const mcNum* Ji = d->efc_J + (size_t)i * nv;

    // elliptic cone in the middle zone: J_c' H_c J_c
    if (state == mcCNSTRSTATE_CONE) {
      const mcContact* con = d->contact + d->efc_id[i];
      int dim = con->dim;
      for (int a = 0; a < dim; a++) {
        const mcNum* Ja = Ji + (size_t)a * nv;
        for (int b = 0; b < dim; b++) {
          mcNum h = con->H[a * dim + b];
          if (h == 0) {
            continue;
          }
          const mcNum* Jb = Ji + (size_t)b * nv;
          for (int r = 0; r < nv; r++) {
            if (Ja[r] == 0) {
              continue;
            }
            mcNum hr = h * Ja[r];
            mcNum* Hr = H + (size_t)r * nv;
            for (int c = 0; c <= r; c++) {
              Hr[c] += hr * Jb[c];
            }
          }
        }
      }
      i += dim;
      continue;
    }
    if (state != mcCNSTRSTATE_QUADRATIC) {
      i++;
      continue;
    }

    // quadratic rows: D J_i' J_i over the nonzeros, lower triangle (columns ascending). The
    // quadratic rows of the run of rows with the same columns (the edges of a pyramidal contact)
    // go together: each entry still receives their terms in row order, but is loaded and stored
    // once per run instead of once per row
    const int* col = p->rcol + p->radr[i];
    int nnz = p->rnnz[i];
    const mcNum* val[8];
    mcNum D[8];
    int ng = 0, e = i;
    while (e < i + p->rrun[i] && ng < 8 && d->efc_state[e] != mcCNSTRSTATE_CONE) {
      if (d->efc_state[e] == mcCNSTRSTATE_QUADRATIC) {
        val[ng] = p->rval + p->radr[e];
        D[ng++] = d->efc_D[e];
      }
      e++;
    }
    switch (ng) {
      case 1: addRun(H, nv, col, nnz, val, D, 1); break;
      case 2: addRun(H, nv, col, nnz, val, D, 2); break;
      case 3: addRun(H, nv, col, nnz, val, D, 3); break;
      case 4: addRun(H, nv, col, nnz, val, D, 4); break;
      default: addRun(H, nv, col, nnz, val, D, ng); break;
    }
    i = e;
  }
  mcs_ltlFactor(H, nv, mcMINVAL);
  d->solver_nnz = nv * nv;
}


// cost of an entry of a sparse rank-1 update (a division and three multiply-adds) in
// multiply-adds of a factorization, for Newton's choice between updating and refactoring (2:
// the fewest instructions on humanoid100 and 22_humanoids among 1, 2, 4 and 8)
enum { UPDATE_COST = 2 };

// Newton after a move: rank-1 updates of the factor for the rows whose quadratic state changed
// (additions first, then removals, each in row order), else a full factorization (a
// cone row changed zone or was in the cone zone; dense: beyond 8 + nv / 16 changes; sparse: when
// the updates cost more); return the updates done
static int updateHessian(Primal* p) {
  mcData* d = p->d;
  int nv = p->nv, nflip = 0, cone = 0;

  // the rows whose quadratic state changed (ascending), in one pass
  int* flip = p->flip;
  for (int i = 0; i < p->nefc; i++) {
    int now = d->efc_state[i], old = p->oldstate[i];
    cone |= now == mcCNSTRSTATE_CONE || old == mcCNSTRSTATE_CONE;
    flip[nflip] = i;
    nflip += (now == mcCNSTRSTATE_QUADRATIC) != (old == mcCNSTRSTATE_QUADRATIC);
  }
  if (cone || (!p->sparse && nflip > 8 + nv / 16)) {
    makeHessian(p);
    return 0;
  }

  // sparse: beyond 8 changes, update while the updates' paths cost less than a factorization
  if (p->sparse && nflip > 8) {
    long work = 0, limit = mcs_sparseFactorWork(d, &p->S) / UPDATE_COST;
    for (int t = 0; t < nflip && work <= limit; t++) {
      work += mcs_sparseUpdateWork(d, &p->S, flip[t]);
    }
    if (work > limit) {
      makeHessian(p);
      return 0;
    }
  }

  // additions, then removals; a failed downdate falls back to the full factorization
  mcNum* w = p->Mgrad_old;
  memset(w, 0, sizeof(mcNum) * nv);
  for (int pass = 0; pass < 2; pass++) {
    for (int t = 0; t < nflip; t++) {
      int i = flip[t];
      int now = d->efc_state[i] == mcCNSTRSTATE_QUADRATIC;
      if (now != (pass == 0)) {
        continue;
      }
      mcNum sigma = now ? d->efc_D[i] : -d->efc_D[i];
      int ok;
      if (p->sparse) {
        ok = mcs_sparseUpdate(d, &p->S, i, sigma, w);
      } else {
        memcpy(w, d->efc_J + (size_t)i * nv, sizeof(mcNum) * nv);
        ok = mcs_ltlUpdate(p->H, w, nv, sigma);
      }
      if (!ok) {
        makeHessian(p);
        return 0;
      }
    }
  }
  return nflip;
}


//---------------------------------- cost along a line ---------------------------------------------

typedef struct {
  mcNum alpha;
  mcNum cost;
  mcNum d1;                       // derivative of the cost along the line
  mcNum d2;                       // second derivative
  mcNum d1mag;                    // sum of the magnitudes of the terms of d1 (its rounding scale)
} LinePoint;


// cost and derivatives at x + alpha * search; quad = Gauss terms (c0, c1, c2) and the magnitude
// of the terms of c1
static void lineEval(const Primal* p, const mcNum quad[4], mcNum alpha, LinePoint* lp) {
  const mcData* d = p->d;
  mcNum c = quad[0] + alpha * quad[1] + 0.5 * alpha * alpha * quad[2];
  mcNum d1 = quad[1] + alpha * quad[2], d2 = quad[2];
  mcNum mag = quad[3] + fabs(alpha * quad[2]);

  for (int i = 0; i < p->ineq; i++) {
    int type = d->efc_type[i];
    mcNum v = p->Jv[i], j = p->jar[i] + alpha * v, D = d->efc_D[i];

    // elliptic cone: zone at the new point
    if (type == mcCNSTR_CONTACT_ELLIPTIC) {
      const mcContact* con = d->contact + d->efc_id[i];
      int dim = con->dim;
      mcNum jj[6] = {0}, vv[6] = {0}, N, T;
      for (int k = 0; k < dim; k++) {
        vv[k] = p->Jv[i + k];
        jj[k] = p->jar[i + k] + alpha * vv[k];
      }
      int zone = mcs_coneZone(con, jj, &N, &T);
      if (zone == mcCNSTRSTATE_QUADRATIC) {
        for (int k = 0; k < dim; k++) {
          mcNum Dk = d->efc_D[i + k];
          c += 0.5 * Dk * jj[k] * jj[k];
          d1 += Dk * jj[k] * vv[k];
          d2 += Dk * vv[k] * vv[k];
          mag += fabs(Dk * jj[k] * vv[k]);
        }
      } else if (zone == mcCNSTRSTATE_CONE) {
        mcNum mu = con->mu, w[6], U[6];
        w[0] = mu * vv[0];
        U[0] = mu * jj[0];
        mcNum uw = 0, ww = 0;
        for (int k = 1; k < dim; k++) {
          w[k] = con->friction[k - 1] * vv[k];
          U[k] = con->friction[k - 1] * jj[k];
          uw += U[k] * w[k];
          ww += w[k] * w[k];
        }
        mcNum Dm = D / (mu * mu * (1 + mu * mu));
        mcNum g = N - mu * T;
        mcNum dT = uw / T, d2T = (ww - dT * dT) / T;
        mcNum dg = w[0] - mu * dT, d2g = -mu * d2T;
        c += 0.5 * Dm * g * g;
        d1 += Dm * g * dg;
        mag += Dm * ((fabs(N) + mu * T) * fabs(dg) + fabs(g) * (fabs(w[0]) + mu * fabs(dT)));
        d2 += Dm * (dg * dg + g * d2g);
      }
      i += dim - 1;
      continue;
    }

    // friction loss: Huber
    if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
      mcNum fl = d->efc_frictionloss[i], Rfl = d->efc_R[i] * fl;
      if (j <= -Rfl) {
        c += -fl * j - 0.5 * Rfl * fl;
        d1 += -fl * v;
        mag += fabs(fl * v);
        continue;
      }
      if (j >= Rfl) {
        c += fl * j - 0.5 * Rfl * fl;
        d1 += fl * v;
        mag += fabs(fl * v);
        continue;
      }
    } else if (type != mcCNSTR_EQUALITY && j >= 0) {
      continue;
    }

    // quadratic
    c += 0.5 * D * j * j;
    d1 += D * j * v;
    d2 += D * v * v;
    mag += fabs(D * j * v);
  }

  // scalar inequalities: quadratic unless satisfied (the terms and their order as above)
  const mcNum *Jv = p->Jv, *jar = p->jar, *efcD = d->efc_D;
  for (int i = p->ineq; i < p->nefc; i++) {
    mcNum v = Jv[i], j = jar[i] + alpha * v;
    if (j >= 0) {
      continue;
    }
    mcNum D = efcD[i];
    c += 0.5 * D * j * j;
    d1 += D * j * v;
    d2 += D * v * v;
    mag += fabs(D * j * v);
  }
  lp->alpha = alpha;
  lp->cost = c;
  lp->d1 = d1;
  lp->d2 = d2;
  lp->d1mag = mag;
}


// cost of row i (scalar) or of the elliptic contact starting at row i, at jar + alpha Jv; *rows
// gets the number of rows covered
static mcNum rowCost(const Primal* p, int i, mcNum alpha, int* rows) {
  const mcData* d = p->d;
  int type = d->efc_type[i];
  mcNum D = d->efc_D[i], j = p->jar[i] + alpha * p->Jv[i];
  *rows = 1;
  if (type == mcCNSTR_CONTACT_ELLIPTIC) {
    const mcContact* con = d->contact + d->efc_id[i];
    int dim = con->dim;
    mcNum jj[6] = {0}, N, T, c = 0;
    for (int k = 0; k < dim; k++) {
      jj[k] = p->jar[i + k] + alpha * p->Jv[i + k];
    }
    *rows = dim;
    int zone = mcs_coneZone(con, jj, &N, &T);
    if (zone == mcCNSTRSTATE_QUADRATIC) {
      for (int k = 0; k < dim; k++) {
        c += 0.5 * d->efc_D[i + k] * jj[k] * jj[k];
      }
    } else if (zone == mcCNSTRSTATE_CONE) {
      mcNum mu = con->mu, g = N - mu * T;
      c = 0.5 * D / (mu * mu * (1 + mu * mu)) * g * g;
    }
    return c;
  }
  if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
    mcNum fl = d->efc_frictionloss[i], Rfl = d->efc_R[i] * fl;
    if (j <= -Rfl) {
      return -fl * j - 0.5 * Rfl * fl;
    }
    if (j >= Rfl) {
      return fl * j - 0.5 * Rfl * fl;
    }
  } else if (type != mcCNSTR_EQUALITY && j >= 0) {
    return 0;
  }
  return 0.5 * D * j * j;
}


// change of the cost of row i (or of the elliptic contact starting there) from 0 to alpha; in
// an unchanged zone the difference is formed from the increments (no cancellation)
static mcNum rowChange(const Primal* p, int i, mcNum alpha, int* rows) {
  const mcData* d = p->d;
  int type = d->efc_type[i], rows0;
  mcNum v = p->Jv[i], j = p->jar[i], D = d->efc_D[i];
  *rows = 1;
  if (type == mcCNSTR_CONTACT_ELLIPTIC) {
    const mcContact* con = d->contact + d->efc_id[i];
    int dim = con->dim;
    mcNum j0[6] = {0}, ja[6] = {0}, N0, T0, Na, Ta;
    for (int k = 0; k < dim; k++) {
      j0[k] = p->jar[i + k];
      ja[k] = j0[k] + alpha * p->Jv[i + k];
    }
    int z0 = mcs_coneZone(con, j0, &N0, &T0), za = mcs_coneZone(con, ja, &Na, &Ta);
    *rows = dim;
    if (z0 == mcCNSTRSTATE_SATISFIED && za == z0) {
      return 0;
    }
    if (z0 != za) {
      return rowCost(p, i, alpha, rows) - rowCost(p, i, 0, &rows0);
    }
    if (z0 == mcCNSTRSTATE_QUADRATIC) {
      mcNum c = 0;
      for (int k = 0; k < dim; k++) {
        mcNum w = alpha * p->Jv[i + k];
        c += d->efc_D[i + k] * w * (j0[k] + 0.5 * w);
      }
      return c;
    }

    // middle zone: g = N - mu T, T_a - T_0 = (T_a^2 - T_0^2) / (T_a + T_0)
    mcNum mu = con->mu, dT2 = 0;
    for (int k = 1; k < dim; k++) {
      mcNum f = con->friction[k - 1], w = f * alpha * p->Jv[i + k];
      dT2 += w * (2 * f * j0[k] + w);
    }
    mcNum dT = Ta + T0 > 0 ? dT2 / (Ta + T0) : Ta - T0;
    mcNum dg = mu * alpha * v - mu * dT, g0 = N0 - mu * T0;
    return 0.5 * D / (mu * mu * (1 + mu * mu)) * dg * (2 * g0 + dg);
  }

  // scalar rows in an unchanged zone
  mcNum w = alpha * v, ja = j + w;
  if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
    mcNum fl = d->efc_frictionloss[i], Rfl = d->efc_R[i] * fl;
    int z0 = j <= -Rfl ? -1 : j >= Rfl, za = ja <= -Rfl ? -1 : ja >= Rfl;
    if (z0 != za) {
      return rowCost(p, i, alpha, rows) - rowCost(p, i, 0, &rows0);
    }
    if (z0) {
      return z0 * fl * w;
    }
  } else if (type != mcCNSTR_EQUALITY && (j >= 0 || ja >= 0)) {
    return rowCost(p, i, alpha, rows) - rowCost(p, i, 0, &rows0);
  }
  return D * w * (j + 0.5 * w);
}


// change of the cost from 0 to alpha along the line, summed term by term (no cancellation
// against the total cost, so a real decrease is not lost to the rounding of the cost)
static mcNum lineChange(const Primal* p, const mcNum quad[4], mcNum alpha) {
  mcNum c = alpha * quad[1] + 0.5 * alpha * alpha * quad[2];
  int i = 0;
  for (int rows; i < p->ineq; i += rows) {
    c += rowChange(p, i, alpha, &rows);
  }

  // scalar inequalities: rowChange of those rows, inlined
  const mcNum *Jv = p->Jv, *jar = p->jar, *efcD = p->d->efc_D;
  for (; i < p->nefc; i++) {
    mcNum v = Jv[i], j = jar[i], D = efcD[i];
    mcNum w = alpha * v, ja = j + w;
    if (j >= 0 || ja >= 0) {
      c += (ja >= 0 ? 0 : 0.5 * D * ja * ja) - (j >= 0 ? 0 : 0.5 * D * j * j);
    } else {
      c += D * w * (j + 0.5 * w);
    }
  }
  return c;
}


// a point is accepted when its slope is below gtol, or zero to rounding (below what the rounding
// of its terms can resolve; this only matters when tolerance * ls_tolerance is tiny or zero)
static int lineFlat(const LinePoint* lp, mcNum gtol) {
  return fabs(lp->d1) < gtol || fabs(lp->d1) <= 16 * DBL_EPSILON * lp->d1mag;
}


// Newton step of the 1-D cost from a point (the Gauss term keeps d2 > 0)
static mcNum newtonStep(const LinePoint* lp) {
  return lp->d2 > 0 ? lp->alpha - lp->d1 / lp->d2 : lp->alpha;
}


// a point at the Newton step from lp
static void newtonPoint(const Primal* p, const mcNum quad[4], const LinePoint* lp, LinePoint* res,
                        int* neval) {
  lineEval(p, quad, newtonStep(lp), res);
  (*neval)++;
}


// move one end of the bracket to the candidate with the same slope sign closest to zero slope;
// return whether it moved
static int shrinkBracket(LinePoint* end, const LinePoint cand[3]) {
  int moved = 0;
  for (int k = 0; k < 3; k++) {
    mcNum g = cand[k].d1;
    if ((end->d1 < 0 && g < 0 && end->d1 < g) || (end->d1 > 0 && g > 0 && end->d1 > g)) {
      *end = cand[k];
      moved = 1;
    }
  }
  return moved;
}


// exact line search by 1-D Newton. A point is accepted once its slope, scaled like the solver
// statistics and per unit step length, is below tolerance * ls_tolerance. After one Newton step
// from 0, Newton steps go on in the same direction until the slope changes sign; the bracket so
// found is then shrunk with the Newton points from both ends and the midpoint. Return the step
// (0: no move), fill neval (evaluated points, 0 included) and lineslope (of the point returned).
static mcNum lineSearch(Primal* p, mcSolverStat* stat, mcNum scale, mcNum* change) {
  const mcModel* m = p->m;
  const mcData* d = p->d;
  int nv = p->nv;
  stat->neval = 0;
  stat->lineslope = 0;

  mcNum snorm = mcs_norm(p->search, nv);
  mcNum gtol = m->opt.tolerance * m->opt.ls_tolerance * snorm / scale;
  mcNum slopescale = snorm > 0 ? scale / snorm : 0;
  int maxls = m->opt.ls_iterations;
  *change = 0;

  // Gauss part: c(a) = c0 + a c1 + a^2 c2 / 2
  // quad[3]: magnitude of the terms of quad[1], for the rounding scale of the slope
  mcNum quad[4];
  quad[0] = 0;
  quad[1] = 0;
  quad[3] = 0;
  quad[2] = mcs_dot(p->search, p->Mv, nv);
  for (int i = 0; i < nv; i++) {
    quad[1] += p->search[i] * (p->Ma[i] - d->qfrc_smooth[i]);
    quad[3] += fabs(p->search[i]) * (fabs(p->Ma[i]) + fabs(d->qfrc_smooth[i]));
    quad[0] += 0.5 * (p->Ma[i] - d->qfrc_smooth[i]) * (p->x[i] - d->qacc_smooth[i]);
  }

  // the start and one Newton step from it (kept only if it lowers the cost)
  LinePoint p0, p1, p2, res;
  int neval = 0;
  lineEval(p, quad, 0, &p0);
  neval++;
  newtonPoint(p, quad, &p0, &p1, &neval);
  if (p1.cost > p0.cost) {
    p1 = p0;
  }
  res = p1;
  p2 = p0;
  int done = p1.alpha > 0 && lineFlat(&p1, gtol);

  // one-sided: Newton steps while the slope keeps the sign it had after the first step
  mcNum dir = p1.d1 < 0 ? 1 : -1;
  while (!done && p1.d1 * dir <= -gtol && neval < maxls) {
    p2 = p1;
    newtonPoint(p, quad, &p2, &p1, &neval);
    res = p1;
    done = lineFlat(&p1, gtol);
  }

  // bracketed: p1 crossed, p2 is the last point before it; candidates are the Newton points
  // from both ends and the midpoint
  if (!done && neval < maxls) {
    LinePoint next1, next2 = p1, mid;
    newtonPoint(p, quad, &p1, &next1, &neval);
    const LinePoint* const cand[3] = {&next1, &next2, &mid};
    res = p1.cost < p2.cost ? p1 : p2;
    while (neval < maxls) {
      lineEval(p, quad, 0.5 * (p1.alpha + p2.alpha), &mid);
      neval++;

      // the cheapest candidate within the tolerance
      int best = -1;
      for (int k = 0; k < 3; k++) {
        if (lineFlat(cand[k], gtol) && (best < 0 || cand[k]->cost < cand[best]->cost)) {
          best = k;
        }
      }
      if (best >= 0) {
        res = *cand[best];
        done = 1;
        break;
      }

      // shrink both ends among the same candidates, then the Newton points from the ends that
      // moved; no end moving means the precision is exhausted: the midpoint
      LinePoint c[3] = {next1, next2, mid};
      int moved1 = shrinkBracket(&p1, c);
      int moved2 = shrinkBracket(&p2, c);
      if (moved1) {
        newtonPoint(p, quad, &p1, &next1, &neval);
      }
      if (moved2) {
        newtonPoint(p, quad, &p2, &next2, &neval);
      }
      if (!moved1 && !moved2) {
        res = mid;
        done = 1;
        break;
      }
      res = p1.cost < p2.cost ? p1 : p2;
    }
  }
  stat->neval = neval;

  // never a point above the start (the change summed term by term)
  *change = res.alpha > 0 ? lineChange(p, quad, res.alpha) : 0;
  if (!(res.alpha > 0) || *change > 0) {
    *change = 0;
    stat->lineslope = slopescale * fabs(p0.d1);
    return 0;
  }
  stat->lineslope = slopescale * fabs(res.d1);
  return res.alpha;
}


//---------------------------------- the primal loop -----------------------------------------------

// res = J vec over the rows of the solve (rows with the same columns together on the sparse path)
static void rowsMulJ(const Primal* p, mcNum* res, const mcNum* vec) {
  mcs_mulRows(p->nefc, p->rnnz, p->radr, p->rcol, p->rval, p->rrun, res,
              vec);
}


// res = J' vec over the rows of the solve
static void rowsMulJT(const Primal* p, mcNum* res, const mcNum* vec) {
  memset(res, 0, sizeof(mcNum) * p->nv);
  mcs_mulRowsT(p->nefc, p->rnnz, p->radr, p->rcol, p->rval, p->rrun, res,
               vec);
}


// bit q set for each non-zero a[q] of four entries (NaN counts as non-zero, -0 as zero, as a
// test a[q] != 0), and the number of bits of each mask
static inline int nonzero4(const mcNum* a) {
#ifdef __SSE2__
  __m128d z = _mm_setzero_pd();
  return _mm_movemask_pd(_mm_cmpneq_pd(_mm_loadu_pd(a), z)) |
         _mm_movemask_pd(_mm_cmpneq_pd(_mm_loadu_pd(a + 2), z)) << 2;
#else
  return (a[0] != 0) | (a[1] != 0) << 1 | (a[2] != 0) << 2 | (a[3] != 0) << 3;
#endif
}

static const unsigned char kBits[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};


// rows of the solve: the row-sparse efc_J, else a compressed copy of the dense one on the stack;
// 0 if the copy does not fit
static int makeRows(Primal* p) {
  mcData* d = p->d;
  int nv = p->nv, nefc = p->nefc;
  if (d->efc_J_rownnz) {
    p->rnnz = d->efc_J_rownnz;
    p->radr = d->efc_J_rowadr;
    p->rcol = d->efc_J_colind;
    p->rval = d->efc_J_val;
    p->rrun = p->sparse ? p->S.rrun : NULL;
    return 1;
  }
  // count the non-zeros over the whole matrix at once, four entries a step
  const mcNum* J = d->efc_J;
  size_t total = (size_t)nefc * nv, k = 0;
  int nnz = 0;
  for (; k + 4 <= total; k += 4) {
    nnz += kBits[nonzero4(J + k)];
  }
  for (; k < total; k++) {
    nnz += J[k] != 0;
  }
  int* rnnz = p->host->stackAlloc(d, sizeof(int) * (3 * (size_t)nefc + nnz + 1), 16);
  mcNum* rval = p->host->stackAlloc(d, sizeof(mcNum) * ((size_t)nnz + 1), 16);
  if (!rnnz || !rval) {
    return 0;
  }
  int* radr = rnnz + nefc;
  int* rcol = radr + nefc;
  int adr = 0;
  for (int i = 0; i < nefc; i++, J += nv) {
    radr[i] = adr;

    // four entries a step: none non-zero (runs of dofs a row does not reach) skips; else
    // branch-free: always write, advance over non-zeros (one spare slot at the end)
    int c = 0;
    for (; c + 4 <= nv; c += 4) {
      int mask = nonzero4(J + c);
      if (mask) {
        for (int q = 0; q < 4; q++) {
          rcol[adr] = c + q;
          rval[adr] = J[c + q];
          adr += (mask >> q) & 1;
        }
      }
    }
    for (; c < nv; c++) {
      rcol[adr] = c;
      rval[adr] = J[c];
      adr += J[c] != 0;
    }
    rnnz[i] = adr - radr[i];
  }

  // runs of rows with the same columns (the edges of a pyramidal contact)
  int* rrun = rcol + nnz + 1;
  mcs_rowRuns(nefc, rnnz, radr, rcol, rrun);
  p->rnnz = rnnz;
  p->radr = radr;
  p->rcol = rcol;
  p->rval = rval;
  p->rrun = rrun;
  return 1;
}


// gradient at the current point
static void gradient(Primal* p) {
  mcData* d = p->d;
  int nv = p->nv;
  rowsMulJT(p, p->jtf, d->efc_force);
  for (int i = 0; i < nv; i++) {
    p->grad[i] = p->Ma[i] - d->qfrc_smooth[i] - p->jtf[i];
  }
}


// preconditioned gradient (Newton: the factor of the current Hessian, CG: M)
static void precondition(Primal* p, mcsPrimal kind) {
  mcData* d = p->d;
  int nv = p->nv;
  if (kind == MCS_NEWTON) {
    memcpy(p->Mgrad, p->grad, sizeof(mcNum) * nv);
    if (p->sparse) {
      mcs_sparseSolve(&p->S, p->Mgrad);
    } else {
      mcs_ltlSolve(p->H, p->Mgrad, nv);
    }
  } else {
    p->host->solveM(p->m, d, p->Mgrad, p->grad, 1);
  }
}


// constraint update at the current point (states, forces, cone Hessians if flg_hessian); its cost
static mcNum update(Primal* p, int flg_hessian) {
  return mcs_constraintUpdateIneq(p->m, p->d, p->jar, flg_hessian, p->ineq);
}


// M x and J x - aref at x = d->qacc into Ma and jar
static void evalPoint(Primal* p) {
  p->host->mulM(p->m, p->d, p->Ma, p->x);
  rowsMulJ(p, p->jar, p->x);
  for (int i = 0; i < p->nefc; i++) {
    p->jar[i] -= p->d->efc_aref[i];
  }
}


// starting point in d->qacc, with Ma and jar there and the constraint update done there:
// qacc_warmstart if its cost (constraint cost plus Gauss cost) is below that of qacc_smooth
// (constraint cost of efc_b), else qacc_smooth; qacc_smooth if warmstart is disabled. The
// warmstart is evaluated last, so that when it wins its update is the one in place.
static void start(Primal* p, int flg_hessian) {
  const mcModel* m = p->m;
  mcData* d = p->d;
  int nv = p->nv;
  if (!(m->opt.disableflags & mcDSBL_WARMSTART)) {
    mcNum cs = mcs_constraintUpdateIneq(m, d, d->efc_b, 0, p->ineq);
    memcpy(p->x, d->qacc_warmstart, sizeof(mcNum) * nv);
    evalPoint(p);
    mcNum cw = update(p, flg_hessian) + mcs_gaussCost(m, d, p->x, p->Ma);
    if (cw < cs) {
      return;
    }
  }
  memcpy(p->x, d->qacc_smooth, sizeof(mcNum) * nv);
  evalPoint(p);
  update(p, flg_hessian);
}


// no scratch or a diverged solve: the unconstrained acceleration with the forces it implies
static void fallback(const mcpHost* host, const mcModel* m, mcData* d) {
  mcs_constraintUpdate(m, d, d->efc_b, 0);
  memcpy(d->qacc, d->qacc_smooth, sizeof(mcNum) * m->nv);
  mcs_finish(host, m, d);
}


void mcs_primal(const mcpHost* host, const mcModel* m, mcData* d, int maxiter, mcsPrimal kind,
                const mcsSymbolicCache* cache) {
  int nv = m->nv, nefc = d->nefc;
  d->solver_iter = 0;
  if (nefc == 0) {
    mcs_unconstrained(m, d);
    return;
  }
  // scratch
  host->markStack(d);
  Primal p;
  memset(&p, 0, sizeof(p));
  p.host = host;
  p.m = m;
  p.d = d;
  p.nv = nv;
  p.nefc = nefc;
  p.x = d->qacc;
  size_t nvec = 9 * (size_t)nv + 2 * (size_t)nefc;
  p.sparse = kind == MCS_NEWTON && d->efc_J_rownnz != NULL;
  size_t nH = kind == MCS_NEWTON && !p.sparse ? (size_t)nv * nv : 0;
  nvec += nH;
  mcNum* buf = host->stackAlloc(d, sizeof(mcNum) * nvec, 16);
  int* ibuf = host->stackAlloc(d, sizeof(int) * 2 * (size_t)nefc, 16);
  if (!buf || !ibuf || (p.sparse && !mcs_sparseSymbolic(host, m, d, &p.S, cache)) || !makeRows(&p)) {
    host->freeStack(d);
    fallback(host, m, d);
    return;
  }
  p.Ma = buf;
  p.grad = p.Ma + nv;
  p.Mgrad = p.grad + nv;
  p.Mgrad_old = p.Mgrad + nv;
  p.grad_old = p.Mgrad_old + nv;
  p.search = p.grad_old + nv;
  p.Mv = p.search + nv;
  p.jtf = p.Mv + 2 * nv;
  p.H = p.jtf + nv;
  p.jar = p.H + nH;
  p.Jv = p.jar + nefc;
  p.oldstate = ibuf;
  p.flip = ibuf + nefc;
  p.ineq = nefc;
  while (p.ineq > 0 && d->efc_type[p.ineq - 1] >= mcCNSTR_LIMIT_JOINT &&
         d->efc_type[p.ineq - 1] <= mcCNSTR_CONTACT_PYRAMIDAL) {
    p.ineq--;
  }

  // initial point
  start(&p, kind == MCS_NEWTON);
  if (kind == MCS_NEWTON) {
    makeHessian(&p);
  }
  gradient(&p);
  precondition(&p, kind);
  for (int i = 0; i < nv; i++) {
    p.search[i] = -p.Mgrad[i];
  }

  // iterate
  mcNum scale = mcs_scale(m, d), tol = m->opt.tolerance;
  int iter = 0;
  while (iter < maxiter) {
    mcSolverStat* stat = d->solver + (iter < mcNSOLVER ? iter : mcNSOLVER - 1);
    memset(stat, 0, sizeof(*stat));

    // line search along the direction
    host->mulM(m, d, p.Mv, p.search);
    rowsMulJ(&p, p.Jv, p.search);
    mcNum change;
    mcNum alpha = lineSearch(&p, stat, scale, &change);
    iter++;
    if (alpha <= 0) {
      stat->improvement = 0;
      stat->gradient = scale * mcs_norm(p.grad, nv);
      break;
    }

    // move
    mcs_addToScl(p.x, p.search, alpha, nv);
    mcs_addToScl(p.Ma, p.Mv, alpha, nv);
    mcs_addToScl(p.jar, p.Jv, alpha, nefc);
    memcpy(p.oldstate, d->efc_state, sizeof(int) * nefc);
    update(&p, kind == MCS_NEWTON);
    int nchange = 0, nactive = 0;
    for (int i = 0; i < nefc; i++) {
      nchange += d->efc_state[i] != p.oldstate[i];
      nactive += d->efc_state[i] != mcCNSTRSTATE_SATISFIED;
    }

    // new gradient, statistics and convergence
    if (kind == MCS_CG) {
      memcpy(p.Mgrad_old, p.Mgrad, sizeof(mcNum) * nv);
      memcpy(p.grad_old, p.grad, sizeof(mcNum) * nv);
    }
    gradient(&p);
    stat->improvement = -scale * change;
    stat->gradient = scale * mcs_norm(p.grad, nv);
    stat->nactive = nactive;
    stat->nchange = nchange;
    if (stat->improvement < tol || stat->gradient < tol || iter >= maxiter) {
      break;                      // done: the Hessian at the final point is never needed
    }

    // Newton: the Hessian at the new point (updated or refactored); preconditioned gradient
    if (kind == MCS_NEWTON) {
      int nupdate = updateHessian(&p);
      stat->nupdate = nupdate ? nupdate : nactive;
    }
    precondition(&p, kind);

    if (kind == MCS_CG) {
      // Polak-Ribiere, restarted when negative
      mcNum den = mcs_dot(p.grad_old, p.Mgrad_old, nv), num = 0;
      for (int i = 0; i < nv; i++) {
        num += p.grad[i] * (p.Mgrad[i] - p.Mgrad_old[i]);
      }
      mcNum beta = den > 0 ? num / den : 0;
      if (!(beta > 0)) {
        beta = 0;
      }
      for (int i = 0; i < nv; i++) {
        p.search[i] = -p.Mgrad[i] + beta * p.search[i];
      }
    } else {
      for (int i = 0; i < nv; i++) {
        p.search[i] = -p.Mgrad[i];
      }
    }
  }
  d->solver_iter = iter;

  // a diverged solve falls back to the unconstrained acceleration, never NaN
  for (int i = 0; i < nv; i++) {
    if (!isfinite(p.x[i])) {
      host->freeStack(d);
      fallback(host, m, d);
      return;
    }
  }

  // what mcs_finish writes, with J' f of the last gradient: efc_force has not changed since (the
  // same products in the same order as host->mulJT; rows with zero force add nothing to either)
  memcpy(d->qfrc_constraint, p.jtf, sizeof(mcNum) * nv);
  memcpy(d->qacc_warmstart, d->qacc, sizeof(mcNum) * nv);
  host->freeStack(d);
}
