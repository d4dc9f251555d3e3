// Moduco core: size and fill the mcModel from the compiler's object lists.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "compiler/compiler.h"
#include "compiler/compiler_mesh.h"
#include "engine/fluid.h"
#include "engine/io.h"

//---------------------------------- topology ------------------------------------------------------

// number of position coordinates and dofs of a joint type
static int mcc_jntNq(int type) {
  return type == mcJNT_FREE ? 7 : type == mcJNT_BALL ? 4 : 1;
}
static int mcc_jntNv(int type) {
  return type == mcJNT_FREE ? 6 : type == mcJNT_BALL ? 3 : 1;
}

// per-body object ranges, weld and root ids
static void mcc_topology(mcc* c) {
  int nbody = c->bodies.n;
  for (int b = 0; b < nbody; b++) {
    mccBody* body = MCC_AT(c->bodies, mccBody, b);
    body->jntadr = body->dofadr = body->geomadr = body->siteadr = -1;
    body->jntnum = body->dofnum = body->geomnum = body->sitenum = 0;
  }
  int dof = 0;
  for (int j = 0; j < c->joints.n; j++) {
    const mccJointObj* jo = MCC_AT(c->joints, mccJointObj, j);
    mccBody* body = MCC_AT(c->bodies, mccBody, jo->body);
    if (body->jntadr < 0) {
      body->jntadr = j;
      body->dofadr = dof;
    }
    body->jntnum++;
    body->dofnum += mcc_jntNv(jo->s.type);
    dof += mcc_jntNv(jo->s.type);
  }
  for (int g = 0; g < c->geoms.n; g++) {
    mccBody* body = MCC_AT(c->bodies, mccBody, MCC_AT(c->geoms, mccGeomObj, g)->body);
    if (body->geomadr < 0) {
      body->geomadr = g;
    }
    body->geomnum++;
  }
  for (int s = 0; s < c->sites.n; s++) {
    mccBody* body = MCC_AT(c->bodies, mccBody, MCC_AT(c->sites, mccSiteObj, s)->body);
    if (body->siteadr < 0) {
      body->siteadr = s;
    }
    body->sitenum++;
  }

  // parents precede children, so one forward pass suffices
  for (int b = 0; b < nbody; b++) {
    mccBody* body = MCC_AT(c->bodies, mccBody, b);
    if (b == 0) {
      body->weldid = body->rootid = 0;
      continue;
    }
    const mccBody* parent = MCC_AT(c->bodies, mccBody, body->parent);
    body->rootid = body->parent == 0 ? b : parent->rootid;
    body->weldid = body->jntnum ? b : parent->weldid;
  }
}

//---------------------------------- sizes ---------------------------------------------------------

// *total += add, or an error at e naming what if that exceeds MCC_MAXSIZE; return the new total
static int mcc_addSize(mcc* c, const mcxElem* e, int64_t* total, int64_t add, const char* what) {
  *total += add;
  if (add < 0 || *total > MCC_MAXSIZE) {
    mcc_error(c, e, "%s exceeds %d (the limit of one model array)", what, MCC_MAXSIZE);
  }
  return (int)*total;
}

//---------------------------------- names ---------------------------------------------------------

// append a name (or "") to the buffer; return its address
static int mcc_putName(mcc* c, char* buf, int64_t* n, const char* name) {
  int adr = (int)*n;
  size_t len = name ? strlen(name) : 0;
  if (buf) {
    memcpy(buf + adr, name ? name : "", len + 1);
  }
  mcc_addSize(c, NULL, n, (int64_t)len + 1, "the total length of the names");
  return adr;
}

// write all names (buf NULL: only count); the model name comes first as in MuJoCo
static int mcc_names(mcc* c, mcModel* m) {
  char* buf = m ? m->names : NULL;
  int64_t n = 0;
  mcc_putName(c, buf, &n, c->modelname);
#define MCC_NAMES(vec, type, field)                                                               \
  for (int i = 0; i < (vec).n; i++) {                                                              \
    int adr = mcc_putName(c, buf, &n, MCC_AT(vec, type, i)->name);                                 \
    if (m) {                                                                                       \
      m->field[i] = adr;                                                                           \
    }                                                                                              \
  }
  MCC_NAMES(c->bodies, mccBody, name_bodyadr)
  MCC_NAMES(c->joints, mccJointObj, name_jntadr)
  MCC_NAMES(c->geoms, mccGeomObj, name_geomadr)
  MCC_NAMES(c->sites, mccSiteObj, name_siteadr)
  MCC_NAMES(c->cameras, mccCameraObj, name_camadr)
  MCC_NAMES(c->meshes, mccNamed, name_meshadr)
  MCC_NAMES(c->hfields, mccNamed, name_hfieldadr)
  MCC_NAMES(c->pairs, mccPairObj, name_pairadr)
  MCC_NAMES(c->eqs, mccEqObj, name_eqadr)
  MCC_NAMES(c->tendons, mccTendonObj, name_tendonadr)
  MCC_NAMES(c->actuators, mccActObj, name_actuatoradr)
  MCC_NAMES(c->sensors, mccSensorObj, name_sensoradr)
  MCC_NAMES(c->numerics, mccNumeric, name_numericadr)
  MCC_NAMES(c->keys, mccNamed, name_keyadr)
#undef MCC_NAMES
  return (int)n;
}

//---------------------------------- model -------------------------------------------------------

// is (pos, quat) the identity transform
static int mcc_isIdentity(const mcNum pos[3], const mcNum quat[4]) {
  return pos[0] == 0 && pos[1] == 0 && pos[2] == 0 && quat[0] == 1 && quat[1] == 0 &&
         quat[2] == 0 && quat[3] == 0;
}

// do two poses coincide
static int mcc_samePose(const mcNum p1[3], const mcNum q1[4], const mcNum p2[3],
                        const mcNum q2[4]) {
  for (int i = 0; i < 3; i++) {
    if (fabs(p1[i] - p2[i]) > 1e-12) {
      return 0;
    }
  }
  for (int i = 0; i < 4; i++) {
    if (fabs(q1[i] - q2[i]) > 1e-12) {
      return 0;
    }
  }
  return 1;
}

// springdamper="timeconst dampratio" (both > 0) replaces a joint's stiffness and damping: the
// effective mass of the joint at qpos0 is 1 / dof_invweight0 (the other joints free), and the
// spring-damper on that mass gets the time constant and damping ratio given, the way solref
// describes a constraint: k = mass / (timeconst * dampratio)^2, b = 2 mass / timeconst
static void mcc_springDamper(mcc* c, mcModel* m) {
  for (int j = 0; j < m->njnt; j++) {
    const mccJoint* s = &MCC_AT(c->joints, mccJointObj, j)->s;
    mcNum tc = s->springdamper[0], ratio = s->springdamper[1];
    if (!(tc > 0) || !(ratio > 0)) {
      continue;
    }
    int adr = m->jnt_dofadr[j];
    if (!(m->dof_invweight0[adr] > 0)) {
      mcc_error(c, MCC_AT(c->joints, mccJointObj, j)->elem,
                "springdamper needs a joint with positive inertia at qpos0");
    }
    mcNum mass = 1 / m->dof_invweight0[adr];
    m->jnt_stiffness[j] = mass / (tc * tc * ratio * ratio);
    for (int k = 0; k < mcc_jntNv(s->type); k++) {
      m->dof_damping[adr + k] = 2 * mass / tc;
    }
  }
}


// mesh and height-field totals (summed in int by their modules) checked in 64 bits first
static void mcc_checkAssetTotals(mcc* c) {
  int64_t vert = 0, face = 0, graph = 0, hdata = 0;
  for (int i = 0; i < c->meshes.n && c->meshdata; i++) {
    const mcxElem* e = MCC_AT(c->meshes, mccNamed, i)->elem;
    mcc_addSize(c, e, &vert, c->meshdata[i].nvert, "the total number of mesh vertices");
    mcc_addSize(c, e, &face, c->meshdata[i].nface, "the total number of mesh faces");
    mcc_addSize(c, e, &graph, c->meshdata[i].ngraph, "the total size of the mesh graphs");
  }
  for (int i = 0; i < c->hfields.n && c->hfielddata; i++) {
    mcc_addSize(c, MCC_AT(c->hfields, mccNamed, i)->elem, &hdata,
                (int64_t)c->hfielddata[i].nrow * c->hfielddata[i].ncol,
                "the total number of height-field samples");
  }
}


mcModel* mcc_buildModel(mcc* c) {
  mcc_compileMeshes(c);
  mcc_compileHfields(c);
  mcc_topology(c);
  mcc_bodyInertia(c);
  mcc_alignFree(c);
  mcc_resolvePlugins(c);
  mcc_pluginSingletons(c);

  //-------- sizes
  mcModel sz;
  memset(&sz, 0, sizeof(sz));
  sz.opt = c->opt;
  sz.sleep_tolerance = c->sleep_tolerance;
  sz.narena = c->narena;
  for (int j = 0; j < c->joints.n; j++) {
    int t = MCC_AT(c->joints, mccJointObj, j)->s.type;
    sz.nq += mcc_jntNq(t);
    sz.nv += mcc_jntNv(t);
  }
  sz.nu = c->actuators.n;
  for (int i = 0; i < c->actuators.n; i++) {
    sz.na += MCC_AT(c->actuators, mccActObj, i)->actnum;
  }
  sz.nbody = c->bodies.n;
  sz.njnt = c->joints.n;
  sz.ngeom = c->geoms.n;
  sz.nsite = c->sites.n;
  sz.ncam = c->cameras.n;
  sz.nmesh = c->meshes.n;
  mcc_checkAssetTotals(c);
  mcc_meshTotals(c, &sz.nmeshvert, &sz.nmeshface, &sz.nmeshgraph);
  sz.nhfield = c->hfields.n;
  mcc_hfieldTotals(c, &sz.nhfielddata);
  sz.npair = c->pairs.n;
  sz.nexclude = c->excludes.n;
  sz.neq = c->eqs.n;
  sz.ntendon = c->tendons.n;
  sz.nwrap = c->wraps.n;
  sz.nsensor = c->sensors.n;  // nsensordata is set once plugin sensors have compiled
  sz.nnumeric = c->numerics.n;
  int64_t total = 0;
  for (int i = 0; i < c->numerics.n; i++) {
    const mccNumeric* n = MCC_AT(c->numerics, mccNumeric, i);
    sz.nnumericdata = mcc_addSize(c, n->elem, &total, n->size, "the total size of the numerics");
  }
  sz.nkey = c->keys.n > c->nkey_size ? c->keys.n : c->nkey_size;
  for (int b = 0; b < c->bodies.n; b++) {
    sz.nmocap += MCC_AT(c->bodies, mccBody, b)->mocap;
  }
  sz.nplugin = c->plugins.n;
  sz.npluginconfig = c->config.n;
  sz.npluginwarn = mcc_warningCount(c);
  sz.nuserdata = c->nuserdata;
  int nobjnames = mcc_names(c, NULL);
  sz.nnames = nobjnames + mcc_warningNames(c, NULL, 0);
  sz.njmax = c->njmax;
  sz.nconmax = c->nconmax;
  sz.nstack = c->nstack;
  for (int i = 0; i < c->eqs.n; i++) {
    int t = MCC_AT(c->eqs, mccEqObj, i)->type;
    sz.nemax += t == mcEQ_CONNECT ? 3 : t == mcEQ_WELD ? 6 : 1;
  }

  // tree-sparse inertia: each dof stores its chain of ancestors
  int* depth = (int*)mcc_malloc(c, sizeof(int) * (size_t)(sz.nv + 1));
  c->scratch = depth;
  {
    int dof = 0;
    for (int b = 1; b < c->bodies.n; b++) {
      const mccBody* body = MCC_AT(c->bodies, mccBody, b);
      for (int k = 0; k < body->dofnum; k++, dof++) {
        int parent = -1;
        if (k > 0) {
          parent = dof - 1;
        } else {
          for (int a = body->parent; a > 0; a = MCC_AT(c->bodies, mccBody, a)->parent) {
            const mccBody* ab = MCC_AT(c->bodies, mccBody, a);
            if (ab->dofnum) {
              parent = ab->dofadr + ab->dofnum - 1;
              break;
            }
          }
        }
        depth[dof] = parent < 0 ? 1 : depth[parent] + 1;
        sz.nM += depth[dof];
      }
    }
  }
  sz.nD = 2 * sz.nM - sz.nv;

  //-------- allocate
  mcModel* m = mci_makeModel(&sz);
  if (!m) {
    mcc_error(c, NULL, "out of memory allocating the model");
  }
  c->m = m;
  mcc_names(c, m);
  mcc_warningNames(c, m, nobjnames);
  mcc_fillPlugins(c, m);

  //-------- bodies
  int mocap = 0;
  for (int b = 0; b < m->nbody; b++) {
    const mccBody* body = MCC_AT(c->bodies, mccBody, b);
    m->body_parentid[b] = body->parent;
    m->body_rootid[b] = body->rootid;
    m->body_weldid[b] = body->weldid;
    m->body_mocapid[b] = body->mocap ? mocap++ : -1;
    m->body_jntnum[b] = body->jntnum;
    m->body_jntadr[b] = body->jntadr;
    m->body_dofnum[b] = body->dofnum;
    m->body_dofadr[b] = body->dofadr;
    m->body_geomnum[b] = body->geomnum;
    m->body_geomadr[b] = body->geomadr;
    memcpy(m->body_pos + 3 * b, body->pos, sizeof(mcNum) * 3);
    memcpy(m->body_quat + 4 * b, body->quat, sizeof(mcNum) * 4);
    memcpy(m->body_ipos + 3 * b, body->ipos, sizeof(mcNum) * 3);
    memcpy(m->body_iquat + 4 * b, body->iquat, sizeof(mcNum) * 4);
    if (b == 0) {
      m->body_iquat[0] = 1;
    }
    m->body_mass[b] = body->mass;
    memcpy(m->body_inertia + 3 * b, body->inertia, sizeof(mcNum) * 3);
    m->body_gravcomp[b] = body->gravcomp;
    m->body_sleep[b] = body->sleep;
    if (body->sleep != mcSLEEP_AUTO &&
        (body->dofnum == 0 || MCC_AT(c->bodies, mccBody, body->parent)->weldid != 0)) {
      // the policy is a tree's: MuJoCo 3.14.0 reads it on a tree root and crashes (out of bounds
      // in mj_makeData) for sleep on a body without dofs or below another moving body
      mcc_error(c, body->elem, "sleep=\"%s\" on a body that is not the root of a kinematic tree "
                "(a body with joints whose parent does not move): not supported",
                mcx_attr(body->elem, "sleep"));
    }
    m->body_sameframe[b] = (mcByte)mcc_isIdentity(m->body_ipos + 3 * b, m->body_iquat + 4 * b);
    m->body_simple[b] = 0;
  }
  for (int b = m->nbody - 1; b >= 0; b--) {
    m->body_subtreemass[b] += m->body_mass[b];
    if (b > 0) {
      m->body_subtreemass[m->body_parentid[b]] += m->body_subtreemass[b];
    }
  }

  //-------- joints and dofs
  int qadr = 0, dadr = 0, madr = 0;
  for (int j = 0; j < m->njnt; j++) {
    const mccJointObj* jo = MCC_AT(c->joints, mccJointObj, j);
    const mccJoint* s = &jo->s;
    m->jnt_type[j] = s->type;
    m->jnt_qposadr[j] = qadr;
    m->jnt_dofadr[j] = dadr;
    m->jnt_bodyid[j] = jo->body;
    m->jnt_group[j] = s->group;
    m->jnt_limited[j] = (mcByte)(s->limited == MCC_TRUE);
    memcpy(m->jnt_solref + mcNREF * j, s->solref_lim, sizeof(s->solref_lim));
    memcpy(m->jnt_solimp + mcNIMP * j, s->solimp_lim, sizeof(s->solimp_lim));
    memcpy(m->jnt_pos + 3 * j, s->pos, sizeof(s->pos));
    memcpy(m->jnt_axis + 3 * j, s->axis, sizeof(s->axis));
    m->jnt_stiffness[j] = s->stiffness;
    memcpy(m->jnt_range + 2 * j, s->range, sizeof(s->range));
    m->jnt_margin[j] = s->margin;
    m->jnt_actfrclimited[j] = (mcByte)(s->actfrclimited == MCC_TRUE);
    memcpy(m->jnt_actfrcrange + 2 * j, s->actfrcrange, sizeof(s->actfrcrange));
    m->jnt_actgravcomp[j] = (mcByte)(s->actgravcomp != 0);

    // default configuration and spring reference
    mcNum* q0 = m->qpos0 + qadr;
    mcNum* qs = m->qpos_spring + qadr;
    const mccBody* body = MCC_AT(c->bodies, mccBody, jo->body);
    if (s->type == mcJNT_FREE) {
      memcpy(q0, body->pos, sizeof(mcNum) * 3);
      memcpy(q0 + 3, body->quat, sizeof(mcNum) * 4);
      memcpy(qs, q0, sizeof(mcNum) * 7);
    } else if (s->type == mcJNT_BALL) {
      q0[0] = qs[0] = 1;
    } else {
      q0[0] = s->ref;
      qs[0] = s->springref;
    }

    // dofs
    int nv = mcc_jntNv(s->type);
    for (int k = 0; k < nv; k++) {
      int d = dadr + k;
      m->dof_bodyid[d] = jo->body;
      m->dof_jntid[d] = j;
      memcpy(m->dof_solref + mcNREF * d, s->solref_fri, sizeof(s->solref_fri));
      memcpy(m->dof_solimp + mcNIMP * d, s->solimp_fri, sizeof(s->solimp_fri));
      m->dof_frictionloss[d] = s->frictionloss;
      m->dof_armature[d] = s->armature;
      m->dof_damping[d] = s->damping;
    }
    qadr += mcc_jntNq(s->type);
    dadr += nv;
  }
  for (int d = 0; d < m->nv; d++) {
    int b = m->dof_bodyid[d];
    int parent = -1;
    if (d > 0 && m->dof_bodyid[d - 1] == b) {
      parent = d - 1;
    } else {
      for (int a = m->body_parentid[b]; a > 0; a = m->body_parentid[a]) {
        if (m->body_dofnum[a]) {
          parent = m->body_dofadr[a] + m->body_dofnum[a] - 1;
          break;
        }
      }
    }
    m->dof_parentid[d] = parent;
    m->dof_Madr[d] = madr;
    madr += depth[d];
  }

  //-------- simple bodies: diagonal inertia block decoupled from other bodies (as in MuJoCo)
  m->body_simple[0] = 1;
  for (int b = 1; b < m->nbody; b++) {
    int simple = m->body_sameframe[b] && m->body_jntnum[b] > 0 &&
                 m->body_weldid[m->body_parentid[b]] == 0;
    // no child body: bodies are in depth-first order, so a first child would come right after b
    if (b + 1 < m->nbody && m->body_parentid[b + 1] == b) {
      simple = 0;
    }
    int adr = m->body_jntadr[b], n = m->body_jntnum[b];
    for (int j = adr; j < adr + n && simple; j++) {
      const mcNum* p = m->jnt_pos + 3 * j;
      simple = p[0] == 0 && p[1] == 0 && p[2] == 0 && (n == 1 || m->jnt_type[j] == mcJNT_SLIDE);
      for (int k = adr; k < j && simple; k++) {
        const mcNum* a1 = m->jnt_axis + 3 * j;
        const mcNum* a2 = m->jnt_axis + 3 * k;
        simple = fabs(a1[0] * a2[0] + a1[1] * a2[1] + a1[2] * a2[2]) < 1e-10;
      }
    }
    m->body_simple[b] = (mcByte)simple;
  }
  for (int d = m->nv - 1; d >= 0; d--) {
    if (m->body_simple[m->dof_bodyid[d]]) {
      m->dof_simplenum[d] = 1 + (d + 1 < m->nv ? m->dof_simplenum[d + 1] : 0);
    }
  }

  //-------- geoms
  for (int g = 0; g < m->ngeom; g++) {
    const mccGeomObj* go = MCC_AT(c->geoms, mccGeomObj, g);
    const mccGeom* s = &go->s;
    m->geom_type[g] = s->type;
    m->geom_contype[g] = s->contype;
    m->geom_conaffinity[g] = s->conaffinity;
    m->geom_condim[g] = s->condim;
    m->geom_bodyid[g] = go->body;
    m->geom_dataid[g] = go->fitmesh ? -1 : go->meshid;
    m->geom_group[g] = s->group;
    m->geom_priority[g] = s->priority;
    m->geom_solmix[g] = s->solmix;
    memcpy(m->geom_solref + mcNREF * g, s->solref, sizeof(s->solref));
    memcpy(m->geom_solimp + mcNIMP * g, s->solimp, sizeof(s->solimp));
    memcpy(m->geom_size + 3 * g, s->size, sizeof(s->size));
    if (s->type == mcGEOM_HFIELD) {
      // height field geoms take their size from the asset: (x, y, mean of top and bottom)
      const mcNum* hs = c->hfielddata[go->meshid].size;
      m->geom_size[3 * g] = hs[0];
      m->geom_size[3 * g + 1] = hs[1];
      m->geom_size[3 * g + 2] = 0.5 * (hs[2] + hs[3]);
    }
    m->geom_rbound[g] = mcc_geomRbound(go);
    memcpy(m->geom_pos + 3 * g, s->pos, sizeof(s->pos));
    memcpy(m->geom_quat + 4 * g, s->quat, sizeof(s->quat));
    memcpy(m->geom_friction + 3 * g, s->friction, sizeof(s->friction));
    m->geom_margin[g] = s->margin;
    m->geom_gap[g] = s->gap;
    m->geom_adhesion[g] = s->adhesion;
    memcpy(m->geom_surfacevel + 6 * g, s->surfacevel, sizeof(s->surfacevel));
    mcc_geomMaterialRgba(c, go->matid, m->geom_matrgba + 4 * g);
    if (s->fluidshape) {
      m->geom_fluid[mcNFLUID * g] = s->fluidshape;
      memcpy(m->geom_fluid + mcNFLUID * g + 1, s->fluidcoef, sizeof(s->fluidcoef));
      // added mass and inertia of the geom's ellipsoid, per unit density
      mcNum axes[3];
      mc_fluidSemiAxes(s->type, m->geom_size + 3 * g, axes);
      mc_fluidAddedMass(axes, m->geom_fluid + mcNFLUID * g + 6);
    }
    memcpy(m->geom_rgba + 4 * g, s->rgba, sizeof(s->rgba));
    int b = go->body;
    m->geom_sameframe[g] = mcc_isIdentity(s->pos, s->quat) ? 1
                           : mcc_samePose(s->pos, s->quat, m->body_ipos + 3 * b,
                                          m->body_iquat + 4 * b) ? 2 : 0;
  }

  //-------- sites
  for (int i = 0; i < m->nsite; i++) {
    const mccSiteObj* so = MCC_AT(c->sites, mccSiteObj, i);
    const mccSite* s = &so->s;
    m->site_type[i] = s->type;
    m->site_bodyid[i] = so->body;
    m->site_group[i] = s->group;
    memcpy(m->site_size + 3 * i, s->size, sizeof(s->size));
    memcpy(m->site_pos + 3 * i, s->pos, sizeof(s->pos));
    memcpy(m->site_quat + 4 * i, s->quat, sizeof(s->quat));
    int b = so->body;
    m->site_sameframe[i] = mcc_isIdentity(s->pos, s->quat) ? 1
                           : mcc_samePose(s->pos, s->quat, m->body_ipos + 3 * b,
                                          m->body_iquat + 4 * b) ? 2 : 0;
  }

  mcc_fillCameras(c, m);

  //-------- meshes and height fields
  mcc_fillMeshes(c, m);
  mcc_fillHfields(c, m);

  //-------- pairs and excludes
  for (int i = 0; i < m->npair; i++) {
    const mccPairObj* p = MCC_AT(c->pairs, mccPairObj, i);
    m->pair_dim[i] = p->dim;
    m->pair_geom1[i] = p->geom1;
    m->pair_geom2[i] = p->geom2;
    m->pair_signature[i] = p->signature;
    memcpy(m->pair_solref + mcNREF * i, p->solref, sizeof(p->solref));
    memcpy(m->pair_solimp + mcNIMP * i, p->solimp, sizeof(p->solimp));
    m->pair_margin[i] = p->margin;
    m->pair_gap[i] = p->gap;
    memcpy(m->pair_friction + 5 * i, p->friction, sizeof(p->friction));
  }
  // excluded pairs sorted by signature (lookup by binary search)
  for (int i = 0; i < m->nexclude; i++) {
    int sig = MCC_AT(c->excludes, mccPairObj, i)->signature;
    int k = i;
    while (k > 0 && m->exclude_signature[k - 1] > sig) {
      m->exclude_signature[k] = m->exclude_signature[k - 1];
      k--;
    }
    m->exclude_signature[k] = sig;
  }

  //-------- equality
  for (int i = 0; i < m->neq; i++) {
    const mccEqObj* e = MCC_AT(c->eqs, mccEqObj, i);
    m->eq_type[i] = e->type;
    m->eq_obj1id[i] = e->obj1;
    m->eq_obj2id[i] = e->obj2;
    m->eq_objtype[i] = e->objtype;
    m->eq_active0[i] = (mcByte)e->s.active;
    memcpy(m->eq_solref + mcNREF * i, e->s.solref, sizeof(e->s.solref));
    memcpy(m->eq_solimp + mcNIMP * i, e->s.solimp, sizeof(e->s.solimp));
    memcpy(m->eq_data + mcNEQDATA * i, e->data, sizeof(e->data));
  }

  //-------- tendons
  for (int i = 0; i < m->ntendon; i++) {
    const mccTendonObj* t = MCC_AT(c->tendons, mccTendonObj, i);
    const mccTendon* s = &t->s;
    m->tendon_adr[i] = t->wrapadr;
    m->tendon_num[i] = t->wrapnum;
    m->tendon_limited[i] = (mcByte)(s->limited == MCC_TRUE);
    memcpy(m->tendon_solref_lim + mcNREF * i, s->solref_lim, sizeof(s->solref_lim));
    memcpy(m->tendon_solimp_lim + mcNIMP * i, s->solimp_lim, sizeof(s->solimp_lim));
    memcpy(m->tendon_solref_fri + mcNREF * i, s->solref_fri, sizeof(s->solref_fri));
    memcpy(m->tendon_solimp_fri + mcNIMP * i, s->solimp_fri, sizeof(s->solimp_fri));
    memcpy(m->tendon_range + 2 * i, s->range, sizeof(s->range));
    m->tendon_margin[i] = s->margin;
    m->tendon_stiffness[i] = s->stiffness;
    m->tendon_damping[i] = s->damping;
    m->tendon_frictionloss[i] = s->frictionloss;
    m->tendon_armature[i] = s->armature;
    m->tendon_actfrclimited[i] = (mcByte)(s->actfrclimited == MCC_TRUE);
    memcpy(m->tendon_actfrcrange + 2 * i, s->actfrcrange, sizeof(s->actfrcrange));

    // fixed tendons: lengths at qpos0 and qpos_spring are linear in the joint references
    mcNum len = 0, len_spring = 0;
    if (!t->spatial) {
      for (int k = 0; k < t->wrapnum; k++) {
        const mccWrap* w = MCC_AT(c->wraps, mccWrap, t->wrapadr + k);
        len += w->prm * m->qpos0[m->jnt_qposadr[w->objid]];
        len_spring += w->prm * m->qpos_spring[m->jnt_qposadr[w->objid]];
      }
    }
    m->tendon_length0[i] = len;

    // spring length: as given (negative values too), or, when unset ("-1 -1", as in MuJoCo
    // 3.3.8), the length at qpos_spring; spatial ones are marked NaN for mcc_setConst
    int unset = s->springlength[0] == -1 && s->springlength[1] == -1;
    for (int k = 0; k < 2; k++) {
      m->tendon_lengthspring[2 * i + k] =
        !unset ? s->springlength[k] : (t->spatial ? NAN : len_spring);
    }
  }
  for (int i = 0; i < m->nwrap; i++) {
    const mccWrap* w = MCC_AT(c->wraps, mccWrap, i);
    m->wrap_type[i] = w->type;
    m->wrap_objid[i] = w->objid;
    m->wrap_prm[i] = w->prm;
  }

  //-------- actuators
  int aadr = 0;
  for (int i = 0; i < m->nu; i++) {
    const mccActObj* a = MCC_AT(c->actuators, mccActObj, i);
    const mccActuator* s = &a->s;
    m->actuator_trntype[i] = a->trntype;
    m->actuator_dyntype[i] = s->dyntype;
    m->actuator_gaintype[i] = s->gaintype;
    m->actuator_biastype[i] = s->biastype;
    m->actuator_trnid[2 * i] = a->trnid[0];
    m->actuator_trnid[2 * i + 1] = a->trnid[1];
    m->actuator_actnum[i] = a->actnum;
    m->actuator_actadr[i] = a->actnum ? aadr : -1;
    aadr += a->actnum;
    m->actuator_group[i] = s->group;
    m->actuator_plugin[i] = a->plugin;
    m->actuator_ctrllimited[i] = (mcByte)(s->ctrllimited == MCC_TRUE);
    m->actuator_forcelimited[i] = (mcByte)(s->forcelimited == MCC_TRUE);
    m->actuator_actlimited[i] = (mcByte)(s->actlimited == MCC_TRUE);
    m->actuator_actearly[i] = (mcByte)s->actearly;
    memcpy(m->actuator_dynprm + mcNDYN * i, s->dynprm, sizeof(s->dynprm));
    memcpy(m->actuator_gainprm + mcNGAIN * i, s->gainprm, sizeof(s->gainprm));
    memcpy(m->actuator_biasprm + mcNBIAS * i, s->biasprm, sizeof(s->biasprm));
    memcpy(m->actuator_ctrlrange + 2 * i, s->ctrlrange, sizeof(s->ctrlrange));
    memcpy(m->actuator_forcerange + 2 * i, s->forcerange, sizeof(s->forcerange));
    memcpy(m->actuator_actrange + 2 * i, s->actrange, sizeof(s->actrange));
    memcpy(m->actuator_gear + 6 * i, s->gear, sizeof(s->gear));
    m->actuator_cranklength[i] = s->cranklength;
  }

  //-------- sensors
  mcc_finishSensors(c, m);
  int sadr = 0;
  int64_t sensordata = 0;
  for (int i = 0; i < m->nsensor; i++) {
    const mccSensorObj* s = MCC_AT(c->sensors, mccSensorObj, i);
    m->sensor_type[i] = s->type;
    m->sensor_datatype[i] = s->datatype;
    m->sensor_needstage[i] = s->needstage;
    m->sensor_objtype[i] = s->objtype;
    m->sensor_objid[i] = s->objid;
    m->sensor_reftype[i] = s->reftype;
    m->sensor_refid[i] = s->refid;
    m->sensor_dim[i] = s->dim;
    m->sensor_adr[i] = sadr;
    m->sensor_plugin[i] = s->plugin;
    m->sensor_cutoff[i] = s->cutoff;
    m->sensor_noise[i] = s->noise;
    sadr = mcc_addSize(c, s->elem, &sensordata, s->dim, "the total sensor dimension");
  }
  m->nsensordata = sadr;

  //-------- custom numeric fields
  int nadr = 0;
  for (int i = 0; i < m->nnumeric; i++) {
    const mccNumeric* n = MCC_AT(c->numerics, mccNumeric, i);
    m->numeric_adr[i] = nadr;
    m->numeric_size[i] = n->size;
    memcpy(m->numeric_data + nadr, n->data, sizeof(mcNum) * (size_t)n->size);
    nadr += n->size;
  }

  //-------- keyframes, plugins
  mcc_fillKeys(c, m);
  mcc_pluginStorage(c, m);

  // quantities at qpos0 from the engine's kinematics
  if (mcc_setConst(m) || mcc_cameraConst(c, m)) {
    if (c->memory_elem) {
      mcc_error(c, c->memory_elem, "cannot allocate the %zu-byte arena that <size memory='%s'> "
                "asks for", c->narena, mcx_attr(c->memory_elem, "memory"));
    }
    // the <size> counts that sized the data, as written
    const mcxElem* root = c->tree->root;
    for (int k = 0; k < root->nchild; k++) {
      const mcxElem* e = root->child[k];
      static const char* const keys[4] = {"nconmax", "njmax", "nstack", "nuserdata"};
      char given[512] = "";
      for (int i = 0; i < 4 && !strcmp(e->name, "size"); i++) {
        if (mcx_attr(e, keys[i])) {
          size_t n = strlen(given);
          snprintf(given + n, sizeof(given) - n, " %s='%.80s'", keys[i], mcx_attr(e, keys[i]));
        }
      }
      if (given[0]) {
        mcc_error(c, e, "cannot allocate the data sized by <size%s>", given);
      }
    }
    mcc_error(c, NULL, "out of memory computing the model constants");
  }
  mcc_springDamper(c, m);
  return m;
}
