// Test helper: build small tree models by hand (see build.h).
#include "build.h"

#include <math.h>
#include <string.h>

#include "engine/io.h"


double tb_rand(unsigned* state, double lo, double hi) {
  *state = *state * 1103515245u + 12345u;
  return lo + (hi - lo) * (double)((*state >> 8) & 0xFFFFFF) / (double)0x1000000;
}


// normalized copy of a quaternion; zero means identity
static void unitQuat(double r[4], const double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n == 0) {
    r[0] = 1;
    r[1] = r[2] = r[3] = 0;
    return;
  }
  for (int k = 0; k < 4; k++) {
    r[k] = q[k] / n;
  }
}


static const int nqOf[4] = {7, 4, 1, 1};
static const int nvOf[4] = {6, 3, 1, 1};


// fill every array of m from the bodies; return the number of sparse inertia entries
static int fill(mcModel* m, int n, const tbBody* b) {
  int depth[1024] = {0};

  // bodies and joints
  int jnt = 0, qadr = 0, dadr = 0;
  m->body_parentid[0] = 0;
  m->body_rootid[0] = 0;
  m->body_mocapid[0] = -1;
  m->body_jntadr[0] = -1;
  m->body_dofadr[0] = -1;
  m->body_quat[0] = 1;
  m->body_iquat[0] = 1;
  for (int i = 1; i < n; i++) {
    const tbBody* bi = b + i;
    int p = bi->parent;
    m->body_parentid[i] = p;
    m->body_rootid[i] = p == 0 ? i : m->body_rootid[p];
    m->body_weldid[i] = i;
    m->body_mocapid[i] = -1;
    memcpy(m->body_pos + 3 * i, bi->pos, 3 * sizeof(double));
    unitQuat(m->body_quat + 4 * i, bi->quat);
    memcpy(m->body_ipos + 3 * i, bi->ipos, 3 * sizeof(double));
    unitQuat(m->body_iquat + 4 * i, bi->iquat);
    m->body_mass[i] = bi->mass;
    memcpy(m->body_inertia + 3 * i, bi->inertia, 3 * sizeof(double));
    m->body_jntadr[i] = -1;
    m->body_dofadr[i] = -1;

    // at most one joint
    if (bi->jtype >= 0) {
      int t = bi->jtype;
      m->body_jntnum[i] = 1;
      m->body_jntadr[i] = jnt;
      m->body_dofnum[i] = nvOf[t];
      m->body_dofadr[i] = dadr;
      m->jnt_type[jnt] = t;
      m->jnt_bodyid[jnt] = i;
      m->jnt_qposadr[jnt] = qadr;
      m->jnt_dofadr[jnt] = dadr;
      memcpy(m->jnt_pos + 3 * jnt, bi->jpos, 3 * sizeof(double));
      double a[3] = {bi->jaxis[0], bi->jaxis[1], bi->jaxis[2]};
      double na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
      if (na == 0 || t == mcJNT_FREE || t == mcJNT_BALL) {
        a[0] = a[1] = 0;
        a[2] = na = 1;
      }
      for (int k = 0; k < 3; k++) {
        m->jnt_axis[3 * jnt + k] = a[k] / na;
      }
      if (t == mcJNT_FREE || t == mcJNT_BALL) {
        int off = t == mcJNT_FREE ? 3 : 0;
        for (int k = 0; k < off; k++) {
          m->qpos0[qadr + k] = bi->pos[k];
        }
        m->qpos0[qadr + off] = 1;
      }
      for (int k = 0; k < nvOf[t]; k++) {
        m->dof_bodyid[dadr + k] = i;
        m->dof_jntid[dadr + k] = jnt;
      }
      qadr += nqOf[t];
      dadr += nvOf[t];
      jnt++;
    }
  }
  memcpy(m->qpos_spring, m->qpos0, sizeof(double) * (size_t)m->nq);

  // dof tree: previous dof of the body, else last dof of the nearest moving ancestor
  for (int i = 1; i < n; i++) {
    for (int k = 0; k < m->body_dofnum[i]; k++) {
      int dof = m->body_dofadr[i] + k;
      if (k > 0) {
        m->dof_parentid[dof] = dof - 1;
        continue;
      }
      int a = m->body_parentid[i];
      while (a > 0 && m->body_dofnum[a] == 0) {
        a = m->body_parentid[a];
      }
      m->dof_parentid[dof] = a > 0 ? m->body_dofadr[a] + m->body_dofnum[a] - 1 : -1;
    }
  }

  // sparse layout: row i holds 1 + depth(i) entries
  int nM = 0;
  for (int i = 0; i < m->nv; i++) {
    int p = m->dof_parentid[i];
    depth[i] = p < 0 ? 0 : depth[p] + 1;
    m->dof_Madr[i] = nM;
    nM += depth[i] + 1;
  }

  // subtree masses
  for (int i = 0; i < n; i++) {
    m->body_subtreemass[i] = m->body_mass[i];
  }
  for (int i = n - 1; i > 0; i--) {
    m->body_subtreemass[m->body_parentid[i]] += m->body_subtreemass[i];
  }

  return nM;
}


mcModel* tb_build(int n, const tbBody* b) {
  return tb_buildEx(n, b, 0, 0, 0, 0);
}


mcModel* tb_buildEx(int n, const tbBody* b, int nu, int na, int ntendon, int nwrap) {
  // sizes: joints, coordinates, dofs, actuators, tendons
  mcModel s;
  memset(&s, 0, sizeof(s));
  s.nu = nu;
  s.na = na;
  s.ntendon = ntendon;
  s.nwrap = nwrap;
  mci_defaultOption(&s.opt);
  s.nbody = n;
  for (int i = 1; i < n; i++) {
    if (b[i].jtype >= 0) {
      s.njnt++;
      s.nq += nqOf[b[i].jtype];
      s.nv += nvOf[b[i].jtype];
    }
  }

  // a first pass finds the sparse inertia size, the second fills the final model
  mcModel* tmp = mci_makeModel(&s);
  s.nM = fill(tmp, n, b);
  s.nD = 2 * s.nM - s.nv;
  mc_deleteModel(tmp);
  mcModel* m = mci_makeModel(&s);
  fill(m, n, b);

  // actuator defaults: stateless unit motors, no plugin
  for (int i = 0; i < nu; i++) {
    m->actuator_actadr[i] = -1;
    m->actuator_plugin[i] = -1;
    m->actuator_gear[6 * i] = 1;
    m->actuator_gainprm[mcNGAIN * i] = 1;
    m->actuator_dynprm[mcNDYN * i] = 1;
  }
  return m;
}


void tb_random(int n, tbBody* b, const int* parent, const int* jtype, unsigned seed) {
  unsigned st = seed * 2654435761u + 1;
  memset(b, 0, sizeof(tbBody) * (size_t)n);
  for (int i = 1; i < n; i++) {
    b[i].parent = parent[i];
    b[i].jtype = jtype[i];
    for (int k = 0; k < 3; k++) {
      b[i].pos[k] = tb_rand(&st, -0.5, 0.5);
      b[i].ipos[k] = tb_rand(&st, -0.2, 0.2);
      b[i].jpos[k] = tb_rand(&st, -0.1, 0.1);
      b[i].jaxis[k] = tb_rand(&st, -1, 1);
      b[i].inertia[k] = tb_rand(&st, 0.01, 0.1);
    }
    for (int k = 0; k < 4; k++) {
      b[i].quat[k] = tb_rand(&st, -1, 1);
      b[i].iquat[k] = tb_rand(&st, -1, 1);
    }
    b[i].mass = tb_rand(&st, 0.5, 2);
  }
}
