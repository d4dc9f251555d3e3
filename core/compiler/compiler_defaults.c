// Moduco core: default classes and the element readers shared by defaults and objects.
//
// Every element starts from the spec of its class (a copy) and the reader overwrites what the
// element specifies. A nested class starts as a copy of its parent after the parent's own
// elements were read, as in MuJoCo.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compiler/compiler.h"
#include "plugin/registry.h"

// attribute lists (MJCF names)
#define MCC_ORIENT "quat axisangle xyaxes zaxis euler"
#define MCC_JOINT_ATTR                                                                             \
  "name class type group pos axis springdamper limited actuatorfrclimited solreflimit "           \
  "solimplimit solreffriction solimpfriction stiffness range actuatorfrcrange "                    \
  "actuatorgravcomp margin ref springref armature damping frictionloss user"
#define MCC_GEOM_ATTR                                                                              \
  "name class type contype conaffinity condim group priority size material friction mass "        \
  "density shellinertia solmix solref solimp margin gap fromto pos hfield mesh fitscale rgba "     \
  "fluidshape fluidcoef user adhesion surfacevel " MCC_ORIENT
#define MCC_SITE_ATTR "name class type group pos size fromto material rgba user " MCC_ORIENT
#define MCC_ACT_COMMON                                                                             \
  "name class group ctrllimited forcelimited actlimited ctrlrange forcerange actrange "           \
  "lengthrange gear cranklength user joint jointinparent tendon cranksite slidersite site "        \
  "refsite body actearly actdim "
#define MCC_TENDON_ATTR                                                                            \
  "name class group limited range solreflimit solimplimit solreffriction solimpfriction "         \
  "frictionloss springlength width material margin stiffness damping rgba user "                   \
  "actuatorfrclimited actuatorfrcrange armature"

//---------------------------------- the main class ------------------------------------------------

// MuJoCo's solver defaults
static void mcc_defaultSol(mcNum solref[mcNREF], mcNum solimp[mcNIMP]) {
  solref[0] = 0.02;
  solref[1] = 1;
  solimp[0] = 0.9;
  solimp[1] = 0.95;
  solimp[2] = 0.001;
  solimp[3] = 0.5;
  solimp[4] = 2;
}

void mcc_defaultClassInit(mccClass* cls) {
  memset(cls, 0, sizeof(*cls));
  cls->name = "main";
  cls->parent = -1;

  // joint
  mccJoint* j = &cls->joint;
  j->type = mcJNT_HINGE;
  j->axis[2] = 1;
  j->limited = MCC_AUTO;
  j->actfrclimited = MCC_AUTO;
  mcc_defaultSol(j->solref_lim, j->solimp_lim);
  mcc_defaultSol(j->solref_fri, j->solimp_fri);

  mcc_cameraDefault(&cls->camera);

  // geom
  mccGeom* g = &cls->geom;
  g->type = mcGEOM_SPHERE;
  g->quat[0] = 1;
  g->density = 1000;
  g->mass = -1;
  g->contype = 1;
  g->conaffinity = 1;
  g->condim = 3;
  g->friction[0] = 1;
  g->friction[1] = 0.005;
  g->friction[2] = 0.0001;
  g->solmix = 1;
  g->fitscale = 1;
  mcc_defaultSol(g->solref, g->solimp);
  g->rgba[0] = g->rgba[1] = g->rgba[2] = 0.5f;
  g->rgba[3] = 1;
  cls->matrgba[0] = cls->matrgba[1] = cls->matrgba[2] = cls->matrgba[3] = 1;
  g->fluidcoef[0] = 0.5;
  g->fluidcoef[1] = 0.25;
  g->fluidcoef[2] = 1.5;
  g->fluidcoef[3] = 1.0;
  g->fluidcoef[4] = 1.0;

  // site
  mccSite* s = &cls->site;
  s->type = mcGEOM_SPHERE;
  s->size[0] = s->size[1] = s->size[2] = 0.005;
  s->quat[0] = 1;

  // actuator (general)
  mccActuator* a = &cls->act;
  a->ctrllimited = a->forcelimited = a->actlimited = MCC_AUTO;
  a->gear[0] = 1;
  a->dynprm[0] = 1;
  a->gainprm[0] = 1;

  // tendon
  mccTendon* t = &cls->tendon;
  t->limited = MCC_AUTO;
  t->actfrclimited = MCC_AUTO;
  mcc_defaultSol(t->solref_lim, t->solimp_lim);
  mcc_defaultSol(t->solref_fri, t->solimp_fri);
  t->springlength[0] = t->springlength[1] = -1;

  // equality
  cls->eq.active = 1;
  mcc_defaultSol(cls->eq.solref, cls->eq.solimp);

  // pair
  cls->pair.condim = 3;
  cls->pair.friction[0] = cls->pair.friction[1] = 1;
  cls->pair.friction[2] = 0.005;
  cls->pair.friction[3] = cls->pair.friction[4] = 0.0001;
  mcc_defaultSol(cls->pair.solref, cls->pair.solimp);
}

//---------------------------------- element readers -----------------------------------------------

void mcc_readJoint(mcc* c, const mcxElem* e, mccJoint* s, int in_default) {
  mcc_checkAttrs(c, e, MCC_JOINT_ATTR);
  int type = mcc_readEnum(c, e, "type", "free ball slide hinge");
  if (type >= 0) {
    s->type = type;
  }
  mcc_readInt(c, e, "group", &s->group);
  mcc_readNums(c, e, "pos", s->pos, 3, 3);
  if (mcc_readNums(c, e, "axis", s->axis, 3, 3) && !in_default) {
    if (!mcc_normalize3(s->axis)) {
      mcc_error(c, e, "axis of zero length in <%s>", e->name);
    }
  }
  int lim = mcc_readTri(c, e, "limited");
  if (lim >= 0) {
    s->limited = lim;
  }
  lim = mcc_readTri(c, e, "actuatorfrclimited");
  if (lim >= 0) {
    s->actfrclimited = lim;
  }
  mcc_readNums(c, e, "solreflimit", s->solref_lim, 1, mcNREF);
  mcc_readNums(c, e, "solimplimit", s->solimp_lim, 1, mcNIMP);
  mcc_readNums(c, e, "solreffriction", s->solref_fri, 1, mcNREF);
  mcc_readNums(c, e, "solimpfriction", s->solimp_fri, 1, mcNIMP);
  mcc_readNum(c, e, "stiffness", &s->stiffness);
  if (mcc_readNums(c, e, "range", s->range, 2, 2)) {
    s->has_range = 1;
  }
  if (mcc_readNums(c, e, "actuatorfrcrange", s->actfrcrange, 2, 2)) {
    s->has_actfrcrange = 1;
  }
  int agc = mcc_readBool(c, e, "actuatorgravcomp");
  if (agc >= 0) {
    s->actgravcomp = agc;
  }
  mcc_readNum(c, e, "margin", &s->margin);
  mcc_readNum(c, e, "ref", &s->ref);
  mcc_readNum(c, e, "springref", &s->springref);
  mcc_readNum(c, e, "armature", &s->armature);
  mcc_readNum(c, e, "damping", &s->damping);
  mcc_readNum(c, e, "frictionloss", &s->frictionloss);
  // applied after the model constants (compiler_model.c) when both values are positive
  mcc_readNums(c, e, "springdamper", s->springdamper, 2, 2);
}

void mcc_readGeom(mcc* c, const mcxElem* e, mccGeom* s, int in_default) {
  mcc_checkAttrs(c, e, MCC_GEOM_ATTR);
  // MuJoCo 3.14's contact adhesion and moving surfaces (core/engine/contact_surface.c); a
  // shorter surfacevel list keeps the rest (from the default class), as 3.14
  mcc_readNum(c, e, "adhesion", &s->adhesion);
  mcc_readNums(c, e, "surfacevel", s->surfacevel, 1, 6);
  int type = mcc_readEnum(c, e, "type",
                          "plane hfield sphere capsule ellipsoid cylinder box mesh sdf");
  if (type == 8) {
    mcc_error(c, e, "not supported yet: geom type 'sdf'");
  }
  if (type >= 0) {
    s->type = type;
  }
  mcc_readInt(c, e, "contype", &s->contype);
  mcc_readInt(c, e, "conaffinity", &s->conaffinity);
  if (mcc_readInt(c, e, "condim", &s->condim)) {
    if (s->condim != 1 && s->condim != 3 && s->condim != 4 && s->condim != 6) {
      mcc_error(c, e, "invalid condim %d in <%s> (expected 1, 3, 4 or 6)", s->condim, e->name);
    }
  }
  mcc_readInt(c, e, "group", &s->group);
  mcc_readInt(c, e, "priority", &s->priority);
  mcc_readNums(c, e, "size", s->size, 1, 3);
  mcc_readNums(c, e, "friction", s->friction, 1, 3);
  mcNum mass = 0;
  if (mcc_readNum(c, e, "mass", &mass)) {
    s->mass = mass;
  }
  mcc_checkSign(c, e, "mass", &mass, 1, 0);
  mcc_readNum(c, e, "density", &s->density);
  mcc_checkSign(c, e, "density", &s->density, 1, 0);
  mcc_readNum(c, e, "solmix", &s->solmix);
  mcc_readNums(c, e, "solref", s->solref, 1, mcNREF);
  mcc_readNums(c, e, "solimp", s->solimp, 1, mcNIMP);
  mcc_readNum(c, e, "margin", &s->margin);
  mcc_readNum(c, e, "gap", &s->gap);
  if (mcc_readNums(c, e, "fromto", s->fromto, 6, 6)) {
    s->has_fromto = 1;
  }
  mcc_readNums(c, e, "pos", s->pos, 3, 3);
  mcc_readOrient(c, e, s->quat);
  mcc_readFloats(c, e, "rgba", s->rgba, 4, 4);
  int fs = mcc_readEnum(c, e, "fluidshape", "none ellipsoid");
  if (fs >= 0) {
    s->fluidshape = fs;
  }
  mcc_readNums(c, e, "fluidcoef", s->fluidcoef, 1, 5);
  mcc_readNum(c, e, "fitscale", &s->fitscale);
  const char* v = mcx_attr(e, "mesh");
  if (v) {
    s->mesh = v;
  }
  v = mcx_attr(e, "hfield");
  if (v) {
    s->hfield = v;
  }
  v = mcx_attr(e, "material");
  if (v) {
    s->material = v;
  }
  int shell = mcc_readBool(c, e, "shellinertia");
  if (shell >= 0) {
    s->shellinertia = shell;
  }
  (void)in_default;
}

void mcc_readSite(mcc* c, const mcxElem* e, mccSite* s, int in_default) {
  mcc_checkAttrs(c, e, MCC_SITE_ATTR);
  int type = mcc_readEnum(c, e, "type", "plane hfield sphere capsule ellipsoid cylinder box mesh");
  if (type >= 0) {
    s->type = type;
  }
  mcc_readInt(c, e, "group", &s->group);
  mcc_readNums(c, e, "pos", s->pos, 3, 3);
  mcc_readNums(c, e, "size", s->size, 1, 3);
  if (mcc_readNums(c, e, "fromto", s->fromto, 6, 6)) {
    s->has_fromto = 1;
  }
  mcc_readOrient(c, e, s->quat);
  (void)in_default;
}

int mcc_isActuatorElem(const char* name) {
  static const char* const names[] = {"general", "motor", "position", "velocity", "intvelocity",
                                      "damper", "cylinder", "muscle", "adhesion", NULL};
  for (int i = 0; names[i]; i++) {
    if (!strcmp(names[i], name)) {
      return 1;
    }
  }
  return 0;
}

// reset the gain, bias and dynamics of a shortcut actuator
static void mcc_actReset(mccActuator* s) {
  s->dyntype = mcDYN_NONE;
  s->gaintype = mcGAIN_FIXED;
  s->biastype = mcBIAS_NONE;
  memset(s->dynprm, 0, sizeof(s->dynprm));
  memset(s->gainprm, 0, sizeof(s->gainprm));
  memset(s->biasprm, 0, sizeof(s->biasprm));
  s->dynprm[0] = 1;
}

void mcc_readActuator(mcc* c, const mcxElem* e, mccActuator* s, int in_default) {
  const char* t = e->name;

  // attributes: common ones plus those of the shortcut
  const char* extra = "";
  if (!strcmp(t, "general")) {
    extra = "dyntype gaintype biastype dynprm gainprm biasprm";
  } else if (!strcmp(t, "position")) {
    extra = "kp kv dampratio timeconst inheritrange";
  } else if (!strcmp(t, "velocity")) {
    extra = "kv";
  } else if (!strcmp(t, "intvelocity")) {
    extra = "kp kv dampratio inheritrange";
  } else if (!strcmp(t, "damper")) {
    extra = "kv";
  } else if (!strcmp(t, "cylinder")) {
    extra = "timeconst area diameter bias";
  } else if (!strcmp(t, "muscle")) {
    extra = "timeconst tausmooth range force scale lmin lmax vmax fpmax fvmax";
  } else if (!strcmp(t, "adhesion")) {
    extra = "gain";
  }
  char allowed[1024];
  snprintf(allowed, sizeof(allowed), "%s%s", MCC_ACT_COMMON, extra);
  mcc_checkAttrs(c, e, allowed);

  // common attributes
  int v;
  mcc_readInt(c, e, "group", &s->group);
  if ((v = mcc_readTri(c, e, "ctrllimited")) >= 0) {
    s->ctrllimited = v;
  }
  if ((v = mcc_readTri(c, e, "forcelimited")) >= 0) {
    s->forcelimited = v;
  }
  if ((v = mcc_readTri(c, e, "actlimited")) >= 0) {
    s->actlimited = v;
  }
  if (mcc_readNums(c, e, "ctrlrange", s->ctrlrange, 2, 2)) {
    s->has_ctrlrange = 1;
  }
  if (mcc_readNums(c, e, "forcerange", s->forcerange, 2, 2)) {
    s->has_forcerange = 1;
  }
  if (mcc_readNums(c, e, "actrange", s->actrange, 2, 2)) {
    s->has_actrange = 1;
  }
  mcc_readNums(c, e, "gear", s->gear, 1, 6);
  mcc_readNum(c, e, "cranklength", &s->cranklength);
  if ((v = mcc_readBool(c, e, "actearly")) >= 0) {
    s->actearly = v;
  }
  int actdim;
  if (mcc_readInt(c, e, "actdim", &actdim) && actdim > 1) {
    mcc_error(c, e, "not supported yet: actdim > 1");
  }
  mcNum lr[2];
  mcc_readNums(c, e, "lengthrange", lr, 2, 2);

  // the element's own encoding of gain, bias and dynamics
  if (!strcmp(t, "general")) {
    if ((v = mcc_readEnum(c, e, "dyntype", "none integrator filter filterexact muscle user")) >= 0) {
      s->dyntype = v;
    }
    if ((v = mcc_readEnum(c, e, "gaintype", "fixed affine muscle user")) >= 0) {
      s->gaintype = v;
    }
    if ((v = mcc_readEnum(c, e, "biastype", "none affine muscle user")) >= 0) {
      s->biastype = v;
    }
    mcc_readNums(c, e, "dynprm", s->dynprm, 1, mcNDYN);
    mcc_readNums(c, e, "gainprm", s->gainprm, 1, mcNGAIN);
    mcc_readNums(c, e, "biasprm", s->biasprm, 1, mcNBIAS);
  } else if (!strcmp(t, "motor")) {
    mcc_actReset(s);
    s->gainprm[0] = 1;
  } else if (!strcmp(t, "position") || !strcmp(t, "intvelocity")) {
    // biasprm[2] <= 0 holds -kv; > 0 holds a damping ratio, turned into -kv once the model's
    // inertia is known (mcc_finishActuators), as MuJoCo 3 does
    mcNum kp = s->gainprm[0], kv = 0, dr = 0, tc = 0;
    if (s->biastype == mcBIAS_AFFINE) {
      kv = s->biasprm[2] < 0 ? -s->biasprm[2] : 0;
      dr = s->biasprm[2] > 0 ? s->biasprm[2] : 0;
    }
    mcc_readNum(c, e, "kp", &kp);
    int has_kv = mcc_readNum(c, e, "kv", &kv), has_dr = mcc_readNum(c, e, "dampratio", &dr);
    if (has_kv && has_dr) {
      mcc_error(c, e, "attributes 'kv' and 'dampratio' cannot both be set");
    }
    if (kp < 0 || kv < 0 || dr < 0) {
      mcc_error(c, e, "kp, kv and dampratio of <%s> must be nonnegative", t);
    }
    if (has_kv) {
      dr = 0;
    } else if (has_dr) {
      kv = 0;
    }
    if (mcc_readNum(c, e, "inheritrange", &s->inheritrange) && s->inheritrange < 0) {
      mcc_error(c, e, "attribute 'inheritrange' must be nonnegative");
    }
    mcc_actReset(s);
    s->gainprm[0] = kp;
    s->biastype = mcBIAS_AFFINE;
    s->biasprm[1] = -kp;
    s->biasprm[2] = dr > 0 ? dr : -kv;
    if (!strcmp(t, "intvelocity")) {
      s->dyntype = mcDYN_INTEGRATOR;
      s->actlimited = MCC_TRUE;
    } else if (mcc_readNum(c, e, "timeconst", &tc) && tc > 0) {
      s->dyntype = mcDYN_FILTEREXACT;
      s->dynprm[0] = tc;
    }
  } else if (!strcmp(t, "velocity")) {
    mcNum kv = s->gainprm[0];
    mcc_readNum(c, e, "kv", &kv);
    mcc_actReset(s);
    s->gainprm[0] = kv;
    s->biastype = mcBIAS_AFFINE;
    s->biasprm[2] = -kv;
  } else if (!strcmp(t, "damper")) {
    mcNum kv = 0;
    mcc_readNum(c, e, "kv", &kv);
    if (kv < 0) {
      mcc_error(c, e, "kv of <damper> must be nonnegative");
    }
    mcc_actReset(s);
    s->gaintype = mcGAIN_AFFINE;
    s->gainprm[0] = 0;
    s->gainprm[2] = -kv;
    s->ctrllimited = MCC_TRUE;
  } else if (!strcmp(t, "cylinder")) {
    mcNum tc = 1, area = 1, diam = -1, bias[3] = {0, 0, 0};
    mcc_readNum(c, e, "timeconst", &tc);
    mcc_readNum(c, e, "area", &area);
    mcc_readNum(c, e, "diameter", &diam);
    mcc_readNums(c, e, "bias", bias, 3, 3);
    mcc_actReset(s);
    s->dyntype = mcDYN_FILTER;
    s->dynprm[0] = tc;
    s->gainprm[0] = diam > 0 ? mcPI / 4 * diam * diam : area;
    s->biastype = mcBIAS_AFFINE;
    memcpy(s->biasprm, bias, sizeof(bias));
  } else if (!strcmp(t, "muscle")) {
    mcNum tc[2] = {0.01, 0.04}, tsm = 0, range[2] = {0.75, 1.05}, force = -1, scale = 200;
    mcNum lmin = 0.5, lmax = 1.6, vmax = 1.5, fpmax = 1.3, fvmax = 1.2;
    mcc_readNums(c, e, "timeconst", tc, 2, 2);
    mcc_readNum(c, e, "tausmooth", &tsm);
    mcc_readNums(c, e, "range", range, 2, 2);
    mcc_readNum(c, e, "force", &force);
    mcc_readNum(c, e, "scale", &scale);
    mcc_readNum(c, e, "lmin", &lmin);
    mcc_readNum(c, e, "lmax", &lmax);
    mcc_readNum(c, e, "vmax", &vmax);
    mcc_readNum(c, e, "fpmax", &fpmax);
    mcc_readNum(c, e, "fvmax", &fvmax);
    mcc_actReset(s);
    s->dyntype = mcDYN_MUSCLE;
    s->gaintype = mcGAIN_MUSCLE;
    s->biastype = mcBIAS_MUSCLE;
    s->dynprm[0] = tc[0];
    s->dynprm[1] = tc[1];
    s->dynprm[2] = tsm;
    mcNum prm[9] = {range[0], range[1], force, scale, lmin, lmax, vmax, fpmax, fvmax};
    memcpy(s->gainprm, prm, sizeof(prm));
    memcpy(s->biasprm, prm, sizeof(prm));
  } else if (!strcmp(t, "adhesion")) {
    mcNum gain = 1;
    mcc_readNum(c, e, "gain", &gain);
    mcc_actReset(s);
    s->gainprm[0] = gain;
    s->ctrllimited = MCC_TRUE;
  }
  (void)in_default;
}

void mcc_readTendon(mcc* c, const mcxElem* e, mccTendon* s, int in_default) {
  mcc_checkAttrs(c, e, MCC_TENDON_ATTR);
  int v;
  mcc_readInt(c, e, "group", &s->group);
  if ((v = mcc_readTri(c, e, "limited")) >= 0) {
    s->limited = v;
  }
  if (mcc_readNums(c, e, "range", s->range, 2, 2)) {
    s->has_range = 1;
  }
  mcc_readNums(c, e, "solreflimit", s->solref_lim, 1, mcNREF);
  mcc_readNums(c, e, "solimplimit", s->solimp_lim, 1, mcNIMP);
  mcc_readNums(c, e, "solreffriction", s->solref_fri, 1, mcNREF);
  mcc_readNums(c, e, "solimpfriction", s->solimp_fri, 1, mcNIMP);
  mcc_readNum(c, e, "frictionloss", &s->frictionloss);
  int n = mcc_readNums(c, e, "springlength", s->springlength, 1, 2);
  if (n == 1) {
    s->springlength[1] = s->springlength[0];
  }
  mcc_readNum(c, e, "margin", &s->margin);
  mcc_readNum(c, e, "stiffness", &s->stiffness);
  mcc_readNum(c, e, "damping", &s->damping);
  mcc_readNum(c, e, "armature", &s->armature);
  if ((v = mcc_readTri(c, e, "actuatorfrclimited")) >= 0) {
    s->actfrclimited = v;
  }
  if (mcc_readNums(c, e, "actuatorfrcrange", s->actfrcrange, 2, 2)) {
    s->has_actfrcrange = 1;
  }
  (void)in_default;
}

void mcc_readEquality(mcc* c, const mcxElem* e, mccEquality* s, int in_default) {
  int v;
  if ((v = mcc_readBool(c, e, "active")) >= 0) {
    s->active = v;
  }
  mcc_readNums(c, e, "solref", s->solref, 1, mcNREF);
  mcc_readNums(c, e, "solimp", s->solimp, 1, mcNIMP);
  (void)in_default;
}

void mcc_readPair(mcc* c, const mcxElem* e, mccPair* s, int in_default) {
  if (mcc_readInt(c, e, "condim", &s->condim)) {
    s->has_condim = 1;
    if (s->condim != 1 && s->condim != 3 && s->condim != 4 && s->condim != 6) {
      mcc_error(c, e, "invalid condim %d in <%s> (expected 1, 3, 4 or 6)", s->condim, e->name);
    }
  }
  if (mcc_readNums(c, e, "friction", s->friction, 1, 5)) {
    s->has_friction = 1;
  }
  if (mcc_readNums(c, e, "solref", s->solref, 1, mcNREF)) {
    s->has_solref = 1;
  }
  mcNum sf[mcNREF] = {0, 0};
  mcc_readNums(c, e, "solreffriction", sf, 1, mcNREF);
  if (sf[0] != 0 || sf[1] != 0) {
    mcc_error(c, e, "not supported yet: a nonzero solreffriction in <%s> (the contact's friction "
              "rows use solref)", e->name);
  }
  if (mcc_readNums(c, e, "solimp", s->solimp, 1, mcNIMP)) {
    s->has_solimp = 1;
  }
  if (mcc_readNum(c, e, "margin", &s->margin)) {
    s->has_margin = 1;
  }
  if (mcc_readNum(c, e, "gap", &s->gap)) {
    s->has_gap = 1;
  }
  (void)in_default;
}

//---------------------------------- classes -------------------------------------------------------

int mcc_findClass(mcc* c, const mcxElem* e, const char* name) {
  for (int i = 0; i < c->classes.n; i++) {
    const mccClass* cls = MCC_AT(c->classes, mccClass, i);
    if (cls->scope == e->scope && !strcmp(cls->name, name)) {
      return i;
    }
  }
  mcc_error(c, e, "unknown default class '%s'", name);
}

int mcc_elemClass(mcc* c, const mcxElem* e, int inherited) {
  const char* cls = mcx_attr(e, "class");
  if (cls) {
    return mcc_findClass(c, e, cls);
  }
  // an element of an attached file below the model's bodies (or outside the body tree) starts
  // from its own file's main class
  if (MCC_AT(c->classes, mccClass, inherited)->scope != e->scope) {
    return mcc_scope(c, e)->mainclass;
  }
  return inherited;
}

// read the non-default children of a <default> into class ci
static void mcc_readClassBody(mcc* c, const mcxElem* e, int ci) {
  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* ch = e->child[k];
    mccClass* cls = MCC_AT(c->classes, mccClass, ci);
    const char* n = ch->name;
    if (!strcmp(n, "default")) {
      continue;
    } else if (!strcmp(n, "joint")) {
      mcc_readJoint(c, ch, &cls->joint, 1);
    } else if (!strcmp(n, "geom")) {
      mcc_readGeom(c, ch, &cls->geom, 1);
    } else if (!strcmp(n, "site")) {
      mcc_readSite(c, ch, &cls->site, 1);
    } else if (mcc_isActuatorElem(n)) {
      mcc_readActuator(c, ch, &cls->act, 1);
    } else if (!strcmp(n, "tendon")) {
      mcc_readTendon(c, ch, &cls->tendon, 1);
    } else if (!strcmp(n, "equality")) {
      mcc_checkAttrs(c, ch, "class active solref solimp");
      mcc_readEquality(c, ch, &cls->eq, 1);
    } else if (!strcmp(n, "pair")) {
      mcc_checkAttrs(c, ch, "class condim friction solref solreffriction solimp gap margin");
      mcc_readPair(c, ch, &cls->pair, 1);
    } else if (!strcmp(n, "camera")) {
      mcc_readCamera(c, ch, &cls->camera, 1);
    } else if (mcp_findActuatorElement(n) ||
               (!mcc_isBuiltinSensor(n) && mcp_findSensorElement(n))) {
      // a plugin element: its attributes are merged into the elements of this class
      const mcpActuator* pa = mcp_findActuatorElement(n);
      const mcpSensor* ps = pa ? NULL : mcp_findSensorElement(n);
      char allowed[2048];
      mcc_pluginAllowed(c, ch, pa ? &pa->hdr : &ps->hdr,
                        pa ? MCC_ACT_COMMON : "class noise cutoff user",
                        pa ? pa->attributes : ps->attributes, 1, allowed, sizeof(allowed));
      mcc_checkAttrs(c, ch, allowed);
      if (mcx_attr(ch, "name")) {
        mcc_error(c, ch, "attribute 'name' is not allowed in a default class");
      }
      mcc_pluginDefault(c, ch, ci);
    } else if (!strcmp(n, "material")) {
      mcc_readMaterialDefault(c, ch, cls);
    } else if (!strcmp(n, "mesh") || !strcmp(n, "light") ||
               !strcmp(n, "texture") || !strcmp(n, "hfield") ||
               !strcmp(n, "flex")) {
      // visual or asset defaults: accepted, no physics meaning here
      continue;
    } else {
      mcc_unknownElem(c, ch);
    }
  }
}

void mcc_readDefaults(mcc* c, const mcxElem* e, int parent) {
  int ci;
  mcc_checkAttrs(c, e, "class");
  const char* name = mcx_attr(e, "class");
  if (parent < 0) {
    // top level: the main class (of the element's model file)
    if (name && strcmp(name, "main")) {
      mcc_error(c, e, "top-level <default> must be class 'main', not '%s'", name);
    }
    ci = mcc_scope(c, e)->mainclass;
  } else {
    if (!name) {
      mcc_error(c, e, "nested <default> requires attribute 'class'");
    }
    for (int i = 0; i < c->classes.n; i++) {
      const mccClass* other = MCC_AT(c->classes, mccClass, i);
      if (other->scope == e->scope && !strcmp(other->name, name)) {
        mcc_error(c, e, "duplicate default class '%s'", name);
      }
    }
    mccClass* cls = (mccClass*)mcc_push(c, &c->classes);
    ci = c->classes.n - 1;
    *cls = *MCC_AT(c->classes, mccClass, parent);
    cls->name = name;
    cls->parent = parent;
  }

  // own elements first, then nested classes
  mcc_readClassBody(c, e, ci);
  for (int k = 0; k < e->nchild; k++) {
    if (!strcmp(e->child[k]->name, "default")) {
      mcc_readDefaults(c, e->child[k], ci);
    }
  }
}
