// Moduco viewer: build a three.js scene from the model description (GET /model.json).
// MuJoCo's frames are Z-up; quaternions are (w, x, y, z).
import * as THREE from 'three';

// a THREE.Quaternion from MuJoCo's (w, x, y, z)
export function quat(q) {
  return new THREE.Quaternion(q[1], q[2], q[3], q[0]);
}

// geometry of one geom, in the geom's frame; null for types not drawn yet
function geometry(g, model, extent) {
  const s = g.size;
  switch (g.type) {
    case 'plane': {
      // size 0 means infinite: draw it large compared with the model
      const hx = s[0] > 0 ? s[0] : 10 * extent, hy = s[1] > 0 ? s[1] : 10 * extent;
      return new THREE.PlaneGeometry(2 * hx, 2 * hy);
    }
    case 'sphere':
      return new THREE.SphereGeometry(s[0], 24, 16);
    case 'ellipsoid': {
      const geo = new THREE.SphereGeometry(1, 24, 16);
      geo.scale(s[0], s[1], s[2]);
      return geo;
    }
    case 'capsule': {
      const geo = new THREE.CapsuleGeometry(s[0], 2 * s[1], 8, 20);
      geo.rotateX(Math.PI / 2);                // three's axis is Y, MuJoCo's is Z
      return geo;
    }
    case 'cylinder': {
      const geo = new THREE.CylinderGeometry(s[0], s[0], 2 * s[1], 24);
      geo.rotateX(Math.PI / 2);
      return geo;
    }
    case 'box':
      return new THREE.BoxGeometry(2 * s[0], 2 * s[1], 2 * s[2]);
    case 'mesh': {
      const mesh = model.meshes[g.data];
      if (!mesh) return null;
      const geo = new THREE.BufferGeometry();
      geo.setAttribute('position', new THREE.Float32BufferAttribute(mesh.vert, 3));
      geo.setIndex(mesh.face);
      geo.computeVertexNormals();
      return geo;
    }
    case 'hfield':
      return model.hfields[g.data] ? heightField(model.hfields[g.data]) : null;
    default:
      return null;
  }
}

// a height field as MuJoCo draws it: the top surface, an nrow x ncol grid over [-x, x] x [-y, y]
// (row r at y = (2r / (nrow - 1) - 1) y) at elevation data (in [0, 1]) times z_top, standing on
// its base box down to -z_bottom: four walls from the surface's edges down to -z_bottom and the
// bottom face (walls and bottom get their own vertices, so their normals stay flat)
function heightField(h) {
  const [sx, sy, sz, sb] = h.size;
  const pos = [], idx = [];
  const at = (r, c) => [(2 * c / (h.ncol - 1) - 1) * sx, (2 * r / (h.nrow - 1) - 1) * sy,
                        h.data[r * h.ncol + c] * sz];
  for (let r = 0; r < h.nrow; r++) {
    for (let c = 0; c < h.ncol; c++) pos.push(...at(r, c));
  }
  for (let r = 0; r + 1 < h.nrow; r++) {
    for (let c = 0; c + 1 < h.ncol; c++) {
      const a = r * h.ncol + c, b = a + 1, d = a + h.ncol, e = d + 1;
      idx.push(a, b, e, a, e, d);
    }
  }
  // a quad of four new vertices, wound so it faces outwards (the material is double-sided)
  const quad = (p, q, s, t) => {
    const k = pos.length / 3;
    pos.push(...p, ...q, ...s, ...t);
    idx.push(k, k + 1, k + 2, k, k + 2, k + 3);
  };
  const down = (p) => [p[0], p[1], -sb];
  const edge = (n, point) => {                 // one wall: along n surface points
    for (let i = 0; i + 1 < n; i++) {
      const p = point(i), q = point(i + 1);
      quad(down(p), down(q), q, p);
    }
  };
  const lr = h.nrow - 1, lc = h.ncol - 1;
  edge(h.ncol, (c) => at(0, c));
  edge(h.nrow, (r) => at(r, lc));
  edge(h.ncol, (c) => at(lr, lc - c));
  edge(h.nrow, (r) => at(lr - r, 0));
  quad([-sx, -sy, -sb], [-sx, sy, -sb], [sx, sy, -sb], [sx, -sy, -sb]);
  const geo = new THREE.BufferGeometry();
  geo.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  geo.setIndex(idx);
  geo.computeVertexNormals();
  return geo;
}

// a grid of lines in the XY plane, each line cut into short segments (long lines that pass
// behind the camera are clipped badly by some software renderers). Drawn after the planes and
// before the bodies, without depth test: lines on a ground plane at z = 0 never flicker, and the
// bodies still hide them.
function groundGrid(size, n) {
  const pts = [];
  const h = size / 2, step = size / n;
  for (let i = 0; i <= n; i++) {
    const c = -h + i * step;
    for (let j = 0; j < n; j++) {
      const a = -h + j * step, b = a + step;
      pts.push(a, c, 0, b, c, 0, c, a, 0, c, b, 0);
    }
  }
  const geo = new THREE.BufferGeometry();
  geo.setAttribute('position', new THREE.Float32BufferAttribute(pts, 3));
  const mat = new THREE.LineBasicMaterial({ color: 0x59616b, depthTest: false, depthWrite: false });
  const grid = new THREE.LineSegments(geo, mat);
  grid.renderOrder = -1;
  return grid;
}

// a rough size of the model: the largest distance of a non-plane geom from the origin
function modelExtent(model) {
  let e = 0.5;
  for (const g of model.geoms) {
    if (g.type === 'plane') continue;
    e = Math.max(e, Math.hypot(...g.pos) + Math.max(...g.size));
  }
  return e;
}

// Build the scene: one group per body (posed by the frames), the geoms inside. Returns
// { scene, bodies, extent, skipped } where skipped lists the geom types not drawn.
export function buildScene(model) {
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x1d2126);
  const extent = modelExtent(model);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x404850, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 2.0);
  sun.position.set(2 * extent, -3 * extent, 6 * extent);
  scene.add(sun);

  const grid = groundGrid(20 * extent, 40);
  scene.add(grid);

  const { bodies, skipped } = addBodies(model, scene, extent, false);
  return { scene, bodies, extent, skipped };
}


// One group per body added to scene, the geoms inside; ghost: drawn see-through and without
// planes or height fields (the A/B mode's copy B over copy A). Returns { bodies, skipped }.
export function addBodies(model, scene, extent, ghost) {
  const bodies = model.bodies.map(() => {
    const group = new THREE.Group();
    scene.add(group);
    return group;
  });
  const skipped = new Set();
  for (const [index, g] of model.geoms.entries()) {
    if (g.group > 2) continue;                 // MuJoCo's default: groups 0..2 visible
    const [r, gr, b, a] = g.rgba;
    if (a <= 0) continue;                      // fully transparent: nothing to draw
    if (ghost && (g.type === 'plane' || g.type === 'hfield' || g.body === 0)) continue;
    const geo = geometry(g, model, extent);
    if (!geo) {
      skipped.add(g.type);
      continue;
    }
    const mat = new THREE.MeshStandardMaterial({
      color: new THREE.Color(r, gr, b), roughness: 0.6, metalness: 0.05,
      transparent: ghost || a < 1, opacity: ghost ? 0.35 * a : a, depthWrite: !ghost,
      side: g.type === 'plane' || g.type === 'hfield' ? THREE.DoubleSide : THREE.FrontSide,
    });
    if (ghost) mat.emissive = new THREE.Color(0.35, 0.2, 0.0);   // an orange tint: copy B
    const mesh = new THREE.Mesh(geo, mat);
    if (g.type === 'plane') mesh.renderOrder = -2;
    if (ghost) mesh.renderOrder = 1;
    mesh.position.set(...g.pos);
    mesh.quaternion.copy(quat(g.quat));
    mesh.userData.geom = index;
    bodies[g.body].add(mesh);
  }
  return { bodies, skipped: [...skipped] };
}
