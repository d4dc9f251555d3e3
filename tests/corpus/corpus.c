// Real-model corpus: the measurements behind test_corpus.c (see corpus.h).
#include "corpus.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>
#include <moduco/moduco.h>

#include "conformance.h"
#include "corpus_list.h"
#include "testutil.h"

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


// Models whose body inertias come from mesh geoms. Moduco computes mesh inertia as MuJoCo 3.3.8
// (the mesh's own volume; tests/mesh/test_mesh_corpus.c checks these models' mass properties
// against 3.3.8), while MuJoCo 2.2.2 weighed each mesh geom as its equivalent inertia box: body
// masses differ by up to 29% (dm_dog) and 56% (menagerie_robotiq_2f85). To compare the dynamics
// with 2.2.2, Moduco compiles these models with 2.2.2's compiled body mass properties written
// into the text as an explicit <inertial> of every body (cp_inertialXml), so everything derived
// from them (subtree masses, dof_M0, invweight0, springdamper stiffness and damping ...) is still
// Moduco's own and still checked against 2.2.2. The other mesh models give their mesh bodies an
// explicit <inertial>, so they load unchanged
static const char* const cp_meshInertia[] = {"dm_dog", "menagerie_robotiq_2f85"};


// append printf text to a growing buffer (NULL on failure, the buffer freed)
static char* cp_cat(char* buf, size_t* len, size_t* cap, const char* fmt, ...) {
  if (!buf) {
    return NULL;
  }
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *len, *cap - *len, fmt, ap);
    va_end(ap);
    if (k < 0) {
      free(buf);
      return NULL;
    }
    if (*len + (size_t)k < *cap) {
      *len += (size_t)k;
      return buf;
    }
    *cap = 2 * (*cap + (size_t)k);
    char* grown = realloc(buf, *cap);
    if (!grown) {
      free(buf);
      return NULL;
    }
    buf = grown;
  }
}


// the MJCF text of file dir/name with every <include file="..."/> replaced by the children of the
// included file's <mujoco> element (paths relative to dir, as MuJoCo reads them; comments kept as
// they are); NULL (and the reason in err) on failure
static char* cp_expandIncludes(const char* dir, const char* name, char* err, int err_sz,
                               int depth) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  char* text = tu_readFile(path);
  if (!text || depth > 8) {
    snprintf(err, err_sz, "cannot read %.900s", path);
    free(text);
    return NULL;
  }
  size_t len = 0, cap = strlen(text) + 1;
  char* out = malloc(cap);
  if (out) {
    out[0] = 0;
  }
  const char* p = text;
  if (depth) {
    // an included file: the children of its root element only
    const char* root = strstr(p, "<mujoco");
    const char* open = root ? strchr(root, '>') : NULL;
    const char* close = strstr(p, "</mujoco>");
    if (!open || !close || close < open) {
      snprintf(err, err_sz, "%.900s: no <mujoco> element", path);
      free(out);
      free(text);
      return NULL;
    }
    p = open + 1;
    text[close - text] = 0;
  }
  while (*p && out) {
    if (!strncmp(p, "<!--", 4)) {
      const char* e = strstr(p, "-->");
      const char* stop = e ? e + 3 : p + strlen(p);
      out = cp_cat(out, &len, &cap, "%.*s", (int)(stop - p), p);
      p = stop;
    } else if (!strncmp(p, "<include", 8)) {
      const char* e = strchr(p, '>');
      const char* f = strstr(p, "file=\"");
      if (!e || !f || f > e) {
        snprintf(err, err_sz, "%.900s: malformed <include>", path);
        free(out);
        free(text);
        return NULL;
      }
      char inc[512];
      const char* q = strchr(f + 6, '"');
      snprintf(inc, sizeof(inc), "%.*s", q ? (int)(q - f - 6) : 0, f + 6);
      char* sub = cp_expandIncludes(dir, inc, err, err_sz, depth + 1);
      if (!sub) {
        free(out);
        free(text);
        return NULL;
      }
      out = cp_cat(out, &len, &cap, "%s", sub);
      free(sub);
      p = e + 1;
    } else {
      out = cp_cat(out, &len, &cap, "%c", *p++);
    }
  }
  free(text);
  if (!out) {
    snprintf(err, err_sz, "out of memory");
  }
  return out;
}


// the MJCF text with MuJoCo's compiled mass properties of body b as the first child of the b-th
// <body> element, and no other <inertial> (bodies are numbered in the order of the text, comments
// skipped); NULL (and the reason in err) if the bodies do not line up
static char* cp_inertialXml(const char* text, const mjModel* mj, char* err, int err_sz) {
  size_t len = 0, cap = strlen(text) + 256 * (size_t)mj->nbody + 1;
  char* out = malloc(cap);
  if (!out) {
    snprintf(err, err_sz, "out of memory");
    return NULL;
  }
  out[0] = 0;
  int b = 0;
  const char* p = text;
  while (*p) {
    if (!strncmp(p, "<!--", 4)) {
      const char* e = strstr(p, "-->");
      const char* stop = e ? e + 3 : p + strlen(p);
      out = cp_cat(out, &len, &cap, "%.*s", (int)(stop - p), p);
      p = stop;
      continue;
    }
    if (!strncmp(p, "<inertial", 9)) {
      const char* e = strstr(p, "/>");
      if (!e) {
        break;
      }
      p = e + 2;
      continue;
    }
    if (strncmp(p, "<body", 5) || !(p[5] == ' ' || p[5] == '\t' || p[5] == '\n' ||
                                     p[5] == '\r' || p[5] == '>' || p[5] == '/')) {
      out = cp_cat(out, &len, &cap, "%c", *p++);
      continue;
    }
    const char* e = strchr(p, '>');
    if (!e) {
      break;
    }
    if (++b >= mj->nbody) {
      break;
    }
    int empty = e[-1] == '/';
    out = cp_cat(out, &len, &cap, "%.*s>", (int)(e - p - empty), p);
    const double* q = mj->body_iquat + 4 * b;
    const double* ip = mj->body_ipos + 3 * b;
    const double* in = mj->body_inertia + 3 * b;
    out = cp_cat(out, &len, &cap, "<inertial pos=\"%.17g %.17g %.17g\" quat=\"%.17g %.17g %.17g "
                 "%.17g\" mass=\"%.17g\" diaginertia=\"%.17g %.17g %.17g\"/>%s", ip[0], ip[1],
                 ip[2], q[0], q[1], q[2], q[3], mj->body_mass[b], in[0], in[1], in[2],
                 empty ? "</body>" : "");
    p = e + 1;
  }
  if (!out || b != mj->nbody - 1 || *p) {
    snprintf(err, err_sz, "%d <body> elements found for the %d bodies of MuJoCo's model", b,
             mj->nbody - 1);
    free(out);
    return NULL;
  }
  return out;
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
  tu_legacy222Compile(1);  // compared with 2.2.2: its principal-axis rule (testutil.h)
  int copy = 0;
  for (size_t i = 0; i < sizeof(cp_meshInertia) / sizeof(cp_meshInertia[0]); i++) {
    copy |= !strcmp(model->name, cp_meshInertia[i]);
  }
  if (copy) {
    // MuJoCo 2.2.2's body mass properties (see cp_meshInertia)
    char dir[512];
    snprintf(dir, sizeof(dir), CP_CORPUS_DIR "%s", model->name);
    char* text = cp_expandIncludes(dir, model->file, err, sizeof(err), 0);
    char* xml = text ? cp_inertialXml(text, p->mj, err, sizeof(err)) : NULL;
    p->mc = xml ? mc_loadXMLString(xml, dir, err, sizeof(err)) : NULL;
    free(text);
    free(xml);

    // the exception must still be needed: Moduco's own masses differ from 2.2.2's
    char err2[1024] = "";
    mcModel* own = p->mc ? mc_loadXML(path, err2, sizeof(err2)) : NULL;
    double worst = 0;
    for (int b = 1; own && b < own->nbody && b < p->mj->nbody; b++) {
      worst = fmax(worst, fabs(own->body_mass[b] - p->mj->body_mass[b]) /
                              fmax(p->mj->body_mass[b], 1e-300));
    }
    if (p->mc && (!own || worst < 1e-9)) {
      snprintf(err, sizeof(err), "%s: %s", model->name, own ? "its body masses agree with "
               "MuJoCo 2.2.2's: drop it from cp_meshInertia" : err2);
      mc_deleteModel(p->mc);
      p->mc = NULL;
    }
    mc_deleteModel(own);
  } else {
    p->mc = mc_loadXML(path, err, sizeof(err));
  }
  tu_legacy222Compile(0);
  if (!p->mc) {
    snprintf(r->error, sizeof(r->error), "%s", err);
    return -1;
  }
  tu_legacyCollision(p->mc);
  tu_legacy222(p->mc);  // MuJoCo 2.2.2's rules where Moduco follows 3.14 (testutil.h)
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
