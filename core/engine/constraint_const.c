// Moduco core: model constants at qpos0 used by the constraint model (mc_setConst).
//
// The diagonal approximation of A = J inv(M) J' (efc_diagApprox) is built from "end-effector"
// inverse inertias of dofs, bodies and tendons measured once in the initial configuration qpos0;
// dof_M0 (diagonal of M at qpos0) scales the solver statistics. Tendon and actuator lengths and
// the acceleration produced by a unit actuator force at qpos0 come along. The compiler calls
// this once at the end of compilation (mcc_setConst).
#include <math.h>
#include <string.h>

#include <moduco/moduco.h>

#include "engine/constraint.h"
#include "math/math.h"


// mean diagonal of J inv(M) J' for a k x nv Jacobian J; MinvJT is k x nv scratch
static mcNum meanDiagInvM(const mcModel* m, mcData* d, const mcNum* J, int k, mcNum* MinvJT) {
  int nv = m->nv;
  mc_solveM(m, d, MinvJT, J, k);
  mcNum s = 0;
  for (int r = 0; r < k; r++) {
    s += mcu_dot(J + (size_t)r * nv, MinvJT + (size_t)r * nv, nv);
  }
  return s / k;
}


// The inverse weights below need x' inv(M) x for vectors x whose support is the dof chain from
// one dof to the root. The solve touches only that chain (the L' pass pushes into ancestors, the L
// pass pulls from them), so it runs on the chain alone, with the operations of mc_solveLD in the
// same order: results are those of the dense solve, bit for bit, at O(depth) instead of O(nv)
// per vector (10,000 free bodies no longer cost nv^2).

// dof chains up to this long are solved directly (see mc_setConst)
#define MCI_SHALLOWDEPTH 64

// the dofs from i to the root (decreasing indices) into chain; return how many
static int dofChain(const mcModel* m, int i, int* chain) {
  int n = 0;
  for (; i >= 0; i = m->dof_parentid[i]) {
    chain[n++] = i;
  }
  return n;
}


// w <- inv(M) x on the chain (x and w dense, length nv, read and written only on the chain)
static void solveChain(const mcModel* m, const mcData* d, const int* chain, int n, mcNum* w,
                       const mcNum* x) {
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;
  for (int c = 0; c < n; c++) {
    w[chain[c]] = x[chain[c]];
  }
  for (int c = 0; c < n; c++) {
    int k = chain[c];
    mcNum xk = w[k];
    if (xk == 0) {
      continue;
    }
    int adr = Madr[k] + 1;
    for (int i = parent[k]; i >= 0; i = parent[i]) {
      w[i] -= d->qLD[adr++] * xk;
    }
  }
  for (int c = 0; c < n; c++) {
    w[chain[c]] *= d->qLDiagInv[chain[c]];
  }
  for (int c = n - 1; c >= 0; c--) {
    int k = chain[c];
    int adr = Madr[k] + 1;
    mcNum s = 0;
    for (int i = parent[k]; i >= 0; i = parent[i]) {
      s += d->qLD[adr++] * w[i];
    }
    w[k] -= s;
  }
}


// diagonal element i of inv(M); x, w: nv scratch, chain: nv ints
static mcNum invMDiag(const mcModel* m, const mcData* d, int i, mcNum* x, mcNum* w, int* chain) {
  int n = dofChain(m, i, chain);
  for (int c = 0; c < n; c++) {
    x[chain[c]] = 0;
  }
  x[i] = 1;
  solveChain(m, d, chain, n, w, x);
  return w[i];
}


// dof_invweight0: diagonal of inv(M) averaged over the translational and rotational parts of
// each joint (free: 3 + 3, ball: 3, hinge and slide: 1)
static void dofInvWeight(const mcModel* m, mcData* d, mcNum* x, mcNum* w, int* chain) {
  for (int j = 0; j < m->njnt; j++) {
    int adr = m->jnt_dofadr[j], type = m->jnt_type[j];
    if (type == mcJNT_FREE || type == mcJNT_BALL) {
      int first = type == mcJNT_FREE ? 1 : 0;
      for (int part = 0; part <= first; part++) {
        int a = adr + 3 * part;
        mcNum w0 = (invMDiag(m, d, a, x, w, chain) + invMDiag(m, d, a + 1, x, w, chain) +
                    invMDiag(m, d, a + 2, x, w, chain)) / 3;
        for (int k = 0; k < 3; k++) {
          m->dof_invweight0[a + k] = w0;
        }
      }
    } else {
      m->dof_invweight0[adr] = invMDiag(m, d, adr, x, w, chain);
    }
  }
}


// body_invweight0: mean translational and rotational diagonal of J inv(M) J' for the Jacobian
// of the body's center of mass (its rows supported on the body's dof chain, as mc_jacPoint builds
// them); zero for bodies welded to the world
static void bodyInvWeight(const mcModel* m, mcData* d, mcNum* x, mcNum* w, int* chain) {
  m->body_invweight0[0] = m->body_invweight0[1] = 0;
  for (int b = 1; b < m->nbody; b++) {
    int bd = b;
    while (bd > 0 && m->body_dofnum[bd] == 0) {
      bd = m->body_parentid[bd];
    }
    if (m->body_weldid[b] == 0 || m->nv == 0 || bd <= 0) {
      m->body_invweight0[2 * b] = m->body_invweight0[2 * b + 1] = 0;
      continue;
    }
    int n = dofChain(m, m->body_dofadr[bd] + m->body_dofnum[bd] - 1, chain);
    mcNum off[3];
    mcu_sub3(off, d->xipos + 3 * b, d->subtree_com + 3 * m->body_rootid[b]);
    mcNum sum[2] = {0, 0};  // translation, rotation
    for (int r = 0; r < 6; r++) {
      for (int c = 0; c < n; c++) {
        const mcNum* cd = d->cdof + 6 * chain[c];
        mcNum cr[3];
        mcu_cross(cr, cd, off);
        x[chain[c]] = r < 3 ? cd[3 + r] + cr[r] : cd[r - 3];
      }
      solveChain(m, d, chain, n, w, x);
      mcNum s = 0;
      for (int c = n - 1; c >= 0; c--) {
        s += x[chain[c]] * w[chain[c]];
      }
      sum[r / 3] += s;
    }
    m->body_invweight0[2 * b] = sum[0] / 3;
    m->body_invweight0[2 * b + 1] = sum[1] / 3;
  }
}


// Without tendon armature, M is the joint-space inertia of the kinematic tree plus the dof
// armature, and the articulated-body recursion gives the same inverse weights in O(nv) 6x6 work
// whatever the depth (the chain solves above cost O(depth^2) per dof: a 990-body chain took
// seconds). Each dof i is a link carrying the inertia of the bodies it moves last (its body if
// it is the body's last dof, and the bodies welded below it), in the common com-based frame:
//   backward:  U_i = IA_i S_i, D_i = S_i' U_i + armature_i, IA_parent += IA_i - U_i U_i' / D_i
//   forward:   Om_i = A_i' Om_parent A_i + S_i S_i' / D_i, A_i = 1 - U_i S_i' / D_i
// where S_i is cdof_i and Om_i = J_i inv(M) J_i' maps a spatial force on link i to its
// acceleration (J_i: cdof over i's chain); then inv(M)_ii = 1/D_i + U_i' Om_parent U_i / D_i^2.
// Pivots are guarded as in the L'DL factorization (mcMINVAL).

// the 6x6 matrix (row-major) of a com-based inertia (10 numbers)
static void inertMat(mcNum r[36], const mcNum I[10]) {
  for (int c = 0; c < 6; c++) {
    mcNum e[6] = {0, 0, 0, 0, 0, 0}, col[6];
    e[c] = 1;
    mcu_mulInertVec(col, I, e);
    for (int k = 0; k < 6; k++) {
      r[6 * k + c] = col[k];
    }
  }
}


// y = A x for a 6x6 row-major A
static void mulMat6(mcNum y[6], const mcNum A[36], const mcNum x[6]) {
  for (int k = 0; k < 6; k++) {
    y[k] = mcu_dot6(A + 6 * k, x);
  }
}


// x' A x for a 6x6 row-major A
static mcNum quadMat6(const mcNum A[36], const mcNum x[6]) {
  mcNum y[6];
  mulMat6(y, A, x);
  return mcu_dot6(x, y);
}


// dof_invweight0 (from the diagonal of inv(M)) and body_invweight0 by the articulated-body
// recursion; 0 on success, -1 if the scratch stack is too small (nothing written)
static int invWeightArticulated(const mcModel* m, mcData* d) {
  int nv = m->nv, nbody = m->nbody;
  const int* parent = m->dof_parentid;
  mcNum* IA = mc_stackAlloc(d, sizeof(mcNum) * 36 * (size_t)nv, 16);  // then Om
  mcNum* U = mc_stackAlloc(d, sizeof(mcNum) * 6 * (size_t)nv, 16);
  mcNum* Dinv = mc_stackAlloc(d, sizeof(mcNum) * (size_t)nv, 16);
  mcNum* diag = mc_stackAlloc(d, sizeof(mcNum) * (size_t)nv, 16);
  int* owner = mc_stackAlloc(d, sizeof(int) * (size_t)nbody, 16);
  if (!IA || !U || !Dinv || !diag || !owner) {
    return -1;
  }

  // the dof moving each body last (-1: welded to the world), and the link inertias
  mcu_zero(IA, 36 * nv);
  owner[0] = -1;
  for (int b = 1; b < nbody; b++) {
    int n = m->body_dofnum[b];
    owner[b] = n ? m->body_dofadr[b] + n - 1 : owner[m->body_parentid[b]];
    if (owner[b] >= 0) {
      mcNum I[36];
      inertMat(I, d->cinert + 10 * b);
      mcu_addTo(IA + 36 * (size_t)owner[b], I, 36);
    }
  }

  // backward pass: articulated inertias, U and D
  for (int i = nv - 1; i >= 0; i--) {
    const mcNum* S = d->cdof + 6 * (size_t)i;
    mcNum* I = IA + 36 * (size_t)i;
    mcNum* u = U + 6 * (size_t)i;
    mulMat6(u, I, S);
    mcNum D = mcu_dot6(S, u) + m->dof_armature[i];
    if (D < mcMINVAL) {
      D = mcMINVAL;
    }
    Dinv[i] = 1 / D;
    if (parent[i] >= 0) {
      mcNum* P = IA + 36 * (size_t)parent[i];
      for (int r = 0; r < 6; r++) {
        for (int c = 0; c < 6; c++) {
          P[6 * r + c] += I[6 * r + c] - u[r] * u[c] * Dinv[i];
        }
      }
    }
  }

  // forward pass: Om_i over IA_i (the parent's is final before its children), diag of inv(M)
  for (int i = 0; i < nv; i++) {
    const mcNum* S = d->cdof + 6 * (size_t)i;
    const mcNum* u = U + 6 * (size_t)i;
    mcNum* Om = IA + 36 * (size_t)i;
    mcNum g[6] = {0, 0, 0, 0, 0, 0}, alpha = 0;
    const mcNum* Op = parent[i] >= 0 ? IA + 36 * (size_t)parent[i] : NULL;
    if (Op) {
      mulMat6(g, Op, u);
      alpha = mcu_dot6(u, g);
    }
    mcNum h = Dinv[i], ss = alpha * h * h + h;
    for (int r = 0; r < 6; r++) {
      for (int c = 0; c < 6; c++) {
        Om[6 * r + c] = (Op ? Op[6 * r + c] : 0) - (g[r] * S[c] + S[r] * g[c]) * h +
                        ss * S[r] * S[c];
      }
    }
    diag[i] = h + alpha * h * h;
  }

  // dofs: free and ball joints average their translational and rotational triples
  for (int j = 0; j < m->njnt; j++) {
    int adr = m->jnt_dofadr[j], type = m->jnt_type[j];
    int n = type == mcJNT_FREE ? 6 : type == mcJNT_BALL ? 3 : 1;
    for (int a = adr; a < adr + n; a += n > 1 ? 3 : 1) {
      int k = n > 1 ? 3 : 1;
      mcNum w0 = k == 3 ? (diag[a] + diag[a + 1] + diag[a + 2]) / 3 : diag[a];
      for (int q = 0; q < k; q++) {
        m->dof_invweight0[a + q] = w0;
      }
    }
  }

  // bodies: the mean diagonals of T Om T' for the point Jacobian T of the center of mass
  m->body_invweight0[0] = m->body_invweight0[1] = 0;
  for (int b = 1; b < nbody; b++) {
    if (owner[b] < 0 || m->body_weldid[b] == 0) {
      m->body_invweight0[2 * b] = m->body_invweight0[2 * b + 1] = 0;
      continue;
    }
    const mcNum* Om = IA + 36 * (size_t)owner[b];
    mcNum o[3];
    mcu_sub3(o, d->xipos + 3 * b, d->subtree_com + 3 * m->body_rootid[b]);
    const mcNum t[3][6] = {{0, o[2], -o[1], 1, 0, 0}, {-o[2], 0, o[0], 0, 1, 0},
                           {o[1], -o[0], 0, 0, 0, 1}};
    m->body_invweight0[2 * b] = (quadMat6(Om, t[0]) + quadMat6(Om, t[1]) +
                                 quadMat6(Om, t[2])) / 3;
    m->body_invweight0[2 * b + 1] = (Om[0] + Om[7] + Om[14]) / 3;
  }
  return 0;
}


// MuJoCo 3.x's bodies moved by sliders alone ("simple" bodies with slide joints only, measured on
// 3.3.8 and 3.14): the parent welded to the world, no child body, the center of mass at the body
// origin and the principal axes on its frame (|ipos|, |iquat vector| < 1e-6 each), and every joint
// a slide at the origin (|pos| < 1e-6) along one of the body's axes (the other two components of
// the axis at most 1e-14). MuJoCo 3.x gives such a body the inverse weights of a free mass:
// body_invweight0 (1/mass, 0) and 1/mass for each of its dofs, armature not counted (the mean
// over three directions would be 1/(3 (mass + armature)) for one slider).
static int sliderBody(const mcModel* m, int b, const char* parent) {
  if (m->body_jntnum[b] == 0 || m->body_weldid[m->body_parentid[b]] != 0 || parent[b] ||
      !(m->body_mass[b] > mcMINVAL)) {
    return 0;
  }
  for (int k = 0; k < 3; k++) {
    if (!(fabs(m->body_ipos[3 * b + k]) < 1e-6) || !(fabs(m->body_iquat[4 * b + 1 + k]) < 1e-6)) {
      return 0;
    }
  }
  for (int j = m->body_jntadr[b]; j < m->body_jntadr[b] + m->body_jntnum[b]; j++) {
    int along = 0;
    for (int k = 0; k < 3; k++) {
      along += fabs(m->jnt_axis[3 * j + k]) > 1e-14;
      if (!(fabs(m->jnt_pos[3 * j + k]) < 1e-6)) {
        return 0;
      }
    }
    if (m->jnt_type[j] != mcJNT_SLIDE || along != 1) {
      return 0;
    }
  }
  return 1;
}


void mc_setConst(mcModel* m, mcData* d) {
  int nv = m->nv;

  // position-dependent quantities at qpos0
  mcu_copy(d->qpos, m->qpos0, m->nq);
  mc_kinematics(m, d);
  mc_comPos(m, d);
  mc_tendon(m, d);
  mc_transmission(m, d);
  mc_crb(m, d);
  mc_factorM(m, d);

  // diagonal of M
  for (int i = 0; i < nv; i++) {
    m->dof_M0[i] = d->qM[m->dof_Madr[i]];
  }

  mc_markStack(d);
  mcNum* jac = mc_stackAlloc(d, sizeof(mcNum) * 12 * (size_t)(nv > 0 ? nv : 1), 16);
  if (!jac) {
    mc_freeStack(d);
    return;
  }
  mcNum* tmp = jac + 6 * (size_t)nv;
  int* chain = mc_stackAlloc(d, sizeof(int) * (size_t)(nv > 0 ? nv : 1), 16);
  if (!chain) {
    mc_freeStack(d);
    return;
  }

  // inverse weights of dofs and bodies: by chain solves in shallow trees (O(nv) for a bounded
  // depth, and the constants of every model of earlier releases stay bit for bit: the CG
  // conformance scenes amplify the last bit), and always under tendon armature, which couples
  // dofs outside the tree; else by the articulated-body recursion
  int tendonArmature = 0, deep = 0;
  for (int i = 0; i < m->ntendon; i++) {
    tendonArmature |= m->tendon_armature[i] != 0;
  }
  for (int i = 0; i < nv && !deep; i++) {
    deep = dofChain(m, i, chain) > MCI_SHALLOWDEPTH;
  }
  mc_markStack(d);
  int done = deep && !tendonArmature && invWeightArticulated(m, d) == 0;
  mc_freeStack(d);
  if (!done) {
    dofInvWeight(m, d, jac, tmp, chain);
    bodyInvWeight(m, d, jac, tmp, chain);
  }

  // bodies moved by sliders alone: the weights of a free mass (MuJoCo 3.x; not 2.2.2's rule)
  char* parent = mc_stackAlloc(d, (size_t)m->nbody, 1);
  for (int b = 0; parent && b < m->nbody; b++) {
    parent[b] = 0;
  }
  for (int b = 1; parent && b < m->nbody; b++) {
    parent[m->body_parentid[b]] = 1;
  }
  for (int b = 1; parent && b < m->nbody && !(m->opt.disableflags & mcDSBL_LEGACY222); b++) {
    if (sliderBody(m, b, parent)) {
      mcNum w = 1 / m->body_mass[b];
      m->body_invweight0[2 * b] = w;
      m->body_invweight0[2 * b + 1] = 0;
      for (int i = m->body_dofadr[b]; i < m->body_dofadr[b] + m->body_dofnum[b]; i++) {
        m->dof_invweight0[i] = w;
      }
    }
  }

  // tendons: length, and inverse weight of the moment-arm vector
  for (int i = 0; i < m->ntendon; i++) {
    m->tendon_length0[i] = d->ten_length[i];
    m->tendon_invweight0[i] = nv ? meanDiagInvM(m, d, d->ten_J + (size_t)i * nv, 1, tmp) : 0;
  }

  // actuators: length, and norm of the acceleration of a unit actuator force
  for (int i = 0; i < m->nu; i++) {
    m->actuator_length0[i] = d->actuator_length[i];
    if (nv) {
      mc_solveM(m, d, tmp, d->actuator_moment + (size_t)i * nv, 1);
      m->actuator_acc0[i] = sqrt(mcu_dot(tmp, tmp, nv));
    } else {
      m->actuator_acc0[i] = 0;
    }
  }
  mc_freeStack(d);
}
