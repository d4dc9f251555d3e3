// Moduco core: inverse dynamics (mc_inverse) and the forward/inverse comparison
// (mc_compareFwdInv).
//
// Given (qpos, qvel, qacc), the soft constraint model has a unique constraint force: the minimum
// of the reduced primal cost makes its gradient vanish, so f = -grad s(J qacc - aref), which
// decouples over the constraints (equality, friction loss, limits, contacts, and the elliptic
// cone as a whole). Then qfrc_inverse = M qacc + c - qfrc_passive - J' f, which equals the
// applied plus actuation forces of a forward computation that produced qacc.
#include <math.h>

#include <moduco/moduco.h>

#include "engine/constraint.h"
#include "engine/engine.h"
#include "math/math.h"


//---------------------------------- analytic constraint force -------------------------------------

// elliptic contact at rows i .. i+dim-1: force and state from jar (the three zones of the cone in
// the coordinates N = mu jar0, T = |friction_j jar_j|)
static void ellipticForce(const mcContact* con, const mcNum* D, const mcNum* jar, mcNum* force,
                          int* state) {
  int dim = con->dim;
  mcNum mu = con->mu, U[6], t2 = 0;
  U[0] = mu * jar[0];
  for (int j = 1; j < dim; j++) {
    U[j] = con->friction[j - 1] * jar[j];
    t2 += U[j] * U[j];
  }
  mcNum N = U[0], T = sqrt(t2);

  // top zone: inside the dual cone, no force
  if (N >= mu * T || (T <= 0 && N >= 0)) {
    *state = mcCNSTRSTATE_SATISFIED;
    mcu_zero(force, dim);
    return;
  }

  // bottom zone: inside the polar cone, every row is quadratic
  if (mu * N + T <= 0 || (T <= 0 && N < 0)) {
    *state = mcCNSTRSTATE_QUADRATIC;
    for (int j = 0; j < dim; j++) {
      force[j] = -D[j] * jar[j];
    }
    return;
  }

  // middle zone: cost 0.5 Dm (N - mu T)^2 with Dm = D0 / (mu^2 (1 + mu^2))
  *state = mcCNSTRSTATE_CONE;
  mcNum g = (N - mu * T) * D[0] / (mu * mu * (1 + mu * mu));
  force[0] = -g * mu;
  for (int j = 1; j < dim; j++) {
    force[j] = g * mu * U[j] / T * con->friction[j - 1];
  }
}


// efc_force and efc_state at jar = J qacc - aref (jar is nefc scratch)
static void constraintForce(const mcData* d, mcNum* jar, mcNum* force, int* state) {
  for (int i = 0; i < d->nefc; i++) {
    int type = d->efc_type[i];
    mcNum D = d->efc_D[i], j = jar[i];

    // elliptic contact: the whole block at its first row
    if (type == mcCNSTR_CONTACT_ELLIPTIC) {
      const mcContact* con = d->contact + d->efc_id[i];
      int s;
      ellipticForce(con, d->efc_D + i, jar + i, force + i, &s);
      for (int k = 0; k < con->dim; k++) {
        state[i + k] = s;
      }
      i += con->dim - 1;
      continue;
    }

    // friction loss: Huber, linear beyond R * frictionloss
    if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
      mcNum fl = d->efc_frictionloss[i], Rfl = d->efc_R[i] * fl;
      if (j <= -Rfl) {
        state[i] = mcCNSTRSTATE_LINEARNEG;
        force[i] = fl;
      } else if (j >= Rfl) {
        state[i] = mcCNSTRSTATE_LINEARPOS;
        force[i] = -fl;
      } else {
        state[i] = mcCNSTRSTATE_QUADRATIC;
        force[i] = -D * j;
      }
      continue;
    }

    // equality: quadratic; limits and other contacts: one-sided
    if (type == mcCNSTR_EQUALITY || j < 0) {
      state[i] = mcCNSTRSTATE_QUADRATIC;
      force[i] = -D * j;
    } else {
      state[i] = mcCNSTRSTATE_SATISFIED;
      force[i] = 0;
    }
  }
}


void mc_invConstraint(const mcModel* m, mcData* d, const mcNum* qacc) {
  int nv = m->nv, nefc = d->nefc;
  mcu_zero(d->qfrc_constraint, nv);
  if (nefc == 0) {
    return;
  }
  mc_markStack(d);
  mcNum* jar = mc_stackAlloc(d, sizeof(mcNum) * (size_t)nefc, 16);
  if (!jar) {
    mc_freeStack(d);
    return;
  }

  // jar = J qacc - aref (row-sparse efc_J when it is built, else dense)
  const int* rownnz = d->efc_J_rownnz;
  for (int i = 0; i < nefc; i++) {
    mcNum s = 0;
    if (rownnz) {
      const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
      const mcNum* val = d->efc_J_val + d->efc_J_rowadr[i];
      for (int k = 0; k < rownnz[i]; k++) {
        s += val[k] * qacc[col[k]];
      }
    } else {
      s = mcu_dot(d->efc_J + (size_t)i * nv, qacc, nv);
    }
    jar[i] = s - d->efc_aref[i];
  }

  // forces, then qfrc_constraint = J' f
  constraintForce(d, jar, d->efc_force, d->efc_state);
  if (rownnz) {
    for (int i = 0; i < nefc; i++) {
      mcNum f = d->efc_force[i];
      const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
      const mcNum* val = d->efc_J_val + d->efc_J_rowadr[i];
      for (int k = 0; k < rownnz[i]; k++) {
        d->qfrc_constraint[col[k]] += val[k] * f;
      }
    }
  } else {
    mcu_mulMatTVec(d->qfrc_constraint, d->efc_J, d->efc_force, nefc, nv);
  }
  mc_freeStack(d);
}


//---------------------------------- inverse dynamics ----------------------------------------------

// discrete to continuous acceleration for the Euler integrator with implicit damping: the step
// used (M + h D) qacc_e = M qacc, so qacc = qacc_e + inv(M) h D qacc_e; return 0 when no
// conversion applies (other integrators, no damping, eulerdamp disabled)
static int continuousAcc(const mcModel* m, mcData* d, mcNum* qacc) {
  int nv = m->nv;
  if (!(m->opt.enableflags & mcENBL_INVDISCRETE) || m->opt.integrator != mcINT_EULER ||
      (m->opt.disableflags & mcDSBL_EULERDAMP)) {
    return 0;
  }
  int damped = 0;
  for (int i = 0; i < nv; i++) {
    damped |= m->dof_damping[i] > 0;
  }
  if (!damped) {
    return 0;
  }
  for (int i = 0; i < nv; i++) {
    qacc[i] = m->opt.timestep * m->dof_damping[i] * d->qacc[i];
  }
  mc_solveM(m, d, qacc, qacc, 1);
  mcu_addTo(qacc, d->qacc, nv);
  return 1;
}


// inverse dynamics from the given stage on (mcSTAGE_NONE: everything, mcSTAGE_VEL: reuse the
// position and velocity stages of a forward call)
static void inverseSkip(const mcModel* m, mcData* d, int skipstage) {
  int nv = m->nv;
  int energy = m->opt.enableflags & mcENBL_ENERGY;

  // position and velocity stages as in forward dynamics
  if (skipstage < mcSTAGE_POS) {
    mc_fwdPosition(m, d);
    if (energy) {
      mc_energyPos(m, d);
    }
  }
  if (skipstage < mcSTAGE_VEL) {
    mc_fwdVelocity(m, d);
    if (energy) {
      mc_energyVel(m, d);
    }
  }

  // continuous-time acceleration (a discrete one is converted when asked)
  mc_markStack(d);
  const mcNum* qacc = d->qacc;
  mcNum* tmp = mc_stackAlloc(d, sizeof(mcNum) * (size_t)(nv > 0 ? nv : 1), 16);
  if (tmp && continuousAcc(m, d, tmp)) {
    qacc = tmp;
  }

  // analytic constraint force
  mc_invConstraint(m, d, qacc);

  // qfrc_inverse = M qacc + bias - passive - constraint
  mc_mulM(m, d, d->qfrc_inverse, qacc);
  for (int i = 0; i < nv; i++) {
    d->qfrc_inverse[i] += d->qfrc_bias[i] - d->qfrc_passive[i] - d->qfrc_constraint[i];
  }
  mc_freeStack(d);
}


void mc_inverse(const mcModel* m, mcData* d) {
  double t0 = mc_clockNow(d);
  inverseSkip(m, d, mcSTAGE_NONE);
  mc_clockAdd(d, mcTIMER_INVERSE, t0);
}


//---------------------------------- forward / inverse comparison ----------------------------------

void mc_compareFwdInv(const mcModel* m, mcData* d) {
  int nv = m->nv, nefc = d->nefc;
  d->solver_fwdinv[0] = d->solver_fwdinv[1] = 0;
  if (nefc == 0) {
    return;
  }
  mc_markStack(d);
  mcNum* qforce = mc_stackAlloc(d, sizeof(mcNum) * (size_t)(2 * nv + nefc), 16);
  int* state = mc_stackAlloc(d, sizeof(int) * (size_t)nefc, 16);
  if (!qforce || !state) {
    mc_freeStack(d);
    return;
  }
  mcNum* qfrc = qforce + nv;
  mcNum* force = qfrc + nv;

  // applied + actuation + Cartesian forces of the forward computation
  mcu_add(qforce, d->qfrc_applied, d->qfrc_actuator, nv);
  mc_xfrcAccumulate(m, d, qforce);

  // keep the forward results, run the inverse on the same positions and velocities
  mcu_copy(qfrc, d->qfrc_constraint, nv);
  mcu_copy(force, d->efc_force, nefc);
  for (int i = 0; i < nefc; i++) {
    state[i] = d->efc_state[i];
  }
  inverseSkip(m, d, mcSTAGE_VEL);

  // [0]: constraint forces in joint space, [1]: applied forces
  mcNum s0 = 0, s1 = 0;
  for (int i = 0; i < nv; i++) {
    mcNum a = qfrc[i] - d->qfrc_constraint[i], b = qforce[i] - d->qfrc_inverse[i];
    s0 += a * a;
    s1 += b * b;
  }
  d->solver_fwdinv[0] = sqrt(s0);
  d->solver_fwdinv[1] = sqrt(s1);

  // restore the forward results
  mcu_copy(d->qfrc_constraint, qfrc, nv);
  mcu_copy(d->efc_force, force, nefc);
  for (int i = 0; i < nefc; i++) {
    d->efc_state[i] = state[i];
  }
  mc_freeStack(d);
}
