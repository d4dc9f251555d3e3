// Collision tests: every collide function against MuJoCo 2.2.2's over random relative poses
// (separated, within margin, penetrating, axis-aligned and nearly parallel configurations).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "engine/collision.h"
#include "plugin/registry.h"
#include "oracle.h"

static const char* const g_type[] = {
  "plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"
};

// a pair test: geom types, number of poses, tolerance
typedef struct {
  int t1, t2;
  int nposes;
  double tol;
} PairCase;


// a random convex mesh asset named name: 8..60 points, a box-like cloud (uniform in a cube,
// kind 0), a round one (on a sphere, kind 1) or a box's eight corners with points on its faces
// (kind 2: flat faces, exact ties in the support along the faces' normals), scaled to
// half-extents scale; MuJoCo builds the hull and its graph, which the oracle copies (orc_convert).
// Returns the length written (size or more: it did not fit)
static int meshAsset(OrcRng* r, int kind, const double scale[3], const char* name, char* xml,
                     size_t size) {
  int nv = 8 + (int)orc_uniform(r, 0, 52), len = 0;
  len += snprintf(xml + len, size - (size_t)len, "<mesh name='%s' vertex='", name);
  for (int i = 0; i < nv && len < (int)size; i++) {
    double v[3];
    for (int k = 0; k < 3; k++) {
      v[k] = orc_uniform(r, -1, 1);
    }
    if (kind == 1) {
      mju_normalize3(v);
    } else if (kind == 2) {
      if (i < 8) {
        for (int k = 0; k < 3; k++) {
          v[k] = (i >> k) & 1 ? 1 : -1;
        }
      } else {
        int a = (int)orc_uniform(r, 0, 3);
        v[a > 2 ? 2 : a] = v[0] + v[1] + v[2] > 0 ? 1 : -1;
      }
    }
    len += snprintf(xml + len, size - (size_t)len, "%.6f %.6f %.6f ", scale[0]*v[0],
                    scale[1]*v[1], scale[2]*v[2]);
  }
  if (len < (int)size) {
    len += snprintf(xml + len, size - (size_t)len, "'/>");
  }
  return len;
}

static int g_nphantom = 0;        // MuJoCo box-box contacts dropped as phantoms (see below)


// MuJoCo 2.2.2 box-box adds a "phantom" contact at the first corner of box 2's face when an edge
// of that face is level with box 1's face (exactly parallel faces, or a tilt about one face
// axis), wherever that corner is. Outside the overlap it is no contact at all: the line through
// it along the normal misses one of the boxes, and for a far corner it reports a penetration
// where there is none (the family of MJ#3476); inside, it repeats a contact already reported.
// Moduco leaves it out; the comparison drops it from MuJoCo's set and counts it.
// penetration of boxes 0 and 1 along unit n: overlap of their projections (negative: apart)
static double boxOverlap(const mjModel* mm, const mjData* md, const double n[3]) {
  double r = 0, t = 0;
  for (int g = 0; g < 2; g++) {
    const double* R = md->geom_xmat + 9*g;
    for (int k = 0; k < 3; k++) {
      r += mm->geom_size[3*g + k] * fabs(R[k]*n[0] + R[3 + k]*n[1] + R[6 + k]*n[2]);
    }
    t += (g ? 1 : -1) * (md->geom_xpos[3*g]*n[0] + md->geom_xpos[3*g + 1]*n[1] +
                         md->geom_xpos[3*g + 2]*n[2]);
  }
  return r - fabs(t);
}


// a contact deeper than the two boxes overlap along its normal (2.2.2 reports such penetrations
// for boxes that an edge axis separates, the MJ#3476 family; Moduco reports the separation);
// 2.2.2's halved face distances (see box.c) are allowed
static int tooDeep(const mjModel* mm, const mjData* md, double dist, const double n[3]) {
  double ov = boxOverlap(mm, md, n);
  return -dist > fmax(ov, 0.5*ov) + 1e-9;
}

static int g_nbogus = 0;          // poses where MuJoCo reports such a contact (not compared)


static int dropPhantoms(const mjModel* mm, const mjData* md, mjContact* rc, int nr) {
  int n = orc_dropOffOverlap(mm, md, rc, nr);
  g_nphantom += nr - n;
  return n;
}


// sphere-box poses with the sphere centre inside the box (MJ#2206): 2.2.2 reports depth r, 3.3.8,
// 3.14 and Moduco r + the distance to the nearest face; they are compared with 3.14 in
// test_collision_boxes.c (sphere_centre_inside_box_as_mujoco3), not here
static int g_ninside = 0;

static int centreInBox(const mjModel* mm, const mjData* md) {
  double dif[3], loc[3];
  mju_sub3(dif, md->geom_xpos, md->geom_xpos + 3);
  mju_mulMatTVec(loc, md->geom_xmat + 9, dif, 3, 3);
  for (int k = 0; k < 3; k++) {
    if (fabs(loc[k]) > mm->geom_size[3 + k]) {
      return 0;
    }
  }
  return 1;
}


// capsule-box poses whose segment enters the box: 2.2.2 reports depth r for the spheres inside,
// 3.3.8, 3.14 and Moduco the true depth (as for sphere-box); compared with 3.14 in
// test_collision_boxes.c (capsule_box_as_mujoco3), not here
static int segmentInBox(const mjModel* mm, const mjData* md) {
  double dif[3], c[3], a[3], ax[3] = {md->geom_xmat[2], md->geom_xmat[5], md->geom_xmat[8]};
  double h = mm->geom_size[1], lo = -h, hi = h;
  mju_sub3(dif, md->geom_xpos, md->geom_xpos + 3);
  mju_mulMatTVec(c, md->geom_xmat + 9, dif, 3, 3);
  mju_mulMatTVec(a, md->geom_xmat + 9, ax, 3, 3);
  for (int k = 0; k < 3; k++) {
    const double s = mm->geom_size[3 + k];
    if (fabs(a[k]) < 1e-12) {
      if (fabs(c[k]) > s) {
        return 0;
      }
      continue;
    }
    double ta = (-s - c[k]) / a[k], tb = (s - c[k]) / a[k];
    lo = fmax(lo, fmin(ta, tb));
    hi = fmin(hi, fmax(ta, tb));
  }
  return lo <= hi;
}


// random size for a geom type
static void randomSize(OrcRng* r, int type, double size[3]) {
  size[0] = orc_uniform(r, 0.05, 0.3);
  size[1] = orc_uniform(r, 0.05, 0.3);
  size[2] = orc_uniform(r, 0.05, 0.3);
  if (type == mjGEOM_PLANE) {
    size[0] = size[1] = 0;
    size[2] = 1;
  }
}


// random orientation: general, axis-aligned (multiples of 90 degrees) or nearly aligned
static void randomQuat(OrcRng* r, double q[4], int mode) {
  if (mode == 0) {
    orc_quat(r, q);
    return;
  }
  static const double h = 0.70710678118654752;
  static const double aligned[6][4] = {
    {1, 0, 0, 0}, {h, h, 0, 0}, {h, 0, h, 0}, {h, 0, 0, h}, {0, 1, 0, 0}, {0.5, 0.5, 0.5, 0.5}
  };
  int k = (int)orc_uniform(r, 0, 6);
  memcpy(q, aligned[k > 5 ? 5 : k], sizeof(double) * 4);
  if (mode == 2) {
    for (int i = 0; i < 4; i++) {
      q[i] += orc_uniform(r, -1e-9, 1e-9);
    }
    mju_normalize4(q);
  }
}


// run one type pair: return stats; print a summary line
static OrcStats runPair(const PairCase* pc, unsigned long long seed) {
  OrcStats st = {0};
  OrcRng rng = {seed * 7919 + 17};
  mcpfCollide fn = mci_collisionFunc(pc->t1, pc->t2);
  cr_assert(fn, "no collide function for %s-%s", g_type[pc->t1], g_type[pc->t2]);
  mjfCollision ref = mjCOLLISIONFUNC[pc->t1][pc->t2];
  cr_assert(ref, "MuJoCo has no function for %s-%s", g_type[pc->t1], g_type[pc->t2]);

  int nmodel = pc->t2 == mjGEOM_MESH ? 20 : 10;     // more meshes than primitive sizes
  for (int im = 0; im < nmodel; im++) {
    double s1[3], s2[3];
    randomSize(&rng, pc->t1, s1);
    randomSize(&rng, pc->t2, s2);
    // mesh geoms: a random convex mesh each (kinds and sizes varied over the models), with 1.5
    // times the random size as the half-extents of its cloud
    char xml[20000], asset[2][8192] = {"", ""}, geom[2][160];
    const int type[2] = {pc->t1, pc->t2};
    const double* size[2] = {s1, s2};
    for (int g = 0; g < 2; g++) {
      if (type[g] == mjGEOM_MESH) {
        double sc[3];
        for (int k = 0; k < 3; k++) {
          sc[k] = 1.5*size[g][k];
        }
        int len = meshAsset(&rng, (im + g) % 3, sc, g ? "m1" : "m0", asset[g], sizeof(asset[g]));
        cr_assert(len < (int)sizeof(asset[g]), "mesh asset truncated");
        snprintf(geom[g], sizeof(geom[g]), "<geom type='mesh' mesh='m%d'/>", g);
      } else {
        snprintf(geom[g], sizeof(geom[g]), "<geom type='%s' size='%.17g %.17g %.17g'/>",
                 g_type[type[g]], size[g][0], size[g][1], size[g][2]);
      }
    }
    snprintf(xml, sizeof(xml),
             "<mujoco>%s%s%s%s<worldbody>"
             "<body mocap='true'>%s</body><body mocap='true'>%s</body>"
             "</worldbody></mujoco>", *asset[0] || *asset[1] ? "<asset>" : "", asset[0],
             asset[1], *asset[0] || *asset[1] ? "</asset>" : "", geom[0], geom[1]);
    mjModel* mm = orc_loadMj(xml);
    cr_assert(mm);
    mjData* md = mj_makeData(mm);
    mj_forward(mm, md);
    mcModel* m = orc_convert(mm);
    mcData* d = mc_makeData(m);
    cr_assert(m && d);

    for (int ip = 0; ip < pc->nposes / nmodel; ip++) {
      // poses: the second geom at a random distance around the first
      double q[4], dir[3], margin = ip % 3 == 0 ? orc_uniform(&rng, 0, 0.1) : 0;
      int mode = ip % 4 == 1 ? 1 : (ip % 4 == 2 ? 2 : 0);
      for (int g = 0; g < 2; g++) {
        randomQuat(&rng, q, g == 0 && pc->t1 == mjGEOM_PLANE ? 0 : mode);
        mju_quat2Mat(md->geom_xmat + 9*g, q);
      }
      orc_quat(&rng, q);
      double reach = (pc->t1 == mjGEOM_PLANE ? 0 : mm->geom_rbound[0]) + mm->geom_rbound[1];
      double dd = orc_uniform(&rng, 0, 1.1 * reach + margin);
      if (mode && ip % 8 < 4) {
        // axis-aligned offsets for face-on configurations
        dir[0] = orc_uniform(&rng, -0.3, 0.3);
        dir[1] = orc_uniform(&rng, -0.3, 0.3);
        dir[2] = 1;
        mju_normalize3(dir);
      } else {
        double v[3] = {orc_uniform(&rng, -1, 1), orc_uniform(&rng, -1, 1),
                       orc_uniform(&rng, -1, 1)};
        mju_normalize3(v);
        memcpy(dir, v, sizeof(dir));
      }
      for (int k = 0; k < 3; k++) {
        md->geom_xpos[k] = orc_uniform(&rng, -1, 1);
      }
      if (pc->t1 == mjGEOM_PLANE) {
        // height along the plane normal plus a tangential offset
        double n[3] = {md->geom_xmat[2], md->geom_xmat[5], md->geom_xmat[8]};
        double hgt = orc_uniform(&rng, -0.5*mm->geom_rbound[1], mm->geom_rbound[1] + margin);
        for (int k = 0; k < 3; k++) {
          md->geom_xpos[3 + k] = md->geom_xpos[k] + hgt*n[k] + 0.3*dir[k]*orc_uniform(&rng, 0, 1);
        }
      } else {
        for (int k = 0; k < 3; k++) {
          md->geom_xpos[3 + k] = md->geom_xpos[k] + dd*dir[k];
        }
      }

      // both sides on the same poses
      orc_copyPoses(mm, md, m, d);
      mjContact rc[mjMAXCONPAIR];
      mcContact mc[mcMAXCONPAIR];
      memset(rc, 0, sizeof(rc));
      memset(mc, 0, sizeof(mc));
      int nr = ref(mm, md, rc, 0, 1, margin);
      int nc = fn(mcp_host(), m, d, mc, 0, 1, margin);
      for (int i = 0; i < nr; i++) {
        rc[i].geom1 = 0;
        rc[i].geom2 = 1;
        mju_normalize3(rc[i].frame);
      }
      if ((pc->t1 == mjGEOM_SPHERE && pc->t2 == mjGEOM_BOX && centreInBox(mm, md)) ||
          (pc->t1 == mjGEOM_CAPSULE && pc->t2 == mjGEOM_BOX && segmentInBox(mm, md))) {
        g_ninside++;
        continue;
      }
      if (pc->t1 == mjGEOM_BOX && pc->t2 == mjGEOM_BOX) {
        nr = orc_keepLikeMujoco3(mm, md, rc, nr, margin);
        nr = dropPhantoms(mm, md, rc, nr);
        for (int i = 0; i < nc; i++) {
          cr_expect(!tooDeep(mm, md, mc[i].dist, mc[i].frame),
                    "box-box #%d: dist %g deeper than the overlap", ip, mc[i].dist);
        }
        int bogus = 0;
        for (int i = 0; i < nr; i++) {
          bogus |= tooDeep(mm, md, rc[i].dist, rc[i].frame);
        }
        if (bogus) {
          g_nbogus++;
          continue;
        }
      }
      for (int i = 0; i < nc; i++) {
        mc[i].geom1 = 0;
        mc[i].geom2 = 1;
        mci_makeFrame(mc[i].frame);
      }
      char label[64];
      snprintf(label, sizeof(label), "%s-%s #%d", g_type[pc->t1], g_type[pc->t2], ip);
      orc_compareSet(rc, nr, mc, nc, pc->tol, label, &st);
    }
    mc_deleteData(d);
    mc_deleteModel(m);
    mj_deleteData(md);
    mj_deleteModel(mm);
  }
  printf("%-20s poses %4d  agree %4d (%.1f%%)  contacts %4d  max err %.3g", "", st.ncases,
         st.ncases - st.ncasefail, 100.0 * (st.ncases - st.ncasefail) / (st.ncases ? st.ncases : 1),
         st.ncompared, st.maxerr);
  if ((pc->t1 == mjGEOM_SPHERE || pc->t1 == mjGEOM_CAPSULE) && pc->t2 == mjGEOM_BOX) {
    printf("  (%s inside the box, compared with 3.14 elsewhere: %d)",
           pc->t1 == mjGEOM_SPHERE ? "centre" : "segment", g_ninside);
    g_ninside = 0;
  }
  if (pc->t1 == mjGEOM_BOX && pc->t2 == mjGEOM_BOX) {
    printf("  (MuJoCo phantom contacts left out: %d; poses with deeper-than-overlap MuJoCo "
           "contacts not compared: %d)", g_nphantom, g_nbogus);
  }
  printf("\n");
  fflush(stdout);
  return st;
}


#define PAIR_TEST(NAME, T1, T2, N, TOL, MINAGREE)                                                 \
  Test(pairs, NAME) {                                                                              \
    PairCase pc = {T1, T2, N, TOL};                                                                \
    printf("%s-%s:", g_type[T1], g_type[T2]);                                                     \
    OrcStats st = runPair(&pc, (unsigned long long)(T1 * 8 + T2));                                \
    double agree = (double)(st.ncases - st.ncasefail) / st.ncases;                                \
    cr_expect(agree >= MINAGREE, "%s-%s: %d of %d poses differ from MuJoCo", g_type[T1],         \
              g_type[T2], st.ncasefail, st.ncases);                                               \
  }

// analytic pairs: exact agreement required (1e-9)
PAIR_TEST(plane_sphere, mjGEOM_PLANE, mjGEOM_SPHERE, 400, 1e-9, 1.0)
PAIR_TEST(plane_capsule, mjGEOM_PLANE, mjGEOM_CAPSULE, 400, 1e-9, 1.0)
PAIR_TEST(plane_ellipsoid, mjGEOM_PLANE, mjGEOM_ELLIPSOID, 400, 1e-9, 1.0)
PAIR_TEST(plane_cylinder, mjGEOM_PLANE, mjGEOM_CYLINDER, 400, 1e-9, 1.0)
PAIR_TEST(plane_box, mjGEOM_PLANE, mjGEOM_BOX, 400, 1e-9, 1.0)
PAIR_TEST(sphere_sphere, mjGEOM_SPHERE, mjGEOM_SPHERE, 400, 1e-9, 1.0)
PAIR_TEST(sphere_capsule, mjGEOM_SPHERE, mjGEOM_CAPSULE, 400, 1e-9, 1.0)
PAIR_TEST(sphere_box, mjGEOM_SPHERE, mjGEOM_BOX, 400, 1e-9, 1.0)
PAIR_TEST(capsule_capsule, mjGEOM_CAPSULE, mjGEOM_CAPSULE, 400, 1e-9, 1.0)
// capsule-box and box-box: MuJoCo 2.2.2's contact sets as derived from its behaviour (see
// plugins/collision-primitive/box.c); box-box then keeps the contacts MuJoCo 3.3.8 keeps (a
// containment test, orc_keepLikeMujoco3 applied to 2.2.2's set here; 3.14 has another collider,
// the separating-axis test, compared in test_collision_boxes.c and test_collision_gjk.c);
// MuJoCo's box-box "phantom" corners are left out of the comparison (dropPhantoms), and poses
// where 2.2.2 reports a contact deeper than the boxes overlap are not compared (tooDeep; Moduco's
// own contacts are checked against that bound, and test_collision_boxes.c holds such a pose).
// Remaining differences (floors at what is reached):
// box-box, the corners 2.2.2 keeps on edge axes in a few deep or near-face poses; capsule-box,
// only axis-aligned poses where 2.2.2's choice turns on rounding (a nearest point exactly on a
// face plane, a segment exactly parallel to an edge): whether a segment crossing the box or
// lying over a face gets its second contact. (2.2.2 also reports no contact for some segments
// through the box, which Moduco does not reproduce; none among these poses.) Capsule-box poses
// whose segment enters the box are compared with MuJoCo 3.14 instead (segmentInBox above).
PAIR_TEST(capsule_box, mjGEOM_CAPSULE, mjGEOM_BOX, 400, 1e-9, 271.0 / 273)
PAIR_TEST(box_box, mjGEOM_BOX, mjGEOM_BOX, 400, 1e-9, 393.0 / 399)

// pairs MuJoCo 2.2.2 also solves with libccd's MPR: same library and settings, supports with
// 2.2.2's rounding (support.h geomSupport: MPR's choices hang on the sign of components that
// vanish up to rounding, e.g. which cylinder rim a direction normal to the axis picks), and the
// normal replaced as 2.2.2 does (support.h smoothContactNormal: the smooth geoms' surface normals
// at the contact point averaged; a cylinder left out near its caps; an ellipsoid's normal by
// 2.2.2's search for its nearest surface point, ellipsoidNormal: ray iterations from the MPR
// direction inside, Newton outside, with its tolerances, so even where it stops short of the
// nearest point the normals agree, to 1e-12 here and 7e-10 at worst on 3000 poses per pair).
// All poses agree (also on those 3000 per pair); floors at 1.0.
PAIR_TEST(sphere_cylinder, mjGEOM_SPHERE, mjGEOM_CYLINDER, 200, 1e-9, 1.0)
PAIR_TEST(capsule_cylinder, mjGEOM_CAPSULE, mjGEOM_CYLINDER, 200, 1e-9, 1.0)
PAIR_TEST(cylinder_cylinder, mjGEOM_CYLINDER, mjGEOM_CYLINDER, 200, 1e-9, 1.0)
PAIR_TEST(cylinder_box, mjGEOM_CYLINDER, mjGEOM_BOX, 200, 1e-9, 1.0)
PAIR_TEST(sphere_ellipsoid, mjGEOM_SPHERE, mjGEOM_ELLIPSOID, 200, 1e-9, 1.0)
PAIR_TEST(capsule_ellipsoid, mjGEOM_CAPSULE, mjGEOM_ELLIPSOID, 200, 1e-9, 1.0)
PAIR_TEST(ellipsoid_ellipsoid, mjGEOM_ELLIPSOID, mjGEOM_ELLIPSOID, 200, 1e-9, 1.0)
PAIR_TEST(ellipsoid_cylinder, mjGEOM_ELLIPSOID, mjGEOM_CYLINDER, 200, 1e-9, 1.0)
PAIR_TEST(ellipsoid_box, mjGEOM_ELLIPSOID, mjGEOM_BOX, 200, 1e-9, 1.0)

// mesh pairs: MPR against random convex meshes (meshAsset: box-like and round clouds, boxes with
// points on their faces; random sizes), the mesh second as in MuJoCo (type 7, the highest). All
// poses agree to 1e-9 (errors ~1e-16; the ellipsoid's normal 1e-10 at worst): the MPR steps
// follow 2.2.2's bit for bit once the mesh support picks, among vertices tied on a face normal to
// the direction, the one 2.2.2 picks (support.h meshSupportClimb: hill climbing on the hull graph
// from its first vertex at every call, found by probing) and rounds the point as 2.2.2 does (the
// primitives' transform). With the full scan's first vertex and Moduco's own rounding instead,
// 9 box-mesh, 10 cylinder-mesh and 5 mesh-mesh poses of these 200 differ, by up to 0.18 (with
// 2.2.2's rounding but the scan's vertex: 8, 7 and 4). On 3000 poses per pair over 100 meshes of
// up to 158 points all agree as well; floors at 1.0.
PAIR_TEST(sphere_mesh, mjGEOM_SPHERE, mjGEOM_MESH, 200, 1e-9, 1.0)
PAIR_TEST(capsule_mesh, mjGEOM_CAPSULE, mjGEOM_MESH, 200, 1e-9, 1.0)
PAIR_TEST(ellipsoid_mesh, mjGEOM_ELLIPSOID, mjGEOM_MESH, 200, 1e-9, 1.0)
PAIR_TEST(cylinder_mesh, mjGEOM_CYLINDER, mjGEOM_MESH, 200, 1e-9, 1.0)
PAIR_TEST(box_mesh, mjGEOM_BOX, mjGEOM_MESH, 200, 1e-9, 1.0)
PAIR_TEST(mesh_mesh, mjGEOM_MESH, mjGEOM_MESH, 200, 1e-9, 1.0)


// plane-mesh: random convex point clouds (hulls built by MuJoCo) in random poses above, touching
// and through a plane; the contact set (deepest hull vertex and the first two of its hull
// neighbours within the margin that are not too close to the first contact, see below) compared
// with MuJoCo 2.2.2's to 1e-9. The oracle copies MuJoCo's hull graph and vertices (orc_convert),
// so this tests the collision rule, not Moduco's own hull/graph construction
Test(pairs, plane_mesh) {
  OrcRng rng = {4242};
  OrcStats st = {0};
  mcpfCollide fn = mci_collisionFunc(mjGEOM_PLANE, mjGEOM_MESH);
  cr_assert(fn, "no collide function for plane-mesh");
  mjfCollision ref = mjCOLLISIONFUNC[mjGEOM_PLANE][mjGEOM_MESH];
  int nmulti = 0;
  for (int im = 0; im < 10; im++) {
    // 8..40 points: a box-like or round cloud
    char xml[8192];
    int nv = 8 + (int)orc_uniform(&rng, 0, 32), len = 0;
    len += snprintf(xml + len, sizeof(xml) - (size_t)len,
                    "<mujoco><asset><mesh name='m' vertex='");
    for (int i = 0; i < nv; i++) {
      double v[3];
      for (int k = 0; k < 3; k++) {
        v[k] = orc_uniform(&rng, -1, 1);
      }
      if (im % 2) {
        mju_normalize3(v);
      }
      len += snprintf(xml + len, sizeof(xml) - (size_t)len, "%.6f %.6f %.6f ",
                      0.3*v[0], 0.2*v[1], 0.25*v[2]);
    }
    snprintf(xml + len, sizeof(xml) - (size_t)len,
             "'/></asset><worldbody><body mocap='true'><geom type='plane' size='1 1 1'/></body>"
             "<body mocap='true'><geom type='mesh' mesh='m'/></body></worldbody></mujoco>");
    mjModel* mm = orc_loadMj(xml);
    cr_assert(mm);
    mjData* md = mj_makeData(mm);
    mj_forward(mm, md);
    mcModel* m = orc_convert(mm);
    mcData* d = mc_makeData(m);
    cr_assert(m && d);
    for (int ip = 0; ip < 40; ip++) {
      double q[4], margin = ip % 3 == 0 ? orc_uniform(&rng, 0, 0.1) : 0;
      orc_quat(&rng, q);
      mju_quat2Mat(md->geom_xmat, q);
      orc_quat(&rng, q);
      mju_quat2Mat(md->geom_xmat + 9, q);
      double n[3] = {md->geom_xmat[2], md->geom_xmat[5], md->geom_xmat[8]};
      double hgt = orc_uniform(&rng, -0.5*mm->geom_rbound[1], mm->geom_rbound[1] + margin);
      for (int k = 0; k < 3; k++) {
        md->geom_xpos[k] = orc_uniform(&rng, -1, 1);
        md->geom_xpos[3 + k] = md->geom_xpos[k] + hgt*n[k] + orc_uniform(&rng, -0.2, 0.2);
      }
      orc_copyPoses(mm, md, m, d);
      mjContact rc[mjMAXCONPAIR];
      mcContact mc[mcMAXCONPAIR];
      memset(rc, 0, sizeof(rc));
      memset(mc, 0, sizeof(mc));
      int nr = ref(mm, md, rc, 0, 1, margin);
      int nc = fn(mcp_host(), m, d, mc, 0, 1, margin);
      nmulti += nr > 1;
      for (int i = 0; i < nr; i++) {
        rc[i].geom1 = mc[i].geom1 = 0;
        rc[i].geom2 = mc[i].geom2 = 1;
      }
      for (int i = nr; i < nc; i++) {
        mc[i].geom1 = 0;
        mc[i].geom2 = 1;
      }
      char label[64];
      snprintf(label, sizeof(label), "plane-mesh #%d/%d", im, ip);
      orc_compareSet(rc, nr, mc, nc, 1e-9, label, &st);
    }
    mc_deleteData(d);
    mc_deleteModel(m);
    mj_deleteData(md);
    mj_deleteModel(mm);
  }
  printf("plane-mesh:          poses %4d  agree %4d  contacts %4d  (%d poses with several)\n",
         st.ncases, st.ncases - st.ncasefail, st.ncompared, nmulti);
  cr_expect(nmulti > 20, "too few poses with several contacts to test the neighbour rule");
  // 2.2.2's rule (found by probing): the deepest hull vertex, then the hull neighbours of it in
  // the graph's edge order that are within the margin, skipping any neighbour whose vertex lies
  // closer than 0.3*geom_rbound to the first contact's point (the midpoint between the deepest
  // vertex and the plane), at most three contacts. Without the skip 40 of these 400 poses
  // differ (deep poses, where a neighbour sinks to the height of that midpoint); with it all agree
  cr_expect(st.ncasefail == 0, "plane-mesh: %d of %d poses differ from MuJoCo", st.ncasefail,
            st.ncases);
}
