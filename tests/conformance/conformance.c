// Conformance harness: paired loading, random states and field comparison.
#include "conformance.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <moduco/mcplugin.h>

#include "plugin/registry.h"
#include "testutil.h"

const char* const conf_field_names[CONF_NFIELD] = {
  "xpos", "xquat", "qM", "qfrc_bias", "qfrc_passive", "qfrc_actuator", "qacc", "act_dot",
  "qpos", "qvel", "act",
};


//---------------------------------- model pairs ---------------------------------------------------

int conf_load(ConfPair* p, const char* name, const char* xml, const char* dir, char* error,
              int error_sz) {
  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof(p->name), "%s", name);

  // one temporary file read by both engines
  char path[1024];
  snprintf(path, sizeof(path), "%s/moduco-conf-XXXXXX.xml", dir ? dir : "/tmp");
  int fd = mkstemps(path, 4);
  if (fd < 0) {
    snprintf(error, error_sz, "%s: cannot create %s", name, path);
    return -1;
  }
  size_t len = strlen(xml);
  int ok = write(fd, xml, len) == (ssize_t)len;
  close(fd);
  if (!ok) {
    unlink(path);
    snprintf(error, error_sz, "%s: cannot write %s", name, path);
    return -1;
  }

  // load in both
  char err[1024] = "";
  p->mj = mj_loadXML(path, NULL, err, sizeof(err));
  if (!p->mj) {
    unlink(path);
    snprintf(error, error_sz, "%s: MuJoCo failed to load: %s", name, err);
    return -1;
  }
  err[0] = 0;
  tu_legacy222Compile(1);  // compared with 2.2.2: its principal-axis rule
  p->mc = mc_loadXML(path, err, sizeof(err));
  tu_legacy222Compile(0);
  unlink(path);
  if (!p->mc) {
    snprintf(error, error_sz, "%s: Moduco failed to load: %s", name, err);
    mj_deleteModel(p->mj);
    p->mj = NULL;
    return -1;
  }
  tu_legacy222(p->mc);
  tu_legacyWeldWeights(p->mc);
  tu_legacyCollision(p->mc);
  p->dj = mj_makeData(p->mj);
  p->dc = mc_makeData(p->mc);
  p->scratch = calloc(2 * (size_t)p->mj->nv * (size_t)p->mj->nv + 8, sizeof(double));
  if (!p->dj || !p->dc || !p->scratch) {
    snprintf(error, error_sz, "%s: out of memory", name);
    conf_free(p);
    return -1;
  }

  // the sizes must agree before anything else is compared
  const mjModel* a = p->mj;
  const mcModel* b = p->mc;
  const struct {
    const char* what;
    int mj, mc;
  } sizes[] = {
    {"nq", a->nq, b->nq}, {"nv", a->nv, b->nv}, {"nu", a->nu, b->nu}, {"na", a->na, b->na},
    {"nbody", a->nbody, b->nbody}, {"njnt", a->njnt, b->njnt}, {"ngeom", a->ngeom, b->ngeom},
    {"nM", a->nM, b->nM},
  };
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    if (sizes[i].mj != sizes[i].mc) {
      snprintf(error, error_sz, "%s: size %s differs: moduco %d, mujoco %d", name, sizes[i].what,
               sizes[i].mc, sizes[i].mj);
      conf_free(p);
      return -1;
    }
  }
  return 0;
}


void conf_free(ConfPair* p) {
  // report the worst errors
  const char* report = getenv("MODUCO_CONF_REPORT");
  FILE* f = report && p->mc ? fopen(report, "a") : NULL;
  if (f) {
    for (int i = 0; i < CONF_NFIELD; i++) {
      const ConfStat* s = p->stat + i;
      if (s->count) {
        fprintf(f, "%s %s %.3e %d %.17g %.17g %d\n", p->name, conf_field_names[i], s->err,
                s->index, s->got, s->ref, s->count);
      }
    }
    fclose(f);
  }

  // free
  mc_deleteData(p->dc);
  mc_deleteModel(p->mc);
  if (p->dj) {
    mj_deleteData(p->dj);
  }
  if (p->mj) {
    mj_deleteModel(p->mj);
  }
  free(p->scratch);
  memset(p, 0, sizeof(*p));
}


void conf_randomState(ConfPair* p, ConfRng* r) {
  const mjModel* m = p->mj;
  mjData* d = p->dj;
  mj_resetData(m, d);

  // positions by joint type
  for (int j = 0; j < m->njnt; j++) {
    double* q = d->qpos + m->jnt_qposadr[j];
    switch (m->jnt_type[j]) {
    case mjJNT_FREE:
      for (int k = 0; k < 3; k++) {
        q[k] = conf_uniform(r, -1, 1);
      }
      conf_quat(r, q + 3);
      break;
    case mjJNT_BALL:
      conf_quat(r, q);
      break;
    case mjJNT_SLIDE:
      q[0] = conf_uniform(r, -0.5, 0.5);
      break;
    default:
      q[0] = conf_uniform(r, -1.5, 1.5);
      break;
    }
  }

  // velocities, activations, forces
  for (int i = 0; i < m->nv; i++) {
    d->qvel[i] = conf_uniform(r, -1.5, 1.5);
    d->qfrc_applied[i] = conf_uniform(r, -0.5, 0.5);
  }
  for (int i = 0; i < m->na; i++) {
    d->act[i] = conf_uniform(r, -1, 1);
  }

  // controls: a third of the range beyond each limit, to exercise clamping
  for (int i = 0; i < m->nu; i++) {
    double lo = -1, hi = 1;
    if (m->actuator_ctrllimited[i]) {
      double w = m->actuator_ctrlrange[2 * i + 1] - m->actuator_ctrlrange[2 * i];
      lo = m->actuator_ctrlrange[2 * i] - w / 3;
      hi = m->actuator_ctrlrange[2 * i + 1] + w / 3;
    }
    d->ctrl[i] = conf_uniform(r, lo, hi);
  }

  // the same state in Moduco
  mcData* c = p->dc;
  mc_resetData(p->mc, c);
  memcpy(c->qpos, d->qpos, sizeof(double) * m->nq);
  memcpy(c->qvel, d->qvel, sizeof(double) * m->nv);
  memcpy(c->act, d->act, sizeof(double) * m->na);
  memcpy(c->ctrl, d->ctrl, sizeof(double) * m->nu);
  memcpy(c->qfrc_applied, d->qfrc_applied, sizeof(double) * m->nv);
  c->time = d->time = 0;
}


int conf_sensorType(int mjtype) {
  if (mjtype >= mjSENS_JOINTPOS && mjtype <= mjSENS_ACTUATORFRC) {
    return mjtype + 1;
  }
  if (mjtype > mjSENS_ACTUATORFRC) {
    return mjtype + 2;
  }
  return mjtype;
}


void conf_copyInertia(ConfPair* p) {
  size_t nbody = (size_t)p->mj->nbody;
  memcpy(p->mc->body_mass, p->mj->body_mass, sizeof(double) * nbody);
  memcpy(p->mc->body_ipos, p->mj->body_ipos, sizeof(double) * 3 * nbody);
  memcpy(p->mc->body_iquat, p->mj->body_iquat, sizeof(double) * 4 * nbody);
  memcpy(p->mc->body_inertia, p->mj->body_inertia, sizeof(double) * 3 * nbody);
}


int conf_setIntegrator(ConfPair* p, int mjint, char* error, int error_sz) {
  const char* name = mjint == mjINT_RK4 ? "RK4" : "Euler";
  const mcpHeader* h = mcp_find(mcpKIND_INTEGRATOR, name);
  if (!h) {
    char avail[512] = "";
    mcp_listNames(mcpKIND_INTEGRATOR, avail, sizeof(avail));
    snprintf(error, error_sz, "%s: no Moduco integrator plugin '%s' (available: %s)", p->name,
             name, avail);
    return -1;
  }
  p->mc->integrator = (const mcpIntegrator*)h;
  p->mc->opt.integrator = mjint == mjINT_RK4 ? mcINT_RK4 : mcINT_EULER;
  snprintf(p->mc->opt.integrator_name, sizeof(p->mc->opt.integrator_name), "%s", name);
  p->mj->opt.integrator = mjint;
  return 0;
}


int conf_compare(ConfPair* p, ConfField f, const char* label, const double* got,
                 const double* ref, int n, double tol, char* msg, int msg_sz) {
  // worst relative error
  double worst = -1;
  int at = -1;
  for (int i = 0; i < n; i++) {
    double e;
    if (isnan(got[i]) || isnan(ref[i])) {
      e = isnan(got[i]) && isnan(ref[i]) ? 0 : INFINITY;
    } else {
      double scale = fabs(ref[i]) > 1 ? fabs(ref[i]) : 1;
      e = fabs(got[i] - ref[i]) / scale;
    }
    if (e > worst) {
      worst = e;
      at = i;
    }
  }
  if (at < 0) {
    return 1;
  }

  // statistics
  ConfStat* s = p->stat + f;
  s->count += n;
  if (worst > s->err || s->count == n) {
    s->err = worst;
    s->index = at;
    s->got = got[at];
    s->ref = ref[at];
  }
  if (worst <= tol) {
    return 1;
  }

  // message
  size_t len = strlen(msg);
  if ((int)len < msg_sz) {
    snprintf(msg + len, msg_sz - len, "%s%s %s: %s[%d] moduco=%.17g mujoco=%.17g relerr=%.3e "
             "> %.0e", len ? "\n" : "", p->name, label, conf_field_names[f], at, got[at], ref[at],
             worst, tol);
  }
  return 0;
}


int conf_forwardCompare(ConfPair* p, const char* label, double tol, char* msg, int msg_sz) {
  const mjModel* mj = p->mj;
  mj_forward(p->mj, p->dj);
  mc_forward(p->mc, p->dc);
  const mjData* a = p->dj;
  const mcData* b = p->dc;
  int nv = mj->nv;
  int fail = 0;

  // kinematics
  fail += !conf_compare(p, CONF_XPOS, label, b->xpos, a->xpos, 3 * mj->nbody, tol, msg, msg_sz);
  fail += !conf_compare(p, CONF_XQUAT, label, b->xquat, a->xquat, 4 * mj->nbody, tol, msg,
                        msg_sz);

  // dense inertia
  double* mc_dense = p->scratch;
  double* mj_dense = p->scratch + (size_t)nv * nv;
  mc_fullM(p->mc, mc_dense, b->qM);
  mj_fullM(mj, mj_dense, a->qM);
  fail += !conf_compare(p, CONF_QM, label, mc_dense, mj_dense, nv * nv, tol, msg, msg_sz);

  // forces and accelerations
  fail += !conf_compare(p, CONF_QFRC_BIAS, label, b->qfrc_bias, a->qfrc_bias, nv, tol, msg,
                        msg_sz);
  fail += !conf_compare(p, CONF_QFRC_PASSIVE, label, b->qfrc_passive, a->qfrc_passive, nv, tol,
                        msg, msg_sz);
  fail += !conf_compare(p, CONF_QFRC_ACTUATOR, label, b->qfrc_actuator, a->qfrc_actuator, nv,
                        tol, msg, msg_sz);
  fail += !conf_compare(p, CONF_QACC, label, b->qacc, a->qacc, nv, tol, msg, msg_sz);
  fail += !conf_compare(p, CONF_ACT_DOT, label, b->act_dot, a->act_dot, mj->na, tol, msg,
                        msg_sz);
  return fail;
}


int conf_trajectoryCompare(ConfPair* p, int nstep, double tol, char* msg, int msg_sz) {
  const mjModel* mj = p->mj;
  for (int i = 0; i < nstep; i++) {
    mj_step(p->mj, p->dj);
    mc_step(p->mc, p->dc);

    // compare after every step, stop at the first failure
    char label[64];
    snprintf(label, sizeof(label), "step %d", i + 1);
    int fail = 0;
    fail += !conf_compare(p, CONF_QPOS, label, p->dc->qpos, p->dj->qpos, mj->nq, tol, msg,
                          msg_sz);
    fail += !conf_compare(p, CONF_QVEL, label, p->dc->qvel, p->dj->qvel, mj->nv, tol, msg,
                          msg_sz);
    fail += !conf_compare(p, CONF_ACT, label, p->dc->act, p->dj->act, mj->na, tol, msg, msg_sz);
    if (fail) {
      return fail;
    }
  }
  return 0;
}
