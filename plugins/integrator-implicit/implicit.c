// Moduco plugin "integrator-implicit": implicit-in-velocity Euler, "implicit" and "implicitfast".
//
// With h the timestep, both use the update (5) of the computation chapter:
//   qvel += h (M - h D)^-1 (qfrc_smooth + qfrc_constraint),  then act, qpos (new qvel), time.
// D is the analytic derivative with respect to qvel of
//   - passive forces: dof damping, tendon damping (-b J'J), fluid forces (inertia-box and
//     ellipsoid models: J' B K B' J per body or geom, K the local 6x6 derivative),
//   - actuator forces: (gain velocity term * input + bias velocity term) * moment' moment for the
//     core general actuator, the plugin's dforce_dvel otherwise,
//   - for "implicit" only: minus the derivative of the RNE bias forces (Coriolis, centripetal).
// D is kept on the tree sparsity of M (entries between a dof and its ancestors). "implicit"
// factorizes M - h D with a no-fill LU in the qM layout; "implicitfast" symmetrizes D and uses
// the host's L'DL, as MuJoCo 3.14 does with two exceptions: free bodies without children, which
// it integrates as "implicit" does (RNE derivative, D unsymmetrized; by the LU then), and the
// dofs of MuJoCo's "simple" bodies, where only the diagonal of D is kept (simpleBody314).
// d->qacc keeps the forward-dynamics acceleration, also saved to qacc_warmstart.
#include <math.h>
#include <string.h>

#include <moduco/mcplugin.h>


//---------------------------------- small helpers -------------------------------------------------

static void* stackNum(const mcpHost* host, mcData* d, size_t n) {
  return host->stackAlloc(d, sizeof(mcNum) * (n ? n : 1), _Alignof(mcNum));
}


// a x b for motion vectors (angular first): [wa x wb; wa x vb + va x wb]
static inline void crossMotion(mcNum r[6], const mcNum a[6], const mcNum b[6]) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
  r[3] = a[1] * b[5] - a[2] * b[4] + a[4] * b[2] - a[5] * b[1];
  r[4] = a[2] * b[3] - a[0] * b[5] + a[5] * b[0] - a[3] * b[2];
  r[5] = a[0] * b[4] - a[1] * b[3] + a[3] * b[1] - a[4] * b[0];
}


// a x* f for a motion a and a force f: [wa x ff + va x tf ... ] with f = [torque; force]
static inline void crossForce(mcNum r[6], const mcNum a[6], const mcNum f[6]) {
  r[0] = a[1] * f[2] - a[2] * f[1] + a[4] * f[5] - a[5] * f[4];
  r[1] = a[2] * f[0] - a[0] * f[2] + a[5] * f[3] - a[3] * f[5];
  r[2] = a[0] * f[1] - a[1] * f[0] + a[3] * f[4] - a[4] * f[3];
  r[3] = a[1] * f[5] - a[2] * f[4];
  r[4] = a[2] * f[3] - a[0] * f[5];
  r[5] = a[0] * f[4] - a[1] * f[3];
}


// 6D spatial inertia (cinert: 3 symmetric rotational, 3 mass*offset, mass) times a motion
static inline void mulInert(mcNum r[6], const mcNum in[10], const mcNum v[6]) {
  r[0] = in[0] * v[0] + in[3] * v[1] + in[4] * v[2] - in[8] * v[4] + in[7] * v[5];
  r[1] = in[3] * v[0] + in[1] * v[1] + in[5] * v[2] + in[8] * v[3] - in[6] * v[5];
  r[2] = in[4] * v[0] + in[5] * v[1] + in[2] * v[2] - in[7] * v[3] + in[6] * v[4];
  r[3] = in[8] * v[1] - in[7] * v[2] + in[9] * v[3];
  r[4] = in[6] * v[2] - in[8] * v[0] + in[9] * v[4];
  r[5] = in[7] * v[0] - in[6] * v[1] + in[9] * v[5];
}


//---------------------------------- the derivative D ----------------------------------------------

// add s * u u' to D on the tree sparsity (Dl: row i, ancestor j; Du: the transposed entries)
static void addOuter(const mcModel* m, mcNum* Dl, mcNum* Du, const mcNum* u, mcNum s) {
  for (int i = 0; i < m->nv; i++) {
    if (u[i] == 0) {
      continue;
    }
    int adr = m->dof_Madr[i];
    for (int j = i; j >= 0; j = m->dof_parentid[j], adr++) {
      Dl[adr] += s * u[i] * u[j];
      if (j != i) {
        Du[adr] += s * u[j] * u[i];
      }
    }
  }
}


// velocity derivative of actuator i's scalar force
static mcNum actuatorDeriv(const mcModel* m, const mcData* d, const mcpHost* host, int i) {
  int p = m->actuator_plugin ? m->actuator_plugin[i] : -1;
  if (p >= 0) {
    const mcpActuator* a = m->plugin ? (const mcpActuator*)m->plugin[p] : NULL;
    return a && a->dforce_dvel ? a->dforce_dvel(host, m, d, i) : 0;
  }

  // core general actuator: affine gain and bias velocity terms
  mcNum gv = m->actuator_gaintype[i] == mcGAIN_AFFINE ? m->actuator_gainprm[mcNGAIN * i + 2] : 0;
  mcNum bv = m->actuator_biastype[i] == mcBIAS_AFFINE ? m->actuator_biasprm[mcNBIAS * i + 2] : 0;
  if (gv == 0) {
    return bv;
  }
  mcNum in;
  if (m->actuator_dyntype[i] == mcDYN_NONE || m->actuator_actadr[i] < 0) {
    in = d->ctrl[i];
    if (m->actuator_ctrllimited[i] && !(m->opt.disableflags & mcDSBL_CLAMPCTRL)) {
      const mcNum* r = m->actuator_ctrlrange + 2 * i;
      in = in < r[0] ? r[0] : (in > r[1] ? r[1] : in);
    }
  } else {
    in = d->act[m->actuator_actadr[i] + m->actuator_actnum[i] - 1];
  }
  return gv * in + bv;
}


// dofs whose velocity moves body b (its own and its ancestors'), written to chain; return the count
static int dofChain(const mcModel* m, int b, int* chain) {
  while (b > 0 && m->body_dofnum[b] == 0) {
    b = m->body_parentid[b];
  }
  int n = 0;
  for (int j = b > 0 ? m->body_dofadr[b] + m->body_dofnum[b] - 1 : -1; j >= 0;
       j = m->dof_parentid[j]) {
    chain[n++] = j;
  }
  return n;
}


// derivative of the RNE bias forces w.r.t. qvel, subtracted from D; scratch from the stack. The
// velocity, acceleration and force derivatives of body b can be nonzero only in the columns of
// its dof chain (dofChain), so the forward pass computes those columns only.
static int subtractRneDeriv(const mcpHost* host, const mcModel* m, mcData* d, mcNum* Dl,
                            mcNum* Du) {
  int nv = m->nv, nbody = m->nbody;
  size_t blk = 6 * (size_t)nv;
  mcNum* Dv = stackNum(host, d, blk * nbody);      // d cvel / d qvel, per body
  mcNum* Da = stackNum(host, d, blk * nbody);      // d cacc / d qvel
  mcNum* Df = stackNum(host, d, blk * nbody);      // d cfrc / d qvel
  mcNum* Dcd = stackNum(host, d, blk * nv);        // d cdof_dot / d qvel
  int* chain = host->stackAlloc(d, sizeof(int) * (size_t)(nv ? nv : 1), _Alignof(int));
  if (!Dv || !Da || !Df || !Dcd || !chain) {
    return -1;
  }
  memset(Dv, 0, sizeof(mcNum) * blk);
  memset(Da, 0, sizeof(mcNum) * blk);

  // forward pass: velocities, cdof_dot, accelerations (without qacc), forces
  for (int b = 1; b < nbody; b++) {
    mcNum* dv = Dv + blk * b;
    mcNum* da = Da + blk * b;
    memcpy(dv, Dv + blk * m->body_parentid[b], sizeof(mcNum) * blk);
    memcpy(da, Da + blk * m->body_parentid[b], sizeof(mcNum) * blk);
    int nc = dofChain(m, b, chain);

    // dofs of the body, mirroring the velocity recursion: cdof_dot = v_before x cdof
    int dadr = m->body_dofadr[b], dnum = m->body_dofnum[b];
    for (int j = dadr; j < dadr + dnum;) {
      int jt = m->jnt_type[m->dof_jntid[j]];
      int nrot = jt == mcJNT_FREE || jt == mcJNT_BALL ? 3 : 1;
      if (jt == mcJNT_FREE) {
        // translations: constant axes, velocity gains cdof columns
        for (int k = 0; k < 3; k++) {
          memset(Dcd + blk * (j + k), 0, sizeof(mcNum) * blk);
          for (int r = 0; r < 6; r++) {
            dv[r * nv + j + k] += d->cdof[6 * (j + k) + r];
          }
        }
        j += 3;
      }
      // rotations (or hinge/slide): derivative of v x cdof is dv x cdof
      for (int k = 0; k < nrot; k++) {
        const mcNum* cd = d->cdof + 6 * (j + k);
        mcNum* dcd = Dcd + blk * (j + k);
        for (int ic = 0; ic < nc; ic++) {
          int c = chain[ic];
          mcNum col[6], t[6];
          for (int r = 0; r < 6; r++) {
            col[r] = dv[r * nv + c];
          }
          crossMotion(t, col, cd);
          for (int r = 0; r < 6; r++) {
            dcd[r * nv + c] = t[r];
          }
        }
      }
      for (int k = 0; k < nrot; k++) {
        for (int r = 0; r < 6; r++) {
          dv[r * nv + j + k] += d->cdof[6 * (j + k) + r];
        }
      }
      j += nrot;
    }

    // acceleration: a = a_parent + sum cdof_dot qvel
    for (int j = dadr; j < dadr + dnum; j++) {
      const mcNum* dcd = Dcd + blk * j;
      for (int r = 0; r < 6; r++) {
        for (int ic = 0; ic < nc; ic++) {
          int k = r * nv + chain[ic];
          da[k] += dcd[k] * d->qvel[j];
        }
      }
      for (int r = 0; r < 6; r++) {
        da[r * nv + j] += d->cdof_dot[6 * j + r];
      }
    }

    // force: f = I a + v x* (I v)
    const mcNum* in = d->cinert + 10 * b;
    const mcNum* v = d->cvel + 6 * b;
    mcNum Iv[6];
    mulInert(Iv, in, v);
    mcNum* df = Df + blk * b;
    memset(df, 0, sizeof(mcNum) * blk);
    for (int ic = 0; ic < nc; ic++) {
      int c = chain[ic];
      mcNum acol[6], vcol[6], t1[6], t2[6], t3[6], Ivc[6];
      for (int r = 0; r < 6; r++) {
        acol[r] = da[r * nv + c];
        vcol[r] = dv[r * nv + c];
      }
      mulInert(t1, in, acol);
      crossForce(t2, vcol, Iv);
      mulInert(Ivc, in, vcol);
      crossForce(t3, v, Ivc);
      for (int r = 0; r < 6; r++) {
        df[r * nv + c] = t1[r] + t2[r] + t3[r];
      }
    }
  }

  // backward pass: subtree sums
  for (int b = nbody - 1; b > 0; b--) {
    int p = m->body_parentid[b];
    if (p > 0) {
      for (int k = 0; k < (int)blk; k++) {
        Df[blk * p + k] += Df[blk * b + k];
      }
    }
  }

  // project: d bias_j / d qvel_c = cdof_j' df(body j)[:, c], on the sparsity of M
  for (int i = 0; i < nv; i++) {
    int adr = m->dof_Madr[i];
    for (int j = i; j >= 0; j = m->dof_parentid[j], adr++) {
      // row i, column j and row j, column i
      const mcNum* fi = Df + blk * m->dof_bodyid[i];
      const mcNum* fj = Df + blk * m->dof_bodyid[j];
      mcNum sij = 0, sji = 0;
      for (int r = 0; r < 6; r++) {
        sij += d->cdof[6 * i + r] * fi[r * nv + j];
        sji += d->cdof[6 * j + r] * fj[r * nv + i];
      }
      Dl[adr] -= sij;
      if (j != i) {
        Du[adr] -= sji;
      }
    }
  }
  return 0;
}


//---------------------------------- fluid derivatives ---------------------------------------------

#define FLUID_PI 3.14159265358979323846

// 3x3 helpers on row-major matrices
static void skew(mcNum S[9], const mcNum a[3]) {
  S[0] = 0;
  S[1] = -a[2];
  S[2] = a[1];
  S[3] = a[2];
  S[4] = 0;
  S[5] = -a[0];
  S[6] = -a[1];
  S[7] = a[0];
  S[8] = 0;
}


// K[rows r0.., cols c0..] += s * A (3x3) inside a 6x6 row-major K
static void addBlock(mcNum K[36], int r0, int c0, const mcNum A[9], mcNum s) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      K[6 * (r0 + i) + c0 + j] += s * A[3 * i + j];
    }
  }
}


// C = A B (3x3)
static void mul3(mcNum C[9], const mcNum A[9], const mcNum B[9]) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
    }
  }
}


static mcNum norm3(const mcNum a[3]) {
  return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}


static void cross3(mcNum r[3], const mcNum a[3], const mcNum b[3]) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}


// velocity [rot; lin] of point p of body b in frame R (columns: local axes), minus the wind
static void fluidVelocity(const mcModel* m, const mcData* d, int b, const mcNum p[3],
                          const mcNum R[9], mcNum lvel[6]) {
  const mcNum* v = d->cvel + 6 * b;
  const mcNum* c = d->subtree_com + 3 * m->body_rootid[b];
  mcNum dp[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]}, t[3], lin[3];
  cross3(t, v, dp);
  for (int i = 0; i < 3; i++) {
    lin[i] = v[3 + i] + t[i] - m->opt.wind[i];
  }
  for (int i = 0; i < 3; i++) {
    lvel[i] = R[i] * v[0] + R[3 + i] * v[1] + R[6 + i] * v[2];
    lvel[3 + i] = R[i] * lin[0] + R[3 + i] * lin[1] + R[6 + i] * lin[2];
  }
}


// local 6x6 derivative of the inertia-box force [torque; force] w.r.t. [rot; lin] velocity
static void boxDeriv(const mcModel* m, int b, const mcNum lvel[6], mcNum K[36]) {
  mcNum rho = m->opt.density, beta = m->opt.viscosity;
  const mcNum* I = m->body_inertia + 3 * b;
  mcNum s[3];
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    mcNum q = I[j] + I[k] - I[i];
    s[i] = sqrt((q > mcMINVAL ? q : mcMINVAL) / m->body_mass[b] * 6);
  }
  mcNum diam = (s[0] + s[1] + s[2]) / 3;
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    mcNum sj2 = s[j] * s[j], sk2 = s[k] * s[k];

    // viscous (linear) and quadratic drag, both diagonal: d(-c |x| x)/dx = -2 c |x|
    mcNum ct = rho * s[i] * (sj2 * sj2 + sk2 * sk2) / 64;
    mcNum cf = 0.5 * rho * s[j] * s[k];
    K[7 * i] -= FLUID_PI * diam * diam * diam * beta + 2 * ct * fabs(lvel[i]);
    K[7 * (3 + i)] -= 3 * FLUID_PI * diam * beta + 2 * cf * fabs(lvel[3 + i]);
  }
}


// semi-axes of a geom's ellipsoid for the fluid model
static void fluidAxes(const mcModel* m, int g, mcNum r[3]) {
  const mcNum* size = m->geom_size + 3 * g;
  switch (m->geom_type[g]) {
  case mcGEOM_SPHERE:
    r[0] = r[1] = r[2] = size[0];
    break;
  case mcGEOM_CAPSULE:
    r[0] = r[1] = size[0];
    r[2] = size[1] + size[0];
    break;
  case mcGEOM_CYLINDER:
    r[0] = r[1] = size[0];
    r[2] = size[1];
    break;
  default:
    r[0] = size[0];
    r[1] = size[1];
    r[2] = size[2];
    break;
  }
}


// local 6x6 derivative of the ellipsoid-model force of geom g
static void ellipsoidDeriv(const mcModel* m, int g, const mcNum lvel[6], mcNum K[36]) {
  mcNum rho = m->opt.density, beta = m->opt.viscosity;
  const mcNum* fl = m->geom_fluid + mcNFLUID * g;
  mcNum cblunt = fl[1], cslender = fl[2], cang = fl[3], ckutta = fl[4], cmagnus = fl[5];
  mcNum r[3], S[9], T[9], U[9];
  fluidAxes(m, g, r);
  mcNum vol = 4.0 / 3.0 * FLUID_PI * r[0] * r[1] * r[2];
  const mcNum* w = lvel;
  const mcNum* v = lvel + 3;
  mcNum speed = norm3(v);

  // added mass: f = pl x w, g = pl x v + pa x w with pl = rho mA v, pa = rho IA w
  mcNum pl[3], pa[3], Dm[9] = {0}, Di[9] = {0};
  for (int i = 0; i < 3; i++) {
    pl[i] = rho * fl[6 + i] * v[i];
    pa[i] = rho * fl[9 + i] * w[i];
    Dm[4 * i] = rho * fl[6 + i];
    Di[4 * i] = rho * fl[9 + i];
  }
  skew(S, w);
  mul3(T, S, Dm);
  addBlock(K, 3, 3, T, -1);
  skew(S, pl);
  addBlock(K, 3, 0, S, 1);
  addBlock(K, 0, 3, S, 1);
  skew(S, v);
  mul3(T, S, Dm);
  addBlock(K, 0, 3, T, -1);
  skew(S, w);
  mul3(T, S, Di);
  addBlock(K, 0, 0, T, -1);
  skew(S, pa);
  addBlock(K, 0, 0, S, 1);

  // Magnus lift: f = cM rho V w x v
  skew(S, v);
  addBlock(K, 3, 0, S, -cmagnus * rho * vol);
  skew(S, w);
  addBlock(K, 3, 3, S, cmagnus * rho * vol);

  // projected area A(v) = pi sqrt(C / Q) and its gradient
  mcNum aproj = 0, ga[3] = {0};
  if (speed > mcMINVAL) {
    mcNum a2[3], c4[3], Q = 0, C = 0;
    for (int i = 0; i < 3; i++) {
      int j = (i + 1) % 3, k = (i + 2) % 3;
      a2[i] = r[j] * r[j] * r[k] * r[k];
      c4[i] = a2[i] * a2[i];
      Q += a2[i] * v[i] * v[i];
      C += c4[i] * v[i] * v[i];
    }
    aproj = FLUID_PI * sqrt(C / Q);
    for (int i = 0; i < 3; i++) {
      ga[i] = FLUID_PI * FLUID_PI / aproj * v[i] * (c4[i] * Q - C * a2[i]) / (Q * Q);
    }

    // Kutta lift: f = cK rho s(v) h(v), s = A (v'Dv) / (|Dv|^2 |v|), h = (Dv x v) x v
    mcNum dd[3], dv[3], d2v[3], u[3], h[3], q = 0, nn = 0;
    for (int i = 0; i < 3; i++) {
      int j = (i + 1) % 3, k = (i + 2) % 3;
      dd[i] = r[j] * r[k] / r[i];
      dv[i] = dd[i] * v[i];
      d2v[i] = dd[i] * dv[i];
      q += v[i] * dv[i];
      nn += dv[i] * dv[i];
    }
    if (nn > mcMINVAL && q > mcMINVAL) {
      cross3(u, dv, v);
      cross3(h, u, v);
      mcNum sk = aproj * q / (nn * speed), gs[3];
      for (int i = 0; i < 3; i++) {
        gs[i] = sk * (ga[i] / aproj + 2 * dv[i] / q - 2 * d2v[i] / nn - v[i] / (speed * speed));
      }

      // dh/dv = -[v]x (-[v]x D + [Dv]x) + [u]x
      mcNum Sv[9], Sdv[9], Dd[9] = {0}, M1[9];
      for (int i = 0; i < 3; i++) {
        Dd[4 * i] = dd[i];
      }
      skew(Sv, v);
      skew(Sdv, dv);
      mul3(M1, Sv, Dd);
      for (int k = 0; k < 9; k++) {
        M1[k] = Sdv[k] - M1[k];
      }
      mul3(T, Sv, M1);
      skew(U, u);
      mcNum ck = ckutta * rho;
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
          K[6 * (3 + i) + 3 + j] += ck * (h[i] * gs[j] + sk * (U[3 * i + j] - T[3 * i + j]));
        }
      }
    }

    // drag: f = -rho k(v) |v| v, k = cS Amax + (cB - cS) A. The area gradient is written as
    // dA/dv_i = pi v_i (c4_i Q - C a2_i) / sqrt(C Q^3) with the denominator kept above mcMINVAL,
    // as MuJoCo 2.2.2 does (measured: its D differs from the exact one by the factor
    // min(1, sqrt(C Q^3) / 1e-15) on this term, i.e. at low speeds or on small geoms)
    mcNum rmax = fmax(r[0], fmax(r[1], r[2])), rmin = fmin(r[0], fmin(r[1], r[2]));
    mcNum amax = FLUID_PI * rmax * (r[0] + r[1] + r[2] - rmax - rmin);
    mcNum kd = cslender * amax + (cblunt - cslender) * aproj;
    mcNum den = fmax(mcMINVAL, sqrt(C * Q * Q * Q)), gd[3];
    for (int i = 0; i < 3; i++) {
      gd[i] = FLUID_PI * v[i] * (c4[i] * Q - C * a2[i]) / den;
    }
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        mcNum dk = (cblunt - cslender) * gd[j];
        mcNum dnv = (i == j ? speed : 0) + v[i] * v[j] / speed;
        K[6 * (3 + i) + 3 + j] -= rho * (speed * v[i] * dk + kd * dnv);
      }
    }
  }

  // angular drag: g = -rho |c o w| w
  mcNum idr[3], imax = 0, cw[3], c[3];
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3, k = (i + 2) % 3;
    mcNum rm = fmax(r[j], r[k]);
    idr[i] = 8.0 / 15.0 * FLUID_PI * r[i] * rm * rm * rm * rm;
    imax = fmax(imax, idr[i]);
  }
  for (int i = 0; i < 3; i++) {
    c[i] = cang * idr[i] + cslender * (imax - idr[i]);
    cw[i] = c[i] * w[i];
  }
  mcNum ncw = norm3(cw);
  for (int i = 0; i < 3; i++) {
    K[7 * i] -= rho * ncw;
    if (ncw > mcMINVAL) {
      for (int j = 0; j < 3; j++) {
        K[6 * i + j] -= rho * w[i] * c[j] * cw[j] / ncw;
      }
    }
  }

  // viscous resistance
  mcNum rd = (r[0] + r[1] + r[2]) / 3;
  for (int i = 0; i < 3; i++) {
    K[7 * i] -= 8 * FLUID_PI * rd * rd * rd * beta;
    K[7 * (3 + i)] -= 6 * FLUID_PI * rd * beta;
  }

  // the interaction coefficient scales everything
  for (int k = 0; k < 36; k++) {
    K[k] *= fl[0];
  }
}


// add J' B K B' J for the point p of body b (frame R) to D; chain: scratch of nv ints, J of 6 nv
static void addFluidBlock(const mcModel* m, const mcData* d, int b, const mcNum p[3],
                          const mcNum R[9], const mcNum K[36], int* chain, mcNum* J, mcNum* GJ,
                          mcNum* Dl, mcNum* Du) {
  // G = B K B' in the global frame
  mcNum G[36], BK[36];
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 6; j++) {
      const mcNum* Rr = R + 3 * (i % 3);
      int bi = i / 3;
      BK[6 * i + j] = Rr[0] * K[6 * (3 * bi) + j] + Rr[1] * K[6 * (3 * bi + 1) + j]
                      + Rr[2] * K[6 * (3 * bi + 2) + j];
    }
  }
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 6; j++) {
      const mcNum* Rr = R + 3 * (j % 3);
      int bj = j / 3;
      G[6 * i + j] = BK[6 * i + 3 * bj] * Rr[0] + BK[6 * i + 3 * bj + 1] * Rr[1]
                     + BK[6 * i + 3 * bj + 2] * Rr[2];
    }
  }

  // the dof chain from the body's last dof to the root
  int n = 0;
  int leaf = -1;
  for (int a = b; a > 0 && leaf < 0; a = m->body_parentid[a]) {
    if (m->body_dofnum[a]) {
      leaf = m->body_dofadr[a] + m->body_dofnum[a] - 1;
    }
  }
  for (int j = leaf; j >= 0; j = m->dof_parentid[j]) {
    chain[n++] = j;
  }

  // point Jacobian columns [rot; lin at p] and G J
  const mcNum* c = d->subtree_com + 3 * m->body_rootid[b];
  mcNum dp[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
  for (int k = 0; k < n; k++) {
    const mcNum* cd = d->cdof + 6 * chain[k];
    mcNum* col = J + 6 * k;
    mcNum t[3];
    cross3(t, cd, dp);
    for (int i = 0; i < 3; i++) {
      col[i] = cd[i];
      col[3 + i] = cd[3 + i] + t[i];
    }
    for (int i = 0; i < 6; i++) {
      mcNum sum = 0;
      for (int j = 0; j < 6; j++) {
        sum += G[6 * i + j] * col[j];
      }
      GJ[6 * k + i] = sum;
    }
  }

  // D(i, j) for i in the chain and j an ancestor of i (later in the chain)
  for (int k = 0; k < n; k++) {
    int adr = m->dof_Madr[chain[k]];
    for (int l = k; l < n; l++, adr++) {
      mcNum dij = 0, dji = 0;
      for (int i = 0; i < 6; i++) {
        dij += J[6 * k + i] * GJ[6 * l + i];
        dji += J[6 * l + i] * GJ[6 * k + i];
      }
      Dl[adr] += dij;
      if (l != k) {
        Du[adr] += dji;
      }
    }
  }
}


// add the velocity derivative of the fluid forces to D
static int addFluidDeriv(const mcpHost* host, const mcModel* m, mcData* d, mcNum* Dl, mcNum* Du) {
  if (!(m->opt.density > 0 || m->opt.viscosity > 0)) {
    return 0;
  }
  int* chain = host->stackAlloc(d, sizeof(int) * (m->nv ? m->nv : 1), _Alignof(int));
  mcNum* J = stackNum(host, d, 6 * (size_t)m->nv);
  mcNum* GJ = stackNum(host, d, 6 * (size_t)m->nv);
  if (!chain || !J || !GJ) {
    return -1;
  }
  for (int b = 1; b < m->nbody; b++) {
    if (m->body_mass[b] < mcMINVAL) {
      continue;
    }
    int ell = 0;
    for (int k = 0; k < m->body_geomnum[b]; k++) {
      ell |= m->geom_fluid[mcNFLUID * (m->body_geomadr[b] + k)] > 0;
    }
    mcNum lvel[6], K[36];
    if (!ell) {
      const mcNum* R = d->ximat + 9 * b;
      const mcNum* p = d->xipos + 3 * b;
      memset(K, 0, sizeof(K));
      fluidVelocity(m, d, b, p, R, lvel);
      boxDeriv(m, b, lvel, K);
      addFluidBlock(m, d, b, p, R, K, chain, J, GJ, Dl, Du);
      continue;
    }
    for (int k = 0; k < m->body_geomnum[b]; k++) {
      int g = m->body_geomadr[b] + k;
      if (m->geom_fluid[mcNFLUID * g] > 0) {
        const mcNum* R = d->geom_xmat + 9 * g;
        const mcNum* p = d->geom_xpos + 3 * g;
        memset(K, 0, sizeof(K));
        fluidVelocity(m, d, b, p, R, lvel);
        ellipsoidDeriv(m, g, lvel, K);
        addFluidBlock(m, d, b, p, R, K, chain, J, GJ, Dl, Du);
      }
    }
  }
  return 0;
}


// D on the sparsity of M: Dl[adr] = D(i, j), Du[adr] = D(j, i) for the slot adr of ancestor j
static int buildDeriv(const mcpHost* host, const mcModel* m, mcData* d, int rne, mcNum* Dl,
                      mcNum* Du) {
  int nv = m->nv;
  memset(Dl, 0, sizeof(mcNum) * m->nM);
  memset(Du, 0, sizeof(mcNum) * m->nM);

  // passive: dof and tendon damping
  if (!(m->opt.disableflags & mcDSBL_PASSIVE)) {
    for (int i = 0; i < nv; i++) {
      Dl[m->dof_Madr[i]] -= m->dof_damping[i];
    }
    for (int t = 0; t < m->ntendon; t++) {
      if (m->tendon_damping[t] > 0) {
        addOuter(m, Dl, Du, d->ten_J + (size_t)t * nv, -m->tendon_damping[t]);
      }
    }
    if (addFluidDeriv(host, m, d, Dl, Du)) {
      return -1;
    }
  }

  // actuators
  if (!(m->opt.disableflags & mcDSBL_ACTUATION)) {
    for (int i = 0; i < m->nu; i++) {
      mcNum g = actuatorDeriv(m, d, host, i);
      if (g != 0) {
        addOuter(m, Dl, Du, d->actuator_moment + (size_t)i * nv, g);
      }
    }
  }

  // Coriolis and centripetal forces
  return rne ? subtractRneDeriv(host, m, d, Dl, Du) : 0;
}


//---------------------------------- no-fill LU in the qM layout -----------------------------------

// in place: on return Hl holds the rows (pivot on the diagonal slot, H(k, ancestor) after it) and
// Hu the multipliers H(ancestor, k) / pivot
static void factorLU(const mcModel* m, mcNum* Hl, mcNum* Hu) {
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;
  for (int k = m->nv - 1; k >= 0; k--) {
    mcNum piv = Hl[Madr[k]];
    if (piv < mcMINVAL && piv > -mcMINVAL) {
      piv = Hl[Madr[k]] = mcMINVAL;
    }

    // ancestors i of k (position p in k's chain) and j (position q)
    int p = 1;
    for (int i = parent[k]; i >= 0; i = parent[i], p++) {
      mcNum mult = Hu[Madr[k] + p] / piv;
      int q = 1;
      for (int j = parent[k]; j >= 0; j = parent[j], q++) {
        mcNum upd = mult * Hl[Madr[k] + q];
        if (q == p) {
          Hl[Madr[i]] -= upd;
        } else if (q > p) {
          Hl[Madr[i] + (q - p)] -= upd;
        } else {
          Hu[Madr[j] + (p - q)] -= upd;
        }
      }
      Hu[Madr[k] + p] = mult;
    }
  }
}


// solve with the factors, x in place
static void solveLU(const mcModel* m, const mcNum* Hl, const mcNum* Hu, mcNum* x) {
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;

  // eliminate from the leaves up
  for (int k = m->nv - 1; k >= 0; k--) {
    int adr = Madr[k] + 1;
    for (int i = parent[k]; i >= 0; i = parent[i], adr++) {
      x[i] -= Hu[adr] * x[k];
    }
  }

  // back substitution from the root down
  for (int k = 0; k < m->nv; k++) {
    int adr = Madr[k] + 1;
    mcNum s = x[k];
    for (int j = parent[k]; j >= 0; j = parent[j], adr++) {
      s -= Hl[adr] * x[j];
    }
    x[k] = s / Hl[Madr[k]];
  }
}


//---------------------------------- the step ------------------------------------------------------

static void advance(const mcpHost* host, const mcModel* m, mcData* d, const mcNum* qacc) {
  mcNum h = m->opt.timestep;
  memcpy(d->qacc_warmstart, d->qacc, sizeof(mcNum) * (size_t)m->nv);
  if (m->na) {
    host->advanceAct(m, d, d->act_dot, h);
  }
  for (int i = 0; i < m->nv; i++) {
    d->qvel[i] += h * qacc[i];
  }
  host->integratePos(m, d->qpos, d->qvel, h);
  d->time += h;
}


// How implicitfast (MuJoCo 3.14) treats the dofs of a body when it assembles M - h D
enum {
  DOF_TREE = 0,    // D symmetrized on the tree sparsity of M
  DOF_SIMPLE = 1,  // a "simple" body: only the diagonal of D (its rows of M hold nothing else)
  DOF_FREE = 2,    // a free body without children: D unsymmetrized, with the RNE derivative
};


// MuJoCo 3.14's "simple" body (body_simple 1 or 2; probed on 3.14, docs/mujoco3.md): the parent
// welded to the world, no child body, the inertial frame on the body frame (|ipos| and the vector
// part of iquat below 1e-6 in each component), every joint at the body origin (|pos| < 1e-6), a
// slide or hinge along one of the body's axes (the other two components at most 1e-14), at most
// one rotational joint (hinge, ball or free) and no slide after it. Its M has no entries between
// its dofs, and implicitfast then keeps only the diagonal of D there.
static int simpleBody314(const mcModel* m, int b, const char* haschild) {
  if (haschild[b] || m->body_weldid[m->body_parentid[b]] != 0) {
    return 0;
  }
  for (int k = 0; k < 3; k++) {
    if (!(fabs(m->body_ipos[3 * b + k]) < 1e-6) || !(fabs(m->body_iquat[4 * b + 1 + k]) < 1e-6)) {
      return 0;
    }
  }
  int rotated = 0;
  for (int j = m->body_jntadr[b]; j < m->body_jntadr[b] + m->body_jntnum[b]; j++) {
    int type = m->jnt_type[j], along = 0;
    for (int k = 0; k < 3; k++) {
      along += fabs(m->jnt_axis[3 * j + k]) > 1e-14;
      if (!(fabs(m->jnt_pos[3 * j + k]) < 1e-6)) {
        return 0;
      }
    }
    if (type == mcJNT_SLIDE || type == mcJNT_HINGE) {
      if (along != 1 || (type == mcJNT_SLIDE && rotated)) {
        return 0;
      }
    }
    if (type != mcJNT_SLIDE && rotated++) {
      return 0;
    }
  }
  return 1;
}


// the class (DOF_*) of every dof for implicitfast into cls (nv); the number of DOF_FREE dofs, -1
// without stack
static int classifyDofs(const mcpHost* host, const mcModel* m, mcData* d, char* cls) {
  char* haschild = host->stackAlloc(d, (size_t)m->nbody, 1);
  if (!haschild) {
    return -1;
  }
  memset(haschild, 0, (size_t)m->nbody);
  for (int b = 1; b < m->nbody; b++) {
    haschild[m->body_parentid[b]] = 1;
  }
  int nfree = 0;
  for (int b = 1; b < m->nbody; b++) {
    int c = DOF_TREE;
    if (!haschild[b] && m->body_jntnum[b] == 1 && m->jnt_type[m->body_jntadr[b]] == mcJNT_FREE) {
      c = DOF_FREE;
      nfree += 6;
    } else if (simpleBody314(m, b, haschild)) {
      c = DOF_SIMPLE;
    }
    if (m->body_dofnum[b] > 0) {
      memset(cls + m->body_dofadr[b], c, (size_t)m->body_dofnum[b]);
    }
  }
  return nfree;
}


// implicitfast's H = M - h D in place of D (Dl, Du) by the dof classes: DOF_FREE rows add the
// RNE derivative (Rl, Ru; NULL without such dofs) and keep D unsymmetrized, DOF_SIMPLE rows keep
// the diagonal only, the others take (D + D')/2 (the diagonal of D is in Dl only)
static void assembleFast(const mcModel* m, const mcData* d, const char* cls, mcNum* Hl, mcNum* Hu,
                         const mcNum* Rl, const mcNum* Ru) {
  mcNum h = m->opt.timestep;
  for (int i = 0; i < m->nv; i++) {
    int adr = m->dof_Madr[i];
    for (int j = i; j >= 0; j = m->dof_parentid[j], adr++) {
      if (cls[i] == DOF_FREE) {
        Hl[adr] = d->qM[adr] - h * (Hl[adr] + Rl[adr]);
        Hu[adr] = d->qM[adr] - h * (Hu[adr] + Ru[adr]);
      } else if (j == i) {
        Hl[adr] = Hu[adr] = d->qM[adr] - h * Hl[adr];
      } else if (cls[i] == DOF_SIMPLE) {
        Hl[adr] = Hu[adr] = 0;
      } else {
        Hl[adr] = Hu[adr] = d->qM[adr] - 0.5 * h * (Hl[adr] + Hu[adr]);
      }
    }
  }
}


// the RNE derivative alone (for the free bodies without children of implicitfast) into Rl, Ru
static int rneDeriv(const mcpHost* host, const mcModel* m, mcData* d, mcNum* Rl, mcNum* Ru) {
  memset(Rl, 0, sizeof(mcNum) * m->nM);
  memset(Ru, 0, sizeof(mcNum) * m->nM);
  return subtractRneDeriv(host, m, d, Rl, Ru);
}


static void implicitStep(const mcpHost* host, const mcModel* m, mcData* d, int full) {
  int nv = m->nv, nM = m->nM;
  mcNum h = m->opt.timestep;

  host->markStack(d);
  mcNum* Hl = stackNum(host, d, nM);
  mcNum* Hu = stackNum(host, d, nM);
  mcNum* diag = stackNum(host, d, nv);
  mcNum* qacc = stackNum(host, d, nv);

  // implicitfast: the class of every dof (simple bodies, free bodies without children); MuJoCo
  // 3.14 treats a free body without children as "implicit" does (its two integrators agree to
  // all digits there, gyroscopic, fluid and offset com included): D unsymmetrized on its rows,
  // with the RNE derivative (Rl, Ru), and the whole solved by the LU (the trees are independent)
  char* cls = full ? NULL : host->stackAlloc(d, (size_t)(nv ? nv : 1), 1);
  int nfree = full ? 0 : (cls ? classifyDofs(host, m, d, cls) : -1);
  mcNum* Rl = nfree > 0 ? stackNum(host, d, nM) : NULL;
  mcNum* Ru = nfree > 0 ? stackNum(host, d, nM) : NULL;
  if (!Hl || !Hu || !diag || !qacc || nfree < 0 || buildDeriv(host, m, d, full, Hl, Hu) ||
      (nfree > 0 && (!Rl || !Ru || rneDeriv(host, m, d, Rl, Ru)))) {
    // stack full (already warned): semi-implicit step rather than none
    host->freeStack(d);
    advance(host, m, d, d->qacc);
    return;
  }

  // right-hand side: M a = qfrc_smooth + qfrc_constraint
  for (int i = 0; i < nv; i++) {
    qacc[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
  }

  if (full || nfree > 0) {
    // implicit: H = M - h D; implicitfast with free bodies without children: assembleFast; LU
    if (full) {
      for (int k = 0; k < nM; k++) {
        Hl[k] = d->qM[k] - h * Hl[k];
        Hu[k] = d->qM[k] - h * Hu[k];
      }
    } else {
      assembleFast(m, d, cls, Hl, Hu, Rl, Ru);
    }
    factorLU(m, Hl, Hu);
    solveLU(m, Hl, Hu, qacc);
  } else {
    // symmetric H (simple bodies: diagonal), L'DL
    assembleFast(m, d, cls, Hl, Hu, NULL, NULL);
    host->factorI(m, Hl, Hl, diag);
    host->solveLD(m, qacc, 1, Hl, diag);
  }

  advance(host, m, d, qacc);
  host->freeStack(d);
}


static void stepImplicit(const mcpHost* host, const mcModel* m, mcData* d) {
  implicitStep(host, m, d, 1);
}


static void stepImplicitFast(const mcpHost* host, const mcModel* m, mcData* d) {
  implicitStep(host, m, d, 0);
}


//---------------------------------- descriptors ---------------------------------------------------

static const mcpIntegrator g_implicit = {
  .hdr = MCP_HEADER(mcpKIND_INTEGRATOR, mcpIntegrator, "implicit", "1.0.0",
                    "implicit-in-velocity Euler with RNE derivatives (LU)", mcINT_IMPLICIT),
  .step = stepImplicit,
};

static const mcpIntegrator g_implicitfast = {
  .hdr = MCP_HEADER(mcpKIND_INTEGRATOR, mcpIntegrator, "implicitfast", "1.0.0",
                    "implicit-in-velocity Euler, symmetrized, no RNE derivatives (Cholesky)",
                    mcINT_IMPLICITFAST),
  .step = stepImplicitFast,
};

static const mcpHeader* const g_plugins[] = {&g_implicit.hdr, &g_implicitfast.hdr};

static const mcpLibrary g_library = MCP_LIBRARY("integrator-implicit", 2, g_plugins);


MCP_EXPORT const mcpLibrary* mcp_library(const mcpHost* host) {
  // refuse a host of another major version or precision
  if (!host || host->abi_major != MCP_ABI_MAJOR || host->precision != MCP_PRECISION) {
    return NULL;
  }
  return &g_library;
}
