// Moduco viewer: overlays over the model: body frames, centres of mass and joint axes (children
// of the body groups, so they move with the bodies), and contacts (points and force arrows,
// updated from the server's contact messages, docs/viewer.md).
import * as THREE from 'three';

const CONTACT_MAGIC = 0x4b56434d;           // "MCVK"

// draw o (and its children) over the model, never hidden by it
function onTop(o) {
  o.traverse((x) => {
    if (x.material) x.material.depthTest = false;
    x.renderOrder = 10;
  });
  return o;
}

export function buildOverlays(model, scene, bodies, extent) {
  const kinds = { frames: [], com: [], joints: [] };
  bodies.forEach((b, i) => {
    if (i === 0) return;
    const axes = onTop(new THREE.AxesHelper(0.08 * extent));
    axes.visible = false;
    b.add(axes);
    kinds.frames.push(axes);
  });
  const comMaterial = new THREE.MeshBasicMaterial({ color: 0xffcc00, depthTest: false });
  const comGeometry = new THREE.SphereGeometry(0.012 * extent, 12, 8);
  model.bodies.forEach((bd, i) => {
    if (i === 0 || !(bd.mass > 0)) return;
    const s = new THREE.Mesh(comGeometry, comMaterial);
    s.position.fromArray(bd.ipos);
    s.renderOrder = 10;
    s.visible = false;
    bodies[i].add(s);
    kinds.com.push(s);
  });
  for (const j of model.joints) {
    if (j.type !== 'hinge' && j.type !== 'slide') continue;
    const dir = new THREE.Vector3().fromArray(j.axis).normalize();
    const arrow = onTop(new THREE.ArrowHelper(dir, new THREE.Vector3().fromArray(j.pos), 0.12 *
                                              extent, j.type === 'hinge' ? 0xff5050 : 0x50ff50));
    arrow.visible = false;
    bodies[j.body].add(arrow);
    kinds.joints.push(arrow);
  }

  // contacts: a pool of points and force arrows; the model's weight is drawn 2 extents long
  const group = new THREE.Group();
  scene.add(group);
  const weight = 9.81 * model.bodies.reduce((w, b) => w + (b.mass || 0), 0);
  const forceScale = weight > 0 ? (2 * extent) / weight : 0.1;
  const pointGeometry = new THREE.SphereGeometry(0.01 * extent, 10, 6);
  const pointMaterial = new THREE.MeshBasicMaterial({ color: 0x40c0ff, depthTest: false });
  const pool = [];
  let shown = 0;

  function setContacts(buf) {
    const v = new DataView(buf);
    const n = v.getUint32(4, true);
    if (buf.byteLength !== 8 + 24 * n) return false;
    const c = new Float32Array(buf, 8, 6 * n);
    while (pool.length < n) {
      const point = new THREE.Mesh(pointGeometry, pointMaterial);
      point.renderOrder = 11;
      const arrow = onTop(new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(),
                                                1, 0xff9020));
      group.add(point, arrow);
      pool.push({ point, arrow });
    }
    const f = new THREE.Vector3();
    pool.forEach((p, i) => {
      const on = i < n;
      p.point.visible = on;
      p.arrow.visible = false;
      if (!on) return;
      p.point.position.set(c[6 * i], c[6 * i + 1], c[6 * i + 2]);
      f.set(c[6 * i + 3], c[6 * i + 4], c[6 * i + 5]);
      const len = f.length() * forceScale;
      if (len > 1e-6 * extent) {
        p.arrow.position.copy(p.point.position);
        p.arrow.setDirection(f.normalize());
        p.arrow.setLength(len, Math.min(0.3 * len, 0.04 * extent),
                          Math.min(0.2 * len, 0.02 * extent));
        p.arrow.visible = true;
      }
    });
    shown = n;
    return true;
  }

  return {
    isContacts: (buf) => buf.byteLength >= 8 &&
                         new DataView(buf).getUint32(0, true) === CONTACT_MAGIC,
    setContacts,
    show(kind, on) {
      if (kind === 'contacts') {
        group.visible = on;
      } else {
        for (const o of kinds[kind]) o.visible = on;
      }
    },
    counts: () => ({
      frames: kinds.frames.filter((o) => o.visible).length,
      com: kinds.com.filter((o) => o.visible).length,
      joints: kinds.joints.filter((o) => o.visible).length,
      contacts: group.visible ? shown : 0,
    }),
  };
}
