// Moduco core: the plugin check mode. Verifies what solver, postsolver, integrator, collision,
// actuator and sensor plugins return, raising mcWARN_PLUGINCHECK with a message naming the
// plugin, the check and the offending index and value (docs/plugins.md, "Check mode").
#include "engine/plugin_check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <moduco/moduco.h>

#include "engine/engine.h"
#include "engine/io.h"
#include "plugin/registry.h"

#define MCI_CHECK_NPRINT 8        // failures printed per data (all are counted)
#define MCI_CHECK_NGUARD 4        // guard values on each side of a sensor's slice
#define MCI_CHECK_GUARD (-1.2345678901234567e+300)  // value a sensor never writes

static const mcNum kRelTol = 1e-8;    // relative tolerance: J' f, cone and bound checks
static const mcNum kUnitTol = 1e-6;   // unit length and orthogonality of contact axes

// the plugin a failure is about
typedef struct {
  const char* kind;               // "solver", "integrator", ...
  const char* name;               // descriptor name
  int slot;                       // timer slot (mctTimerPlugin), the warning's info
} mciChecked;


//---------------------------------- the switch ----------------------------------------------------

void mc_setPluginCheck(mcData* d, int on) {
  d->plugin_check = on != 0;
}


//---------------------------------- reporting -----------------------------------------------------

// count a failure; print the first few of the data, naming the plugin and the check
static void fail(mcData* d, const mciChecked* p, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(mcData* d, const mciChecked* p, const char* fmt, ...) {
  if (d->warning[mcWARN_PLUGINCHECK].number < MCI_CHECK_NPRINT) {
    char what[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    mci_message("plugin check: %s '%s': %s (time %.6g)", p->kind, p->name ? p->name : "?", what,
                (double)d->time);
  }
  mc_warning(d, mcWARN_PLUGINCHECK, p->slot);
}


// every entry of x[0..n-1] finite; report the first that is not; return 1 if all are
static int allFinite(mcData* d, const mciChecked* p, const char* array, int offset, const mcNum* x,
                  int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(x[i])) {
      fail(d, p, "%s[%d] = %g is not finite", array, offset + i, (double)x[i]);
      return 0;
    }
  }
  return 1;
}


//---------------------------------- solvers -------------------------------------------------------

// res = J' f and scale = |J|' |f| (for the tolerance), on the dense or the row-sparse efc_J
static void mulJT(const mcModel* m, const mcData* d, mcNum* res, mcNum* scale) {
  int nv = m->nv;
  memset(res, 0, sizeof(mcNum) * (size_t)nv);
  memset(scale, 0, sizeof(mcNum) * (size_t)nv);
  for (int i = 0; i < d->nefc; i++) {
    mcNum f = d->efc_force[i];
    if (f == 0) {
      continue;
    }
    int n = d->efc_J ? nv : d->efc_J_rownnz[i];
    const mcNum* val = d->efc_J ? d->efc_J + (size_t)i * nv : d->efc_J_val + d->efc_J_rowadr[i];
    const int* col = d->efc_J ? NULL : d->efc_J_colind + d->efc_J_rowadr[i];
    for (int k = 0; k < n; k++) {
      int c = col ? col[k] : k;
      res[c] += val[k] * f;
      scale[c] += fabs(val[k] * f);
    }
  }
}


// qfrc_constraint == J' efc_force to a relative tolerance
static void checkJTf(const mcModel* m, mcData* d, const mciChecked* p) {
  if (!d->efc_J && !d->efc_J_rownnz) {
    return;
  }
  mc_markStack(d);
  mcNum* res = mcSTACKALLOC(d, (size_t)m->nv, mcNum);
  mcNum* scale = mcSTACKALLOC(d, (size_t)m->nv, mcNum);
  if (res && scale) {
    mulJT(m, d, res, scale);
    for (int k = 0; k < m->nv; k++) {
      mcNum err = fabs(d->qfrc_constraint[k] - res[k]);
      if (!(err <= kRelTol * scale[k] + mcMINVAL)) {
        fail(d, p, "qfrc_constraint[%d] = %.17g differs from (J' efc_force)[%d] = %.17g", k,
             (double)d->qfrc_constraint[k], k, (double)res[k]);
        break;
      }
    }
  }
  mc_freeStack(d);
}


// one row's force against its bound and its state; tol: absolute force tolerance
static int checkRow(mcData* d, const mciChecked* p, int i, mcNum tol) {
  mcNum f = d->efc_force[i];
  int type = d->efc_type[i], state = d->efc_state ? d->efc_state[i] : -1;

  // a satisfied row carries no force
  if (state == mcCNSTRSTATE_SATISFIED && fabs(f) > tol) {
    fail(d, p, "efc_force[%d] = %g on a SATISFIED row (type %d)", i, (double)f, type);
    return 0;
  }

  switch (type) {
  case mcCNSTR_FRICTION_DOF:
  case mcCNSTR_FRICTION_TENDON: {
    // within +-frictionloss; on the bound in a linear state
    mcNum floss = d->efc_frictionloss[i], slack = kRelTol * floss + tol;
    if (fabs(f) > floss + slack) {
      fail(d, p, "friction row efc_force[%d] = %g outside +-frictionloss %g", i, (double)f,
           (double)floss);
      return 0;
    }
    if ((state == mcCNSTRSTATE_LINEARNEG || state == mcCNSTRSTATE_LINEARPOS) &&
        fabs(fabs(f) - floss) > slack) {
      fail(d, p, "friction row efc_force[%d] = %g in a linear state is not +-frictionloss %g", i,
           (double)f, (double)floss);
      return 0;
    }
    return 1;
  }
  case mcCNSTR_LIMIT_JOINT:
  case mcCNSTR_LIMIT_TENDON:
  case mcCNSTR_CONTACT_FRICTIONLESS:
  case mcCNSTR_CONTACT_PYRAMIDAL:
    // limits, normals and pyramid edges push only
    if (f < -tol) {
      fail(d, p, "efc_force[%d] = %g < 0 on a unilateral row (type %d)", i, (double)f, type);
      return 0;
    }
    return 1;
  default:
    // equality rows are free; elliptic contacts are checked as cones
    return 1;
  }
}


// elliptic contact c: normal >= 0 and |(f_t / mu)| <= f_n
static int checkEllipticCone(mcData* d, const mciChecked* p, int c, mcNum tol) {
  const mcContact* con = d->contact + c;
  const mcNum* f = d->efc_force + con->efc_address;
  if (f[0] < -tol) {
    fail(d, p, "contact %d: elliptic normal force efc_force[%d] = %g < 0", c, con->efc_address,
         (double)f[0]);
    return 0;
  }
  mcNum t = 0;
  for (int j = 1; j < con->dim; j++) {
    mcNum s = f[j] / con->friction[j - 1];
    t += s * s;
  }
  t = sqrt(t);
  if (t > f[0] * (1 + kRelTol) + tol) {
    fail(d, p, "contact %d: |f_t / mu| = %g exceeds the normal force %g (elliptic cone, rows "
         "%d..%d)", c, (double)t, (double)f[0], con->efc_address,
         con->efc_address + con->dim - 1);
    return 0;
  }
  return 1;
}


void mci_checkSolver(const mcModel* m, mcData* d, int slot) {
  const mcpHeader* h = slot == mcTIMERPLUGIN_SOLVER ? &m->solver->hdr : &m->postsolver->hdr;
  mciChecked p = {slot == mcTIMERPLUGIN_SOLVER ? "solver" : "postsolver", h->name, slot};
  int nefc = d->nefc;

  // finite outputs; the other checks need finite forces
  allFinite(d, &p, "qacc", 0, d->qacc, m->nv);
  if (!allFinite(d, &p, "efc_force", 0, d->efc_force, nefc)) {
    return;
  }
  checkJTf(m, d, &p);

  // absolute force tolerance: relative to the largest force
  mcNum big = 0;
  for (int i = 0; i < nefc; i++) {
    big = big > fabs(d->efc_force[i]) ? big : fabs(d->efc_force[i]);
  }
  mcNum tol = kRelTol * big + mcMINVAL;

  // rows, then elliptic cones (once per contact, at its first row); one failure per call
  for (int i = 0; i < nefc; i++) {
    if (!checkRow(d, &p, i, tol)) {
      return;
    }
    if (d->efc_type[i] == mcCNSTR_CONTACT_ELLIPTIC) {
      int c = d->efc_id[i];
      if (c >= 0 && c < d->ncon && d->contact[c].efc_address == i &&
          !checkEllipticCone(d, &p, c, tol)) {
        return;
      }
    }
  }
}


//---------------------------------- integrators ---------------------------------------------------

void mci_checkIntegrator(const mcModel* m, mcData* d, mcNum time0) {
  mciChecked p = {"integrator", m->integrator->hdr.name, mcTIMERPLUGIN_INTEGRATOR};
  allFinite(d, &p, "qpos", 0, d->qpos, m->nq);
  allFinite(d, &p, "qvel", 0, d->qvel, m->nv);
  allFinite(d, &p, "act", 0, d->act, m->na);
  if (d->time != time0 + m->opt.timestep) {
    fail(d, &p, "time advanced by %.17g, not by the timestep %.17g", (double)(d->time - time0),
         (double)m->opt.timestep);
  }
}


//---------------------------------- collision -----------------------------------------------------

static mcNum dot3(const mcNum* a, const mcNum* b) {
  return a[0]*b[0] + a[1]*b[1] + a[2]*b[2];
}


// the frame of one contact: unit normal; second axis zero (the core completes the frame) or a unit
// hint not parallel to the normal (the core orthogonalizes it); third axis zero or normal x the
// orthogonalized second axis (right-handed)
static int checkFrame(mcData* d, const mciChecked* p, int k, const mcNum* f) {
  mcNum nn = sqrt(dot3(f, f));
  if (fabs(nn - 1) > kUnitTol) {
    fail(d, p, "contact %d: normal (%g %g %g) has length %.9g, not 1", k, (double)f[0],
         (double)f[1], (double)f[2], (double)nn);
    return 0;
  }

  // second axis
  if (dot3(f + 3, f + 3) == 0) {
    if (dot3(f + 6, f + 6) != 0) {
      fail(d, p, "contact %d: third frame axis given without the second", k);
      return 0;
    }
    return 1;
  }
  mcNum c = dot3(f, f + 3);
  if (fabs(sqrt(dot3(f + 3, f + 3)) - 1) > kUnitTol || fabs(c) > 1 - kUnitTol) {
    fail(d, p, "contact %d: second frame axis (%g %g %g) is not a unit vector apart from the "
         "normal", k, (double)f[3], (double)f[4], (double)f[5]);
    return 0;
  }

  // third axis
  if (dot3(f + 6, f + 6) != 0) {
    mcNum t[3] = {f[3] - c*f[0], f[4] - c*f[1], f[5] - c*f[2]};
    mcNum tn = sqrt(dot3(t, t));
    mcNum e[3] = {f[6] - (f[1]*t[2] - f[2]*t[1]) / tn, f[7] - (f[2]*t[0] - f[0]*t[2]) / tn,
                  f[8] - (f[0]*t[1] - f[1]*t[0]) / tn};
    if (sqrt(dot3(e, e)) > kUnitTol) {
      fail(d, p, "contact %d: third frame axis (%g %g %g) is not normal x second axis "
           "(a right-handed orthonormal frame)", k, (double)f[6], (double)f[7], (double)f[8]);
      return 0;
    }
  }
  return 1;
}


void mci_checkCollision(const mcModel* m, mcData* d, int t1, int t2, const mcContact* con,
                        int num) {
  int k = mcp_collisionSlotFor(m, t1, t2);
  const mcpCollision* c = mcp_collision(k);
  mciChecked p = {"collision", c ? c->hdr.name : NULL, mcTIMERPLUGIN_COLLISION + (k >= 0 ? k : 0)};

  // count
  if (num < 0 || num > mcMAXCONPAIR) {
    fail(d, &p, "returned %d contacts for geom types %d-%d (allowed 0..%d)", num, t1, t2,
         mcMAXCONPAIR);
    return;
  }

  // every contact: finite fields, a proper frame
  for (int i = 0; i < num; i++) {
    const mcContact* ci = con + i;
    if (!allFinite(d, &p, "contact.dist", i, &ci->dist, 1) ||
        !allFinite(d, &p, "contact.pos", 3 * i, ci->pos, 3) ||
        !allFinite(d, &p, "contact.frame", 9 * i, ci->frame, 9) ||
        !checkFrame(d, &p, i, ci->frame)) {
      return;
    }
  }
}


//---------------------------------- actuators and sensors -----------------------------------------

// the plugin of element instance (actuator or sensor)
static mciChecked elementPlugin(const mcModel* m, const char* kind, int instance) {
  mciChecked p = {kind, m->plugin[instance]->name, mcp_elementSlot(m->plugin[instance])};
  return p;
}


void mci_checkActDot(const mcModel* m, mcData* d, int i) {
  mciChecked p = elementPlugin(m, "actuator", m->actuator_plugin[i]);
  int adr = m->actuator_actadr[i];
  allFinite(d, &p, "act_dot", adr, d->act_dot + adr, m->actuator_actnum[i]);
}


void mci_checkActForce(const mcModel* m, mcData* d, int i, mcNum f) {
  mciChecked p = elementPlugin(m, "actuator", m->actuator_plugin[i]);
  if (!isfinite(f)) {
    fail(d, &p, "force of actuator %d = %g is not finite", i, (double)f);
  }
}


void mci_computeSensorChecked(const mcpHost* host, const mcModel* m, mcData* d,
                              const mcpSensor* ps, int i, mcNum* out) {
  mciChecked p = elementPlugin(m, "sensor", m->sensor_plugin[i]);
  int dim = m->sensor_dim[i], g = MCI_CHECK_NGUARD;

  // scratch: guards, the slice as it is, guards
  mc_markStack(d);
  mcNum* buf = mcSTACKALLOC(d, (size_t)(dim + 2 * g), mcNum);
  if (!buf) {
    mc_freeStack(d);
    ps->compute(host, m, d, i, out);
    return;
  }
  for (int k = 0; k < g; k++) {
    buf[k] = buf[g + dim + k] = MCI_CHECK_GUARD;
  }
  memcpy(buf + g, out, sizeof(mcNum) * (size_t)dim);

  // compute, then check the guards and the outputs
  ps->compute(host, m, d, i, buf + g);
  for (int k = 0; k < g; k++) {
    if (buf[k] != MCI_CHECK_GUARD || buf[g + dim + k] != MCI_CHECK_GUARD) {
      int at = buf[k] != MCI_CHECK_GUARD ? k - g : dim + k;
      fail(d, &p, "sensor %d wrote outside its %d outputs (at offset %d)", i, dim, at);
      break;
    }
  }
  allFinite(d, &p, "sensordata", m->sensor_adr[i], buf + g, dim);
  memcpy(out, buf + g, sizeof(mcNum) * (size_t)dim);
  mc_freeStack(d);
}
