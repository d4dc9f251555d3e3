// Moduco core: constraint assembly (efc rows) and the soft-constraint parameters.
#include "engine/constraint.h"

#include <math.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>               // (mci_anyPositive)
#endif

#include "engine/contact_surface.h"
#include "engine/io.h"
#include "engine/island.h"
#include "engine/jacobian.h"
#include "engine/parallel_stages.h"
#include "engine/sleep.h"
#include "engine/threadpool.h"
#include "math/math.h"

// row builder: one pass counts, the second fills the arena arrays
typedef struct {
  const mcModel* m;
  mcData* d;
  int fill;                       // 0: count rows only
  int n;                          // rows added so far
  int cap;                        // rows that fit (fill pass)
  int dropped;                    // rows that did not fit
  mcNum* jp1;                     // scratch: 3 x nv (point Jacobians)
  mcNum* jr1;
  mcNum* jp2;
  mcNum* jr2;
  int sparse;                     // row-sparse efc_J only (no dense efc_J)
  mcNum* block;                   // sparse: dense rows of the pending constraint (6 x nv)
  int blockrow;                   // sparse: first pending row in block
  int blockn;                     // sparse: pending rows in block
  int blocklo, blockhi;           // sparse: columns of block that may be non-zero (rest is zero)
  int blockzero;                  // sparse: leading rows of block zeroed so far (zeroed lazily:
                                  // most steps need one row or none, not six)
  int nnz;                        // sparse: non-zeros stored so far (fill pass)
  int nunit;                      // count pass: rows with a single non-zero (unitRow) among n
  int nnzcap;                     // sparse: non-zeros that fit (fill pass)
  int* cols;                      // scratch: dof columns of a contact (nv)
  int* side;                      // scratch: bit 1 on the chain of body 1, bit 2 on body 2 (nv)
  int conrow;                     // first row of the contacts (fill pass)
  int* ccols;                     // count pass: dof columns of every contact's rows (ncon)
  const int* root;                // root dof of every dof (nv; NULL: not found)
  const int* depth;               // dofs on the chain from every dof to its root (nv)
  int* elem[4];                   // count pass: the friction and limit elements with rows (ELEM_)
  int nelem[4];
  mciRowSets* sets;               // islands: the rows' parts, found beside the rows (NULL: by
                                  // mc_island)
  int reference;                  // the pool's row tasks make efc_vel and efc_aref too
                                  // (mci_makeConstraint)
  int sticky;                     // with reference: a contact with rows has adhesion
} Builder;


// sparse Jacobian rule: option jacobian sparse, or auto with nv >= 60
static int isSparse(const mcModel* m) {
  return m->opt.jacobian == mcJAC_SPARSE || (m->opt.jacobian == mcJAC_AUTO && m->nv >= 60);
}


//---------------------------------- rows ----------------------------------------------------------

// sparse: store the pending dense rows of block as row-sparse rows (their non-zero entries in
// the columns blocklo..blockhi-1), and zero those columns again (block stays zero between rows)
static void flushBlock(Builder* b) {
  mcData* d = b->d;
  int nv = b->m->nv, lo = b->blocklo, hi = b->blockhi;
  for (int r = 0; r < b->blockn; r++) {
    mcNum* J = b->block + (size_t)r * nv;
    int row = b->blockrow + r, adr = b->nnz, n = 0;
    for (int j = lo; j < hi; j++) {
      if (J[j] != 0) {
        d->efc_J_colind[adr + n] = j;
        d->efc_J_val[adr + n] = J[j];
        n++;
      }
    }
    if (hi > lo) {
      mcu_zero(J + lo, hi - lo);
    }
    d->efc_J_rowadr[row] = adr;
    d->efc_J_rownnz[row] = n;
    b->nnz += n;
  }
  b->blockn = 0;
}


// reserve k rows of one conceptual constraint: index of the first, or -1 (count pass or full).
// Dense: the rows of efc_J are zeroed. Sparse: the previous constraint's rows are flushed; with
// dense != 0 the rows get zeroed dense storage in block (k <= 6), filled through rowJ (all
// columns) or rowJIn (a column range)
static int reserve(Builder* b, int k, int dense) {
  if (!b->fill) {
    b->n += k;
    return -1;
  }
  if (b->n + k > b->cap) {
    b->dropped += k;
    return -1;
  }
  int start = b->n, nv = b->m->nv;
  b->n += k;
  if (!b->sparse) {
    mcu_zero(b->d->efc_J + (size_t)start * nv, k * nv);
  } else {
    flushBlock(b);
    if (dense) {
      if (k > b->blockzero) {
        mcu_zero(b->block + (size_t)b->blockzero * nv, (size_t)(k - b->blockzero) * nv);
        b->blockzero = k;
      }
      b->blockrow = start;
      b->blockn = k;
      b->blocklo = 0;
      b->blockhi = nv;
    }
  }
  return start;
}


// dense storage of a reserved row of an equality, friction or limit constraint
static mcNum* rowJ(Builder* b, int row) {
  int nv = b->m->nv;
  if (b->sparse) {
    return b->block + (size_t)(row - b->blockrow) * nv;
  }
  return b->d->efc_J + (size_t)row * nv;
}


// rowJ of a single-row constraint whose entries all lie in the columns lo..hi-1: the sparse
// builder then scans and clears only those
static mcNum* rowJIn(Builder* b, int row, int lo, int hi) {
  b->blocklo = lo;
  b->blockhi = hi;
  return rowJ(b, row);
}


// reserve a row whose Jacobian is the single entry val at column col (a dof's friction loss, a
// hinge or slide limit) and store that entry: -1 in the count pass (which counts it among the
// unit rows: one non-zero, not nv, in the sparse bound) or when full. Sparse: written directly
// (the pending rows flushed first), not through block and flushBlock's scan and clear (val is
// never 0, so the stored row is the one the scan would give)
static int unitRow(Builder* b, int col, mcNum val) {
  if (!b->fill) {
    b->n++;
    b->nunit++;
    return -1;
  }
  int row = reserve(b, 1, 0);
  if (row >= 0 && b->sparse) {
    mcData* d = b->d;
    d->efc_J_rowadr[row] = b->nnz;
    d->efc_J_rownnz[row] = 1;
    d->efc_J_colind[b->nnz] = col;
    d->efc_J_val[b->nnz] = val;
    b->nnz++;
  } else if (row >= 0) {
    b->d->efc_J[(size_t)row * b->m->nv + col] = val;
  }
  return row;
}


// set the scalar fields of one row
static void setRow(Builder* b, int row, int type, int id, mcNum pos, mcNum margin,
                   mcNum frictionloss) {
  mcData* d = b->d;
  d->efc_type[row] = type;
  d->efc_id[row] = id;
  d->efc_pos[row] = pos;
  d->efc_margin[row] = margin;
  d->efc_frictionloss[row] = frictionloss;
  d->efc_state[row] = mcCNSTRSTATE_QUADRATIC;
  d->efc_force[row] = 0;
}


//---------------------------------- equality ------------------------------------------------------

// global position of a body-local point
static void localToGlobal(const mcData* d, int body, const mcNum local[3], mcNum res[3]) {
  mcu_mulMatVec3(res, d->xmat + 9 * body, local);
  mcu_addTo3(res, d->xpos + 3 * body);
}


// quartic polynomial and its derivative
static mcNum poly4(const mcNum* a, mcNum x, mcNum* deriv) {
  *deriv = a[1] + x * (2 * a[2] + x * (3 * a[3] + x * 4 * a[4]));
  return a[0] + x * (a[1] + x * (a[2] + x * (a[3] + x * a[4])));
}


static void equalityConnect(Builder* b, int i) {
  const mcModel* m = b->m;
  mcData* d = b->d;
  int nv = m->nv;
  int b1 = m->eq_obj1id[i], b2 = m->eq_obj2id[i];
  const mcNum* data = m->eq_data + (size_t)mcNEQDATA * i;
  int row = reserve(b, 3, 1);
  if (row < 0) {
    return;
  }

  // anchors in global coordinates
  mcNum p1[3], p2[3];
  localToGlobal(d, b1, data, p1);
  localToGlobal(d, b2, data + 3, p2);

  // residual and Jacobian difference
  mc_jacPoint(m, d, b->jp1, NULL, p1, b1);
  mc_jacPoint(m, d, b->jp2, NULL, p2, b2);
  for (int k = 0; k < 3; k++) {
    setRow(b, row + k, mcCNSTR_EQUALITY, i, p1[k] - p2[k], 0, 0);
    mcNum* J = rowJ(b, row + k);
    for (int j = 0; j < nv; j++) {
      J[j] = b->jp1[k * nv + j] - b->jp2[k * nv + j];
    }
  }
}


// the two frames of weld i: the relpose frame on body1 against the anchor on body2, or two sites
// (their frames must coincide); bodies, global positions and orientations
typedef struct {
  int b1, b2;
  mcNum p1[3], p2[3], q1[4], q2[4];
} WeldFrames;

static void weldFrames(const mcModel* m, const mcData* d, int i, WeldFrames* f) {
  static const mcNum unitquat[4] = {1, 0, 0, 0};
  const mcNum* data = m->eq_data + (size_t)mcNEQDATA * i;
  int b1 = m->eq_obj1id[i], b2 = m->eq_obj2id[i];
  const mcNum *lpos1 = data + 3, *lpos2 = data, *lquat1 = data + 6, *lquat2 = unitquat;
  if (m->eq_objtype[i] == mcOBJ_SITE) {
    int s1 = b1, s2 = b2;
    b1 = m->site_bodyid[s1];
    b2 = m->site_bodyid[s2];
    lpos1 = m->site_pos + 3 * s1;
    lpos2 = m->site_pos + 3 * s2;
    lquat1 = m->site_quat + 4 * s1;
    lquat2 = m->site_quat + 4 * s2;
  }
  f->b1 = b1;
  f->b2 = b2;
  localToGlobal(d, b1, lpos1, f->p1);
  localToGlobal(d, b2, lpos2, f->p2);
  mcu_mulQuat(f->q1, d->xquat + 4 * b1, lquat1);
  mcu_mulQuat(f->q2, d->xquat + 4 * b2, lquat2);
}


static void equalityWeld(Builder* b, int i) {
  const mcModel* m = b->m;
  mcData* d = b->d;
  int nv = m->nv;
  mcNum torquescale = m->eq_data[(size_t)mcNEQDATA * i + 10];
  int row = reserve(b, 6, 1);
  if (row < 0) {
    return;
  }
  WeldFrames f;
  weldFrames(m, d, i, &f);

  // position part
  mc_jacPoint(m, d, b->jp1, b->jr1, f.p1, f.b1);
  mc_jacPoint(m, d, b->jp2, b->jr2, f.p2, f.b2);
  for (int k = 0; k < 3; k++) {
    setRow(b, row + k, mcCNSTR_EQUALITY, i, f.p1[k] - f.p2[k], 0, 0);
    mcNum* J = rowJ(b, row + k);
    for (int j = 0; j < nv; j++) {
      J[j] = b->jp1[k * nv + j] - b->jp2[k * nv + j];
    }
  }

  // orientation error e = vec(conj(q2) * q1) of the two frames' global orientations
  mcNum q2c[4], qe[4];
  mcu_negQuat(q2c, f.q2);
  mcu_mulQuat(qe, q2c, f.q1);
  for (int k = 0; k < 3; k++) {
    setRow(b, row + 3 + k, mcCNSTR_EQUALITY, i, torquescale * qe[1 + k], 0, 0);
  }

  // d e / dt = 0.5 * vec(conj(q2) * [0, w1 - w2] * q1) with global angular velocities
  mcNum* J3 = rowJ(b, row + 3);
  for (int j = 0; j < nv; j++) {
    mcNum w[4] = {0, b->jr1[j] - b->jr2[j], b->jr1[nv + j] - b->jr2[nv + j],
                  b->jr1[2 * nv + j] - b->jr2[2 * nv + j]};
    if (w[1] == 0 && w[2] == 0 && w[3] == 0) {
      continue;
    }
    mcNum t[4], r[4];
    mcu_mulQuat(t, q2c, w);
    mcu_mulQuat(r, t, f.q1);
    for (int k = 0; k < 3; k++) {
      J3[k * nv + j] = 0.5 * torquescale * r[1 + k];
    }
  }
}


static void equalityScalar(Builder* b, int i) {
  const mcModel* m = b->m;
  mcData* d = b->d;
  int nv = m->nv;
  int o1 = m->eq_obj1id[i], o2 = m->eq_obj2id[i];
  const mcNum* poly = m->eq_data + (size_t)mcNEQDATA * i;
  int isjoint = m->eq_type[i] == mcEQ_JOINT;
  int row = reserve(b, 1, 1);
  if (row < 0) {
    return;
  }
  mcNum* J = rowJ(b, row);

  // first object: y - y0
  mcNum y, x = 0, deriv = 0, pos;
  if (isjoint) {
    y = d->qpos[m->jnt_qposadr[o1]] - m->qpos0[m->jnt_qposadr[o1]];
    J[m->jnt_dofadr[o1]] = 1;
  } else {
    y = d->ten_length[o1] - m->tendon_length0[o1];
    mcu_copy(J, d->ten_J + (size_t)o1 * nv, nv);
  }

  // second object: polynomial of x - x0
  if (o2 >= 0) {
    if (isjoint) {
      x = d->qpos[m->jnt_qposadr[o2]] - m->qpos0[m->jnt_qposadr[o2]];
    } else {
      x = d->ten_length[o2] - m->tendon_length0[o2];
    }
    pos = y - poly4(poly, x, &deriv);
    if (isjoint) {
      J[m->jnt_dofadr[o2]] -= deriv;
    } else {
      mcu_addToScl(J, d->ten_J + (size_t)o2 * nv, -deriv, nv);
    }
  } else {
    pos = y - poly[0];
  }
  setRow(b, row, mcCNSTR_EQUALITY, i, pos, 0, 0);
}


static void addEquality(Builder* b) {
  const mcModel* m = b->m;
  if (m->opt.disableflags & mcDSBL_EQUALITY) {
    return;
  }
  for (int i = 0; i < m->neq; i++) {
    if (!b->d->eq_active[i] || mc_sleepEqualityAsleep(m, b->d, i)) {  // engine/sleep.c
      continue;
    }
    switch (m->eq_type[i]) {
    case mcEQ_CONNECT:
      equalityConnect(b, i);
      break;
    case mcEQ_WELD:
      equalityWeld(b, i);
      break;
    case mcEQ_JOINT:
    case mcEQ_TENDON:
      equalityScalar(b, i);
      break;
    default:
      break;
    }
  }
}


// dJ/dt qvel of the rows of connect or weld i (3 or 6 values in acc): the accelerations of the
// residuals at zero qacc, which MuJoCo 3.x adds to the unconstrained acceleration of these rows
// (the seed's "dual problem": a_u = J M^-1 (tau - c) + dJ/dt v). Number of rows, 0 for the other
// equality types. Needs cdof_dot (mc_comVel).
static int equalityVelocityProduct(const mcModel* m, const mcData* d, int i, mcNum acc[6]) {
  mcPointMotion pm1, pm2;
  const mcNum* data = m->eq_data + (size_t)mcNEQDATA * i;
  if (m->eq_type[i] == mcEQ_CONNECT) {
    mcNum p1[3], p2[3];
    int b1 = m->eq_obj1id[i], b2 = m->eq_obj2id[i];
    localToGlobal(d, b1, data, p1);
    localToGlobal(d, b2, data + 3, p2);
    mc_pointMotion(m, d, p1, b1, &pm1);
    mc_pointMotion(m, d, p2, b2, &pm2);
    mcu_sub3(acc, pm1.acc, pm2.acc);
    return 3;
  }
  if (m->eq_type[i] != mcEQ_WELD) {
    return 0;
  }
  WeldFrames f;
  weldFrames(m, d, i, &f);
  mc_pointMotion(m, d, f.p1, f.b1, &pm1);
  mc_pointMotion(m, d, f.p2, f.b2, &pm2);
  mcu_sub3(acc, pm1.acc, pm2.acc);

  // e = ts vec(conj(q2) q1) with dq1/dt = [0, w1] q1 / 2, d conj(q2)/dt = -conj(q2) [0, w2] / 2
  // and de/dt = ts/2 vec(conj(q2) [0, dw] q1), dw = w1 - w2: at zero qacc, with a = dJr/dt qvel,
  // d2e/dt2 = ts/2 vec(conj(q2) mid q1) with
  // mid = [0, a1 - a2] + ([0, dw] [0, w1] - [0, w2] [0, dw]) / 2
  mcNum dw[4] = {0}, w1[4] = {0}, w2[4] = {0}, mid[4] = {0}, t1[4], t2[4], q2c[4], r[4];
  for (int k = 0; k < 3; k++) {
    dw[1 + k] = pm1.angvel[k] - pm2.angvel[k];
    w1[1 + k] = pm1.angvel[k];
    w2[1 + k] = pm2.angvel[k];
  }
  mcu_mulQuat(t1, dw, w1);
  mcu_mulQuat(t2, w2, dw);
  for (int k = 0; k < 4; k++) {
    mid[k] = 0.5 * (t1[k] - t2[k]);
  }
  for (int k = 0; k < 3; k++) {
    mid[1 + k] += pm1.angacc[k] - pm2.angacc[k];
  }
  mcu_negQuat(q2c, f.q2);
  mcu_mulQuat(t1, q2c, mid);
  mcu_mulQuat(r, t1, f.q1);
  mcNum torquescale = data[10];
  for (int k = 0; k < 3; k++) {
    acc[3 + k] = 0.5 * torquescale * r[1 + k];
  }
  return 6;
}


//---------------------------------- element lists -------------------------------------------------

// The count pass keeps the friction-loss dofs and tendons and the limited joints and tendons that
// got rows, so the fill pass runs the same code on those alone (the same rows in the same order)
enum { ELEM_FRIDOF, ELEM_FRITEN, ELEM_LIMJNT, ELEM_LIMTEN };

// count pass over the elements [lo, hi) of list k: fn(b, i) for each; those that added rows are
// kept at list k + lo (when the list exists); returns how many
static inline __attribute__((always_inline)) int elemCount(Builder* b, int k, int lo, int hi,
                                                           void (*fn)(Builder*, int)) {
  int* keep = b->elem[k] ? b->elem[k] + lo : NULL;
  int nkeep = 0;
  for (int i = lo; i < hi; i++) {
    int n0 = b->n;
    fn(b, i);
    if (keep && b->n > n0) {
      keep[nkeep++] = i;
    }
  }
  return nkeep;
}


// fn(b, i) for the elements i of list k (total elements): the count pass runs all of them and
// keeps those that added rows, the fill pass runs the kept ones (without the list: all in both)
static inline __attribute__((always_inline)) void elemRun(Builder* b, int k, int total,
                                                          void (*fn)(Builder*, int)) {
  const int* list = b->elem[k];
  if (!b->fill) {
    b->nelem[k] = elemCount(b, k, 0, total, fn);
  } else if (list) {
    for (int t = 0, n = b->nelem[k]; t < n; t++) {
      fn(b, list[t]);
    }
  } else {
    for (int i = 0; i < total; i++) {
      fn(b, i);
    }
  }
}


//---------------------------------- friction loss -------------------------------------------------

// friction-loss row of dof i (none on sleeping trees, engine/sleep.c)
static inline __attribute__((always_inline)) void frictionDof(Builder* b, int i) {
  const mcModel* m = b->m;
  if (m->dof_frictionloss[i] > 0 && !mc_sleepDofAsleep(m, b->d, i)) {
    int row = unitRow(b, i, 1);
    if (row >= 0) {
      setRow(b, row, mcCNSTR_FRICTION_DOF, i, 0, 0, m->dof_frictionloss[i]);
    }
  }
}


// friction-loss row of tendon i
static inline __attribute__((always_inline)) void frictionTendon(Builder* b, int i) {
  const mcModel* m = b->m;
  if (m->tendon_frictionloss[i] > 0 && !mc_sleepTendonAsleep(m, b->d, i)) {
    int row = reserve(b, 1, 1);
    if (row >= 0) {
      setRow(b, row, mcCNSTR_FRICTION_TENDON, i, 0, 0, m->tendon_frictionloss[i]);
      mcu_copy(rowJ(b, row), b->d->ten_J + (size_t)i * m->nv, m->nv);
    }
  }
}


int mci_anyPositive(const mcNum* x, int n) {
  int i = 0, any = 0;
#ifdef __SSE2__
  // (the running maximum of pairs, 8 values a round: maxpd keeps its second operand, the maximum,
  // when the first is NaN; gcc vectorizes none of the scalar forms of this test)
  __m128d m0 = _mm_setzero_pd(), m1 = _mm_setzero_pd();
  for (; i + 8 <= n; i += 8) {
    m0 = _mm_max_pd(_mm_loadu_pd(x + i), m0);
    m1 = _mm_max_pd(_mm_loadu_pd(x + i + 2), m1);
    m0 = _mm_max_pd(_mm_loadu_pd(x + i + 4), m0);
    m1 = _mm_max_pd(_mm_loadu_pd(x + i + 6), m1);
  }
  any = _mm_movemask_pd(_mm_cmpgt_pd(_mm_max_pd(m0, m1), _mm_setzero_pd())) != 0;
#endif
  for (; i < n; i++) {
    any |= x[i] > 0;
  }
  return any;
}


#define FRIDOFBLOCK 64            // dofs tested at once for friction loss: frictionDofCount

// count pass over the dofs [lo, hi): frictionDof's count (one row per dof with friction loss,
// awake) and list, in a scan that reads a dof's friction loss alone before anything else: most
// dofs have none, and the generic elemCount's per-element bookkeeping cost more than the test
static int frictionDofCount(Builder* b, int lo, int hi) {
  const mcModel* m = b->m;
  const mcNum* loss = m->dof_frictionloss;
  int* keep = b->elem[ELEM_FRIDOF] ? b->elem[ELEM_FRIDOF] + lo : NULL;
  int nkeep = 0, nrow = 0;
  // (blocks without friction loss passed over by a branch-free test: the per-dof test and branch
  // cost ~6 instructions a dof, 3.8k a step on humanoid100's 627 dofs, none with friction loss)
  for (int b0 = lo; b0 < hi; b0 += FRIDOFBLOCK) {
    int b1 = hi - b0 > FRIDOFBLOCK ? b0 + FRIDOFBLOCK : hi;
    if (!mci_anyPositive(loss + b0, b1 - b0)) {
      continue;
    }
    for (int i = b0; i < b1; i++) {
      if (loss[i] > 0 && !mc_sleepDofAsleep(m, b->d, i)) {
        nrow++;
        if (keep) {
          keep[nkeep++] = i;
        }
      }
    }
  }
  b->n += nrow;
  b->nunit += nrow;               // (frictionDof's rows: unitRow)
  return nkeep;
}


static void addFriction(Builder* b) {
  const mcModel* m = b->m;
  if (m->opt.disableflags & mcDSBL_FRICTIONLOSS) {
    return;
  }
  if (!b->fill) {
    b->nelem[ELEM_FRIDOF] = frictionDofCount(b, 0, m->nv);
  } else {
    elemRun(b, ELEM_FRIDOF, m->nv, frictionDof);
  }
  elemRun(b, ELEM_FRITEN, m->ntendon, frictionTendon);
}


//---------------------------------- limits --------------------------------------------------------

// axis-angle of a unit quaternion: unit axis, angle in [0, pi]
static mcNum quatAngleAxis(const mcNum q[4], mcNum axis[3]) {
  mcNum s = mcu_norm3(q + 1);
  if (s < mcMINVAL) {
    axis[0] = 1;
    axis[1] = axis[2] = 0;
    return 0;
  }
  mcNum angle = 2 * atan2(s, q[0]);
  if (angle > mcPI) {
    angle -= 2 * mcPI;
  }
  mcu_scl3(axis, q + 1, 1 / s);
  if (angle < 0) {
    angle = -angle;
    mcu_scl3(axis, axis, -1);
  }
  return angle;
}


// limit rows of joint i (none on sleeping trees, engine/sleep.c)
static inline __attribute__((always_inline)) void limitJoint(Builder* b, int i) {
  const mcModel* m = b->m;
  const mcData* d = b->d;
  if (!m->jnt_limited[i] || mc_sleepDofAsleep(m, d, m->jnt_dofadr[i])) {
    return;
  }
  int type = m->jnt_type[i], qadr = m->jnt_qposadr[i], dadr = m->jnt_dofadr[i];
  const mcNum* range = m->jnt_range + 2 * i;
  mcNum margin = m->jnt_margin[i];

  // hinge and slide: one row per side
  if (type == mcJNT_HINGE || type == mcJNT_SLIDE) {
    mcNum value = d->qpos[qadr];
    for (int side = 0; side < 2; side++) {
      mcNum dist = side ? range[1] - value : value - range[0];
      if (dist < margin) {
        int row = unitRow(b, dadr, side ? -1 : 1);
        if (row >= 0) {
          setRow(b, row, mcCNSTR_LIMIT_JOINT, i, dist, margin, 0);
        }
      }
    }
  }

  // ball: rotation angle against the larger range value
  else if (type == mcJNT_BALL) {
    mcNum q[4], axis[3];
    mcu_copy4(q, d->qpos + qadr);
    mcu_normalize4(q);
    mcNum angle = quatAngleAxis(q, axis);
    mcNum dist = mcu_max(range[0], range[1]) - angle;
    if (dist < margin) {
      int row = reserve(b, 1, 1);
      if (row >= 0) {
        setRow(b, row, mcCNSTR_LIMIT_JOINT, i, dist, margin, 0);
        mcNum* J = rowJIn(b, row, dadr, dadr + 3);
        for (int k = 0; k < 3; k++) {
          J[dadr + k] = -axis[k];
        }
      }
    }
  }
}


// limit rows of tendon i (none when it moves only sleeping trees)
static inline __attribute__((always_inline)) void limitTendon(Builder* b, int i) {
  const mcModel* m = b->m;
  const mcData* d = b->d;
  if (!m->tendon_limited[i] || mc_sleepTendonAsleep(m, d, i)) {
    return;
  }
  const mcNum* range = m->tendon_range + 2 * i;
  mcNum value = d->ten_length[i], margin = m->tendon_margin[i];
  for (int side = 0; side < 2; side++) {
    mcNum dist = side ? range[1] - value : value - range[0];
    if (dist < margin) {
      int row = reserve(b, 1, 1);
      if (row >= 0) {
        setRow(b, row, mcCNSTR_LIMIT_TENDON, i, dist, margin, 0);
        mcu_scl(rowJ(b, row), d->ten_J + (size_t)i * m->nv, side ? -1 : 1, m->nv);
      }
    }
  }
}


static void addLimit(Builder* b) {
  const mcModel* m = b->m;
  if (m->opt.disableflags & mcDSBL_LIMIT) {
    return;
  }
  elemRun(b, ELEM_LIMJNT, m->njnt, limitJoint);
  elemRun(b, ELEM_LIMTEN, m->ntendon, limitTendon);
}


//---------------------------------- contacts ------------------------------------------------------

// number of efc rows of a contact
static int contactRows(const mcModel* m, const mcContact* con) {
  if (con->dim <= 1) {
    return 1;
  }
  return m->opt.cone == mcCONE_ELLIPTIC ? con->dim : 2 * (con->dim - 1);
}


// last dof of the chain of body (nearest body with dofs), -1 when none
static int chainLast(const mcModel* m, int body) {
  while (body > 0 && m->body_dofnum[body] == 0) {
    body = m->body_parentid[body];
  }
  return body > 0 ? m->body_dofadr[body] + m->body_dofnum[body] - 1 : -1;
}


// dofs of the chain of body (nearest body with dofs and its ancestors), ascending; return count
static int chainDofs(const mcModel* m, int body, int* dofs) {
  int n = 0;
  for (int i = chainLast(m, body); i >= 0; i = m->dof_parentid[i]) {
    dofs[n++] = i;
  }

  // reverse to ascending order
  for (int i = 0, j = n - 1; i < j; i++, j--) {
    int t = dofs[i];
    dofs[i] = dofs[j];
    dofs[j] = t;
  }
  return n;
}


// union of the dof chains of two bodies (ascending, in b->cols; b->side flags); return count
static int contactColumns(Builder* b, int b1, int b2) {
  const mcModel* m = b->m;
  int* c1 = b->side;
  int n1 = chainDofs(m, b1, c1);
  int* c2 = b->side + n1;
  int n2 = chainDofs(m, b2, c2);

  // merge; sides are packed after the merged list is complete
  int n = 0, i = 0, j = 0;
  int* flag = b->cols + m->nv;
  while (i < n1 || j < n2) {
    if (j >= n2 || (i < n1 && c1[i] < c2[j])) {
      b->cols[n] = c1[i++];
      flag[n++] = 1;
    } else if (i >= n1 || c2[j] < c1[i]) {
      b->cols[n] = c2[j++];
      flag[n++] = 2;
    } else {
      b->cols[n] = c1[i++];
      j++;
      flag[n++] = 3;
    }
  }
  memcpy(b->side, flag, sizeof(int) * n);
  return n;
}


// contactColumns' count without the lists: the two chains walked up together (a dof's parent has
// a smaller index) until they meet, then their common part once
static int contactColumnCount(const mcModel* m, int b1, int b2) {
  int i = chainLast(m, b1), j = chainLast(m, b2), n = 0;
  while (i != j) {
    if (i > j) {
      i = m->dof_parentid[i];
    } else {
      j = m->dof_parentid[j];
    }
    n++;
  }
  for (; i >= 0; i = m->dof_parentid[i]) {
    n++;
  }
  return n;
}


// contactColumnCount from the chains' lengths when the bodies' chains lie in different trees (or
// one is empty: a body without dofs, the world), by the walk when they share a tree
static int contactColumnCountFast(const Builder* b, int b1, int b2) {
  if (!b->root) {
    return contactColumnCount(b->m, b1, b2);
  }
  int i = chainLast(b->m, b1), j = chainLast(b->m, b2);
  if (i < 0 || j < 0 || b->root[i] != b->root[j]) {
    return (i < 0 ? 0 : b->depth[i]) + (j < 0 ? 0 : b->depth[j]);
  }
  return contactColumnCount(b->m, b1, b2);
}


// the storage of a sparse row on the columns cols[0..nc-1] (rowadr, rownnz, colind): its nc
// values are written by the caller at the returned address
static mcNum* sparseRow(Builder* b, int row, const int* cols, int nc) {
  mcData* d = b->d;
  d->efc_J_rowadr[row] = b->nnz;
  d->efc_J_rownnz[row] = nc;
  memcpy(d->efc_J_colind + b->nnz, cols, sizeof(int) * nc);
  mcNum* val = d->efc_J_val + b->nnz;
  b->nnz += nc;
  return val;
}


// store a row given on the columns cols[0..nc-1]: dense row (already zero) or row-sparse
static void storeRow(Builder* b, int row, const int* cols, const mcNum* val, int nc) {
  if (!b->sparse) {
    mcNum* J = b->d->efc_J + (size_t)row * b->m->nv;
    for (int t = 0; t < nc; t++) {
      J[cols[t]] = val[t];
    }
  } else {
    memcpy(sparseRow(b, row, cols, nc), val, sizeof(mcNum) * nc);
  }
}


// out[t] = ax . (x[t], x[nv + t], x[2 nv + t]) over the nc columns: a direction of the contact
// frame applied to the three world rows x (distinct scratch rows: no overlap)
static inline void rotateColumns(mcNum* restrict out, const mcNum ax[3], const mcNum* restrict x,
                                 int nv, int nc) {
  const mcNum* restrict y = x + nv;
  const mcNum* restrict z = x + 2 * nv;
  mcNum a0 = ax[0], a1 = ax[1], a2 = ax[2];
  for (int t = 0; t < nc; t++) {
    out[t] = a0 * x[t] + a1 * y[t] + a2 * z[t];
  }
}


// edge[t] = normal[t] + dir[t] * scl: a pyramid edge in one pass (the same sum as a copy of the
// normal row followed by mcu_addToScl)
static inline void edgeRow(mcNum* restrict edge, const mcNum* restrict normal,
                           const mcNum* restrict dir, mcNum scl, int nc) {
  for (int t = 0; t < nc; t++) {
    edge[t] = normal[t] + dir[t] * scl;
  }
}


// fill the rows of contact i at its efc_address (the sparse values from b->nnz on): the relative
// Jacobian on the chain dofs, rotated to the contact frame, and the rows of its cone
static void fillContact(Builder* b, int i) {
  const mcModel* m = b->m;
  mcData* d = b->d;
  int nv = m->nv;
  int elliptic = m->opt.cone == mcCONE_ELLIPTIC;
  mcContact* con = d->contact + i;
  int row = con->efc_address;
  if (!b->sparse) {
    mcu_zero(d->efc_J + (size_t)row * nv, (size_t)contactRows(m, con) * nv);
  }

  // regularized-cone friction
  mcNum impratio = m->opt.impratio > mcMINVAL ? m->opt.impratio : 1;
  con->mu = con->friction[0] * sqrt(1 / impratio);

  // relative spatial Jacobian (geom2 minus geom1) at the contact point, on the chain dofs
  int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
  int nc = contactColumns(b, b1, b2);
  mcNum off1[3], off2[3];
  mcu_sub3(off1, con->pos, d->subtree_com + 3 * m->body_rootid[b1]);
  mcu_sub3(off2, con->pos, d->subtree_com + 3 * m->body_rootid[b2]);
  // (the rotational part only for torsional and rolling friction, condim 4 and 6)
  int ndir = con->dim >= 4 ? 6 : 3;
  mcNum* jp = b->jp2;
  mcNum* jr = b->jr2;
  for (int t = 0; t < nc; t++) {
    const mcNum* cd = d->cdof + 6 * b->cols[t];
    int side = b->side[t];
    mcNum p1[3] = {0, 0, 0}, p2[3] = {0, 0, 0};
    if (side & 1) {
      mcNum c[3];
      mcu_cross(c, cd, off1);
      for (int k = 0; k < 3; k++) {
        p1[k] = cd[3 + k] + c[k];
      }
    }
    if (side & 2) {
      mcNum c[3];
      mcu_cross(c, cd, off2);
      for (int k = 0; k < 3; k++) {
        p2[k] = cd[3 + k] + c[k];
      }
    }
    for (int k = 0; k < 3; k++) {
      jp[k * nv + t] = p2[k] - p1[k];
    }
    if (ndir == 6) {
      for (int k = 0; k < 3; k++) {
        mcNum r1 = side & 1 ? cd[k] : 0, r2 = side & 2 ? cd[k] : 0;
        jr[k * nv + t] = r2 - r1;
      }
    }
  }

  // rows of the contact frame: lin (normal, t1, t2) in jp1, rot (normal, t1, t2) in jr1
  for (int k = 0; k < 3; k++) {
    const mcNum* ax = con->frame + 3 * k;
    rotateColumns(b->jp1 + k * nv, ax, jp, nv, nc);
    if (ndir == 6) {
      rotateColumns(b->jr1 + k * nv, ax, jr, nv, nc);
    }
  }

  // direction k of the contact space (0: normal, 1-2: tangents, 3: spin, 4-5: roll)
  #define DIR(k) ((k) < 3 ? b->jp1 + (k) * nv : b->jr1 + ((k) - 3) * nv)

  // frictionless
  if (con->dim <= 1) {
    setRow(b, row, mcCNSTR_CONTACT_FRICTIONLESS, i, con->dist, con->includemargin, 0);
    storeRow(b, row, b->cols, DIR(0), nc);
  }

  // elliptic: one row per direction; only the normal has a position residual
  else if (elliptic) {
    for (int k = 0; k < con->dim; k++) {
      setRow(b, row + k, mcCNSTR_CONTACT_ELLIPTIC, i, k ? 0 : con->dist,
             k ? 0 : con->includemargin, 0);
      storeRow(b, row + k, b->cols, DIR(k), nc);
    }
  }

  // pyramidal: edges normal +- friction * direction
  else {
    mcNum* edge = jp;
    for (int k = 1; k < con->dim; k++) {
      for (int s = 0; s < 2; s++) {
        int r = row + 2 * (k - 1) + s;
        setRow(b, r, mcCNSTR_CONTACT_PYRAMIDAL, i, con->dist, con->includemargin, 0);
        mcNum scl = s ? -con->friction[k - 1] : con->friction[k - 1];
        if (b->sparse) {
          edgeRow(sparseRow(b, r, b->cols, nc), DIR(0), DIR(k), scl, nc);  // in place
        } else {
          edgeRow(edge, DIR(0), DIR(k), scl, nc);
          storeRow(b, r, b->cols, edge, nc);
        }
      }
    }
  }
  #undef DIR
}


// fill the rows of the contacts [c0, c1) that got rows
static void fillContacts(Builder* b, int c0, int c1) {
  for (int i = c0; i < c1; i++) {
    if (b->d->contact[i].efc_address >= 0) {
      fillContact(b, i);
    }
  }
}


// count pass over the contacts [c0, c1): rows and non-zeros (each contact's column count kept in
// ccols)
static void countContacts(Builder* b, int c0, int c1) {
  const mcModel* m = b->m;
  for (int i = c0; i < c1; i++) {
    const mcContact* con = b->d->contact + i;
    if (con->exclude) {
      continue;
    }
    int nrow = contactRows(m, con);
    int nc = contactColumnCountFast(b, m->geom_bodyid[con->geom1], m->geom_bodyid[con->geom2]);
    if (b->ccols) {
      b->ccols[i] = nc;
    }
    b->nnz += nrow * nc;
    b->n += nrow;
  }
}


// count pass: countContacts; fill pass: rows in contact order (those past the capacity dropped) in
// efc_address, the rows themselves left to fillContacts
static void addContact(Builder* b) {
  const mcModel* m = b->m;
  mcData* d = b->d;
  if (m->opt.disableflags & mcDSBL_CONTACT) {
    for (int i = 0; i < d->ncon; i++) {
      d->contact[i].efc_address = -1;
    }
    return;
  }
  if (!b->fill) {
    countContacts(b, 0, d->ncon);
    return;
  }
  for (int i = 0; i < d->ncon; i++) {
    mcContact* con = d->contact + i;
    con->efc_address = -1;
    if (con->exclude) {
      continue;
    }
    int nrow = contactRows(m, con);
    if (b->n + nrow > b->cap) {
      b->dropped += nrow;
    } else {
      con->efc_address = b->n;
      b->n += nrow;
    }
  }
}


//---------------------------------- soft-constraint parameters ------------------------------------

// x^e; x itself for e == 1 (the default power 2 makes e = power - 1 one): pow returns its exact
// result there too, so the shortcut changes no bit and saves two of the three pow calls per row
static inline mcNum powOne(mcNum x, mcNum e) {
  return e == 1 ? x : pow(x, e);
}


// x^p; x * x for p == 2 (the default power): the correctly rounded square, which libm's pow
// misses by one bit in about 0.1 % of arguments (its error bound is above half an ulp)
static inline mcNum powTwo(mcNum x, mcNum p) {
  return p == 2 ? x * x : pow(x, p);
}


void mc_impedance(const mcNum solimp[mcNIMP], mcNum x, mcNum* imp, mcNum* impP) {
  mcNum dmin = solimp[0], dmax = solimp[1], width = solimp[2];
  mcNum mid = solimp[3], power = solimp[4];

  // flat curve
  if (dmin == dmax || width <= mcMINVAL) {
    *imp = 0.5 * (dmin + dmax);
    *impP = 0;
    return;
  }

  // normalized distance, saturated beyond the width
  mcNum u = fabs(x) / width;
  if (u >= 1) {
    *imp = dmax;
    *impP = 0;
    return;
  }

  // sigmoid made of two power segments joined at the midpoint
  mcNum y, yP;
  if (power == 1) {
    y = u;
    yP = 1;
  } else if (u <= mid) {
    mcNum a = 1 / powOne(mid, power - 1);
    y = a * powTwo(u, power);
    yP = power * a * powOne(u, power - 1);
  } else {
    mcNum a = 1 / powOne(1 - mid, power - 1);
    y = 1 - a * powTwo(1 - u, power);
    yP = power * a * powOne(1 - u, power - 1);
  }

  // map to [dmin, dmax]
  *imp = dmin + y * (dmax - dmin);
  *impP = yP * (dmax - dmin) / width * (x < 0 ? -1 : 1);
}


// solref and solimp of row i (clamped, refsafe applied)
static void solParams(const mcModel* m, const mcData* d, int i, mcNum ref[mcNREF],
                      mcNum imp[mcNIMP]) {
  int id = d->efc_id[i];
  const mcNum* sr = NULL;
  const mcNum* si = NULL;
  switch (d->efc_type[i]) {
  case mcCNSTR_EQUALITY:
    sr = m->eq_solref + mcNREF * id;
    si = m->eq_solimp + mcNIMP * id;
    break;
  case mcCNSTR_FRICTION_DOF:
    sr = m->dof_solref + mcNREF * id;
    si = m->dof_solimp + mcNIMP * id;
    break;
  case mcCNSTR_FRICTION_TENDON:
    sr = m->tendon_solref_fri + mcNREF * id;
    si = m->tendon_solimp_fri + mcNIMP * id;
    break;
  case mcCNSTR_LIMIT_JOINT:
    sr = m->jnt_solref + mcNREF * id;
    si = m->jnt_solimp + mcNIMP * id;
    break;
  case mcCNSTR_LIMIT_TENDON:
    sr = m->tendon_solref_lim + mcNREF * id;
    si = m->tendon_solimp_lim + mcNIMP * id;
    break;
  default: {
    const mcContact* con = d->contact + id;
    int friction = d->efc_type[i] == mcCNSTR_CONTACT_ELLIPTIC && i > con->efc_address;
    if (m->opt.enableflags & mcENBL_OVERRIDE) {
      sr = m->opt.o_solref;
      si = m->opt.o_solimp;
    } else {
      sr = con->solref;
      si = con->solimp;
      if (friction && (con->solreffriction[0] != 0 || con->solreffriction[1] != 0)) {
        sr = con->solreffriction;
      }
    }
    break;
  }
  }
  ref[0] = sr[0];
  ref[1] = sr[1];
  mcu_copy(imp, si, mcNIMP);

  // timeconst at least two timesteps
  if (!(m->opt.disableflags & mcDSBL_REFSAFE) && ref[0] > 0) {
    ref[0] = mcu_max(ref[0], 2 * m->opt.timestep);
  }

  // valid impedance curve
  imp[0] = mcu_clip(imp[0], mcMINIMP, mcMAXIMP);
  imp[1] = mcu_clip(imp[1], mcMINIMP, mcMAXIMP);
  imp[2] = mcu_max(0, imp[2]);
  imp[3] = mcu_clip(imp[3], mcMINIMP, mcMAXIMP);
  imp[4] = mcu_max(1, imp[4]);
}


// efc_diagApprox of the rows [i0, i1) (i0 0 or the first row of a contact) from the inverse
// weights at qpos0. A weld's three orientation rows take the bodies' rotational weights, as
// MuJoCo 3.x does (2.2.2 gave all six rows the translational ones)
static void diagApprox(const mcModel* m, mcData* d, int i0, int i1) {
  int eqrow = 0;                  // row of the current equality constraint's block
  for (int i = i0; i < i1; i++) {
    int id = d->efc_id[i];
    mcNum v = 0;
    int same = i > i0 && d->efc_type[i - 1] == d->efc_type[i] && d->efc_id[i - 1] == id;
    eqrow = same ? eqrow + 1 : 0;
    switch (d->efc_type[i]) {
    case mcCNSTR_EQUALITY: {
      int o1 = m->eq_obj1id[id], o2 = m->eq_obj2id[id];
      switch (m->eq_type[id]) {
      case mcEQ_CONNECT:
        v = m->body_invweight0[2 * o1] + m->body_invweight0[2 * o2];
        break;
      case mcEQ_WELD: {
        int rot = eqrow >= 3;
        if (m->eq_objtype[id] == mcOBJ_SITE) {   // a weld between sites: their bodies
          o1 = m->site_bodyid[o1];
          o2 = m->site_bodyid[o2];
        }
        v = m->body_invweight0[2 * o1 + rot] + m->body_invweight0[2 * o2 + rot];
        break;
      }
      case mcEQ_JOINT:
        v = m->dof_invweight0[m->jnt_dofadr[o1]];
        if (o2 >= 0) {
          v += m->dof_invweight0[m->jnt_dofadr[o2]];
        }
        break;
      case mcEQ_TENDON:
        v = m->tendon_invweight0[o1];
        if (o2 >= 0) {
          v += m->tendon_invweight0[o2];
        }
        break;
      default:
        break;
      }
      break;
    }
    case mcCNSTR_FRICTION_DOF:
      v = m->dof_invweight0[id];
      break;
    case mcCNSTR_FRICTION_TENDON:
    case mcCNSTR_LIMIT_TENDON:
      v = m->tendon_invweight0[id];
      break;
    case mcCNSTR_LIMIT_JOINT:
      v = m->dof_invweight0[m->jnt_dofadr[id]];
      break;
    default: {
      const mcContact* con = d->contact + id;
      int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
      mcNum tran = m->body_invweight0[2 * b1] + m->body_invweight0[2 * b2];
      mcNum rot = m->body_invweight0[2 * b1 + 1] + m->body_invweight0[2 * b2 + 1];
      int k = i - con->efc_address;
      if (d->efc_type[i] == mcCNSTR_CONTACT_ELLIPTIC) {
        v = k < 3 ? tran : rot;
      } else {
        v = tran;
      }
      break;
    }
    }
    d->efc_diagApprox[i] = v;
  }
}


// R of pyramidal edge i from its impedance, its diagApprox first scaled to the edge's A diagonal
static inline void pyramidRegularizer(mcData* d, int i, mcNum imp, mcNum impratio) {
  mcNum mu = d->contact[d->efc_id[i]].friction[0];
  d->efc_diagApprox[i] *= 2 * mu * mu * (1 + mu * mu) / impratio;
  d->efc_R[i] = mcu_max(mcMINVAL, (1 - imp) * d->efc_diagApprox[i] / imp);
}


// KBIP and R of the rows [i0, i1)
static void makeImpedance(const mcModel* m, mcData* d, int i0, int i1) {
  mcNum impratio = m->opt.impratio > mcMINVAL ? m->opt.impratio : 1;
  for (int i = i0; i < i1; i++) {
    mcNum ref[mcNREF], si[mcNIMP], imp, impP;
    int type = d->efc_type[i];
    mcNum* kbip = d->efc_KBIP + 4 * i;

    // the later edges of a pyramid: the same solref, solimp and distance as the contact's first
    // row, so the same K, B, imp and impP (a copy of the bits the row before computed)
    if (type == mcCNSTR_CONTACT_PYRAMIDAL && i > i0 && d->efc_type[i - 1] == type &&
        d->efc_id[i - 1] == d->efc_id[i]) {
      mcu_copy4(kbip, kbip - 4);
      pyramidRegularizer(d, i, kbip[2], impratio);
      continue;
    }
    solParams(m, d, i, ref, si);

    // violation used by the impedance: contacts use their normal distance for every row
    mcNum x;
    int zerok = type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON;
    if (type >= mcCNSTR_CONTACT_FRICTIONLESS) {
      const mcContact* con = d->contact + d->efc_id[i];
      x = con->dist - con->includemargin;
      if (type == mcCNSTR_CONTACT_ELLIPTIC && i > con->efc_address) {
        zerok = 1;
      }
    } else if (type == mcCNSTR_EQUALITY) {
      // equality: norm of the residual of the whole constraint
      int first = i, last = i;
      while (first > 0 && d->efc_type[first - 1] == mcCNSTR_EQUALITY &&
             d->efc_id[first - 1] == d->efc_id[i]) {
        first--;
      }
      while (last + 1 < d->ne && d->efc_type[last + 1] == mcCNSTR_EQUALITY &&
             d->efc_id[last + 1] == d->efc_id[i]) {
        last++;
      }
      x = 0;
      for (int k = first; k <= last; k++) {
        x += d->efc_pos[k] * d->efc_pos[k];
      }
      x = sqrt(x);
    } else {
      x = d->efc_pos[i] - d->efc_margin[i];
    }
    mc_impedance(si, x, &imp, &impP);

    // stiffness and damping from solref: (timeconst, dampratio) or (-stiffness, -damping)
    mcNum dmax = si[1], K, B;
    if (ref[0] > 0) {
      K = 1 / (dmax * dmax * ref[0] * ref[0] * ref[1] * ref[1]);
      B = 2 / (dmax * ref[0]);
    } else {
      K = -ref[0] / (dmax * dmax);
      B = -ref[1] / dmax;
    }
    kbip[0] = zerok ? 0 : K;
    kbip[1] = B;
    kbip[2] = imp;
    kbip[3] = impP;
    if (type == mcCNSTR_CONTACT_PYRAMIDAL) {
      pyramidRegularizer(d, i, imp, impratio);
    } else {
      d->efc_R[i] = mcu_max(mcMINVAL, (1 - imp) * d->efc_diagApprox[i] / imp);
    }
  }
}


// elliptic cones of the contacts [c0, c1): friction rows from the normal row through impratio and
// the friction ratios
static void ellipticFriction(const mcModel* m, mcData* d, int c0, int c1) {
  mcNum impratio = m->opt.impratio > mcMINVAL ? m->opt.impratio : 1;
  for (int c = c0; c < c1; c++) {
    const mcContact* con = d->contact + c;
    int adr = con->efc_address;
    if (adr < 0 || con->dim < 2 || d->efc_type[adr] != mcCNSTR_CONTACT_ELLIPTIC) {
      continue;
    }
    mcNum r1 = d->efc_R[adr] / impratio;
    for (int k = 1; k < con->dim; k++) {
      mcNum ratio = con->friction[0] / mcu_max(mcMINVAL, con->friction[k - 1]);
      mcNum imp = d->efc_KBIP[4 * (adr + k) + 2];
      d->efc_R[adr + k] = mcu_max(mcMINVAL, r1 * ratio * ratio);
      d->efc_diagApprox[adr + k] = d->efc_R[adr + k] * imp / (1 - imp);
    }
  }
}


// the soft-constraint parameters of the rows [i0, i1), which hold the rows of the contacts
// [c0, c1) and of no other contact: diagApprox, KBIP, R, D (i0 0 or a contact's first row)
static void softParams(const mcModel* m, mcData* d, int i0, int i1, int c0, int c1) {
  diagApprox(m, d, i0, i1);
  makeImpedance(m, d, i0, i1);
  ellipticFriction(m, d, c0, c1);
  for (int i = i0; i < i1; i++) {   // constraint mass
    d->efc_D[i] = 1 / d->efc_R[i];
  }
}


//---------------------------------- the velocity-dependent reference ----------------------------

// efc_vel and the position part of efc_aref of the rows [i0, i1)
static void referenceRows(const mcModel* m, mcData* d, int i0, int i1) {
  int nv = m->nv;
  for (int i = i0; i < i1; i++) {
    const mcNum* kbip = d->efc_KBIP + 4 * i;
    mcNum vel;
    if (d->efc_J_rownnz) {
      vel = 0;
      const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
      const mcNum* val = d->efc_J_val + d->efc_J_rowadr[i];
      for (int k = 0, n = d->efc_J_rownnz[i]; k < n; k++) {
        vel += val[k] * d->qvel[col[k]];
      }
    } else {
      vel = mcu_dot(d->efc_J + (size_t)i * nv, d->qvel, nv);
    }
    d->efc_vel[i] = vel;
    d->efc_aref[i] = -kbip[1] * vel - kbip[0] * kbip[2] * (d->efc_pos[i] - d->efc_margin[i]);
  }
}


//---------------------------------- contact rows on the thread pool ------------------------------

#define MAXCHUNK 64               // chunks of one job
#define CHUNKPERTHREAD 4          // chunks per thread (load balance on a shared machine)
#define MINPOOLROWS 64            // fewer rows: serial (a job costs more than it saves)

_Static_assert(2 * MAXCHUNK <= MCI_MAXPARTS, "the islands take a part per task of the row job");

#define MINPIECEROWS 32           // rows of a piece of the other rows (soft parameters, trees)

// chunks of contacts with their first rows and (sparse) first non-zeros, then pieces of the
// rows before the contacts' (equality, friction, limit) for their soft-constraint parameters
typedef struct {
  Builder* b;
  int n;                          // chunks of contacts
  int con[MAXCHUNK + 1];
  int row[MAXCHUNK + 1];
  int nnz[MAXCHUNK + 1];
  int npiece;                     // pieces of the other rows: rows piece[k] .. piece[k+1]-1
  int piece[MAXCHUNK + 1];
  int sticky[MAXCHUNK];           // with the reference: does a contact of chunk k have adhesion?
  int order[2 * MAXCHUNK];        // task -> item: chunk k is item k, piece k item n + k
  int first[2 * MAXCHUNK + 1];    // the threads' blocks of tasks (mci_poolRunCut)
} Chunks;


// cut the rows [0, n) into at most want pieces of about equal length, each at least MINPIECEROWS
// rows (but the last) and starting at the first row of a constraint (a row whose type or id
// differs from the row before), as softParams takes them; returns the number of pieces
static int cutRows(const mcData* d, int n, int want, int* piece) {
  want = want > MAXCHUNK ? MAXCHUNK : want;
  int len = (n + want - 1) / (want > 0 ? want : 1), k = 0;
  len = len < MINPIECEROWS ? MINPIECEROWS : len;
  piece[k++] = 0;
  for (int i = len; i < n && k < want; i++) {
    if (i - piece[k - 1] >= len &&
        (d->efc_type[i] != d->efc_type[i - 1] || d->efc_id[i] != d->efc_id[i - 1])) {
      piece[k++] = i;
    }
  }
  piece[k] = n;
  return n > 0 ? k : 0;
}


// rows of chunk k of total rows cut into want chunks tapered for taper threads (taper blocks of C
// = want / taper chunks, rounded up, one a thread; chunk k weighs C - k % C: each block's last
// chunk is a C-th of its first, a job's tail is short); taper <= 1: all ceil(total / want)
static int chunkTarget(int total, int want, int taper, int k) {
  if (taper <= 1) {
    return (total + want - 1) / want;
  }
  long rounds = (want + taper - 1) / taper, weight = rounds - k % rounds;
  long sum = taper * rounds * (rounds + 1) / 2;
  long target = ((long)total * (weight > 1 ? weight : 1) + sum - 1) / sum;
  return target > 1 ? (int)target : 1;
}


int mci_cutContacts(const mcModel* m, const mcData* d, int want, int taper, int* con, int* row) {
  want = want < 1 ? 1 : want > MAXCHUNK ? MAXCHUNK : want;
  int total = 0, first = -1;
  for (int i = 0; i < d->ncon; i++) {
    if (d->contact[i].efc_address >= 0) {
      first = first < 0 ? d->contact[i].efc_address : first;
      total += contactRows(m, d->contact + i);
    }
  }
  if (total == 0) {
    return 0;
  }

  // a chunk ends once it has its target rows: every chunk but the last has at least those
  int n = 0, count = 0;
  for (int i = 0; i < d->ncon; i++) {
    int adr = d->contact[i].efc_address;
    if (adr < 0) {
      continue;
    }
    if (n == 0 || (n < want && count >= chunkTarget(total, want, taper, n - 1))) {
      con[n] = n ? i : 0;
      row[n++] = adr;
      count = 0;
    }
    count += contactRows(m, d->contact + i);
  }
  con[n] = d->ncon;
  row[n] = first + total;
  return n;
}


// task t runs item k = order[t] (the deal, contactsOnPool); item k < n: fill the contacts of chunk
// k and the soft-constraint parameters of its rows, with scratch Jacobians from the thread's
// workspace; item n + k: the soft-constraint parameters of piece k of the other rows; each with
// its rows' reference (when asked: and whether a contact of the chunk has adhesion) and its part
// for the islands (while the rows are in cache: the pieces are parts 0 .. npiece-1, the chunks
// the parts after them)
static void contactTask(void* ctx, int task, int thread) {
  Chunks* c = (Chunks*)ctx;
  int k = c->order[task];
  if (k >= c->n) {
    const Builder* b = c->b;
    int i0 = c->piece[k - c->n], i1 = c->piece[k - c->n + 1];
    softParams(b->m, b->d, i0, i1, 0, 0);
    if (b->reference) {
      referenceRows(b->m, b->d, i0, i1);
    }
    if (b->sets) {
      mci_rowSets(b->m, b->d, b->sets, k - c->n);
    }
    return;
  }
  Builder w = *c->b;
  size_t nv = (size_t)w.m->nv;
  mcNum* scratch = (mcNum*)mci_worker(w.d, thread)->stack;
  w.jp1 = scratch;
  w.jr1 = scratch + 3 * nv;
  w.jp2 = scratch + 6 * nv;
  w.jr2 = scratch + 9 * nv;
  w.cols = (int*)(scratch + 12 * nv);
  w.side = w.cols + 2 * nv;
  w.nnz = c->nnz[k];
  fillContacts(&w, c->con[k], c->con[k + 1]);
  softParams(w.m, w.d, c->row[k], c->row[k + 1], c->con[k], c->con[k + 1]);
  if (w.reference) {
    referenceRows(w.m, w.d, c->row[k], c->row[k + 1]);
    mci_surfaceReferenceRange(w.m, w.d, c->con[k], c->con[k + 1]);
    int sticky = 0;
    for (int i = c->con[k]; i < c->con[k + 1] && !sticky; i++) {
      const mcContact* con = w.d->contact + i;
      sticky = con->efc_address >= 0 && mc_contactAdhesion(w.m, con) != 0;
    }
    c->sticky[k] = sticky;
  }
  if (w.sets) {
    mci_rowSets(w.m, w.d, w.sets, c->npiece + k);
  }
}


// (one pass over the contacts on the caller, where mci_cutContacts and the non-zeros' pass made
// three: the contacts' structs are large)
int mci_cutContactsFrom(const mcModel* m, const mcData* d, int want, int taper, int conrow,
                        int sparse, const int* ccols, int nnz0, int* con, int* row, int* nnz) {
  want = want < 1 ? 1 : want > MAXCHUNK ? MAXCHUNK : want;
  int total = d->nefc - conrow, sum = nnz0;
  nnz[0] = nnz0;
  if (total <= 0) {
    return 0;
  }
  int target = chunkTarget(total, want, taper, 0), n = 0, count = 0;
  for (int i = 0; i < d->ncon; i++) {
    const mcContact* c = d->contact + i;
    int adr = c->efc_address;
    if (adr < 0) {
      continue;
    }
    if (n == 0 || (n < want && count >= target)) {  // a chunk ends once it has its target rows
      target = chunkTarget(total, want, taper, n);
      con[n] = n ? i : 0;
      row[n] = adr;
      nnz[n++] = sum;
      count = 0;
    }
    int rows = contactRows(m, c);
    count += rows;
    if (sparse) {
      sum += rows * (ccols ? ccols[i]
                           : contactColumnCount(m, m->geom_bodyid[c->geom1],
                                                m->geom_bodyid[c->geom2]));
    }
  }
  con[n] = d->ncon;
  row[n] = conrow + total;
  nnz[n] = sum;
  return n;
}


// the contacts' rows and all rows' soft-constraint parameters in chunks of contacts and pieces of
// the other rows on d's pool (rows and sparse non-zeros placed as the serial fill places them); 0
// (nothing done) when no pool is bound, in plugin check mode, or with few rows
static int contactsOnPool(Builder* b) {
  const mcModel* m = b->m;
  mcData* d = b->d;
  int nthread = mci_threads(d);
  size_t scratch = 12 * (size_t)m->nv * sizeof(mcNum) + 4 * (size_t)m->nv * sizeof(int);
  if (nthread < 2 || d->plugin_check || d->nefc < MINPOOLROWS ||
      scratch > mci_worker(d, 0)->nstack) {
    return 0;
  }
  Chunks c;
  c.b = b;
  int want = CHUNKPERTHREAD * nthread < MAXCHUNK ? CHUNKPERTHREAD * nthread : MAXCHUNK;
  c.n = mci_cutContactsFrom(m, d, want, nthread, b->conrow, b->sparse, b->ccols, b->nnz, c.con,
                            c.row, c.nnz);
  c.npiece = cutRows(d, b->conrow, want, c.piece);
  b->nnz = c.nnz[c.n];

  // thread k's block: its chunks (contiguous contacts, so mostly the trees it made in the jobs
  // before: their Jacobians and contacts are in its core's cache; tapered, largest first), then its
  // share of the pieces (small)
  int ntask = c.n + c.npiece, blocks = nthread <= 2 * MAXCHUNK;
  int per = (want + nthread - 1) / nthread;
  for (int k = 0, t = 0; k < nthread && blocks; k++) {
    c.first[k] = t;
    int c0 = k * per < c.n ? k * per : c.n, c1 = (k + 1) * per < c.n ? (k + 1) * per : c.n;
    int p0, p1;
    mci_rowRange(c.npiece, k, nthread, &p0, &p1);
    for (int i = c0; i < c1; i++) {
      c.order[t++] = i;
    }
    for (int i = p0; i < p1; i++) {
      c.order[t++] = c.n + i;
    }
    c.first[k + 1] = t;
  }
  for (int t = 0; t < ntask && !blocks; t++) {
    c.order[t] = t;
  }

  // the islands' parts of the rows: the pieces', then the chunks' (in row order)
  mciRowSets* s = b->sets;
  if (s) {
    s->npart = c.npiece + c.n;
    memcpy(s->first, c.piece, sizeof(int) * (size_t)c.npiece);
    memcpy(s->first + c.npiece, c.row, sizeof(int) * (size_t)c.n);
    s->first[s->npart] = d->nefc;
  }
  mci_poolRunCut(d->threadpool, ntask, contactTask, &c, blocks ? c.first : NULL);
  for (int k = 0; k < c.n && b->reference; k++) {
    b->sticky |= c.sticky[k];
  }
  return 1;
}


//---------------------------------- the count pass on the thread pool ---------------------------

#define MINCOUNTELEMS 1024        // fewer elements to count: the count pass serially

// the count pass's elements cut into n parts, one a task: task k counts part k of the friction
// dofs and tendons, limited joints and tendons and of the contacts, keeping the elements with rows
// in its part of each list (the parts are merged in task order: the lists of the serial pass)
typedef struct {
  Builder* b;
  int n;
  int rows[MAXCHUNK];             // task k: rows of its friction and limit elements
  int units[MAXCHUNK];            // of which unit rows (one non-zero: unitRow)
  int conrows[MAXCHUNK];          // rows and non-zeros of its contacts
  int connnz[MAXCHUNK];
  int nkeep[MAXCHUNK][4];         // elements kept in each list
} Counts;


// the elements of list k (or the contacts: k 4) of the model and data, 0 when disabled
static int countTotal(const Builder* b, int k) {
  const mcModel* m = b->m;
  int dsbl = m->opt.disableflags;
  int fri = !(dsbl & mcDSBL_FRICTIONLOSS), lim = !(dsbl & mcDSBL_LIMIT);
  switch (k) {
  case ELEM_FRIDOF:
    return fri ? m->nv : 0;
  case ELEM_FRITEN:
    return fri ? m->ntendon : 0;
  case ELEM_LIMJNT:
    return lim ? m->njnt : 0;
  case ELEM_LIMTEN:
    return lim ? m->ntendon : 0;
  default:
    return dsbl & mcDSBL_CONTACT ? 0 : b->d->ncon;
  }
}


static void countTask(void* ctx, int k, int thread) {
  (void)thread;
  Counts* c = (Counts*)ctx;
  Builder w = *c->b;
  int lo[5], hi[5];
  for (int e = 0; e < 5; e++) {
    mci_rowRange(countTotal(&w, e), k, c->n, lo + e, hi + e);
  }
  w.n = 0;
  w.nunit = 0;
  c->nkeep[k][ELEM_FRIDOF] = frictionDofCount(&w, lo[0], hi[0]);
  c->nkeep[k][ELEM_FRITEN] = elemCount(&w, ELEM_FRITEN, lo[1], hi[1], frictionTendon);
  c->nkeep[k][ELEM_LIMJNT] = elemCount(&w, ELEM_LIMJNT, lo[2], hi[2], limitJoint);
  c->nkeep[k][ELEM_LIMTEN] = elemCount(&w, ELEM_LIMTEN, lo[3], hi[3], limitTendon);
  c->rows[k] = w.n;
  c->units[k] = w.nunit;
  w.n = 0;
  w.nnz = 0;
  countContacts(&w, lo[4], hi[4]);
  c->conrows[k] = w.n;
  c->connnz[k] = w.nnz;
}


// the count pass (rows, a bound of the non-zeros, the lists) with its elements in parts on d's
// pool: the same counts and lists as buildRows' count pass; 0 (nothing done) when no pool is bound,
// in plugin check mode, with few elements, or without every list
static int countOnPool(Builder* b) {
  const mcModel* m = b->m;
  mcData* d = b->d;
  int nthread = mci_threads(d), total = 0;
  for (int e = 0; e < 5; e++) {
    int n = countTotal(b, e);
    if (n > 0 && !(e < 4 ? b->elem[e] : b->ccols)) {
      return 0;
    }
    total += n;
  }
  if (nthread < 2 || d->plugin_check || total < MINCOUNTELEMS) {
    return 0;
  }
  Counts c;
  c.b = b;
  c.n = CHUNKPERTHREAD * nthread < MAXCHUNK ? CHUNKPERTHREAD * nthread : MAXCHUNK;
  addEquality(b);
  mci_poolRun(d->threadpool, c.n, countTask, &c);

  // merge in task order: the kept elements of each list, the rows, then the contacts'
  for (int e = 0; e < 4; e++) {
    int n = 0, total = countTotal(b, e);
    for (int k = 0; k < c.n && b->elem[e]; k++) {
      int lo, hi;
      mci_rowRange(total, k, c.n, &lo, &hi);
      memmove(b->elem[e] + n, b->elem[e] + lo, sizeof(int) * (size_t)c.nkeep[k][e]);
      n += c.nkeep[k][e];
    }
    b->nelem[e] = n;
  }
  for (int k = 0; k < c.n; k++) {
    b->n += c.rows[k];
    b->nunit += c.units[k];
  }
  b->nnz = b->sparse ? (b->n - b->nunit) * m->nv + b->nunit : 0;
  for (int k = 0; k < c.n; k++) {
    b->n += c.conrows[k];
    b->nnz += c.connnz[k];
  }
  return 1;
}


//---------------------------------- top level -----------------------------------------------------

// run the row builders in the order of the seed: equality, friction, limit, contact
static void buildRows(Builder* b) {
  addEquality(b);
  b->d->ne = b->n;
  addFriction(b);
  b->d->nf = b->n - b->d->ne;
  addLimit(b);

  // sparse: the last pending rows (count pass: every row so far bounded by nv non-zeros, the
  // unit rows by one)
  if (b->fill && b->sparse) {
    flushBlock(b);
  } else if (!b->fill && b->sparse) {
    b->nnz = (b->n - b->nunit) * b->m->nv + b->nunit;
  }
  b->conrow = b->n;
  addContact(b);
}


// allocate nefc rows of every efc array in the arena; 0 on failure
static int allocRows(mcData* d, int nefc, int nv, int sparse, int nnz) {
#define ALLOC(field, type, n)                                                                      \
  d->field = (type*)mci_arenaAlloc(d, (size_t)(n) * sizeof(type), _Alignof(type));                 \
  if (!d->field && (n) > 0) {                                                                      \
    return 0;                                                                                      \
  }
  ALLOC(efc_type, int, nefc);
  ALLOC(efc_id, int, nefc);
  ALLOC(efc_state, int, nefc);
  if (!sparse) {
    ALLOC(efc_J, mcNum, (size_t)nefc * nv);
  }
  ALLOC(efc_pos, mcNum, nefc);
  ALLOC(efc_margin, mcNum, nefc);
  ALLOC(efc_frictionloss, mcNum, nefc);
  ALLOC(efc_diagApprox, mcNum, nefc);
  ALLOC(efc_KBIP, mcNum, 4 * (size_t)nefc);
  ALLOC(efc_D, mcNum, nefc);
  ALLOC(efc_R, mcNum, nefc);
  ALLOC(efc_vel, mcNum, nefc);
  ALLOC(efc_aref, mcNum, nefc);
  ALLOC(efc_b, mcNum, nefc);
  ALLOC(efc_force, mcNum, nefc);
  if (sparse) {
    ALLOC(efc_J_rownnz, int, nefc);
    ALLOC(efc_J_rowadr, int, nefc);
    ALLOC(efc_J_colind, int, nnz);
    ALLOC(efc_J_val, mcNum, nnz);
  }
#undef ALLOC
  return 1;
}


// n ints of scratch for an optional list, NULL when n is 0 or the free memory is short (then
// without a warning: the rows have the room)
static int* optionalInts(mcData* d, int n) {
  if (n <= 0 || !mci_stackRoomy(d, sizeof(int) * (size_t)n)) {
    return NULL;
  }
  return mcSTACKALLOC(d, (size_t)n, int);
}


// every contact without rows (efc_address -1): the returns of mci_makeConstraint before the fill
// pass (its addContact writes every contact's address; a pass of its own over the 544-byte
// contacts before the count was ~6 % of the assembly's own samples on humanoid100)
static void noContactRows(mcData* d) {
  for (int i = 0; i < d->ncon; i++) {
    d->contact[i].efc_address = -1;
  }
}


int mci_makeConstraint(const mcModel* m, mcData* d, int reference) {
  int nv = m->nv, referenced = 0;
  d->ne = d->nf = d->nefc = 0;
  d->efc_J = NULL;
  d->efc_J_rownnz = d->efc_J_rowadr = d->efc_J_colind = NULL;
  d->efc_J_val = NULL;
  d->efc_AR = NULL;
  d->efc_AR_rownnz = d->efc_AR_rowadr = d->efc_AR_colind = NULL;
  d->nisland = 0;
  d->efc_island = d->island_efcind = NULL;
  // (the contacts' efc_address: -1 on the returns before the fill pass, which writes each one)
  if ((m->opt.disableflags & mcDSBL_CONSTRAINT) || nv == 0) {
    noContactRows(d);
    return 0;
  }

  // scratch Jacobians
  mc_markStack(d);
  Builder b;
  memset(&b, 0, sizeof(b));
  b.m = m;
  b.d = d;
  b.sparse = isSparse(m);
  b.jp1 = mcSTACKALLOC(d, 3 * (size_t)nv, mcNum);
  b.jr1 = mcSTACKALLOC(d, 3 * (size_t)nv, mcNum);
  b.jp2 = mcSTACKALLOC(d, 3 * (size_t)nv, mcNum);
  b.jr2 = mcSTACKALLOC(d, 3 * (size_t)nv, mcNum);
  b.cols = mcSTACKALLOC(d, 2 * (size_t)nv, int);
  b.side = mcSTACKALLOC(d, 2 * (size_t)nv, int);
  b.block = b.sparse ? mcSTACKALLOC(d, 6 * (size_t)nv, mcNum) : NULL;
  if (!b.jp1 || !b.jr1 || !b.jp2 || !b.jr2 || !b.cols || !b.side || (b.sparse && !b.block)) {
    mc_freeStack(d);
    noContactRows(d);
    return 0;
  }
  // (block: zeroed row by row when first reserved, reserve)
  // (lists of the count pass, each optional: without one the fill pass does the count's work)
  b.ccols = optionalInts(d, d->ncon);
  // (and the trees' runs of dofs for the islands: kept with the pool's workspace, else made)
  const mciTreeDofs* cached = mci_treeDofsCache(m, d);
  const int* dofrun = NULL;
  int ndofrun = 0;
  if (cached) {
    b.root = cached->tree;
    b.depth = cached->depth;
    dofrun = (m->opt.enableflags & mcENBL_ISLAND) ? cached->run : NULL;
    ndofrun = cached->nrun;
  } else {
    int* root = optionalInts(d, nv);
    int* depth = root ? optionalInts(d, nv) : NULL;
    int* run = depth && (m->opt.enableflags & mcENBL_ISLAND) ? optionalInts(d, nv + 1) : NULL;
    if (depth) {
      ndofrun = mci_treeDofs(m, root, depth, run);
      b.root = root;
      b.depth = depth;
      dofrun = run;
    }
  }
  int nelem[4] = {nv, m->ntendon, m->njnt, m->ntendon};
  for (int k = 0; k < 4; k++) {
    b.elem[k] = optionalInts(d, nelem[k]);
  }

  // count (the elements in parts on the pool when it pays)
  if (!countOnPool(&b)) {
    buildRows(&b);
  }
  int want = b.n;
  if (want == 0) {
    mc_freeStack(d);
    noContactRows(d);
    return 0;
  }

  // capacity of the arena between contacts and the stack (sparse: bound of the non-zeros)
  size_t rowbytes = 3 * sizeof(int) + ((b.sparse ? 0 : (size_t)nv) + 14) * sizeof(mcNum);
  size_t nzbytes = sizeof(int) + sizeof(mcNum);
  size_t avail = d->pstack > d->parena ? d->pstack - d->parena : 0;
  size_t slack = 16 * 16 + (b.sparse ? 3 * 16 : 0);
  size_t need = (size_t)want * rowbytes;
  if (b.sparse) {
    need += (size_t)want * 2 * sizeof(int) + (size_t)b.nnz * nzbytes;
  }
  int cap = want;
  if (need + slack > avail) {
    size_t worst = rowbytes + (b.sparse ? 2 * sizeof(int) + (size_t)nv * nzbytes : 0);
    cap = avail > slack ? (int)((avail - slack) / worst) : 0;
    if (cap > want) {
      cap = want;
    }
  }
  if (cap < want) {
    mc_warning(d, mcWARN_CNSTRFULL, want);
  }
  int nnzcap = 0;
  if (b.sparse) {
    nnzcap = cap == want ? b.nnz : cap * nv;
  }
  size_t parena0 = d->parena;
  if (cap == 0 || !allocRows(d, cap, nv, b.sparse, nnzcap)) {
    d->parena = parena0;
    d->efc_J = NULL;
    d->efc_J_rownnz = d->efc_J_rowadr = d->efc_J_colind = NULL;
    d->efc_J_val = NULL;
    mc_freeStack(d);
    noContactRows(d);
    return 0;
  }

  // fill, counting equality and friction rows as they come
  b.fill = 1;
  b.n = 0;
  b.cap = cap;
  b.nnz = 0;
  b.nnzcap = nnzcap;
  buildRows(&b);
  d->nefc = b.n;
  if (d->nefc > d->maxuse_efc) {
    d->maxuse_efc = d->nefc;
  }

  // the contacts' rows and every row's soft-constraint parameters, on the pool when it pays (the
  // velocity-dependent reference is mc_fwdVelocity's: it needs this step's cdof_dot; with
  // reference its per-row part, J qvel and the position term, which need neither, is done in the
  // same tasks and not in a job of its own)
  // (and what the islands take from the rows, on the pool while the rows are in cache, when the
  // free memory holds it and all that mc_island takes besides: no allocation may fail, the
  // islands are those of the serial walk for any thread count)
  mciRowSets sets;
  size_t islandbytes = sizeof(int) * (5 * (size_t)nv + 8 * (size_t)d->nefc + 1) + 2048;
  if ((m->opt.enableflags & mcENBL_ISLAND) && d->pstack > d->parena + islandbytes) {
    int* own = b.root ? NULL : mcSTACKALLOC(d, (size_t)nv, int);
    const int* tree = b.root ? b.root : own;
    sets.run = tree ? mcSTACKALLOC(d, 2 * (size_t)d->nefc, int) : NULL;
    sets.link = sets.run ? mcSTACKALLOC(d, 4 * (size_t)d->nefc, int) : NULL;
    if (sets.link && own) {
      mci_treeDofs(m, own, NULL, NULL);
    }
    sets.tree = tree;
    sets.dofrun = b.root ? dofrun : NULL;
    sets.ndofrun = ndofrun;
    b.sets = sets.link ? &sets : NULL;
  }
  b.reference = reference;
  if (contactsOnPool(&b)) {
    referenced = reference ? MCI_REFERENCE_ROWS | (b.sticky ? 0 : MCI_REFERENCE_NOADHESION) : 0;
  } else {
    fillContacts(&b, 0, d->ncon);
    softParams(m, d, 0, d->nefc, 0, d->ncon);
    if (b.sets) {                 // one part, here
      sets.npart = 1;
      sets.first[0] = 0;
      sets.first[1] = d->nefc;
      mci_rowSets(m, d, &sets, 0);
    }
  }

  // constraint islands of the rows (core/engine/island.c)
  mci_islandFrom(m, d, b.sets);
  mc_freeStack(d);
  return referenced;
}


void mc_makeConstraint(const mcModel* m, mcData* d) {
  mci_makeConstraint(m, d, 0);
}


#define MINREFROWS 128            // fewer rows: referenceRows serially

typedef struct {
  const mcModel* m;
  mcData* d;
  int n;                          // ranges of rows of equal length
} RowRanges;

static void referenceTask(void* ctx, int k, int thread) {
  (void)thread;
  RowRanges* r = (RowRanges*)ctx;
  int lo, hi;
  mci_rowRange(r->d->nefc, k, r->n, &lo, &hi);
  referenceRows(r->m, r->d, lo, hi);
}


void mci_referenceConstraint(const mcModel* m, mcData* d, int made) {
  int nthread = mci_threads(d), rowsdone = made & MCI_REFERENCE_ROWS;
  if (rowsdone) {
    // (made by the assembly's row tasks: mci_makeConstraint)
  } else if (nthread < 2 || d->plugin_check || d->nefc < MINREFROWS) {
    referenceRows(m, d, 0, d->nefc);
  } else {
    RowRanges r = {m, d, CHUNKPERTHREAD * nthread};
    mci_poolRun(d->threadpool, r.n, referenceTask, &r);
  }

  // contacts: moving surfaces and adhesion (core/engine/contact_surface.c; rowsdone: made with
  // the rows too, on the contacts' chunks)
  if (!rowsdone) {
    mc_surfaceReference(m, d);
  }
  // connect and weld rows: less dJ/dt qvel (MuJoCo 3.x; not in 2.2.2's rule)
  if (m->opt.disableflags & mcDSBL_LEGACY222) {
    return;
  }
  for (int i = 0; i < d->ne;) {
    mcNum acc[6];
    int n = equalityVelocityProduct(m, d, d->efc_id[i], acc);
    for (int k = 0; k < n; k++) {
      d->efc_aref[i + k] -= acc[k];
    }
    i += n ? n : 1;
  }
}


void mc_referenceConstraint(const mcModel* m, mcData* d) {
  mci_referenceConstraint(m, d, 0);
}
