// Moduco core: <compiler>, <option>, <size>, <extension> and plugin resolution.
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compiler/compiler.h"
#include "plugin/registry.h"

//---------------------------------- compiler ------------------------------------------------------

void mcc_readCompiler(mcc* c, const mcxElem* e) {
  mcc_checkAttrs(c, e,
                 "angle eulerseq inertiafromgeom autolimits boundmass boundinertia settotalmass "
                 "meshdir texturedir assetdir balanceinertia coordinate fusestatic discardvisual "
                 "strippath convexhull usethread exactmeshinertia inertiagrouprange fitaabb "
                 "alignfree saveinertial");
  mccScope* sc = mcc_scope(c, e);
  int v;
  if ((v = mcc_readEnum(c, e, "angle", "radian degree")) >= 0) {
    sc->degree = v;
  }
  const char* seq = mcx_attr(e, "eulerseq");
  if (seq) {
    if (strlen(seq) != 3 || strspn(seq, "xyzXYZ") != 3) {
      mcc_error(c, e, "invalid eulerseq '%s' (expected 3 characters from xyzXYZ)", seq);
    }
    memcpy(sc->eulerseq, seq, 4);
  }
  if ((v = mcc_readTri(c, e, "inertiafromgeom")) >= 0) {
    sc->inertiafromgeom = v;
  }
  if ((v = mcc_readBool(c, e, "autolimits")) >= 0) {
    sc->autolimits = v;
  }
  mcc_readNum(c, e, "boundmass", &sc->boundmass);
  mcc_readNum(c, e, "boundinertia", &sc->boundinertia);
  mcc_readNum(c, e, "settotalmass", &sc->settotalmass);
  if ((v = mcc_readBool(c, e, "balanceinertia")) >= 0) {
    sc->balanceinertia = v;
  }
  if (mcc_readEnum(c, e, "coordinate", "local global") == 1) {
    mcc_error(c, e, "coordinate=\"global\" is not supported (removed in MuJoCo 2.3); use local");
  }
  mcNum igr[2];
  if (mcc_readNums(c, e, "inertiagrouprange", igr, 2, 2)) {
    if (igr[0] != (int)igr[0] || igr[1] != (int)igr[1]) {
      mcc_error(c, e, "inertiagrouprange must hold two integers");
    }
    sc->inertiagroup[0] = (int)igr[0];
    sc->inertiagroup[1] = (int)igr[1];
  }
  if ((v = mcc_readBool(c, e, "fitaabb")) >= 0) {
    sc->fitaabb = v;
  }
  if ((v = mcc_readBool(c, e, "alignfree")) >= 0) {
    sc->alignfree = v;
  }
  // asset folders are joined into fixed path buffers: refuse what would be cut
  static const char* const dirs[3] = {"meshdir", "texturedir", "assetdir"};
  for (int i = 0; i < 3; i++) {
    const char* d = mcx_attr(e, dirs[i]);
    if (d && strlen(d) >= sizeof(sc->meshdir)) {
      mcc_error(c, e, "attribute '%s' of <compiler> is %zu characters long; at most %zu are "
                "supported", dirs[i], strlen(d), sizeof(sc->meshdir) - 1);
    }
  }
  const char* md = mcx_attr(e, "meshdir");
  if (md) {
    snprintf(sc->meshdir, sizeof(sc->meshdir), "%s", md);
  }
  const char* ad = mcx_attr(e, "assetdir");
  if (ad) {
    snprintf(sc->assetdir, sizeof(sc->assetdir), "%s", ad);
  }
  if ((v = mcc_readBool(c, e, "strippath")) >= 0) {
    sc->strippath = v;
  }

  // accepted, no effect here
  mcc_readBool(c, e, "fusestatic");
  mcc_readBool(c, e, "discardvisual");
  mcc_readBool(c, e, "convexhull");
  mcc_readBool(c, e, "usethread");
  for (int k = 0; k < e->nchild; k++) {
    if (strcmp(e->child[k]->name, "lengthrange")) {
      mcc_unknownElem(c, e->child[k]);
    }
  }
}

//---------------------------------- option --------------------------------------------------------

// flag names in bit order
static const char* const mcc_disableNames[mcNDISABLE] = {
  "constraint", "equality", "frictionloss", "limit", "contact", "passive", "gravity", "clampctrl",
  "warmstart", "filterparent", "actuation", "refsafe", "sensor", "midphase", "eulerdamp",
  "autoreset"
};
static const char* const mcc_enableNames[mcNENABLE] = {
  "override", "energy", "fwdinv", "invdiscrete", "multiccd", "island",
  "nativeccd", "sleep"
};

static void mcc_readFlags(mcc* c, const mcxElem* e) {
  for (int i = 0; i < e->nattr; i++) {
    const char* key = e->attr[2 * i];
    int value = mcc_readEnum(c, e, key, "disable enable");
    int found = 0;
    for (int b = 0; b < mcNDISABLE && !found; b++) {
      if (!strcmp(key, mcc_disableNames[b])) {
        found = 1;
        if (value == 0) {
          c->opt.disableflags |= 1 << b;
        } else {
          c->opt.disableflags &= ~(1 << b);
        }
      }
    }
    for (int b = 0; b < mcNENABLE && !found; b++) {
      if (!strcmp(key, mcc_enableNames[b])) {
        found = 1;
        c->multiccd_set |= (1 << b) == mcENBL_MULTICCD;
        if (value == 1) {
          c->opt.enableflags |= 1 << b;
        } else {
          c->opt.enableflags &= ~(1 << b);
        }
      }
    }
    if (!found) {
      mcc_error(c, e, "unknown attribute '%s' in element <flag>", key);
    }
  }
}

// map a name to a built-in code (case-insensitive) or -1
static int mcc_builtinCode(const char* name, const char* const* names, int n) {
  for (int i = 0; i < n; i++) {
    if (!strcasecmp(name, names[i])) {
      return i;
    }
  }
  return -1;
}

static const char* const mcc_integrators[4] = {"Euler", "RK4", "implicit", "implicitfast"};
static const char* const mcc_solvers[3] = {"PGS", "CG", "Newton"};

void mcc_readOption(mcc* c, const mcxElem* e) {
  // sleep_tolerance: any number, as MuJoCo 3.14 (0 or less: no tree ever counts as at rest)
  mcc_readNum(c, e, "sleep_tolerance", &c->sleep_tolerance);
  mcc_checkAttrs(c, e,
                 "timestep apirate impratio tolerance ls_tolerance noslip_tolerance mpr_tolerance "
                 "gravity wind magnetic density viscosity o_margin o_solref o_solimp integrator "
                 "solver cone jacobian collision iterations ls_iterations noslip_iterations "
                 "mpr_iterations sleep_tolerance ccd_tolerance ccd_iterations");
  mcOption* o = &c->opt;
  c->option_elem = e;
  mcc_readNum(c, e, "timestep", &o->timestep);
  mcc_readNum(c, e, "apirate", &o->apirate);
  mcc_readNum(c, e, "impratio", &o->impratio);
  mcc_checkSign(c, e, "impratio", &o->impratio, 1, 1);
  mcc_readNum(c, e, "tolerance", &o->tolerance);
  mcc_readNum(c, e, "ls_tolerance", &o->ls_tolerance);
  mcc_readNum(c, e, "noslip_tolerance", &o->noslip_tolerance);
  mcc_readNum(c, e, "mpr_tolerance", &o->mpr_tolerance);
  mcc_readNum(c, e, "ccd_tolerance", &o->mpr_tolerance);  // MuJoCo 3.x's name of mpr_tolerance
  mcc_readNums(c, e, "gravity", o->gravity, 3, 3);
  mcc_readNums(c, e, "wind", o->wind, 3, 3);
  mcc_readNums(c, e, "magnetic", o->magnetic, 3, 3);
  mcc_readNum(c, e, "density", &o->density);
  mcc_readNum(c, e, "viscosity", &o->viscosity);
  mcc_readNum(c, e, "o_margin", &o->o_margin);
  mcc_readNums(c, e, "o_solref", o->o_solref, 1, mcNREF);
  mcc_readNums(c, e, "o_solimp", o->o_solimp, 1, mcNIMP);
  int v;
  if ((v = mcc_readEnum(c, e, "cone", "pyramidal elliptic")) >= 0) {
    o->cone = v;
  }
  if ((v = mcc_readEnum(c, e, "jacobian", "dense sparse auto")) >= 0) {
    o->jacobian = v;
  }
  if ((v = mcc_readEnum(c, e, "collision", "all predefined dynamic")) >= 0) {
    o->collision = v;
  }
  mcc_readInt(c, e, "iterations", &o->iterations);
  mcc_readInt(c, e, "ls_iterations", &o->ls_iterations);
  mcc_readInt(c, e, "noslip_iterations", &o->noslip_iterations);
  mcc_readInt(c, e, "mpr_iterations", &o->mpr_iterations);
  mcc_readInt(c, e, "ccd_iterations", &o->mpr_iterations);  // MuJoCo 3.x's name
  if (o->timestep <= 0) {
    mcc_error(c, e, "timestep must be positive (got %g)", o->timestep);
  }
  if (o->iterations < 0 || o->ls_iterations < 0 || o->noslip_iterations < 0 ||
      o->mpr_iterations < 0) {
    mcc_error(c, e, "iteration counts must be nonnegative");
  }

  // integrator and solver names (resolved to plugins once the model exists)
  const char* name = mcx_attr(e, "integrator");
  if (name) {
    if (!name[0] || strlen(name) >= sizeof(o->integrator_name)) {
      mcc_error(c, e, "invalid integrator name '%s'", name);
    }
    snprintf(o->integrator_name, sizeof(o->integrator_name), "%s", name);
  }
  name = mcx_attr(e, "solver");
  if (name) {
    if (!name[0] || strlen(name) >= sizeof(o->solver_name)) {
      mcc_error(c, e, "invalid solver name '%s'", name);
    }
    snprintf(o->solver_name, sizeof(o->solver_name), "%s", name);
  }

  for (int k = 0; k < e->nchild; k++) {
    const mcxElem* ch = e->child[k];
    if (!strcmp(ch->name, "flag")) {
      mcc_readFlags(c, ch);
    } else {
      mcc_unknownElem(c, ch);
    }
  }
}

//---------------------------------- plugin resolution helpers -------------------------------------

// the loader's message about a rejected plugin called name (" (rejected: file: why)"), or "" if
// the loader said nothing about it
void mcc_rejection(const char* name, char* out, int out_sz) {
  out[0] = 0;
  char key[MCP_MAXNAME + 16];
  snprintf(key, sizeof(key), "plugin '%s':", name);
  const char* all = mc_pluginMessages();
  const char* hit = all ? strstr(all, key) : NULL;
  if (!hit) {
    return;
  }
  const char* start = hit;
  while (start > all && start[-1] != '\n') {
    start--;
  }
  const char* end = strchr(hit, '\n');
  int len = end ? (int)(end - start) : (int)strlen(start);
  snprintf(out, (size_t)out_sz, " (rejected by the loader: %.*s)", len, start);
}


// multiccd as MuJoCo 3.x selects it: on by default (3.x's disable flag) with nativeccd on, off
// with the legacy colliders (nativeccd="disable": MuJoCo 2.2.2 has none) unless the model enables
// it; an explicit <flag multiccd> wins either way
static void mcc_multiccdDefault(mcc* c) {
  if (!c->multiccd_set && (c->opt.enableflags & mcENBL_NATIVECCD)) {
    c->opt.enableflags |= mcENBL_MULTICCD;
  }
}


void mcc_resolvePlugins(mcc* c) {
  mcOption* o = &c->opt;
  const mcxElem* e = c->option_elem ? c->option_elem : c->tree->root;
  char list[1024];
  mcc_multiccdDefault(c);

  // integrator: built-in code, then the plugin (which must exist)
  if (!o->integrator_name[0]) {
    snprintf(o->integrator_name, sizeof(o->integrator_name), "Euler");
  }
  int code = mcc_builtinCode(o->integrator_name, mcc_integrators, 4);
  o->integrator = code >= 0 ? code : mcINT_OTHER;
  c->integrator = (const mcpIntegrator*)mcp_find(mcpKIND_INTEGRATOR, o->integrator_name);
  if (!c->integrator) {
    char why[600];
    mcc_rejection(o->integrator_name, why, sizeof(why));
    mcp_listNames(mcpKIND_INTEGRATOR, list, sizeof(list));
    mcc_error(c, e, "unknown integrator '%s'%s (available: %s)", o->integrator_name, why,
              list[0] ? list : "none");
  }

  // solver: the plugin must exist unless the constraint stage is disabled (a built-in name whose
  // plugin is missing would otherwise run without constraints, a silent wrong answer)
  if (!o->solver_name[0]) {
    snprintf(o->solver_name, sizeof(o->solver_name), "Newton");
  }
  code = mcc_builtinCode(o->solver_name, mcc_solvers, 3);
  o->solver = code >= 0 ? code : mcSOL_OTHER;
  c->solver = (const mcpSolver*)mcp_find(mcpKIND_SOLVER, o->solver_name);
  if (!c->solver && (code < 0 || !(o->disableflags & mcDSBL_CONSTRAINT))) {
    char why[600];
    mcc_rejection(o->solver_name, why, sizeof(why));
    mcp_listNames(mcpKIND_SOLVER, list, sizeof(list));
    mcc_error(c, e, "unknown solver '%s'%s (available: %s)", o->solver_name, why,
              list[0] ? list : "none");
  }

  // noslip postsolver (runs when opt.noslip_iterations > 0: then it must exist)
  c->postsolver = (const mcpPostsolver*)mcp_find(mcpKIND_POSTSOLVER, "noslip");
  if (!c->postsolver && o->noslip_iterations > 0 && !(o->disableflags & mcDSBL_CONSTRAINT)) {
    mcp_listNames(mcpKIND_POSTSOLVER, list, sizeof(list));
    mcc_error(c, e, "noslip_iterations=%d needs the postsolver plugin 'noslip', which is not "
              "registered (available: %s)", o->noslip_iterations, list[0] ? list : "none");
  }
}

//---------------------------------- size ----------------------------------------------------------

void mcc_readSize(mcc* c, const mcxElem* e) {
  mcc_checkAttrs(c, e,
                 "memory njmax nconmax nstack nuserdata nkey nuser_body nuser_jnt nuser_geom "
                 "nuser_site nuser_cam nuser_tendon nuser_actuator nuser_sensor");
  const char* mem = mcx_attr(e, "memory");
  if (mem) {
    char* end = NULL;
    double v = strtod(mem, &end);
    if (end == mem) {
      mcc_error(c, e, "malformed memory size '%s' (expected e.g. 100K, 64M, 2G)", mem);
    }
    double scale = 1;
    if (*end == 'K' || *end == 'k') {
      scale = 1024.0, end++;
    } else if (*end == 'M' || *end == 'm') {
      scale = 1024.0 * 1024.0, end++;
    } else if (*end == 'G' || *end == 'g') {
      scale = 1024.0 * 1024.0 * 1024.0, end++;
    } else if (*end == 'T' || *end == 't') {
      scale = 1024.0 * 1024.0 * 1024.0 * 1024.0, end++;
    }
    while (isspace((unsigned char)*end)) {
      end++;
    }
    if (*end || (v < 0 && v != -1) || !(v * scale < 0x1p62)) {
      mcc_error(c, e, "malformed memory size '%s' (expected e.g. 100K, 64M, 2G)", mem);
    }
    c->narena = v < 0 || !(v * scale < 0x1p62) ? 0 : (size_t)(v * scale);
    c->memory_elem = c->narena ? e : NULL;
  }
  mcc_readInt(c, e, "njmax", &c->njmax);
  mcc_readInt(c, e, "nconmax", &c->nconmax);
  // nstack (MuJoCo 2.x, in mcNums) sized only the scratch stack there, with contacts and
  // constraint rows allocated apart; here one arena holds all three, so the legacy value can only
  // raise the automatic estimate (mci_arenaSize), never shrink it below what the model needs
  int nstack = 0;
  if (mcc_readInt(c, e, "nstack", &nstack) && nstack < -1) {
    mcc_error(c, e, "nstack must be -1 or nonnegative");
  }
  c->nstack = nstack > 0 && !mem ? nstack : 0;
  mcc_readInt(c, e, "nuserdata", &c->nuserdata);
  mcc_readInt(c, e, "nkey", &c->nkey_size);
  if (c->nuserdata < 0 || c->nkey_size < 0) {
    mcc_error(c, e, "nuserdata and nkey must be nonnegative");
  }
  // counts (nuser_*: accepted, user data is not stored; -1 means automatic as in MuJoCo)
  static const char* const counts[13] = {"njmax", "nconmax", "nstack", "nuserdata", "nkey",
                                         "nuser_body", "nuser_jnt", "nuser_geom", "nuser_site",
                                         "nuser_cam", "nuser_tendon", "nuser_actuator",
                                         "nuser_sensor"};
  for (int i = 0; i < 13; i++) {
    int v = 0;
    if (mcc_readInt(c, e, counts[i], &v) && (v > MCC_MAXSIZE || v < -1)) {
      mcc_error(c, e, "attribute '%s' of <size> is %s; it must be between -1 and %d", counts[i],
                mcx_attr(e, counts[i]), MCC_MAXSIZE);
    }
  }
}
