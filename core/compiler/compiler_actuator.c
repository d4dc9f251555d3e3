// Moduco core: <actuator>: built-in shortcuts, transmissions, limits and actuator plugins.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "plugin/registry.h"


// attributes the core handles for every actuator (plugins see the others)
static const char* const mcc_coreActAttr =
  "name class group ctrllimited forcelimited actlimited ctrlrange forcerange actrange "
  "lengthrange gear cranklength user joint jointinparent tendon cranksite slidersite site "
  "refsite body actearly";

// resolve a limited flag against its range
static int mcc_actLimited(mcc* c, const mcxElem* e, int limited, int has_range, const mcNum* r,
                          const char* what) {
  if (limited == MCC_AUTO) {
    if (mcc_scope(c, e)->autolimits) {
      limited = has_range;
    } else if (has_range) {
      mcc_error(c, e, "actuator has %s but no '%slimited' attribute and autolimits is false", what,
                what[0] == 'c' ? "ctrl" : what[0] == 'f' ? "force" : "act");
    } else {
      limited = 0;
    }
  }
  if (limited && !(r[0] < r[1])) {
    mcc_error(c, e, "invalid %s [%g, %g]: the lower bound must be smaller than the upper", what,
              r[0], r[1]);
  }
  return limited;
}

// the transmission: exactly one target
static void mcc_transmission(mcc* c, const mcxElem* e, mccActObj* a) {
  static const char* const keys[6] = {"joint", "jointinparent", "tendon", "site", "body",
                                      "cranksite"};
  int which = -1;
  for (int i = 0; i < 6; i++) {
    if (mcx_attr(e, keys[i])) {
      if (which >= 0) {
        mcc_error(c, e, "actuator has more than one transmission ('%s' and '%s')", keys[which],
                  keys[i]);
      }
      which = i;
    }
  }
  a->trnid[0] = a->trnid[1] = -1;
  switch (which) {
  case 0:
    a->trntype = mcTRN_JOINT;
    a->trnid[0] = mcc_lookup(c, e, "joint", mcOBJ_JOINT, 1);
    break;
  case 1:
    a->trntype = mcTRN_JOINTINPARENT;
    a->trnid[0] = mcc_lookup(c, e, "jointinparent", mcOBJ_JOINT, 1);
    break;
  case 2:
    a->trntype = mcTRN_TENDON;
    a->trnid[0] = mcc_lookup(c, e, "tendon", mcOBJ_TENDON, 1);
    break;
  case 3:
    a->trntype = mcTRN_SITE;
    a->trnid[0] = mcc_lookup(c, e, "site", mcOBJ_SITE, 1);
    a->trnid[1] = mcc_lookup(c, e, "refsite", mcOBJ_SITE, 0);
    break;
  case 4:
    a->trntype = mcTRN_BODY;
    a->trnid[0] = mcc_lookup(c, e, "body", mcOBJ_BODY, 1);
    break;
  case 5:
    a->trntype = mcTRN_SLIDERCRANK;
    a->trnid[0] = mcc_lookup(c, e, "cranksite", mcOBJ_SITE, 1);
    a->trnid[1] = mcc_lookup(c, e, "slidersite", mcOBJ_SITE, 1);
    if (!(a->s.cranklength > 0)) {
      mcc_error(c, e, "slider-crank actuator requires a positive 'cranklength'");
    }
    break;
  default:
    mcc_error(c, e, "actuator <%s> has no transmission (joint, jointinparent, tendon, site, body "
              "or cranksite)", e->name);
  }
  if (which != 3 && mcx_attr(e, "refsite")) {
    mcc_error(c, e, "attribute 'refsite' requires a 'site' transmission");
  }
  if (which != 5 && mcx_attr(e, "slidersite")) {
    mcc_error(c, e, "attribute 'slidersite' requires a 'cranksite' transmission");
  }
  if (a->trntype == mcTRN_JOINTINPARENT) {
    int jt = MCC_AT(c->joints, mccJointObj, a->trnid[0])->s.type;
    if (jt != mcJNT_FREE && jt != mcJNT_BALL) {
      mcc_error(c, e, "'jointinparent' requires a ball or free joint");
    }
  }
}

// a plugin actuator: core attributes into the spec, configuration keys into its instance, the
// plugin's own attributes through its compile callback
// (inst: an <extension> instance bound to the element, or -1 to make one)
static void mcc_pluginActuator(mcc* c, const mcxElem* e, const mcpActuator* pa, mccActObj* a,
                               int inst) {
  char allowed[2048];
  mcc_pluginAllowed(c, e, &pa->hdr, mcc_coreActAttr, pa->attributes, inst < 0, allowed,
                    sizeof(allowed));
  mcc_checkAttrs(c, e, allowed);
  a->plugin = inst >= 0 ? inst : mcc_addInstance(c, &pa->hdr, mcOBJ_ACTUATOR, c->actuators.n,
                                                 NULL, e);
  const char* keys[64];
  const char* vals[64];
  int nown = mcc_pluginAttrs(c, e, a->plugin, mcc_coreActAttr, pa->attributes, 1, keys, vals,
                             64);
  mcc_configChildren(c, a->plugin, e);
  mcc_configDone(c, a->plugin, e);

  // core attributes: read through the <general> reader restricted to the common subset
  mcxElem copy = *e;
  char* filtered[128];
  int nf = 0;
  for (int i = 0; i < e->nattr && nf < 126; i++) {
    if (mcc_wordIn(mcc_coreActAttr, e->attr[2 * i])) {
      filtered[nf++] = e->attr[2 * i];
      filtered[nf++] = e->attr[2 * i + 1];
    }
  }
  copy.attr = filtered;
  copy.nattr = nf / 2;
  copy.name = (char*)"general";
  mcc_readActuator(c, &copy, &a->s, 0);

  // the plugin's compile callback
  mcpActuatorSpec spec;
  memset(&spec, 0, sizeof(spec));
  spec.dyntype = a->s.dyntype;
  spec.gaintype = a->s.gaintype;
  spec.biastype = a->s.biastype;
  spec.actnum = 0;
  spec.ctrllimited = a->s.ctrllimited;
  spec.forcelimited = a->s.forcelimited;
  spec.actlimited = a->s.actlimited;
  spec.actearly = a->s.actearly;
  memcpy(spec.dynprm, a->s.dynprm, sizeof(spec.dynprm));
  memcpy(spec.gainprm, a->s.gainprm, sizeof(spec.gainprm));
  memcpy(spec.biasprm, a->s.biasprm, sizeof(spec.biasprm));
  memcpy(spec.ctrlrange, a->s.ctrlrange, sizeof(spec.ctrlrange));
  memcpy(spec.forcerange, a->s.forcerange, sizeof(spec.forcerange));
  memcpy(spec.actrange, a->s.actrange, sizeof(spec.actrange));
  mcpAttributes attr = {nown, keys, vals, e->file, e->line};
  char perr[512] = "";
  if (!pa->compile) {
    mcc_error(c, e, "actuator plugin '%s' has no compile callback", pa->hdr.name);
  }
  if (pa->compile(mcp_host(), &attr, &spec, perr, sizeof(perr))) {
    mcc_pluginFail(c, e, perr);
  }
  a->s.dyntype = spec.dyntype;
  a->s.gaintype = spec.gaintype;
  a->s.biastype = spec.biastype;
  a->s.ctrllimited = spec.ctrllimited;
  a->s.forcelimited = spec.forcelimited;
  a->s.actlimited = spec.actlimited;
  a->s.actearly = spec.actearly;
  memcpy(a->s.dynprm, spec.dynprm, sizeof(spec.dynprm));
  memcpy(a->s.gainprm, spec.gainprm, sizeof(spec.gainprm));
  memcpy(a->s.biasprm, spec.biasprm, sizeof(spec.biasprm));
  memcpy(a->s.ctrlrange, spec.ctrlrange, sizeof(spec.ctrlrange));
  memcpy(a->s.forcerange, spec.forcerange, sizeof(spec.forcerange));
  memcpy(a->s.actrange, spec.actrange, sizeof(spec.actrange));
  if (spec.actnum < 0) {
    mcc_error(c, e, "actuator plugin '%s' returned a negative actnum", pa->hdr.name);
  }
  a->actnum = spec.actnum;

  // ABI 1.1 fields: post-clamp drag and rotor inertia (plugins of ABI 1.0 leave them 0)
  for (int k = 0; k < 3; k++) {
    if (!isfinite(spec.damping[k]) || spec.damping[k] < 0) {
      mcc_error(c, e, "actuator plugin '%s' returned a negative or bad damping", pa->hdr.name);
    }
    a->damping[k] = spec.damping[k];
  }
  if (!isfinite(spec.armature) || spec.armature < 0) {
    mcc_error(c, e, "actuator plugin '%s' returned a negative or bad armature", pa->hdr.name);
  }
  a->armature = spec.armature;
}


// inheritrange (position: ctrlrange, intvelocity: actrange) from the joint's or tendon's range:
// the same midpoint, the half-width scaled by inheritrange
static void mcc_inheritRange(mcc* c, const mcxElem* e, mccActObj* a) {
  int pos = !strcmp(e->name, "position"), intvel = !strcmp(e->name, "intvelocity");
  if (!(pos || intvel) || !(a->s.inheritrange > 0)) {
    return;
  }
  const char* key = pos ? "ctrlrange" : "actrange";
  if (mcx_attr(e, key)) {
    mcc_error(c, e, "attributes 'inheritrange' and '%s' cannot both be set", key);
  }
  const mcNum* r = NULL;
  if (a->trntype == mcTRN_JOINT || a->trntype == mcTRN_JOINTINPARENT) {
    const mccJointObj* j = MCC_AT(c->joints, mccJointObj, a->trnid[0]);
    if (j->s.has_range && j->s.limited != MCC_FALSE) {
      r = j->s.range;
    }
  } else if (a->trntype == mcTRN_TENDON) {
    const mccTendonObj* t = MCC_AT(c->tendons, mccTendonObj, a->trnid[0]);
    if (t->s.has_range && t->s.limited != MCC_FALSE) {
      r = t->s.range;
    }
  } else {
    mcc_error(c, e, "attribute 'inheritrange' needs a joint or tendon transmission");
  }
  if (!r || !(r[0] < r[1])) {
    mcc_error(c, e, "attribute 'inheritrange': the target of <%s> has no range", e->name);
  }
  mcNum mid = 0.5 * (r[0] + r[1]), half = 0.5 * (r[1] - r[0]) * a->s.inheritrange;
  mcNum* out = pos ? a->s.ctrlrange : a->s.actrange;
  out[0] = mid - half;
  out[1] = mid + half;
  if (pos) {
    a->s.ctrllimited = MCC_TRUE;
    a->s.has_ctrlrange = 1;
  } else {
    a->s.actlimited = MCC_TRUE;
    a->s.has_actrange = 1;
  }
}


// dampratio of position-like actuators (gain kp = -biasprm[1], biasprm[2] > 0):
// kv = dampratio * 2 sqrt(kp * reflected mass), the mass sum_dof M0_dof / moment_dof^2 at qpos0
static void mcc_dampRatio(mcc* c, mcModel* m) {
  mcData* d = NULL;
  for (int i = 0; i < m->nu; i++) {
    mcNum* gp = m->actuator_gainprm + mcNGAIN * i;
    mcNum* bp = m->actuator_biasprm + mcNBIAS * i;
    if (m->actuator_plugin[i] >= 0 || m->actuator_biastype[i] != mcBIAS_AFFINE ||
        gp[0] != -bp[1] || !(bp[2] > 0)) {
      continue;
    }
    if (!d) {
      d = mc_makeData(m);
      if (!d) {
        mcc_error(c, MCC_AT(c->actuators, mccActObj, i)->elem, "out of memory for dampratio");
      }
      mc_forward(m, d);
    }
    mcNum mass = 0;
    const mcNum* mom = d->actuator_moment + (size_t)i * m->nv;
    for (int k = 0; k < m->nv; k++) {
      mcNum t2 = mom[k] * mom[k];
      if (t2 > mcMINVAL) {
        mass += m->dof_M0[k] / t2;
      }
    }
    bp[2] = -bp[2] * 2 * sqrt(gp[0] * mass);
  }
  mc_deleteData(d);
}


// reflected rotor inertia: J_r * gear^2 added to the armature of a hinge or slide joint
static void mcc_reflectArmature(mcc* c, const mcxElem* e, const mccActObj* a) {
  if (!(a->armature > 0)) {
    return;
  }
  int scalar = a->trntype == mcTRN_JOINT || a->trntype == mcTRN_JOINTINPARENT;
  mccJointObj* j = scalar ? MCC_AT(c->joints, mccJointObj, a->trnid[0]) : NULL;
  if (!j || (j->s.type != mcJNT_HINGE && j->s.type != mcJNT_SLIDE)) {
    mcc_error(c, e, "attribute 'armature' needs a hinge or slide joint transmission");
  }
  j->s.armature += a->armature * a->s.gear[0] * a->s.gear[0];
}

// Linear drag B1 of a plugin actuator (spec damping[0]) on a hinge or slide joint joins the
// joint's damping as B1 gear^2 (so the Euler integrator treats it implicitly and the implicit
// integrators see it in qDeriv, as MuJoCo does with the dcmotor's damping) and leaves
// actuator_damping[0] zero; on other transmissions it stays an actuator force (the plugin's).
static void mcc_reflectDamping(mcc* c, mccActObj* a) {
  int scalar = a->trntype == mcTRN_JOINT || a->trntype == mcTRN_JOINTINPARENT;
  mccJointObj* j = scalar ? MCC_AT(c->joints, mccJointObj, a->trnid[0]) : NULL;
  if (!(a->damping[0] > 0) || !j || (j->s.type != mcJNT_HINGE && j->s.type != mcJNT_SLIDE)) {
    return;
  }
  j->s.damping += a->damping[0] * a->s.gear[0] * a->s.gear[0];
  a->damping[0] = 0;
}

// core-parsed actuators: affine types run on the core's inlined path (plugin -1); muscle and user
// types are bound to the 'general' actuator plugin
static void mcc_bindGeneral(mcc* c, const mcxElem* e, mccActObj* a) {
  const mccActuator* s = &a->s;
  int affine = (s->dyntype >= mcDYN_NONE && s->dyntype <= mcDYN_FILTEREXACT) &&
               (s->gaintype == mcGAIN_FIXED || s->gaintype == mcGAIN_AFFINE) &&
               (s->biastype == mcBIAS_NONE || s->biastype == mcBIAS_AFFINE);
  if (affine) {
    return;
  }
  const mcpHeader* g = mcp_find(mcpKIND_ACTUATOR, "general");
  if (!g) {
    mcc_error(c, e, "<%s> with muscle or user types needs the 'actuator-general' plugin, which is "
              "not loaded", e->name);
  }
  a->plugin = mcc_addInstance(c, g, mcOBJ_ACTUATOR, c->actuators.n, NULL, e);
}

void mcc_readActuators(mcc* c, const mcxElem* e) {
  mcc_checkAttrs(c, e, "");
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* ae = e->child[k];
    mccActObj a;
    memset(&a, 0, sizeof(a));
    a.elem = ae;
    a.plugin = -1;
    a.s = MCC_AT(c->classes, mccClass, mcc_elemClass(c, ae, 0))->act;

    if (mcc_isActuatorElem(ae->name)) {
      mcc_readActuator(c, ae, &a.s, 0);
      a.actnum = a.s.dyntype != mcDYN_NONE ? 1 : 0;
      mcc_bindGeneral(c, ae, &a);
    } else if (!strcmp(ae->name, "plugin")) {
      const mcpHeader* h = NULL;
      int inst = mcc_pluginRef(c, ae, mcpKIND_ACTUATOR, mcOBJ_ACTUATOR, c->actuators.n, &h);
      mcc_pluginActuator(c, ae, (const mcpActuator*)h, &a, inst);
    } else {
      const mcpActuator* pa = mcp_findActuatorElement(ae->name);
      if (!pa) {
        mcc_error(c, ae, "unknown element <%s> in <actuator> (not built in, and no actuator "
                  "plugin provides it)", ae->name);
      }
      ae = mcc_pluginElem(c, ae, mcc_elemClass(c, ae, 0));
      a.elem = ae;
      mcc_pluginActuator(c, ae, pa, &a, -1);
    }

    // name, transmission, limits
    const char* name = mcx_attr(ae, "name");
    if (name && name[0] && mcc_findName(c, mcOBJ_ACTUATOR, name) >= 0) {
      mcc_error(c, ae, "duplicate actuator name '%s'", name);
    }
    a.name = name && name[0] ? name : NULL;
    mcc_transmission(c, ae, &a);
    mcc_inheritRange(c, ae, &a);
    a.s.ctrllimited = mcc_actLimited(c, ae, a.s.ctrllimited, a.s.has_ctrlrange, a.s.ctrlrange,
                                     "ctrlrange");
    a.s.forcelimited = mcc_actLimited(c, ae, a.s.forcelimited, a.s.has_forcerange,
                                      a.s.forcerange, "forcerange");
    a.s.actlimited = mcc_actLimited(c, ae, a.s.actlimited, a.s.has_actrange, a.s.actrange,
                                    "actrange");
    mcc_reflectArmature(c, ae, &a);
    mcc_reflectDamping(c, &a);
    if ((!strcmp(ae->name, "damper") || !strcmp(ae->name, "adhesion")) &&
        (a.s.ctrlrange[0] < 0 || a.s.ctrlrange[1] < 0)) {
      mcc_error(c, ae, "<%s> requires a nonnegative ctrlrange", ae->name);
    }
    *(mccActObj*)mcc_push(c, &c->actuators) = a;
  }
}


// length of actuator i after simulating with a constant pull (side 0) or push (side 1) along it:
// each step applies a generalized force along the moment arms, scaled so the resulting
// acceleration M^-1 J' f has norm 'accel', and after the step the velocity decays by
// exp(-timestep / timeconst) (MuJoCo 2.2.2's scheme, found by probing mj_setLengthRange: a
// damping force -M qvel / timeconst instead moves arm26's lengths by up to 1.4e-6); the result is
// the extreme length over the last 'interval' seconds. Return 0, -1 (out of memory), 1 (not
// converged) or 2 (diverged: a bad qpos/qvel/qacc reset the state, time included, so the loop
// would never end)
static int mcc_lengthRangeSide(mcModel* m, int i, int side, mcNum* result) {
  const mcNum accel = 20, timeconst = 1, inttotal = 10, interval = 2, tolrange = 0.05;
  int nv = m->nv;
  mcData* d = mc_makeData(m);
  mcNum* tmp = calloc((size_t)nv + 1, sizeof(mcNum));
  if (!d || !tmp) {
    mc_deleteData(d);
    free(tmp);
    return -1;
  }
  mcNum decay = exp(-m->opt.timestep / timeconst);
  mcNum lo = 1e300, hi = -1e300;
  while (d->time < inttotal) {
    mc_step1(m, d);

    // force along the moment arms, scaled to the requested acceleration
    const mcNum* mom = d->actuator_moment + (size_t)i * nv;
    mc_solveM(m, d, tmp, mom, 1);
    mcNum nrm = 0;
    for (int k = 0; k < nv; k++) {
      nrm += tmp[k] * tmp[k];
    }
    nrm = sqrt(nrm);
    mcNum f = (side ? 1 : -1) * accel / (nrm > mcMINVAL ? nrm : mcMINVAL);
    for (int k = 0; k < nv; k++) {
      d->qfrc_applied[k] = f * mom[k];
    }
    mc_step2(m, d);
    if (d->warning[mcWARN_BADQPOS].number || d->warning[mcWARN_BADQVEL].number ||
        d->warning[mcWARN_BADQACC].number) {
      mc_deleteData(d);
      free(tmp);
      return 2;
    }

    // velocity decay
    for (int k = 0; k < nv; k++) {
      d->qvel[k] *= decay;
    }

    // record the range over the last interval
    if (d->time >= inttotal - interval) {
      mcNum len = d->actuator_length[i];
      lo = len < lo ? len : lo;
      hi = len > hi ? len : hi;
    }
  }
  *result = side ? hi : lo;
  int converged = hi - lo <= tolrange * (fabs(hi) + fabs(lo) + mcMINVAL);
  mc_deleteData(d);
  free(tmp);
  return converged ? 0 : 1;
}

void mcc_finishActuators(mcc* c, mcModel* m) {
  mcOption saved = m->opt;

  // damping ratios into kv, now that the inertia is known
  mcc_dampRatio(c, m);

  // post-clamp drag and rotor inertia from the plugins' specs
  for (int i = 0; i < m->nu; i++) {
    const mccActObj* a = MCC_AT(c->actuators, mccActObj, i);
    memcpy(m->actuator_damping + 3 * i, a->damping, sizeof(a->damping));
    m->actuator_armature[i] = a->armature;
  }

  // muscles without an explicit lengthrange: simulate, as MuJoCo's compiler does by default
  for (int i = 0; i < m->nu; i++) {
    const mccActObj* a = MCC_AT(c->actuators, mccActObj, i);
    mcNum lr[2] = {0, 0};
    mcc_readNums(c, a->elem, "lengthrange", lr, 2, 2);
    m->actuator_lengthrange[2 * i] = lr[0];
    m->actuator_lengthrange[2 * i + 1] = lr[1];
    int muscle = m->actuator_gaintype[i] == mcGAIN_MUSCLE ||
                 m->actuator_biastype[i] == mcBIAS_MUSCLE || m->actuator_dyntype[i] == mcDYN_MUSCLE;
    if (!muscle || lr[0] < lr[1]) {
      continue;
    }
    m->opt.timestep = 0.01;
    m->opt.disableflags = mcDSBL_FRICTIONLOSS | mcDSBL_CONTACT | mcDSBL_PASSIVE | mcDSBL_GRAVITY |
                          mcDSBL_ACTUATION | mcDSBL_SENSOR;
    for (int side = 0; side < 2; side++) {
      int rc = mcc_lengthRangeSide(m, i, side, m->actuator_lengthrange + 2 * i + side);
      if (rc < 0) {
        m->opt = saved;
        mcc_error(c, a->elem, "out of memory computing the actuator length range");
      } else if (rc == 2) {
        m->opt = saved;
        mcc_error(c, a->elem, "actuator length range: the simulation that measures it diverged "
                  "(non-finite or huge qpos, qvel or qacc); set 'lengthrange'");
      } else if (rc > 0) {
        m->opt = saved;
        mcc_error(c, a->elem, "actuator length range did not converge; set 'lengthrange'");
      }
    }
    m->opt = saved;
    if (!(m->actuator_lengthrange[2 * i] < m->actuator_lengthrange[2 * i + 1])) {
      mcc_error(c, a->elem, "invalid actuator length range [%g, %g]",
                m->actuator_lengthrange[2 * i], m->actuator_lengthrange[2 * i + 1]);
    }
  }
}
