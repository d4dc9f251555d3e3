// Real-model corpus: the measurements behind test_corpus.c (see corpus.h).
#include "corpus.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>
#include <moduco/moduco.h>

#include "conformance.h"
#include "corpus_list.h"

const char* const cp_check_names[CP_NCHECK] = {
  "load", "sizes", "model", "qM", "qfrc_bias", "qfrc_passive", "qfrc_actuator", "qacc",
  "sensordata", "ncon@0", "nefc@0", "qacc@0", "ncon@100", "nefc@100", "qacc@100", "finite",
  "trajectory",
};

const CpModel cp_models[] = {
#define MC_CORPUS_ENTRY(folder, file) {folder, file},
  MC_CORPUS_MODELS(MC_CORPUS_ENTRY)
#undef MC_CORPUS_ENTRY
};
const int cp_model_count = (int)(sizeof(cp_models) / sizeof(cp_models[0]));

// default bounds: exact agreement of counts, 1e-9 for model fields and contact-free forward,
// 1e-6 for qacc with contacts (solver tolerance), 1e-7 for contact-free trajectories
static const double cp_default[CP_NCHECK] = {
  0, 0, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 0, 0, 1e-6, 0, 0, 1e-6, 0, 1e-7,
};

// random states per model in the contact-free forward check
#define CP_NSTATE 5

// MuJoCo steps before the second contact comparison, and trajectory length
#define CP_NSETTLE 100
#define CP_NTRAJ 200


//---------------------------------- helpers -------------------------------------------------------

// worst relative error |a-b| / max(1, |b|) of n values; keep it in *meas if larger
static void cp_relerr(CpMeasure* meas, const char* label, const char* field, const double* got,
                      const double* ref, int n) {
  for (int i = 0; i < n; i++) {
    double e;
    if (!isfinite(got[i]) || !isfinite(ref[i])) {
      e = got[i] == ref[i] ? 0 : INFINITY;
    } else {
      double scale = fabs(ref[i]) > 1 ? fabs(ref[i]) : 1;
      e = fabs(got[i] - ref[i]) / scale;
    }
    if (e > meas->value || (e == INFINITY && meas->value != INFINITY)) {
      meas->value = e;
      snprintf(meas->where, sizeof(meas->where), "%s %s[%d]: moduco %.17g mujoco %.17g", label,
               field, i, got[i], ref[i]);
    }
  }
}


// keep the larger count difference
static void cp_countdiff(CpMeasure* meas, const char* label, int got, int ref) {
  double e = abs(got - ref);
  if (e > meas->value || !meas->where[0]) {
    meas->value = e;
    snprintf(meas->where, sizeof(meas->where), "%s: moduco %d mujoco %d", label, got, ref);
  }
}


// are all values finite
static int cp_finite(const double* x, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(x[i])) {
      return 0;
    }
  }
  return 1;
}


// copy MuJoCo's state (and warmstart) into Moduco
static void cp_copyState(ConfPair* p) {
  const mjModel* m = p->mj;
  const mjData* a = p->dj;
  mcData* b = p->dc;
  memcpy(b->qpos, a->qpos, sizeof(double) * m->nq);
  memcpy(b->qvel, a->qvel, sizeof(double) * m->nv);
  memcpy(b->act, a->act, sizeof(double) * m->na);
  memcpy(b->ctrl, a->ctrl, sizeof(double) * m->nu);
  memcpy(b->qfrc_applied, a->qfrc_applied, sizeof(double) * m->nv);
  memcpy(b->qacc_warmstart, a->qacc_warmstart, sizeof(double) * m->nv);
  memcpy(b->mocap_pos, a->mocap_pos, sizeof(double) * 3 * m->nmocap);
  memcpy(b->mocap_quat, a->mocap_quat, sizeof(double) * 4 * m->nmocap);
  b->time = a->time;
}


// reset both engines to the model's initial state: keyframe 0 if any, else qpos0
static void cp_initialState(ConfPair* p) {
  if (p->mj->nkey > 0) {
    mj_resetDataKeyframe(p->mj, p->dj, 0);
  } else {
    mj_resetData(p->mj, p->dj);
  }
  mc_resetData(p->mc, p->dc);
  cp_copyState(p);
}


// load one model in both engines from its file
static int cp_load(ConfPair* p, const CpModel* model, CpResult* r) {
  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof(p->name), "%s", model->name);
  char path[512];
  snprintf(path, sizeof(path), CP_CORPUS_DIR "%s/%s", model->name, model->file);
  char err[1024] = "";
  p->mj = mj_loadXML(path, NULL, err, sizeof(err));
  if (!p->mj) {
    snprintf(r->error, sizeof(r->error), "MuJoCo 2.2.2 failed to load %s: %s", path, err);
    return -1;
  }
  err[0] = 0;
  p->mc = mc_loadXML(path, err, sizeof(err));
  if (!p->mc) {
    snprintf(r->error, sizeof(r->error), "%s", err);
    return -1;
  }
  p->dj = mj_makeData(p->mj);
  p->dc = mc_makeData(p->mc);
  p->scratch = calloc(2 * (size_t)p->mj->nv * (size_t)p->mj->nv + 8, sizeof(double));
  if (!p->dj || !p->dc || !p->scratch) {
    snprintf(r->error, sizeof(r->error), "out of memory");
    return -1;
  }
  return 0;
}


//---------------------------------- checks --------------------------------------------------------

// (b) sizes; return the number that differ
static int cp_sizes(const ConfPair* p, CpResult* r) {
  const mjModel* a = p->mj;
  const mcModel* b = p->mc;
  const struct {
    const char* what;
    int mj, mc;
  } sizes[] = {
    {"nq", a->nq, b->nq}, {"nv", a->nv, b->nv}, {"nu", a->nu, b->nu}, {"na", a->na, b->na},
    {"nbody", a->nbody, b->nbody}, {"njnt", a->njnt, b->njnt}, {"ngeom", a->ngeom, b->ngeom},
    {"nsite", a->nsite, b->nsite}, {"ntendon", a->ntendon, b->ntendon}, {"neq", a->neq, b->neq},
    {"nsensordata", a->nsensordata, b->nsensordata}, {"nM", a->nM, b->nM},
    {"nmocap", a->nmocap, b->nmocap}, {"nkey", a->nkey, b->nkey},
  };
  CpMeasure* meas = r->m + CP_SIZES;
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    if (sizes[i].mj != sizes[i].mc) {
      meas->value++;
      size_t len = strlen(meas->where);
      snprintf(meas->where + len, sizeof(meas->where) - len, "%s %d/%d ", sizes[i].what,
               sizes[i].mc, sizes[i].mj);
    }
  }
  return (int)meas->value;
}


// model fields that the compiler derives (springdamper, dampratio, M0 ...), one to one
static void cp_modelFields(const ConfPair* p, CpResult* r) {
  const mjModel* a = p->mj;
  const mcModel* b = p->mc;
  CpMeasure* meas = r->m + CP_MODEL;
  cp_relerr(meas, "model", "body_mass", b->body_mass, a->body_mass, a->nbody);
  cp_relerr(meas, "model", "qpos0", b->qpos0, a->qpos0, a->nq);
  cp_relerr(meas, "model", "qpos_spring", b->qpos_spring, a->qpos_spring, a->nq);
  cp_relerr(meas, "model", "jnt_stiffness", b->jnt_stiffness, a->jnt_stiffness, a->njnt);
  cp_relerr(meas, "model", "dof_damping", b->dof_damping, a->dof_damping, a->nv);
  cp_relerr(meas, "model", "dof_armature", b->dof_armature, a->dof_armature, a->nv);
  cp_relerr(meas, "model", "dof_frictionloss", b->dof_frictionloss, a->dof_frictionloss, a->nv);
  cp_relerr(meas, "model", "dof_M0", b->dof_M0, a->dof_M0, a->nv);
  cp_relerr(meas, "model", "dof_invweight0", b->dof_invweight0, a->dof_invweight0, a->nv);
  cp_relerr(meas, "model", "actuator_gear", b->actuator_gear, a->actuator_gear, 6 * a->nu);
  cp_relerr(meas, "model", "tendon_length0", b->tendon_length0, a->tendon_length0, a->ntendon);
  cp_relerr(meas, "model", "actuator_length0", b->actuator_length0, a->actuator_length0, a->nu);
  for (int i = 0; i < a->nu; i++) {
    char label[64];
    snprintf(label, sizeof(label), "model actuator %d", i);
    cp_relerr(meas, label, "gainprm", b->actuator_gainprm + mcNGAIN * i,
              a->actuator_gainprm + mjNGAIN * i, 3);
    cp_relerr(meas, label, "biasprm", b->actuator_biasprm + mcNBIAS * i,
              a->actuator_biasprm + mjNBIAS * i, 3);
  }
}


// (c) forward at random states with contacts and constraints disabled
static void cp_forwardFree(ConfPair* p, const CpModel* model, CpResult* r) {
  int mjflags = p->mj->opt.disableflags, mcflags = p->mc->opt.disableflags;
  p->mj->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT;
  p->mc->opt.disableflags |= mcDSBL_CONTACT | mcDSBL_CONSTRAINT;
  ConfRng rng;
  conf_seed(&rng, 1234567);
  for (const char* s = model->name; *s; s++) {
    rng.s = rng.s * 31 + (unsigned char)*s;
  }
  int nv = p->mj->nv;
  for (int k = 0; k < CP_NSTATE; k++) {
    char label[64];
    snprintf(label, sizeof(label), "random state %d", k);
    conf_randomState(p, &rng);
    mj_forward(p->mj, p->dj);
    mc_forward(p->mc, p->dc);
    const mjData* a = p->dj;
    const mcData* b = p->dc;
    double* mc_dense = p->scratch;
    double* mj_dense = p->scratch + (size_t)nv * nv;
    mc_fullM(p->mc, mc_dense, b->qM);
    mj_fullM(p->mj, mj_dense, a->qM);
    cp_relerr(r->m + CP_QM, label, "qM", mc_dense, mj_dense, nv * nv);
    cp_relerr(r->m + CP_QFRC_BIAS, label, "qfrc_bias", b->qfrc_bias, a->qfrc_bias, nv);
    cp_relerr(r->m + CP_QFRC_PASSIVE, label, "qfrc_passive", b->qfrc_passive, a->qfrc_passive,
              nv);
    cp_relerr(r->m + CP_QFRC_ACTUATOR, label, "qfrc_actuator", b->qfrc_actuator,
              a->qfrc_actuator, nv);
    cp_relerr(r->m + CP_QACC, label, "qacc", b->qacc, a->qacc, nv);
    cp_relerr(r->m + CP_SENSORDATA, label, "sensordata", b->sensordata, a->sensordata,
              p->mj->nsensordata);
  }
  p->mj->opt.disableflags = mjflags;
  p->mc->opt.disableflags = mcflags;
}


// (d) one forward of both engines with contacts on the state MuJoCo holds
static void cp_forwardContact(ConfPair* p, CpResult* r, int slot, CpCheck ncon, CpCheck nefc,
                              CpCheck qacc, const char* label) {
  cp_copyState(p);
  mj_forward(p->mj, p->dj);
  mc_forward(p->mc, p->dc);
  r->ncon_mj[slot] = p->dj->ncon;
  r->ncon_mc[slot] = p->dc->ncon;
  r->nefc_mj[slot] = p->dj->nefc;
  r->nefc_mc[slot] = p->dc->nefc;
  cp_countdiff(r->m + ncon, label, p->dc->ncon, p->dj->ncon);
  cp_countdiff(r->m + nefc, label, p->dc->nefc, p->dj->nefc);
  cp_relerr(r->m + qacc, label, "qacc", p->dc->qacc, p->dj->qacc, p->mj->nv);
}


// (d) at the initial state, then after CP_NSETTLE MuJoCo steps
static void cp_contacts(ConfPair* p, CpResult* r) {
  cp_initialState(p);
  cp_forwardContact(p, r, 0, CP_NCON0, CP_NEFC0, CP_QACC0, "initial state");
  for (int i = 0; i < CP_NSETTLE; i++) {
    mj_step(p->mj, p->dj);
  }
  cp_forwardContact(p, r, 1, CP_NCON100, CP_NEFC100, CP_QACC100, "after 100 MuJoCo steps");
}


// (e) each engine steps itself from the initial state
static void cp_trajectory(ConfPair* p, CpResult* r) {
  cp_initialState(p);
  const mjModel* m = p->mj;
  r->contact_free = 1;
  CpMeasure* fin = r->m + CP_FINITE;
  for (int i = 0; i < CP_NTRAJ; i++) {
    mj_step(p->mj, p->dj);
    int resets = p->dc->warning[mcWARN_BADQACC].number + p->dc->warning[mcWARN_BADQVEL].number +
                 p->dc->warning[mcWARN_BADQPOS].number;
    mc_step(p->mc, p->dc);
    int reset = p->dc->warning[mcWARN_BADQACC].number + p->dc->warning[mcWARN_BADQVEL].number +
                p->dc->warning[mcWARN_BADQPOS].number > resets;
    if (p->dj->ncon > 0) {
      r->contact_free = 0;
    }
    if (p->dj->nefc > r->nefc_max) {
      r->nefc_max = p->dj->nefc;
    }

    // finite states, no divergence reset
    int bad_mc = reset || !cp_finite(p->dc->qpos, m->nq) || !cp_finite(p->dc->qvel, m->nv) ||
                 !cp_finite(p->dc->act, m->na);
    int bad_mj = !cp_finite(p->dj->qpos, m->nq) || !cp_finite(p->dj->qvel, m->nv) ||
                 !cp_finite(p->dj->act, m->na);
    if (bad_mc || bad_mj) {
      fin->value++;
      if (!fin->where[0]) {
        snprintf(fin->where, sizeof(fin->where), "step %d: %s%s", i + 1,
                 bad_mc ? "moduco not finite or reset " : "", bad_mj ? "mujoco not finite" : "");
      }
    }

    // agreement
    char label[64];
    snprintf(label, sizeof(label), "step %d", i + 1);
    cp_relerr(r->m + CP_TRAJ, label, "qpos", p->dc->qpos, p->dj->qpos, m->nq);
    cp_relerr(r->m + CP_TRAJ, label, "qvel", p->dc->qvel, p->dj->qvel, m->nv);
    cp_relerr(r->m + CP_TRAJ, label, "act", p->dc->act, p->dj->act, m->na);
  }
}


//---------------------------------- public --------------------------------------------------------

void cp_measure(const CpModel* model, CpResult* r) {
  memset(r, 0, sizeof(*r));
  ConfPair p;
  if (cp_load(&p, model, r)) {
    r->m[CP_LOAD].value = 1;
    snprintf(r->m[CP_LOAD].where, sizeof(r->m[CP_LOAD].where), "%.159s", r->error);
    conf_free(&p);
    return;
  }
  if (cp_sizes(&p, r)) {
    conf_free(&p);
    return;
  }
  cp_modelFields(&p, r);
  cp_forwardFree(&p, model, r);
  cp_contacts(&p, r);
  cp_trajectory(&p, r);
  conf_free(&p);
}


double cp_limit(const char* model, CpCheck check, const char** why) {
  for (int i = 0; i < cp_exception_count; i++) {
    if (cp_exceptions[i].check == check && !strcmp(cp_exceptions[i].model, model)) {
      if (why) {
        *why = cp_exceptions[i].why;
      }
      return cp_exceptions[i].limit;
    }
  }
  if (why) {
    *why = NULL;
  }
  return cp_default[check];
}


int cp_applies(const CpResult* r, CpCheck check) {
  return check != CP_TRAJ || r->contact_free;
}
