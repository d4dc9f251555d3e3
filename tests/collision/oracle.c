// Collision tests: MuJoCo 2.2.2 oracle helpers.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/io.h"
#include "oracle.h"
#include "testutil.h"


mjModel* orc_loadMj(const char* xml) {
  char path[] = "/tmp/moduco_collision_XXXXXX.xml";
  int fd = mkstemps(path, 4);
  if (fd < 0) {
    return NULL;
  }
  FILE* f = fdopen(fd, "w");
  fputs(xml, f);
  fclose(f);
  char err[1000] = "";
  mjModel* mm = mj_loadXML(path, NULL, err, sizeof(err));
  unlink(path);
  if (!mm) {
    fprintf(stderr, "mj_loadXML: %s\n", err);
  }
  return mm;
}


mcModel* orc_convert(const mjModel* mm) {
  mcModel sz;
  memset(&sz, 0, sizeof(sz));
  sz.nbody = mm->nbody;
  sz.ngeom = mm->ngeom;
  sz.npair = mm->npair;
  sz.nexclude = mm->nexclude;
  sz.nmesh = mm->nmesh;
  sz.nmeshvert = mm->nmeshvert;
  sz.nmeshface = mm->nmeshface;
  sz.nmeshgraph = mm->nmeshgraph;
  sz.nhfield = mm->nhfield;
  sz.nhfielddata = mm->nhfielddata;
  sz.nconmax = mm->nconmax > 0 ? mm->nconmax : -1;
  sz.njmax = -1;
  mci_defaultOption(&sz.opt);
  sz.opt.mpr_tolerance = mm->opt.mpr_tolerance;
  sz.opt.mpr_iterations = mm->opt.mpr_iterations;
  sz.opt.o_margin = mm->opt.o_margin;
  memcpy(sz.opt.o_solref, mm->opt.o_solref, sizeof(sz.opt.o_solref));
  memcpy(sz.opt.o_solimp, mm->opt.o_solimp, sizeof(sz.opt.o_solimp));
  sz.opt.collision = mm->opt.collision;
  sz.opt.disableflags = mm->opt.disableflags;
  sz.opt.enableflags = mm->opt.enableflags;
  mcModel* m = mci_makeModel(&sz);
  if (!m) {
    return NULL;
  }
  tu_legacyCollision(m);  // MuJoCo 2.2.2's convex colliders and margin rule

  // bodies
  for (int i = 0; i < mm->nbody; i++) {
    m->body_parentid[i] = mm->body_parentid[i];
    m->body_rootid[i] = mm->body_rootid[i];
    m->body_weldid[i] = mm->body_weldid[i];
    m->body_geomnum[i] = mm->body_geomnum[i];
    m->body_geomadr[i] = mm->body_geomadr[i];
    m->body_dofnum[i] = mm->body_dofnum[i];
  }

  // geoms
  for (int i = 0; i < mm->ngeom; i++) {
    m->geom_type[i] = mm->geom_type[i];
    m->geom_contype[i] = mm->geom_contype[i];
    m->geom_conaffinity[i] = mm->geom_conaffinity[i];
    m->geom_condim[i] = mm->geom_condim[i];
    m->geom_bodyid[i] = mm->geom_bodyid[i];
    m->geom_dataid[i] = mm->geom_dataid[i];
    m->geom_priority[i] = mm->geom_priority[i];
    m->geom_solmix[i] = mm->geom_solmix[i];
    m->geom_rbound[i] = mm->geom_rbound[i];
    m->geom_margin[i] = mm->geom_margin[i];
    m->geom_gap[i] = mm->geom_gap[i];
    memcpy(m->geom_solref + mcNREF*i, mm->geom_solref + mjNREF*i, sizeof(mcNum) * mcNREF);
    memcpy(m->geom_solimp + mcNIMP*i, mm->geom_solimp + mjNIMP*i, sizeof(mcNum) * mcNIMP);
    memcpy(m->geom_size + 3*i, mm->geom_size + 3*i, sizeof(mcNum) * 3);
    memcpy(m->geom_friction + 3*i, mm->geom_friction + 3*i, sizeof(mcNum) * 3);
    memcpy(m->geom_pos + 3*i, mm->geom_pos + 3*i, sizeof(mcNum) * 3);
    memcpy(m->geom_quat + 4*i, mm->geom_quat + 4*i, sizeof(mcNum) * 4);
  }

  // pairs and excludes
  for (int i = 0; i < mm->npair; i++) {
    m->pair_dim[i] = mm->pair_dim[i];
    m->pair_geom1[i] = mm->pair_geom1[i];
    m->pair_geom2[i] = mm->pair_geom2[i];
    m->pair_signature[i] = mm->pair_signature[i];
    m->pair_margin[i] = mm->pair_margin[i];
    m->pair_gap[i] = mm->pair_gap[i];
    memcpy(m->pair_solref + mcNREF*i, mm->pair_solref + mjNREF*i, sizeof(mcNum) * mcNREF);
    memcpy(m->pair_solimp + mcNIMP*i, mm->pair_solimp + mjNIMP*i, sizeof(mcNum) * mcNIMP);
    memcpy(m->pair_friction + 5*i, mm->pair_friction + 5*i, sizeof(mcNum) * 5);
  }
  for (int i = 0; i < mm->nexclude; i++) {
    m->exclude_signature[i] = mm->exclude_signature[i];
  }

  // meshes
  for (int i = 0; i < mm->nmesh; i++) {
    m->mesh_vertadr[i] = mm->mesh_vertadr[i];
    m->mesh_vertnum[i] = mm->mesh_vertnum[i];
    m->mesh_faceadr[i] = mm->mesh_faceadr[i];
    m->mesh_facenum[i] = mm->mesh_facenum[i];
    m->mesh_graphadr[i] = mm->mesh_graphadr[i];
  }
  memcpy(m->mesh_graph, mm->mesh_graph, sizeof(int) * (size_t)mm->nmeshgraph);
  memcpy(m->mesh_vert, mm->mesh_vert, sizeof(float) * 3 * (size_t)mm->nmeshvert);
  memcpy(m->mesh_face, mm->mesh_face, sizeof(int) * 3 * (size_t)mm->nmeshface);

  // height fields (the arrays as MuJoCo holds them, so tests can fill elevations by hand)
  orc_copyHfield(mm, m);
  return m;
}


void orc_copyHfield(const mjModel* mm, mcModel* m) {
  for (int i = 0; i < mm->nhfield; i++) {
    memcpy(m->hfield_size + 4*i, mm->hfield_size + 4*i, sizeof(mcNum) * 4);
    m->hfield_nrow[i] = mm->hfield_nrow[i];
    m->hfield_ncol[i] = mm->hfield_ncol[i];
    m->hfield_adr[i] = mm->hfield_adr[i];
  }
  memcpy(m->hfield_data, mm->hfield_data, sizeof(float) * (size_t)mm->nhfielddata);
}


int orc_sceneLoad(OrcScene* s, const char* xml) {
  memset(s, 0, sizeof(*s));
  s->mm = orc_loadMj(xml);
  if (s->mm) {
    s->md = mj_makeData(s->mm);
    s->m = orc_convert(s->mm);
    s->d = s->m ? mc_makeData(s->m) : NULL;
  }
  if (!s->md || !s->d) {
    orc_sceneFree(s);
    return 0;
  }
  return 1;
}


void orc_sceneFree(OrcScene* s) {
  mc_deleteData(s->d);
  mc_deleteModel(s->m);
  if (s->md) {
    mj_deleteData(s->md);
  }
  if (s->mm) {
    mj_deleteModel(s->mm);
  }
  memset(s, 0, sizeof(*s));
}


void orc_copyPoses(const mjModel* mm, const mjData* md, const mcModel* m, mcData* d) {
  memcpy(d->geom_xpos, md->geom_xpos, sizeof(mcNum) * 3 * (size_t)mm->ngeom);
  memcpy(d->geom_xmat, md->geom_xmat, sizeof(mcNum) * 9 * (size_t)mm->ngeom);
  memcpy(d->xpos, md->xpos, sizeof(mcNum) * 3 * (size_t)mm->nbody);
  memcpy(d->xmat, md->xmat, sizeof(mcNum) * 9 * (size_t)mm->nbody);
}


static double vecErr(const double* a, const double* b, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) {
    e = fmax(e, fabs(a[i] - b[i]));
  }
  return e;
}


int orc_compare(const mjContact* ref, int nref, const mcContact* con, int ncon, double tol,
                int params, const char* label, OrcStats* st) {
  static int printed = 0, maxprint = -1;
  if (maxprint < 0) {
    const char* env = getenv("ORC_PRINT");
    maxprint = env ? atoi(env) : 20;
  }
  int ok = 1;
  st->ncases++;
  if (nref != ncon) {
    ok = 0;
    st->nmismatch++;
    if (printed++ < maxprint) {
      fprintf(stderr, "[%s] ncon %d, MuJoCo %d\n", label, ncon, nref);
      for (int i = 0; i < nref; i++) {
        fprintf(stderr, "   mj %d-%d dist %.9g pos %.6g %.6g %.6g n %.6g %.6g %.6g\n",
                ref[i].geom1, ref[i].geom2, ref[i].dist, ref[i].pos[0], ref[i].pos[1],
                ref[i].pos[2], ref[i].frame[0], ref[i].frame[1], ref[i].frame[2]);
      }
      for (int i = 0; i < ncon; i++) {
        fprintf(stderr, "   mc %d-%d dist %.9g pos %.6g %.6g %.6g n %.6g %.6g %.6g\n",
                con[i].geom1, con[i].geom2, con[i].dist, con[i].pos[0], con[i].pos[1],
                con[i].pos[2], con[i].frame[0], con[i].frame[1], con[i].frame[2]);
      }
    }
  }
  int n = nref < ncon ? nref : ncon;
  for (int i = 0; i < n; i++) {
    const mjContact* r = ref + i;
    const mcContact* c = con + i;
    double e = fmax(fabs(r->dist - c->dist), fmax(vecErr(r->pos, c->pos, 3),
                                                  vecErr(r->frame, c->frame, 3)));
    int bad = r->geom1 != c->geom1 || r->geom2 != c->geom2 || !(e <= tol);
    if (params && !bad) {
      double pe = fmax(vecErr(r->frame, c->frame, 9), fabs(r->includemargin - c->includemargin));
      pe = fmax(pe, vecErr(r->friction, c->friction, 5));
      pe = fmax(pe, vecErr(r->solref, c->solref, mjNREF));
      pe = fmax(pe, vecErr(r->solimp, c->solimp, mjNIMP));
      bad = r->dim != c->dim || !(pe <= tol);
    }
    st->ncompared++;
    if (r->geom1 == c->geom1 && r->geom2 == c->geom2 && e > st->maxerr && nref == ncon) {
      st->maxerr = e;
    }
    if (bad) {
      ok = 0;
      if (nref == ncon) {
        st->nmismatch++;
      }
      if (printed++ < maxprint) {
        fprintf(stderr, "[%s] contact %d: mc %d-%d dist %.12g pos %.9g %.9g %.9g n %.9g %.9g %.9g"
                "\n   MuJoCo %d-%d dist %.12g pos %.9g %.9g %.9g n %.9g %.9g %.9g\n", label, i,
                c->geom1, c->geom2, c->dist, c->pos[0], c->pos[1], c->pos[2], c->frame[0],
                c->frame[1], c->frame[2], r->geom1, r->geom2, r->dist, r->pos[0], r->pos[1],
                r->pos[2], r->frame[0], r->frame[1], r->frame[2]);
      }
    }
  }
  if (!ok) {
    st->ncasefail++;
  }
  return ok;
}


static double contactErr(const mjContact* r, const mcContact* c) {
  double e = fmax(fabs(r->dist - c->dist), fmax(vecErr(r->pos, c->pos, 3),
                                                vecErr(r->frame, c->frame, 3)));
  if (r->geom1 != c->geom1 || r->geom2 != c->geom2 || e != e) {
    e = INFINITY;
  }
  return e;
}


int orc_compareSet(const mjContact* ref, int nref, const mcContact* con, int ncon, double tol,
                   const char* label, OrcStats* st) {
  mjContact sref[mjMAXCONPAIR];
  mcContact scon[mcMAXCONPAIR];
  int nr = nref < mjMAXCONPAIR ? nref : mjMAXCONPAIR;
  int nc = ncon < mcMAXCONPAIR ? ncon : mcMAXCONPAIR;
  memcpy(sref, ref, sizeof(mjContact) * (size_t)nr);
  memcpy(scon, con, sizeof(mcContact) * (size_t)nc);

  // order Moduco's contacts like MuJoCo's: greedy nearest pairs
  int used[mcMAXCONPAIR] = {0};
  mcContact ord[mcMAXCONPAIR];
  int nord = 0;
  for (int i = 0; i < nr && nord < nc; i++) {
    int best = -1;
    double be = INFINITY;
    for (int j = 0; j < nc; j++) {
      double e = used[j] ? INFINITY : contactErr(sref + i, scon + j);
      if (!used[j] && (best < 0 || e < be)) {
        best = j;
        be = e;
      }
    }
    used[best] = 1;
    ord[nord++] = scon[best];
  }
  for (int j = 0; j < nc; j++) {
    if (!used[j]) {
      ord[nord++] = scon[j];
    }
  }
  return orc_compare(sref, nr, ord, nord, tol, 0, label, st);
}


int orc_lineHitsBox(const mjModel* mm, const mjData* md, int g, const double p[3],
                    const double n[3], double tol) {
  const double* c = md->geom_xpos + 3*g;
  const double* R = md->geom_xmat + 9*g;
  const double* s = mm->geom_size + 3*g;
  double lo = -INFINITY, hi = INFINITY;
  for (int k = 0; k < 3; k++) {
    double a[3] = {R[k], R[3 + k], R[6 + k]};
    double o = (p[0] - c[0])*a[0] + (p[1] - c[1])*a[1] + (p[2] - c[2])*a[2];
    double dn = n[0]*a[0] + n[1]*a[1] + n[2]*a[2];
    if (fabs(dn) < 1e-12) {
      if (fabs(o) > s[k] + tol) {
        return 0;
      }
      continue;
    }
    double t1 = (-s[k] - tol - o) / dn, t2 = (s[k] + tol - o) / dn;
    lo = fmax(lo, fmin(t1, t2));
    hi = fmin(hi, fmax(t1, t2));
  }
  return lo <= hi;
}


int orc_dropOffOverlap(const mjModel* mm, const mjData* md, mjContact* rc, int nr) {
  int n = 0;
  for (int i = 0; i < nr; i++) {
    int dup = 0;
    for (int j = 0; j < n && !dup; j++) {
      dup = vecErr(rc[i].pos, rc[j].pos, 3) < 1e-12 && fabs(rc[i].dist - rc[j].dist) < 1e-12;
    }
    if (!dup && orc_lineHitsBox(mm, md, 0, rc[i].pos, rc[i].frame, 1e-9) &&
        orc_lineHitsBox(mm, md, 1, rc[i].pos, rc[i].frame, 1e-9)) {
      rc[n++] = rc[i];
    }
  }
  return n;
}


// does box geom g contain x: scaled by f outwards (outer) or its size by f (else), plus margin
static int boxHolds(const mjModel* mm, const mjData* md, int g, const double x[3], double margin,
                    int outer) {
  const double* R = md->geom_xmat + 9*g;
  const double* c = md->geom_xpos + 3*g;
  const double* sz = mm->geom_size + 3*g;
  for (int k = 0; k < 3; k++) {
    double l = fabs((x[0] - c[0])*R[k] + (x[1] - c[1])*R[3 + k] + (x[2] - c[2])*R[6 + k]);
    if (outer ? 1.01*l > sz[k] + margin : l > 1.01*(sz[k] + margin)) {
      return 0;
    }
  }
  return 1;
}


int orc_keepLikeMujoco3(const mjModel* mm, const mjData* md, mjContact* rc, int nr,
                        double margin) {
  int n = 0;
  for (int i = 0; i < nr; i++) {
    const double* x = rc[i].pos;
    if (boxHolds(mm, md, 0, x, margin, 1) || boxHolds(mm, md, 1, x, margin, 1) ||
        (boxHolds(mm, md, 0, x, margin, 0) && boxHolds(mm, md, 1, x, margin, 0))) {
      rc[n++] = rc[i];
    }
  }
  return n;
}


double orc_uniform(OrcRng* r, double lo, double hi) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  unsigned long long x = r->s * 2685821657736338717ULL;
  return lo + (hi - lo) * ((double)(x >> 11) / 9007199254740992.0);
}


void orc_quat(OrcRng* r, double q[4]) {
  double n = 0;
  do {
    for (int i = 0; i < 4; i++) {
      q[i] = orc_uniform(r, -1, 1);
    }
    n = sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3]);
  } while (n < 0.1 || n > 1);
  for (int i = 0; i < 4; i++) {
    q[i] /= n;
  }
}
