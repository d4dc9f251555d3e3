// Moduco collision-primitive plugin: box pairs (sphere-box, capsule-box, box-box).
#include <math.h>

#include <moduco/mcplugin.h>

#include "geom.h"
#include "primitive.h"


//---------------------------------- sphere-box ----------------------------------------------------

// a sphere (centre c, radius r, world) against box g: one contact, normal from sphere to box.
// With the centre inside the box the sphere leaves through the nearest face (the first of equals
// in x, y, z order; a centre on a mid-plane leaves through the negative face) with the depth
// r + (distance to that face), as MuJoCo 3.3.8 has it for sphere-box and capsule-box (MJ#2206
// fixed; 2.2.2 reports r alone there).
static int sphereBoxRaw(const mcModel* m, const mcData* d, mcContact* con, int g, const mcNum c[3],
                        mcNum r, mcNum margin) {
  const mcNum* bpos = MCC_POS(d, g);
  const mcNum* bmat = MCC_MAT(d, g);
  const mcNum* s = MCC_SIZE(m, g);
  mcNum dif[3], loc[3], clamped[3], n[3], pos[3];

  // centre in the box frame, nearest box point
  sub3(dif, c, bpos);
  mulMatTVec(loc, bmat, dif);
  int inside = 1;
  for (int k = 0; k < 3; k++) {
    clamped[k] = loc[k];
    if (loc[k] > s[k]) {
      clamped[k] = s[k];
      inside = 0;
    } else if (loc[k] < -s[k]) {
      clamped[k] = -s[k];
      inside = 0;
    }
  }

  // outside: nearest point gives normal and distance
  if (!inside) {
    mcNum v[3];
    sub3(v, clamped, loc);
    mcNum len = norm3(v);
    mcNum dist = len - r;
    if (dist > margin) {
      return 0;
    }
    scl3(v, v, 1/len);
    mulMatVec(n, bmat, v);
    addScl3(pos, c, n, r + dist/2);
    setContact(con, dist, pos, n, NULL);
    return 1;
  }

  // inside: leave through the nearest face
  int k = 0;
  mcNum best = s[0] - fabs(loc[0]);
  for (int j = 1; j < 3; j++) {
    mcNum f = s[j] - fabs(loc[j]);
    if (f < best) {
      best = f;
      k = j;
    }
  }
  mcNum sgn = loc[k] > 0 ? 1 : -1;
  mcNum ln[3] = {0, 0, 0}, lp[3];
  ln[k] = -sgn;
  copy3(lp, loc);
  lp[k] = 0.5*(loc[k] + sgn*s[k] + ln[k]*r);
  mulMatVec(n, bmat, ln);
  mulMatVec(pos, bmat, lp);
  add3(pos, pos, bpos);
  mcNum dist = -(r + best);
  if (dist > margin) {
    return 0;
  }
  setContact(con, dist, pos, n, NULL);
  return 1;
}


int mcc_sphereBox(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                  int g1, int g2, mcNum margin) {
  return sphereBoxRaw(m, d, con, g2, MCC_POS(d, g1), MCC_SIZE(m, g1)[0], margin);
}


//---------------------------------- capsule-box ---------------------------------------------------

// squared distance from the point c + t*a (box frame) to the box
static mcNum boxDist2(const mcNum s[3], const mcNum c[3], const mcNum a[3], mcNum t) {
  mcNum f = 0;
  for (int k = 0; k < 3; k++) {
    mcNum x = fabs(c[k] + t*a[k]) - s[k];
    if (x > 0) {
      f += x*x;
    }
  }
  return f;
}


static mcNum clampNum(mcNum x, mcNum lo, mcNum hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}


// the segment parameter moved, when c + t*a lies outside the slab |x_m| <= s[m], to where the
// segment's line crosses the violated side of the slab (not clamped)
static mcNum clipToSlab(const mcNum s[3], const mcNum c[3], const mcNum a[3], mcNum t, int m) {
  mcNum x = c[m] + t*a[m];
  if (fabs(a[m]) < mcMINVAL) {
    return t;
  }
  if (x > s[m]) {
    return (s[m] - c[m]) / a[m];
  }
  if (x < -s[m]) {
    return (-s[m] - c[m]) / a[m];
  }
  return t;
}


// the second point for a nearest point t1 off a box corner (sg: its side of the box along each
// axis): the axes the segment moves along towards the box as t grows (sg_j a_j < 0) are chosen
// when their share of the axis is the larger one (sum of a_j^2 over them > the rest's), the
// others otherwise; of the chosen, the one most across the box (largest |a_j| / s_j) gives the
// step: t1 moved by the box's width along it, towards the box or away from it, clamped
static mcNum cornerSecond(const mcNum s[3], const int sg[3], const mcNum a[3], mcNum t1, mcNum h) {
  mcNum wtoward = 0, waway = 0;
  for (int j = 0; j < 3; j++) {
    if (sg[j]*a[j] < 0) {
      wtoward += a[j]*a[j];
    } else {
      waway += a[j]*a[j];
    }
  }
  int toward = wtoward > waway, jb = -1;
  mcNum best = -1;
  for (int j = 0; j < 3; j++) {
    if ((sg[j]*a[j] < 0) == toward && fabs(a[j]) / s[j] > best) {
      best = fabs(a[j]) / s[j];
      jb = j;
    }
  }
  if (jb < 0 || fabs(a[jb]) < mcMINVAL) {
    return t1;
  }
  return clampNum(t1 - sg[jb]*2*s[jb]/a[jb], -h, h);
}


// Early out: the whole segment lies outside one of the box's slabs by more than reach = r +
// margin, so every point of it is farther than reach from the box and the full computation below
// makes no contact (the sphere at any t1 is beyond the margin, and the segment misses that slab,
// so the fallback through the box finds no interval either). The slack (1e-9 of the coordinates'
// scale) keeps pairs within rounding of the bound on the full path, so results stay bit for bit.
static int segmentBeyondSlab(const mcNum s[3], const mcNum c[3], const mcNum a[3], mcNum h,
                             mcNum reach) {
  if (!(reach > 0)) {
    return 0;
  }
  mcNum scale = fabs(c[0]) + fabs(c[1]) + fabs(c[2]) + h + reach;
  for (int k = 0; k < 3; k++) {
    mcNum ext = h*fabs(a[k]);
    if (fabs(c[k]) - ext - s[k] > reach + 1e-9*(scale + s[k])) {
      return 1;
    }
  }
  return 0;
}


// The contact set follows MuJoCo 2.2.2, derived from its observable behaviour (box frame, segment
// c + t*a, t in [-h, h]; random generic poses agree to 1e-9 but for about 1 in 10^4, besides the
// deviation below):
// - an end inside the box: its sphere against the box alone (the first such end);
// - otherwise the first point t1 is found over the 12 edges in order (edge axis k = x, y, z; the
//   other two axes at signs (-,-), (+,-), (-,+), (+,+)), skipping edges parallel to the segment:
//   the closest points of the two lines; when the edge's point lies beyond the edge, it is
//   clamped to the corner and t becomes the corner's projection ("corner"; "edge" otherwise);
//   t is clamped to the segment and the edge point recomputed from it; the nearest wins (first
//   of equals). An end over a face (outside along one axis only) replaces it when not farther
//   (up to a relative 1e-9). The first contact is the sphere at t1 against the box;
// - the second contact is the sphere at a second point t2 when within the margin; t2 = t1 gives
//   the same contact twice, as 2.2.2 does:
//   edge: none when t1 is an end and the segment leaves both faces at the edge, or when t1 is
//   not an end and its point lies over one of the two faces only (a segment crossing the box
//   near the edge); otherwise, with j the axis of the face at the edge the segment is less
//   parallel to, t2 = t1 moved one box width (2 s_j / |a_j|) along the segment towards the box
//   along j, clamped, then moved into the slab of the edge axis, clamped;
//   corner: none when t1 is an end and the segment leaves all three faces; otherwise t2 follows
//   cornerSecond (an axis along which the end lies within the box counts as one the segment
//   moves towards);
//   end over a face: t2 is the other end moved along the segment into the face's two slabs (in
//   axis order), clamped.
// Not reproduced: 2.2.2 reports no contact at all for some segments through the box (an end
// over a face wins the nearest-point search with a sphere beyond the margin); Moduco reports the
// sphere at the middle of the segment's part inside the box instead.
int mcc_capsuleBox(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
                   int g1, int g2, mcNum margin) {
  const mcNum* cpos = MCC_POS(d, g1);
  const mcNum* bpos = MCC_POS(d, g2);
  const mcNum* bmat = MCC_MAT(d, g2);
  const mcNum* s = MCC_SIZE(m, g2);
  mcNum r = MCC_SIZE(m, g1)[0], h = MCC_SIZE(m, g1)[1];
  mcNum axis[3], dif[3], c[3], a[3], pt[3];
  matCol(axis, MCC_MAT(d, g1), 2);
  sub3(dif, cpos, bpos);
  mulMatTVec(c, bmat, dif);
  mulMatTVec(a, bmat, axis);
  if (segmentBeyondSlab(s, c, a, h, r + margin)) {
    return 0;
  }

  // an end inside the box: its sphere alone
  for (int e = 0; e < 2; e++) {
    if (boxDist2(s, c, a, e ? h : -h) == 0) {
      addScl3(pt, cpos, axis, e ? h : -h);
      return sphereBoxRaw(m, d, con, g2, pt, r, margin);
    }
  }

  // nearest point: the edges (type 1: edge, 2: corner)
  mcNum best = INFINITY, t1 = 0;
  int type = 0, ek = 0, es1 = 0, es2 = 0, face = 0;
  for (int k = 0; k < 3; k++) {
    int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    for (int sg = 0; sg < 4; sg++) {
      int s1 = (sg & 1) ? 1 : -1, s2 = (sg & 2) ? 1 : -1;
      mcNum p[3];
      p[k] = 0;
      p[k1] = s1*s[k1];
      p[k2] = s2*s[k2];
      mcNum w0[3];
      sub3(w0, c, p);
      mcNum b = a[k], den = 1 - b*b;
      if (den < mcMINVAL) {
        continue;  // segment parallel to the edge: no candidate
      }
      mcNum t = (b*w0[k] - dot3(a, w0)) / den;
      mcNum w = w0[k] + t*b;
      int corner = w < -s[k] || w > s[k];
      if (corner) {
        p[k] = clampNum(w, -s[k], s[k]);
        mcNum v[3];
        sub3(v, p, c);
        t = dot3(v, a);
      }
      t = clampNum(t, -h, h);
      p[k] = clampNum(c[k] + t*a[k], -s[k], s[k]);
      mcNum d2 = 0;
      for (int j = 0; j < 3; j++) {
        mcNum x = c[j] + t*a[j] - p[j];
        d2 += x*x;
      }
      if (d2 < best) {
        best = d2;
        t1 = t;
        type = corner ? 2 : 1;
        ek = k;
        es1 = s1;
        es2 = s2;
      }
    }
  }

  // nearest point: an end over a face (outside along one axis only), also when level with the
  // best edge up to a relative 1e-9
  for (int e = 0; e < 2; e++) {
    mcNum t = e ? h : -h, d2 = 0;
    int nout = 0, f = 0;
    for (int j = 0; j < 3; j++) {
      mcNum x = fabs(c[j] + t*a[j]) - s[j];
      if (x > 0) {
        d2 += x*x;
        nout++;
        f = j;
      }
    }
    if (nout == 1 && d2 < best + 1e-9*best) {
      best = d2;
      t1 = t;
      type = 3;
      face = f;
    }
  }

  // first contact
  addScl3(pt, cpos, axis, t1);
  int cnt = sphereBoxRaw(m, d, con, g2, pt, r, margin);
  if (!cnt) {
    // 2.2.2 reports nothing here even when the segment passes through the box (its nearest-point
    // search can end on a point away from the box); Moduco reports the sphere at the middle of
    // the segment's part inside the box instead
    mcNum lo = -h, hi = h;
    for (int j = 0; j < 3 && lo <= hi; j++) {
      if (fabs(a[j]) < mcMINVAL) {
        if (fabs(c[j]) > s[j]) {
          lo = h + 1;
        }
        continue;
      }
      mcNum ta = (-s[j] - c[j]) / a[j], tb = (s[j] - c[j]) / a[j];
      lo = fmax(lo, fmin(ta, tb));
      hi = fmin(hi, fmax(ta, tb));
    }
    if (lo > hi) {
      return 0;
    }
    addScl3(pt, cpos, axis, 0.5*(lo + hi));
    return sphereBoxRaw(m, d, con, g2, pt, r, margin);
  }

  // second point
  mcNum q1[3], t2 = t1;
  int sg[3];
  addScl3(q1, c, a, t1);
  int isEnd = t1 == -h || t1 == h;
  mcNum dir = t1 == -h ? 1 : -1;
  if (type == 1) {
    // edge: no second point when an end leaves both faces, or when the point lies over one of
    // the two faces only; otherwise one box width across along the axis of the face the segment
    // is less parallel to, then back into the edge's slab
    int k1 = (ek + 1) % 3, k2 = (ek + 2) % 3;
    sg[ek] = q1[ek] > 0 ? 1 : -1;
    sg[k1] = es1;
    sg[k2] = es2;
    if (isEnd && sg[k1]*a[k1]*dir > 0 && sg[k2]*a[k2]*dir > 0) {
      return cnt;
    }
    if (!isEnd && (fabs(q1[k1]) > s[k1]) != (fabs(q1[k2]) > s[k2])) {
      return cnt;
    }
    int j = fabs(a[k1]) < fabs(a[k2]) ? k2 : k1;
    t2 = clampNum(t1 - sg[j]*2*s[j]/a[j], -h, h);
    t2 = clipToSlab(s, c, a, t2, ek);
    t2 = clampNum(t2, -h, h);
  } else if (type == 2) {
    // an end within the box along an axis counts as moving towards the box along it
    for (int j = 0; j < 3; j++) {
      if (fabs(q1[j]) <= s[j] && isEnd) {
        sg[j] = a[j]*dir > 0 ? -1 : 1;
      } else {
        sg[j] = q1[j] > 0 ? 1 : -1;
      }
    }
    if (isEnd && sg[0]*a[0]*dir > 0 && sg[1]*a[1]*dir > 0 && sg[2]*a[2]*dir > 0) {
      return cnt;
    }
    t2 = cornerSecond(s, sg, a, t1, h);
  } else {
    // an end over a face: the other end moved into the face's two slabs
    t2 = -t1;
    for (int j = 0; j < 3; j++) {
      if (j != face) {
        t2 = clipToSlab(s, c, a, t2, j);
      }
    }
    t2 = clampNum(t2, -h, h);
  }
  addScl3(pt, cpos, axis, t2);
  cnt += sphereBoxRaw(m, d, con + cnt, g2, pt, r, margin);
  return cnt;
}


//---------------------------------- box-box -------------------------------------------------------

// The contact set follows MuJoCo 2.2.2, derived from its observable behaviour:
// - the axis is the one of largest separation among the 3+3 face normals and the 9 edge-edge
//   cross products (normalized); an edge axis replaces the best so far when its separation
//   exceeds best*(1 - 1e-12): overlapping, it must be larger by a relative 1e-12; separated, an
//   exact tie (an edge of one box level with a face of the other) goes to the edge;
// - whatever the axis, the face of each box most aligned with it (box 1: with the normal, box 2:
//   against it) is projected along the normal; the contacts are the corners of the overlap of
//   the two projected faces: corners of either face inside the other and crossings of their
//   edges, each with the gap between the two faces along the normal as its distance and the
//   midpoint between them as its position, kept while the gap is within the margin;
// - on a face axis, an incident face tilted so that one of its edges is more than 60 degrees
//   away from the normal takes part with its edge nearest to the reference face only (with its
//   nearest corner only when both are); on an edge axis, of the corners of box 1 only those on
//   its edge along the axis direction on the side of box 2's centre count;
// - on a face axis MuJoCo 2.2.2 reports half of that gap as the distance (the position stays the
//   midpoint), overlapping or not; on an edge axis the full gap.
// Not reproduced (physically wrong, see tests/collision/test_collision_pairs.c): the extra
// "phantom" corner of box 2's face that 2.2.2 adds, outside the overlap or repeating a contact,
// when an edge of that face is level with box 1's face.

typedef struct {
  mcNum pa[3];                    // point on the face of box 1
  mcNum pen;                      // penetration along the normal (gap = -pen)
} BoxPoint;


// one contact per overlap corner, skipping one within tol of a point already there (a corner of
// one face on an edge of the other is found by two of the tests); returns the new count
static int boxAddPoint(BoxPoint* pt, int cnt, const mcNum pa[3], mcNum pen, mcNum margin,
                       mcNum tol) {
  if (-pen > margin || cnt >= 16) {
    return cnt;
  }
  for (int i = 0; i < cnt; i++) {
    mcNum dif[3];
    sub3(dif, pt[i].pa, pa);
    if (dot3(dif, dif) <= tol*tol) {
      return cnt;
    }
  }
  copy3(pt[cnt].pa, pa);
  pt[cnt].pen = pen;
  return cnt + 1;
}


// corners of a face in order (-,-), (+,-), (+,+), (-,+) over its two tangent axes; its edges
// 0: first coordinate -1, 1: first +1, 2: second -1, 3: second +1; edge i of the corner loop
// (from corner i to corner i+1) is side boxQuadEdge[i]
static const int boxQuadEdge[4] = {2, 1, 3, 0};


// mask of one side of a face (side 2*w + sg): its two corners (bits 0-3) and the edge (bit 4+)
static int boxSideMask(int w, int sg) {
  static const int corners[4] = {0x9, 0x6, 0x3, 0xc};
  int side = 2*w + sg;
  return corners[side] | (16 << side);
}


// MuJoCo 3.3.8 reports the contacts of 2.2.2's set (above) whose position x passes a containment
// test with a 1% tolerance (found by probing both versions as black boxes on 7,300 scenes): with
// x_k the position in a box's frame, s_k its half-sizes and m the pair's margin, "A" is
// f |x_k| <= s_k + m for every k (x pushed 1% outwards is inside the box grown by the margin) and
// "B" is |x_k| <= f (s_k + m) (x pulled 1% inwards is inside); a contact stays when A holds for
// either box or B for both. This drops the deep poses' edge crossings whose midpoint lies on one
// box's boundary and outside the other. centre c, axes ax[k] (unit), half-sizes sz; f = 1.01;
// outer: the A test, else the B test
static int boxContains(const mcNum x[3], const mcNum c[3], mcNum ax[3][3], const mcNum sz[3],
                       mcNum margin, mcNum f, int outer) {
  mcNum dif[3];
  sub3(dif, x, c);
  for (int k = 0; k < 3; k++) {
    mcNum xk = fabs(dot3(dif, ax[k]));
    if (outer ? f*xk > sz[k] + margin : xk > f*(sz[k] + margin)) {
      return 0;
    }
  }
  return 1;
}


// edges whose directions' cross product is shorter than this are parallel: rounding leaves
// ~1e-16 on exactly parallel unit axes, whose normalized cross product is then a random direction
#define BOX_PARALLEL 1e-10

// relative tolerance of the overlap tests (see mcc_boxBox)
#define BOX_TOL 1e-10

int mcc_boxBox(const mcpHost* host, const mcModel* m, const mcData* d, mcContact* con,
               int g1, int g2, mcNum margin) {
  if (m->opt.enableflags & mcENBL_NATIVECCD) {
    return mcc_boxBoxSat(m, d, con, g1, g2, margin);  // as MuJoCo 3.12+ (box_sat.c)
  }
  const mcNum* p[2] = {MCC_POS(d, g1), MCC_POS(d, g2)};
  const mcNum* R[2] = {MCC_MAT(d, g1), MCC_MAT(d, g2)};
  const mcNum* s[2] = {MCC_SIZE(m, g1), MCC_SIZE(m, g2)};
  mcNum ax[2][3][3], T[3];
  for (int b = 0; b < 2; b++) {
    for (int k = 0; k < 3; k++) {
      matCol(ax[b][k], R[b], k);
    }
  }
  sub3(T, p[1], p[0]);

  // separating axes
  mcNum bestSep = -INFINITY, n[3] = {1, 0, 0};
  int edge = 0, bestA = -1;
  for (int a = 0; a < 15; a++) {
    mcNum L[3];
    if (a < 6) {
      copy3(L, ax[a / 3][a % 3]);
    } else {
      cross3(L, ax[0][(a - 6) / 3], ax[1][(a - 6) % 3]);
      mcNum len = norm3(L);
      if (len < BOX_PARALLEL) {
        continue;  // parallel edges (up to rounding): no axis, its direction would be noise
      }
      scl3(L, L, 1/len);
    }
    mcNum ra = 0, rb = 0;
    for (int k = 0; k < 3; k++) {
      ra += s[0][k] * fabs(dot3(ax[0][k], L));
      rb += s[1][k] * fabs(dot3(ax[1][k], L));
    }
    mcNum proj = dot3(T, L);
    mcNum sep = fabs(proj) - ra - rb;
    if (sep > margin) {
      return 0;
    }
    mcNum better = a < 6 ? bestSep : bestSep - 1e-12*bestSep;
    if (sep > better) {
      bestSep = sep;
      edge = a >= 6;
      bestA = a;
      scl3(n, L, proj < 0 ? -1 : 1);
    }
  }
  if (bestA < 0) {
    return 0;  // not finite
  }

  // face of box 1 facing along n, face of box 2 facing against it
  int fk[2] = {0, 0};
  mcNum fsg[2], fc[2][3], fn[2][3];
  for (int b = 0; b < 2; b++) {
    mcNum best = -1;
    for (int k = 0; k < 3; k++) {
      mcNum al = fabs(dot3(ax[b][k], n));
      if (al >= best) {
        best = al;
        fk[b] = k;
      }
    }
    mcNum dn = dot3(ax[b][fk[b]], n);
    fsg[b] = (b == 0) == (dn > 0) ? 1 : -1;
    scl3(fn[b], ax[b][fk[b]], fsg[b]);
    addScl3(fc[b], p[b], fn[b], s[b][fk[b]]);
  }
  mcNum na = dot3(n, fn[0]), nb = dot3(n, fn[1]);
  if (fabs(na) < mcMINVAL || fabs(nb) < mcMINVAL) {
    return 0;
  }

  // face 1 in 2D: axes U, V with half sizes su, sv
  int ku = (fk[0] + 1) % 3, kv = (fk[0] + 2) % 3;
  const mcNum* U = ax[0][ku];
  const mcNum* V = ax[0][kv];
  mcNum su = s[0][ku], sv = s[0][kv];

  // corners of face 2 projected along n onto the plane of face 1: 2D position, penetration
  int k1 = (fk[1] + 1) % 3, k2 = (fk[1] + 2) % 3;
  const mcNum cu[4] = {-1, 1, 1, -1}, cv[4] = {-1, -1, 1, 1};
  mcNum q[4][2], qpen[4];
  for (int i = 0; i < 4; i++) {
    mcNum v[3], dif[3], w[3];
    addScl3(v, fc[1], ax[1][k1], cu[i]*s[1][k1]);
    addScl3(v, v, ax[1][k2], cv[i]*s[1][k2]);
    sub3(dif, fc[0], v);
    qpen[i] = dot3(dif, fn[0]) / na;
    addScl3(w, v, n, qpen[i]);
    sub3(w, w, fc[0]);
    q[i][0] = dot3(w, U);
    q[i][1] = dot3(w, V);
  }

  BoxPoint pt[16];
  int cnt = 0;
  mcNum pa[3];

  // faces touching along their edges (equal boxes face to face, finger pads) put corners exactly
  // on the other face's edges, where rounding of the poses decides each strict test: the tests
  // below are inclusive by tol, relative to the boxes and their distance from the origin (the
  // rounding's scale), and repeated points merge
  mcNum tol = BOX_TOL * (su + sv + s[1][k1] + s[1][k2] + norm3(p[0]) + norm3(p[1]));

  // which parts take part: corners of face 2 (bit i of useB), edges of face 2 (bit 4+i), corners
  // of face 1 (bit i of useA), edges of face 1 (bit 4+i: u=-su, u=+su, v=-sv, v=+sv)
  int useA = 0xff, useB = 0xff;
  if (edge) {
    // edge axis: of face 1 only the corners of its edge along the edge direction on the side of
    // box 2's centre
    int ia = (bestA - 6) / 3;
    int w = ia == ku ? 1 : 0;
    int sg = dot3(ax[0][w == 0 ? ku : kv], T) > 0 ? 1 : 0;
    useA = (boxSideMask(w, sg) & 0xf) | 0xf0;
  } else {
    // face axis: a tilted incident face (a tangent axis more than 60 degrees from the normal)
    // takes part only with its edge nearest the reference face
    int inc = bestA < 3 ? 1 : 0;
    int t1 = (fk[inc] + 1) % 3, t2 = (fk[inc] + 2) % 3;
    mcNum d1 = dot3(ax[inc][t1], n), d2 = dot3(ax[inc][t2], n);
    if (fabs(d1) > 0.5 || fabs(d2) > 0.5) {
      int w = fabs(d2) > fabs(d1) ? 1 : 0;
      mcNum dw = w ? d2 : d1;
      int sg = (inc == 1) == (dw < 0) ? 1 : 0;
      int mask = boxSideMask(w, sg);
      if (fabs(d1) > 0.5 && fabs(d2) > 0.5) {
        // both edges that far from the normal: only the corner nearest to the reference face
        mcNum dv = w ? d1 : d2;
        mask &= boxSideMask(1 - w, (inc == 1) == (dv < 0) ? 1 : 0) & 0xf;
      }
      if (inc == 1) {
        useA = 0xf0;
        useB = mask;
      } else {
        useB = 0xf0;
        useA = mask;
      }
    }
  }

  // corners of face 2 inside face 1
  for (int i = 0; i < 4; i++) {
    if ((useB & (1 << i)) && fabs(q[i][0]) <= su + tol && fabs(q[i][1]) <= sv + tol) {
      addScl3(pa, fc[0], U, q[i][0]);
      addScl3(pa, pa, V, q[i][1]);
      cnt = boxAddPoint(pt, cnt, pa, qpen[i], margin, tol);
    }
  }

  // crossings of the edges of face 2 with the edges of face 1
  for (int i = 0; i < 4; i++) {
    const mcNum* a = q[i];
    const mcNum* b = q[(i + 1) % 4];
    if (!(useB & (16 << boxQuadEdge[i]))) {
      continue;
    }
    for (int c = 0; c < 2; c++) {
      int o = 1 - c;
      mcNum lim = c == 0 ? su : sv, olim = c == 0 ? sv : su;
      if (fabs(b[c] - a[c]) <= tol) {
        continue;  // parallel to face 1's edges: its ends are the corner tests' business
      }
      for (int sg = -1; sg <= 1; sg += 2) {
        if (!(useA & (16 << (2*c + (sg > 0))))) {
          continue;
        }
        mcNum t = (sg*lim - a[c]) / (b[c] - a[c]);
        if (!(t >= 0 && t <= 1)) {
          continue;
        }
        mcNum x[2];
        x[c] = sg*lim;
        x[o] = a[o] + t*(b[o] - a[o]);
        if (!(fabs(x[o]) <= olim + tol)) {
          continue;
        }
        addScl3(pa, fc[0], U, x[0]);
        addScl3(pa, pa, V, x[1]);
        cnt = boxAddPoint(pt, cnt, pa, qpen[i] + t*(qpen[(i + 1) % 4] - qpen[i]), margin, tol);
      }
    }
  }

  // corners of face 1 inside the projection of face 2
  mcNum area = 0;
  for (int i = 0; i < 4; i++) {
    const mcNum* a = q[i];
    const mcNum* b = q[(i + 1) % 4];
    area += a[0]*b[1] - a[1]*b[0];
  }
  for (int i = 0; i < 4; i++) {
    mcNum x[2] = {cu[i]*su, cv[i]*sv};
    if (!(useA & (1 << i))) {
      continue;
    }
    int inside = 1;
    for (int j = 0; j < 4 && inside; j++) {
      const mcNum* a = q[j];
      const mcNum* b = q[(j + 1) % 4];
      mcNum cr = (b[0] - a[0])*(x[1] - a[1]) - (b[1] - a[1])*(x[0] - a[0]);
      mcNum slack = tol * sqrt((b[0] - a[0])*(b[0] - a[0]) + (b[1] - a[1])*(b[1] - a[1]));
      inside = area > 0 ? cr >= -slack : cr <= slack;
    }
    if (inside) {
      mcNum dif[3];
      addScl3(pa, fc[0], U, x[0]);
      addScl3(pa, pa, V, x[1]);
      sub3(dif, pa, fc[1]);
      cnt = boxAddPoint(pt, cnt, pa, dot3(dif, fn[1]) / nb, margin, tol);
    }
  }

  // edge axis with separated boxes and no overlap of the projected faces: 2.2.2 reports corners
  // with deep penetrations here (MJ#3476-like); the physical contact is the pair of nearest
  // points of the two edges, at the separation
  if (edge && !cnt && bestSep > 0) {
    int ia = (bestA - 6) / 3, jb = (bestA - 6) % 3;
    mcNum ea[3], eb[3], dif[3];
    copy3(ea, p[0]);
    copy3(eb, p[1]);
    for (int k = 0; k < 3; k++) {
      if (k != ia) {
        addScl3(ea, ea, ax[0][k], (dot3(ax[0][k], n) > 0 ? 1 : -1) * s[0][k]);
      }
      if (k != jb) {
        addScl3(eb, eb, ax[1][k], (dot3(ax[1][k], n) > 0 ? -1 : 1) * s[1][k]);
      }
    }

    // nearest points of the segments ea + x*u (|x| <= s0), eb + y*v (|y| <= s1)
    const mcNum* u = ax[0][ia];
    const mcNum* v = ax[1][jb];
    sub3(dif, ea, eb);
    mcNum uv = dot3(u, v), du = dot3(dif, u), dv = dot3(dif, v), den = 1 - uv*uv, x = 0, y = 0;
    if (den > mcMINVAL) {
      x = (uv*dv - du) / den;
    }
    x = x < -s[0][ia] ? -s[0][ia] : (x > s[0][ia] ? s[0][ia] : x);
    y = dv + x*uv;
    if (y < -s[1][jb] || y > s[1][jb]) {
      y = y < -s[1][jb] ? -s[1][jb] : s[1][jb];
      x = y*uv - du;
      x = x < -s[0][ia] ? -s[0][ia] : (x > s[0][ia] ? s[0][ia] : x);
    }
    mcNum qa[3], qb[3], pos[3];
    addScl3(qa, ea, u, x);
    addScl3(qb, eb, v, y);
    add3(pos, qa, qb);
    scl3(pos, pos, 0.5);
    setContact(con, bestSep, pos, n, NULL);
    return 1;
  }

  // contacts: midpoint between the faces; halved distance on face axes; kept when MuJoCo 3.3.8
  // keeps them (boxKeeps)
  mcNum scale = edge ? 1 : 0.5;
  int ncon = 0;
  for (int i = 0; i < cnt && ncon < mcMAXCONPAIR; i++) {
    mcNum pos[3];
    addScl3(pos, pt[i].pa, n, -0.5*pt[i].pen);
    int a0 = boxContains(pos, p[0], ax[0], s[0], margin, 1.01, 1);
    int a1 = boxContains(pos, p[1], ax[1], s[1], margin, 1.01, 1);
    if (a0 || a1 || (boxContains(pos, p[0], ax[0], s[0], margin, 1.01, 0) &&
                     boxContains(pos, p[1], ax[1], s[1], margin, 1.01, 0))) {
      setContact(con + ncon++, -pt[i].pen*scale, pos, n, NULL);
    }
  }
  return ncon;
}
