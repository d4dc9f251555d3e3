// Drive the `moduco view` page in Debian's headless chromium (playwright-core): it must draw
// the model, receive pose frames, and obey pause / step / reset. Called by test_page in
// test_viewer.c as: node page_test.mjs URL SCREENSHOT.png [--draw-only]. Prints one line per
// check; exits 0 when all pass, 1 otherwise. --draw-only: the drawing checks and the screenshot.
// --replay: the server plays a recording; the scrub bar and loop switch are checked.
// --warnings: the model diverges; the engine's warning must show on the page.
import { chromium } from 'playwright-core';

const [url, shot, mode] = process.argv.slice(2);
const drawOnly = mode === '--draw-only' || mode === '--replay' || mode === '--warnings';
const replay = mode === '--replay';
const warningsOnly = mode === '--warnings';
const failures = [];
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--enable-unsafe-swiftshader'],
});
try {
  const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);

  // the model description, to know what must be drawn
  const model = await (await fetch(new URL('model.json', url))).json();
  const drawable = model.geoms.filter((g) => g.group <= 2 && g.rgba[3] > 0).length;

  // frames arrive and the scene is drawn
  await page.waitForFunction(() => window.moducoViewer && window.moducoViewer.state.frames >= 5,
                             null, { timeout: 60000 });
  const meshes = await page.evaluate(() => window.moducoViewer.meshes);
  check(meshes === drawable, `one mesh per drawable geom (${meshes} of ${drawable})`);
  const sliders = await page.locator('#ctrls input[type=range]').count();
  check(sliders === model.actuators.length,
        `one slider per actuator (${sliders} of ${model.actuators.length})`);
  if (replay) {
    // the scrub bar covers the recording; moving it shows that frame (recorded at k timesteps)
    check(await page.isVisible('#scrub') && !(await page.isVisible('#ctrls')),
          'replay: scrub bar shown, actuator sliders hidden');
    const nframe = await page.evaluate(() => window.moducoViewer.state.nframe);
    const max = Number(await page.getAttribute('#scrub', 'max'));
    check(nframe > 10 && max === nframe - 1, `scrub bar over ${nframe} frames (max ${max})`);
    const k = Math.floor(nframe / 2);
    await page.evaluate((v) => {
      const s = document.getElementById('scrub');
      s.value = String(v);
      s.dispatchEvent(new Event('input'));
    }, k);
    await page.waitForFunction((v) => window.moducoViewer.state.frame === v &&
                               window.moducoViewer.state.paused, k, { timeout: 10000 });
    const t = await page.evaluate(() => window.moducoViewer.state.time);
    check(Math.abs(t - k * model.timestep) < 1e-9, `scrubbed to frame ${k}: time ${t}`);
    await page.click('#loop');
    await page.waitForFunction(() => window.moducoViewer.state.loop === false, null,
                               { timeout: 10000 });
    check(true, 'loop switched off');
  }
  if (warningsOnly) {
    await page.waitForFunction(() => /unstable/.test(document.getElementById('warnings')
                                                       .textContent), null, { timeout: 20000 });
    const text = await page.textContent('#warnings');
    check(/times\)/.test(text), `the engine's warning shows on the page: ${text.split('\n')[0]}`);
  }
  const nonblank = await page.evaluate(() => window.moducoViewer.nonBlankPixels());
  if (!warningsOnly) {
    check(nonblank > 0.05 * 800 * 600, `canvas not blank (${nonblank} non-background pixels)`);
  }

  // a red sphere in the model (shapes.xml's ball): the red pixels are centred where the camera
  // maps the sphere's centre (paused first, so the pose read is the pose drawn)
  const red = model.geoms.findIndex((g) => g.type === 'sphere' && g.rgba[0] > 0.8 &&
                                            g.rgba[1] < 0.2 && g.rgba[2] < 0.2 && g.rgba[3] > 0);
  if (red >= 0 && !replay && !warningsOnly) {
    await page.evaluate(() => document.getElementById('play').textContent === 'pause' &&
                              document.getElementById('play').click());
    await page.waitForFunction(() => window.moducoViewer.state.paused, null, { timeout: 10000 });
    await page.waitForTimeout(500);
    const [at, blob] = await page.evaluate((b) => {
      const v = window.moducoViewer;
      return [v.project(b), v.redPixels()];
    }, model.geoms[red].body);
    check(blob.n > 200 && Math.hypot(blob.x - at[0], blob.y - at[1]) < 4,
          `red sphere drawn at its projected centre (${at.map((p) => p.toFixed(1))}), red ` +
          `pixels centred at (${blob.x.toFixed(1)}, ${blob.y.toFixed(1)}), ${blob.n} of them`);
    await page.click('#play');
  }

  // a height field stands on its base box: from -size[3] up to size[2] in its frame
  const hf = model.geoms.findIndex((g) => g.type === 'hfield');
  if (hf >= 0) {
    const size = model.hfields[model.geoms[hf].data].size;
    const box = await page.evaluate((i) => window.moducoViewer.geomBox(i), hf);
    check(box && Math.abs(box[0][2] + size[3]) < 1e-6 && Math.abs(box[1][2] - size[2]) < 1e-6,
          `height field drawn from its base at ${-size[3]} to its top at ${size[2]} ` +
          `(${box && [box[0][2], box[1][2]]})`);
  }

  if (!drawOnly) {
    // pause: the button flips and the pose stream stops
    await page.click('#play');
    await page.waitForFunction(() => document.getElementById('play').textContent === 'play',
                               null, { timeout: 10000 });
    const paused = await page.evaluate(() => ({ ...window.moducoViewer.state }));
    await page.waitForTimeout(800);
    const later = await page.evaluate(() => ({ ...window.moducoViewer.state }));
    check(later.frames === paused.frames && later.time === paused.time,
          `paused: no frames (${paused.frames} -> ${later.frames}, t ${later.time})`);

    // step: one frame, one timestep later
    await page.click('#step');
    await page.waitForFunction((n) => window.moducoViewer.state.frames > n, paused.frames,
                               { timeout: 10000 });
    const stepped = await page.evaluate(() => ({ ...window.moducoViewer.state }));
    check(Math.abs(stepped.time - paused.time - model.timestep) < 1e-9,
          `step advances one timestep (${paused.time} -> ${stepped.time})`);

    // reset: back to time 0
    await page.click('#reset');
    await page.waitForFunction(() => window.moducoViewer.state.time === 0, null,
                               { timeout: 10000 });
    check(true, 'reset brings the time back to 0');

    // a ctrl slider drives its joint: from the reset state, the slider at its top and then at
    // its bottom, 40 steps each (right arrow); the hinge's angle (child body relative to its
    // parent, about the joint axis) ends larger with the top than with the bottom
    const hinge = (a) => model.joints.find((j) => j.name === a.name && j.type === 'hinge');
    const act = Math.max(0, model.actuators.findIndex((a) => a.name === 'knee_r' && hinge(a)));
    const joint = model.actuators.length ? hinge(model.actuators[act]) : undefined;
    if (joint) {
      const rel = async (value) => {
        await page.click('#reset');
        await page.waitForFunction(() => window.moducoViewer.state.time === 0, null,
                                   { timeout: 10000 });
        await page.evaluate(([i, v]) => {
          const s = document.querySelectorAll('#ctrls input[type=range]')[i];
          s.value = String(v === 'max' ? s.max : s.min);
          s.dispatchEvent(new Event('input'));
        }, [act, value]);
        for (let k = 0; k < 40; k++) await page.keyboard.press('ArrowRight');
        await page.waitForFunction((t) => Math.abs(window.moducoViewer.state.time - t) < 1e-9,
                                   40 * model.timestep, { timeout: 20000 });
        return page.evaluate(([b, p]) => [window.moducoViewer.bodyQuaternion(p),
                                          window.moducoViewer.bodyQuaternion(b)],
                             [joint.body, model.bodies[joint.body].parent]);
      };
      // q = conj(parent) * child, then the rotation from the low to the high result
      const mul = (a, b) => [a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                             a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                             a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                             a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]];
      const conj = (q) => [-q[0], -q[1], -q[2], q[3]];
      const local = ([p, c]) => mul(conj(p), c);
      const hi = local(await rel('max')), lo = local(await rel('min'));
      const d = mul(conj(lo), hi);
      const ax = joint.axis;
      const angle = 2 * Math.atan2(d[0] * ax[0] + d[1] * ax[1] + d[2] * ax[2], d[3]);
      check(angle > 0.05, `ctrl slider ${model.actuators[act].name}: the joint turns ` +
            `${angle.toFixed(3)} rad more with the slider at its top than at its bottom`);
      await page.click('#reset');
      await page.waitForFunction(() => window.moducoViewer.state.time === 0, null,
                                 { timeout: 10000 });
    }

    // play again, speed control, then a screenshot of the running model
    await page.selectOption('#speed', '0.5');
    await page.click('#play');
    await page.waitForFunction(() => window.moducoViewer.state.time > 0.2, null,
                               { timeout: 20000 });
    await page.waitForTimeout(1500);
    const run = await page.evaluate(() => ({ ...window.moducoViewer.state }));
    check(run.speed === 0.5, `speed acknowledged (${run.speed})`);
    check(run.rtf > 0.2 && run.rtf < 0.8, `real-time factor near 0.5 (${run.rtf})`);
    console.log(`page fps ${run.fps.toFixed(1)} (software rendering)`);

    // overlays: body frames, centres of mass, joint axes, contacts from the server
    for (const k of ['frames', 'com', 'joints', 'contacts']) await page.check(`#show-${k}`);
    const hinges = model.joints.filter((j) => j.type === 'hinge' || j.type === 'slide').length;
    const massive = model.bodies.filter((b, i) => i > 0 && b.mass > 0).length;
    await page.waitForFunction(() => window.moducoViewer.state.contactMessages > 2, null,
                               { timeout: 20000 });
    const o = await page.evaluate(() => window.moducoViewer.overlays());
    check(o.frames === model.nbody - 1 && o.com === massive && o.joints === hinges,
          `overlays: ${o.frames} body frames, ${o.com} centres of mass, ${o.joints} joint axes`);
    await page.waitForFunction(() => {
      const v = window.moducoViewer;
      return v.state.ncon > 0 && v.overlays().contacts === v.state.ncon;
    }, null, { timeout: 20000 });
    check(true, 'contacts: one point per contact of the pose frame');

    // perturbation: double-click the torso, Ctrl + right drag upwards lifts it
    await page.selectOption('#speed', '1');
    const [px, py] = await page.evaluate(() => window.moducoViewer.project(1));
    await page.mouse.dblclick(px, py);
    const selected = await page.evaluate(() => window.moducoViewer.state.selected);
    check(selected === 1, `double-click selects the torso (${selected})`);
    const glowing = await page.evaluate(() => window.moducoViewer.glowing());
    check(glowing[1] > 0 && glowing.reduce((a, n) => a + n, 0) === glowing[1],
          `the selected body glows, no other (${glowing.join(' ')})`);
    await page.keyboard.down('Control');
    await page.mouse.dblclick(px, py);
    await page.keyboard.up('Control');
    check(await page.inputValue('#track') === '1', 'Ctrl + double-click on the torso tracks it');
    await page.selectOption('#track', '0');
    const z0 = await page.evaluate(() => window.moducoViewer.bodyPosition(1)[2]);
    await page.keyboard.down('Control');
    await page.mouse.move(px, py);
    await page.mouse.down({ button: 'right' });
    await page.mouse.move(px, py - 150, { steps: 5 });
    await page.waitForTimeout(2000);
    const z1 = await page.evaluate(() => window.moducoViewer.bodyPosition(1)[2]);
    check(await page.evaluate(() => window.moducoViewer.spring()), 'the spring is drawn while pulling');
    await page.mouse.up({ button: 'right' });
    await page.keyboard.up('Control');
    const sent = await page.evaluate(() => window.moducoViewer.state.perturbs);
    check(z1 > z0 + 0.2,
          `Ctrl + right drag lifts the torso (z ${z0.toFixed(2)} -> ${z1.toFixed(2)}, ${sent} sent)`);

    // solver switch: the stats name the new solver and the plot marks the change
    const solvers = await page.$$eval('#solver option', (os) => os.map((o) => o.value));
    const current = await page.inputValue('#solver');
    const other = solvers.find((n) => n !== current);
    check(solvers.length >= 2 && other !== undefined, `solvers offered: ${solvers.join(', ')}`);
    const samples0 = await page.evaluate(() => window.moducoViewer.plots.samples());
    await page.selectOption('#solver', other);
    await page.waitForFunction((n) => window.moducoViewer.state.solver === n, other,
                               { timeout: 10000 });
    await page.waitForTimeout(500);
    const marks = await page.evaluate(() => window.moducoViewer.plots.marks());
    const samples = await page.evaluate(() => window.moducoViewer.plots.samples());
    check(marks.some((m) => m.startsWith(other)) && samples > 10,
          `the plot marks the switch to ${other} (${marks.join('; ')}; ${samples} samples)`);
    // the plotted iterations and residual before and after the switch (uPlot's own data)
    await page.waitForTimeout(1500);
    const plotted = await page.evaluate((s0) => {
      const p = window.moducoViewer.plots, xs = p.xs();
      const mean = (key, after) => {
        const ys = p.series(key).filter((y, i) => y !== null && (after ? xs[i] > s0 + 1 : xs[i] < s0));
        return ys.reduce((a, y) => a + y, 0) / ys.length;
      };
      return { iter: [mean('iter', false), mean('iter', true)],
               res: [mean('residual', false), mean('residual', true)],
               titles: p.titles(), scale: p.axisScale('residual') };
    }, samples0);
    check(plotted.iter.every(Number.isFinite) && plotted.iter[0] !== plotted.iter[1],
          `plotted solver iterations change with the solver (mean ${plotted.iter.map((x) => x.toFixed(2))})`);
    check(plotted.res.every((x) => x > 0) && plotted.scale[2] === 3,
          `solver residual plotted on a log axis (mean ${plotted.res.map((x) => x.toExponential(2))}, ` +
          `axis ${plotted.scale})`);
    check(plotted.titles.length === 5, `plots: ${plotted.titles.join(', ')}`);

    // tracking: the orbit target follows the chosen body
    await page.selectOption('#track', '1');
    await page.waitForTimeout(1000);
    const [tgt, pos] = await page.evaluate(() => [window.moducoViewer.target(),
                                                  window.moducoViewer.bodyPosition(1)]);
    check(Math.hypot(tgt[0] - pos[0], tgt[1] - pos[1], tgt[2] - pos[2]) < 0.05,
          `tracking body 1: target ${tgt.map((x) => x.toFixed(2))} at ${pos.map((x) => x.toFixed(2))}`);
    await page.selectOption('#track', '0');

    // A/B: copy B (ghosted) with PGS (or the first solver if A has PGS), from the same state; after a reset both
    // copies are at the same place, then they drift apart; the plots show both
    await page.check('#ab');
    await page.waitForFunction(() => window.moducoViewer.state.framesB > 3, null,
                               { timeout: 10000 });
    const bodyGeoms = model.geoms.filter((g) => g.body > 0 && g.group <= 2 &&
                                                g.rgba[3] > 0).length;
    const ghosts = await page.evaluate(() => window.moducoViewer.ghostMeshes());
    check(ghosts === bodyGeoms, `A/B: copy B drawn ghosted (${ghosts} of ${bodyGeoms} geoms)`);
    const solverB = other === 'pgs' ? current : 'pgs';
    await page.selectOption('#solver-b', solverB);
    await page.waitForFunction((n) => window.moducoViewer.state.solverB === n, solverB,
                               { timeout: 10000 });
    await page.click('#play');                                 // pause
    await page.waitForFunction(() => window.moducoViewer.state.paused, null, { timeout: 10000 });
    await page.click('#reset');
    await page.waitForFunction(() => window.moducoViewer.state.time === 0 &&
                               window.moducoViewer.state.timeB === 0, null, { timeout: 10000 });
    const gap = () => page.evaluate((nbody) => {
      const v = window.moducoViewer;
      let g = 0;
      for (let b = 1; b < nbody; b++) {
        const p = v.bodyPosition(b), q = v.ghostPosition(b);
        g = Math.max(g, Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
      }
      return g;
    }, model.nbody);
    const gap0 = await gap();
    await page.click('#play');
    await page.waitForFunction(() => window.moducoViewer.state.time > 1.5, null,
                               { timeout: 30000 });
    await page.click('#play');
    await page.waitForFunction(() => window.moducoViewer.state.paused, null, { timeout: 10000 });
    await page.waitForTimeout(300);
    const gap1 = await gap();
    const st = await page.evaluate(() => ({ ...window.moducoViewer.state }));
    check(gap0 === 0 && gap1 > 1e-5 && st.time === st.timeB,
          `A/B: ${other} (A) and ${solverB} (B) start equal (gap ${gap0}) and diverge ` +
          `(${gap1.toExponential(2)} m at t ${st.time.toFixed(2)})`);
    const both = await page.evaluate(() => {
      const p = window.moducoViewer.plots;
      return [p.series('iter', 'a').filter((y) => y !== null).length,
              p.series('iter', 'b').filter((y) => y !== null).length, p.marks()];
    });
    check(both[0] > 50 && both[1] > 50 && both[2].some((m) => m.startsWith(`B: ${solverB}`)),
          `A/B: the plots hold both copies (${both[0]} and ${both[1]} samples; ${both[2].join('; ')})`);
    await page.click('#play');
    await page.waitForTimeout(1500);
  }
  await page.waitForTimeout(300);
  if (shot) await page.screenshot({ path: shot });
  const shown = await page.textContent('#error');
  check(shown === '' && errors.length === 0,
        `no errors on the page (${[shown, ...errors].filter((e) => e).join(' | ')})`);
} catch (e) {
  check(false, `page test stopped: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failures.length ? 1 : 0);
