// Moduco viewer page: draws the model, applies the pose frames streamed by `moduco view`, and
// sends the control messages (protocol in docs/viewer.md).
import * as THREE from 'three';
import { OrbitControls } from './OrbitControls.js';
import { buildScene, addBodies } from './scene.js';
import { buildOverlays } from './overlays.js';
import { makePlots } from './plots.js';

const FRAME_MAGIC = 0x4656434d;             // "MCVF"
const FRAME_MAGIC_B = 0x4256434d;           // "MCVB": the A/B mode's copy B
const $ = (id) => document.getElementById(id);

const warnings = new Map();                 // warning id -> its latest line
const state = { frames: 0, time: 0, rtf: 0, paused: false, ncon: 0, speed: 1, fps: 0,
                replay: false, frame: 0, nframe: 0, loop: true, contactMessages: 0,
                selected: 0, anchor: [0, 0, 0], perturbs: 0, ab: false, framesB: 0,
                timeB: 0 };
let socket = null;
let plots = null;

function showError(text) {
  $('error').textContent = text;
  console.error(text);
}

function send(msg) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(msg));
}

// apply one binary pose frame to the body groups; a frame of copy B goes to ghost() (its body
// groups, made on first use)
function applyFrame(buf, bodies, ghost) {
  const v = new DataView(buf);
  const magic = buf.byteLength >= 32 ? v.getUint32(0, true) : 0;
  if (magic !== FRAME_MAGIC && magic !== FRAME_MAGIC_B) {
    showError('bad pose frame from the server');
    return;
  }
  if (magic === FRAME_MAGIC_B) {
    if (!state.ab) setAB(true);             // turned on by another page
    setPoses(v, buf, ghost());
    state.timeB = v.getFloat64(8, true);
    state.framesB++;
    return;
  }
  setPoses(v, buf, bodies);
  state.time = v.getFloat64(8, true);
  state.rtf = v.getFloat64(16, true);
  state.paused = v.getUint32(24, true) !== 0;
  state.ncon = v.getUint32(28, true);
  state.frames++;
}

// the poses of a frame into the body groups
function setPoses(v, buf, bodies) {
  const nbody = v.getUint32(4, true);
  if (nbody !== bodies.length || buf.byteLength !== 32 + 28 * nbody) {
    showError(`pose frame for ${nbody} bodies, the model has ${bodies.length}`);
    return;
  }
  const p = new Float32Array(buf, 32, 7 * nbody);
  for (let b = 0; b < nbody; b++) {
    const o = 7 * b;
    bodies[b].position.set(p[o], p[o + 1], p[o + 2]);
    bodies[b].quaternion.set(p[o + 4], p[o + 5], p[o + 6], p[o + 3]);
  }
}

// aim the camera at the bodies of the first frame: their centre, from a distance that shows
// them all
function frameBodies(bodies, camera, controls) {
  const box = new THREE.Box3();
  for (let b = 1; b < bodies.length; b++) box.expandByPoint(bodies[b].position);
  if (box.isEmpty()) return;
  const center = box.getCenter(new THREE.Vector3());
  const r = Math.max(0.5, box.getSize(new THREE.Vector3()).length());
  controls.target.copy(center);
  camera.position.set(center.x + 1.6 * r, center.y - 1.6 * r, center.z + 0.9 * r);
  controls.update();
}

function onText(text) {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch (e) {
    showError('unreadable message from the server');
    return;
  }
  if (msg.type === 'error') showError('server: ' + msg.error);
  if (msg.type === 'warning') {
    warnings.set(msg.warning, `warning: ${msg.text} (${msg.count} times)`);
    $('warnings').textContent = [...warnings.values()].join('\n');
    state.warnings = warnings.size;
  }
  if (msg.type === 'hello' || msg.type === 'ack') {
    state.paused = msg.paused;
    state.speed = msg.speed;
    if (msg.ab !== undefined) setAB(msg.ab);
  }
  if (msg.type === 'hello' && msg.replay) startReplay(msg);
  if (msg.type === 'hello' && !msg.replay) listPlugins(msg);
  if (msg.type === 'stats' && msg.copy === 'b') {
    state.solverB = msg.solver;
    state.integratorB = msg.integrator;
    plots.add(msg);
  } else if (msg.type === 'stats') {
    state.solver = msg.solver;
    state.integrator = msg.integrator;
    state.iter = msg.iter;
    plots.add(msg);
  }
  if (msg.type === 'replay') {
    state.frame = msg.frame;
    state.loop = msg.loop;
    if (!scrubbing) $('scrub').value = msg.frame;
  }
  if (msg.type === 'ack' && msg.cmd === 'reset') resetSliders();
}

// the A/B mode on or off as the server says: copy B's controls enabled, its ghost shown
let abGhost = null;
function setAB(on) {
  state.ab = on;
  $('ab').checked = on;
  $('solver-b').disabled = $('integrator-b').disabled = !on;
  if (abGhost) for (const b of abGhost.bodies) b.visible = on;
  if (!on) plots.endB();
}

function connect(bodies, overlays, onFirstFrame, ghost) {
  socket = new WebSocket(`ws://${location.host}/ws`);
  socket.binaryType = 'arraybuffer';
  socket.onmessage = (ev) => {
    if (typeof ev.data === 'string') {
      onText(ev.data);
      return;
    }
    if (overlays.isContacts(ev.data)) {
      if (!overlays.setContacts(ev.data)) showError('bad contact message from the server');
      state.contactMessages++;
      return;
    }
    applyFrame(ev.data, bodies, ghost);
    if (state.frames === 1) onFirstFrame();
  };
  socket.onclose = () => showError('disconnected from the server (reload when it runs again)');
}

// one slider per actuator, over its control range ([-1, 1] if not limited)
function makeSliders(model) {
  model.actuators.forEach((a, i) => {
    const [lo, hi] = a.ctrllimited ? a.ctrlrange : [-1, 1];
    const row = document.createElement('div');
    row.className = 'row';
    const label = document.createElement('label');
    label.textContent = a.name || `actuator ${i}`;
    label.title = label.textContent;
    const input = document.createElement('input');
    Object.assign(input, { type: 'range', min: lo, max: hi, step: (hi - lo) / 200 });
    input.value = Math.min(hi, Math.max(lo, 0));
    input.dataset.index = i;
    const shown = document.createElement('span');
    shown.textContent = Number(input.value).toFixed(2);
    input.oninput = () => {
      shown.textContent = Number(input.value).toFixed(2);
      send({ cmd: 'ctrl', index: i, value: Number(input.value) });
    };
    row.append(label, input, shown);
    $('ctrls').append(row);
  });
}

// the solvers and integrators the server has loaded, the current one selected, for copy A and
// for the A/B mode's copy B
function listPlugins(hello) {
  for (const kind of ['solver', 'integrator']) {
    for (const copy of ['a', 'b']) {
      const sel = $(copy === 'a' ? kind : `${kind}-b`);
      sel.replaceChildren(...hello[`${kind}s`].map((n) => new Option(n, n)));
      sel.value = hello[copy === 'a' ? kind : `${kind}_b`];
      sel.onchange = () => send(copy === 'a' ? { cmd: kind, name: sel.value }
                                             : { cmd: kind, name: sel.value, copy });
    }
  }
  $('ab').onchange = (e) => send({ cmd: 'ab', value: e.target.checked });
}

// replay of a recording: a scrub bar over the recorded frames and a loop switch instead of the
// actuator sliders and keyframes
let scrubbing = false;
function startReplay(hello) {
  state.replay = true;
  state.nframe = hello.frames;
  state.loop = hello.loop;
  $('replayrow').hidden = false;
  $('ctrls').hidden = true;
  $('plugins').hidden = true;
  $('abrow').hidden = true;
  $('plots').hidden = true;
  $('show-contacts').parentElement.hidden = true;     // a recording holds no contacts
  $('keyrow').hidden = true;
  $('scrub').max = String(hello.frames - 1);
  $('loop').checked = hello.loop;
}

function wireReplay() {
  const scrub = $('scrub');
  scrub.onpointerdown = () => { scrubbing = true; };
  scrub.onpointerup = () => { scrubbing = false; };
  scrub.oninput = () => send({ cmd: 'seek', frame: Number(scrub.value) });
  $('loop').onchange = (e) => send({ cmd: 'loop', value: e.target.checked });
}

// after a reset the controls are 0 again (mc_resetData)
function resetSliders() {
  for (const input of $('ctrls').querySelectorAll('input')) {
    input.value = Math.min(Number(input.max), Math.max(Number(input.min), 0));
    input.nextSibling.textContent = Number(input.value).toFixed(2);
  }
}

function wireControls(model) {
  makeSliders(model);
  if (model.keys.length) {
    $('keyrow').hidden = false;
    model.keys.forEach((name, i) => $('key').add(new Option(name || `key ${i}`, String(i))));
    $('loadkey').onclick = () => send({ cmd: 'reset', key: Number($('key').value) });
  }
  $('play').onclick = () => send({ cmd: state.paused ? 'play' : 'pause' });
  $('step').onclick = () => send({ cmd: 'step', n: 1 });
  $('reset').onclick = () => send({ cmd: 'reset' });
  $('speed').onchange = (e) => send({ cmd: 'speed', value: Number(e.target.value) });
  wireReplay();
  window.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'SELECT' || e.target.type === 'range') return;
    if (e.code === 'Space') $('play').click();
    else if (e.code === 'ArrowRight') $('step').click();
    else if (e.code === 'Backspace') $('reset').click();
    else return;
    e.preventDefault();
  });
}

// overlay switches (contacts are asked from the server) and the body the camera tracks
function wireOverlays(model, overlays) {
  for (const kind of ['frames', 'com', 'joints', 'contacts']) {
    $(`show-${kind}`).onchange = (e) => {
      overlays.show(kind, e.target.checked);
      if (kind === 'contacts' && !state.replay) send({ cmd: 'contacts', value: e.target.checked });
    };
  }
  model.bodies.forEach((b, i) => {
    if (i > 0) $('track').add(new Option(b.name || `body ${i}`, String(i)));
  });
}

// keep the tracked body at the orbit target: move target and camera by its displacement
function track(bodies, camera, controls) {
  const b = Number($('track').value);
  if (!(b > 0)) return;
  const p = bodies[b].getWorldPosition(new THREE.Vector3());
  const delta = p.sub(controls.target);
  controls.target.add(delta);
  camera.position.add(delta);
  controls.update();
}

// the selected body glows (emissive) so it is seen which one the mouse pulls
function highlight(bodies, b) {
  bodies.forEach((g, i) => {
    for (const m of g.children) {
      if (m.material && m.material.emissive) m.material.emissive.setHex(i === b ? 0x553300 : 0);
    }
  });
}

// mouse perturbation as in MuJoCo's simulate: double-click selects a body (the point clicked is
// the anchor; it glows), Ctrl + double-click tracks it with the camera, Ctrl + right drag pulls
// the anchor to the mouse (a spring force, drawn as a line from the anchor to the mouse), Ctrl +
// left drag turns the body (a torque); the server applies the spring through xfrc_applied
function wirePerturb(canvas, bodies, pickable, camera, controls, scene) {
  const spring = new THREE.Line(
    new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(), new THREE.Vector3()]),
    new THREE.LineBasicMaterial({ color: 0xffd040, depthTest: false }));
  spring.visible = false;
  spring.renderOrder = 3;
  scene.add(spring);
  window.moducoViewer.spring = () => spring.visible;
  window.moducoViewer.glowing = () => bodies.map((g) => g.children.filter(
    (m) => m.material && m.material.emissive && m.material.emissive.getHex() !== 0).length);
  const ray = new THREE.Raycaster();
  const ndc = (e) => {
    const r = canvas.getBoundingClientRect();
    return new THREE.Vector2(((e.clientX - r.left) / r.width) * 2 - 1,
                             -((e.clientY - r.top) / r.height) * 2 + 1);
  };
  let drag = null;
  canvas.addEventListener('dblclick', (e) => {
    ray.setFromCamera(ndc(e), camera);
    const hit = ray.intersectObjects(pickable, false)[0];
    state.selected = 0;
    if (!hit) {
      highlight(bodies, 0);
      return;
    }
    const b = bodies.indexOf(hit.object.parent);
    if (b > 0) {
      state.selected = b;
      state.anchor = bodies[b].worldToLocal(hit.point.clone()).toArray();
      if (e.ctrlKey) $('track').value = String(b);
    }
    highlight(bodies, state.selected);
  });
  canvas.addEventListener('contextmenu', (e) => { if (e.ctrlKey) e.preventDefault(); });
  canvas.addEventListener('pointerdown', (e) => {
    if (!e.ctrlKey || !(state.selected > 0) || state.replay) return;
    controls.enabled = false;
    const b = state.selected;
    const p = bodies[b].localToWorld(new THREE.Vector3().fromArray(state.anchor));
    const normal = camera.getWorldDirection(new THREE.Vector3());
    drag = { b, mode: e.button === 2 ? 'move' : 'rotate',
             plane: new THREE.Plane().setFromNormalAndCoplanarPoint(normal, p) };
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener('pointermove', (e) => {
    if (!drag) return;
    ray.setFromCamera(ndc(e), camera);
    const t = ray.ray.intersectPlane(drag.plane, new THREE.Vector3());
    if (t) {
      const a = bodies[drag.b].localToWorld(new THREE.Vector3().fromArray(state.anchor));
      spring.geometry.setFromPoints([a, t]);
      spring.visible = true;
      send({ cmd: 'perturb', body: drag.b, mode: drag.mode, anchor: state.anchor,
             target: t.toArray() });
      state.perturbs++;
    }
  });
  canvas.addEventListener('pointerup', () => {
    if (!drag) return;
    drag = null;
    spring.visible = false;
    controls.enabled = true;
    send({ cmd: 'perturb', body: 0 });
  });
}

// count the pixels that differ from the background (for the headless test)
function nonBlankPixels(renderer) {
  const gl = renderer.getContext();
  const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
  const px = new Uint8Array(4 * w * h);
  gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
  let n = 0;
  for (let i = 0; i < px.length; i += 4) {
    if (Math.abs(px[i] - 0x1d) + Math.abs(px[i + 1] - 0x21) + Math.abs(px[i + 2] - 0x26) > 24) n++;
  }
  return n;
}

async function main() {
  let model;
  try {
    const res = await fetch('model.json');
    model = await res.json();
  } catch (e) {
    showError('cannot load the model description: ' + e);
    return;
  }
  $('model').textContent = model.model;
  const { scene, bodies, extent, skipped } = buildScene(model);
  if (skipped.length) showError('not drawn yet: ' + skipped.join(', ') + ' geoms');

  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio);
  renderer.setSize(window.innerWidth, window.innerHeight);
  $('view').appendChild(renderer.domElement);
  const camera = new THREE.PerspectiveCamera(45, window.innerWidth / window.innerHeight,
                                             0.01 * extent, 100 * extent);
  camera.up.set(0, 0, 1);
  camera.position.set(2.2 * extent, -2.2 * extent, 1.4 * extent);
  const controls = new OrbitControls(camera, renderer.domElement);
  controls.target.set(0, 0, 0.5 * extent);
  controls.update();
  window.addEventListener('resize', () => {
    camera.aspect = window.innerWidth / window.innerHeight;
    camera.updateProjectionMatrix();
    renderer.setSize(window.innerWidth, window.innerHeight);
  });

  // for tests and the console: the page's state and a count of the drawn non-background pixels
  window.moducoViewer = {
    state, scene, camera, meshes: bodies.reduce((n, b) => n + b.children.length, 0),
    nonBlankPixels: () => nonBlankPixels(renderer),
  };
  const pickable = bodies.slice(1).flatMap((b) => [...b.children]);   // the geoms, no overlay
  const overlays = buildOverlays(model, scene, bodies, extent);
  plots = makePlots($('plots'));
  window.moducoViewer.plots = plots;
  window.moducoViewer.overlays = overlays.counts;
  window.moducoViewer.target = () => controls.target.toArray();
  window.moducoViewer.bodyPosition =
    (b) => bodies[b].getWorldPosition(new THREE.Vector3()).toArray();
  window.moducoViewer.bodyQuaternion =                      // world, [x, y, z, w]
    (b) => bodies[b].getWorldQuaternion(new THREE.Quaternion()).toArray();
  wireControls(model);
  wireOverlays(model, overlays);
  wirePerturb(renderer.domElement, bodies, pickable, camera, controls, scene);
  // a geom's bounding box in its own frame, [min, max] (tests: the height field's base)
  window.moducoViewer.geomBox = (i) => {
    const mesh = bodies.flatMap((b) => [...b.children]).find((m) => m.userData.geom === i);
    if (!mesh) return null;
    mesh.geometry.computeBoundingBox();
    return [mesh.geometry.boundingBox.min.toArray(), mesh.geometry.boundingBox.max.toArray()];
  };
  // the clearly red pixels of the last drawn frame (red above 80 and more than 2.5 times green
  // and blue): their count and centroid in CSS pixels from the top left (tests: where a red
  // sphere is drawn)
  window.moducoViewer.redPixels = () => {
    const gl = renderer.getContext();
    const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
    const px = new Uint8Array(4 * w * h);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    let n = 0, sx = 0, sy = 0;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = 4 * (y * w + x);
        const r = px[i], g = px[i + 1], b = px[i + 2];
        if (r > 80 && r > 2.5 * g && r > 2.5 * b) {
          n++;
          sx += x;
          sy += h - 1 - y;
        }
      }
    }
    const s = window.innerWidth / w;
    return { n, x: n ? (sx / n + 0.5) * s : -1, y: n ? (sy / n + 0.5) * s : -1 };
  };
  window.moducoViewer.project = (b) => {
    const p = bodies[b].getWorldPosition(new THREE.Vector3()).project(camera);
    return [(p.x + 1) / 2 * window.innerWidth, (1 - p.y) / 2 * window.innerHeight];
  };
  const ghost = () => {
    if (!abGhost) abGhost = addBodies(model, scene, extent, true);
    return abGhost.bodies;
  };
  window.moducoViewer.ghostMeshes =
    () => (abGhost ? abGhost.bodies.reduce((n, b) => n + (b.visible ? b.children.length : 0), 0)
                   : 0);
  window.moducoViewer.ghostPosition =
    (b) => ghost()[b].getWorldPosition(new THREE.Vector3()).toArray();
  connect(bodies, overlays, () => frameBodies(bodies, camera, controls), ghost);

  let fpsFrames = 0, fpsStart = performance.now();
  renderer.setAnimationLoop(() => {
    track(bodies, camera, controls);
    renderer.render(scene, camera);
    if (!state.replay) plots.draw();
    fpsFrames++;
    const t = performance.now();
    if (t - fpsStart >= 1000) {
      state.fps = (1000 * fpsFrames) / (t - fpsStart);
      fpsFrames = 0;
      fpsStart = t;
    }
    $('play').textContent = state.paused ? 'play' : 'pause';
    $('status').textContent =
      `time      ${state.time.toFixed(3)} s\n` +
      (state.replay ? `frame     ${state.frame} / ${state.nframe - 1}\n` : '') +
      `realtime  ${state.paused ? 'paused' : state.rtf.toFixed(2) + 'x'}\n` +
      `contacts  ${state.ncon}\n` +
      (state.ab ? `B         ${state.solverB} / ${state.integratorB}\n` : '') +
      (state.selected > 0 ? `selected  ${model.bodies[state.selected].name || state.selected}\n`
                          : '') +
      `page fps  ${state.fps.toFixed(0)}`;
  });
}

main();
