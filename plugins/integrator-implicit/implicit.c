// Moduco plugin "integrator-implicit": implicit-in-velocity Euler, "implicit" and "implicitfast".
//
// With h the timestep, both use the update (5) of the computation chapter:
//   qvel += h (M - h D)^-1 (qfrc_smooth + qfrc_constraint),  then act, qpos (new qvel), time.
// D is the analytic derivative with respect to qvel of
//   - passive forces: dof damping, tendon damping (-b J'J),
//   - actuator forces: (gain velocity term * input + bias velocity term) * moment' moment for the
//     core general actuator, the plugin's dforce_dvel otherwise,
//   - for "implicit" only: minus the derivative of the RNE bias forces (Coriolis, centripetal).
// D is kept on the tree sparsity of M (entries between a dof and its ancestors). "implicit"
// factorizes M - h D with a no-fill LU in the qM layout; "implicitfast" symmetrizes D and uses
// the host's L'DL. d->qacc keeps the forward-dynamics acceleration, also saved to qacc_warmstart.
#include <string.h>

#include <moduco/mcplugin.h>


//---------------------------------- small helpers -------------------------------------------------

static void* stackNum(const mcpHost* host, mcData* d, size_t n) {
  return host->stackAlloc(d, sizeof(mcNum) * (n ? n : 1), _Alignof(mcNum));
}


// a x b for motion vectors (angular first): [wa x wb; wa x vb + va x wb]
static void crossMotion(mcNum r[6], const mcNum a[6], const mcNum b[6]) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
  r[3] = a[1] * b[5] - a[2] * b[4] + a[4] * b[2] - a[5] * b[1];
  r[4] = a[2] * b[3] - a[0] * b[5] + a[5] * b[0] - a[3] * b[2];
  r[5] = a[0] * b[4] - a[1] * b[3] + a[3] * b[1] - a[4] * b[0];
}


// a x* f for a motion a and a force f: [wa x ff + va x tf ... ] with f = [torque; force]
static void crossForce(mcNum r[6], const mcNum a[6], const mcNum f[6]) {
  r[0] = a[1] * f[2] - a[2] * f[1] + a[4] * f[5] - a[5] * f[4];
  r[1] = a[2] * f[0] - a[0] * f[2] + a[5] * f[3] - a[3] * f[5];
  r[2] = a[0] * f[1] - a[1] * f[0] + a[3] * f[4] - a[4] * f[3];
  r[3] = a[1] * f[5] - a[2] * f[4];
  r[4] = a[2] * f[3] - a[0] * f[5];
  r[5] = a[0] * f[4] - a[1] * f[3];
}


// 6D spatial inertia (cinert: 3 symmetric rotational, 3 mass*offset, mass) times a motion
static void mulInert(mcNum r[6], const mcNum in[10], const mcNum v[6]) {
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


// derivative of the RNE bias forces w.r.t. qvel, subtracted from D; scratch from the stack
static int subtractRneDeriv(const mcpHost* host, const mcModel* m, mcData* d, mcNum* Dl,
                            mcNum* Du) {
  int nv = m->nv, nbody = m->nbody;
  size_t blk = 6 * (size_t)nv;
  mcNum* Dv = stackNum(host, d, blk * nbody);      // d cvel / d qvel, per body
  mcNum* Da = stackNum(host, d, blk * nbody);      // d cacc / d qvel
  mcNum* Df = stackNum(host, d, blk * nbody);      // d cfrc / d qvel
  mcNum* Dcd = stackNum(host, d, blk * nv);        // d cdof_dot / d qvel
  if (!Dv || !Da || !Df || !Dcd) {
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
        for (int c = 0; c < nv; c++) {
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
      for (int k = 0; k < (int)blk; k++) {
        da[k] += dcd[k] * d->qvel[j];
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
    for (int c = 0; c < nv; c++) {
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


static void implicitStep(const mcpHost* host, const mcModel* m, mcData* d, int full) {
  int nv = m->nv, nM = m->nM;
  mcNum h = m->opt.timestep;

  host->markStack(d);
  mcNum* Hl = stackNum(host, d, nM);
  mcNum* Hu = stackNum(host, d, nM);
  mcNum* diag = stackNum(host, d, nv);
  mcNum* qacc = stackNum(host, d, nv);
  if (!Hl || !Hu || !diag || !qacc || buildDeriv(host, m, d, full, Hl, Hu)) {
    // stack full (already warned): semi-implicit step rather than none
    host->freeStack(d);
    advance(host, m, d, d->qacc);
    return;
  }

  // right-hand side: M a = qfrc_smooth + qfrc_constraint
  for (int i = 0; i < nv; i++) {
    qacc[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
  }

  if (full) {
    // H = M - h D, LU
    for (int k = 0; k < nM; k++) {
      Hl[k] = d->qM[k] - h * Hl[k];
      Hu[k] = d->qM[k] - h * Hu[k];
    }
    factorLU(m, Hl, Hu);
    solveLU(m, Hl, Hu, qacc);
  } else {
    // H = M - h (D + D')/2, L'DL (the diagonal of D is stored in Dl only)
    for (int i = 0; i < nv; i++) {
      int adr = m->dof_Madr[i];
      Hl[adr] = d->qM[adr] - h * Hl[adr];
      for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) {
        adr++;
        Hl[adr] = d->qM[adr] - 0.5 * h * (Hl[adr] + Hu[adr]);
      }
    }
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
