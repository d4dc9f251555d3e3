// Moduco viewer: live plots of the server's statistics with uPlot (from npm, copied into the
// build output): energy, solver iterations, solver residual (log scale), contacts and wall time
// per step, each against the simulated time, with its own axis scale. In the A/B mode copy B is
// drawn dashed beside copy A. A change of solver or integrator is marked by a vertical line
// labelled with the new names.
import uPlot from './uPlot.esm.js';

const N = 300;                              // samples kept
const SERIES = [
  { key: 'energy', label: 'energy (J)' },
  { key: 'iter', label: 'solver iterations' },
  { key: 'residual', label: 'solver residual', log: true },
  { key: 'ncon', label: 'contacts' },
  { key: 'steptime', label: 'step time (us)', scale: 1e6 },
];
const COLOR = { a: '#60c0ff', b: '#ffa040' };
const LOGMIN = 1e-20, LOGMAX = 1e20;        // log plots: values clamped into this range

// the ticks of a log axis: whole decades, at most four
function logSplits(u, axis, min, max) {
  const a = Math.ceil(Math.log10(min)), b = Math.floor(Math.log10(max));
  const step = Math.max(1, Math.ceil((b - a) / 3));
  const out = [];
  for (let e = a; e <= b; e += step) out.push(10 ** e);
  return out;
}

// the range of a log axis: whole decades around the data (one decade when there is none)
function logRange(u, min, max) {
  const lo = min > 0 && Number.isFinite(min) ? min : 1e-12;
  const hi = max > lo && Number.isFinite(max) ? max : lo * 10;
  return [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(hi))];
}

export function makePlots(root) {
  // one sample per pose frame: x (a running index), the time and each series for A and B
  const x = [], time = [], val = { a: SERIES.map(() => []), b: SERIES.map(() => []) };
  const marks = [];                         // { at: sample index, text }
  const last = { a: '', b: '' };
  let count = 0, dirty = false;

  // a vertical line and its label at each mark inside the window
  function drawMarks(u) {
    const { ctx } = u;
    const top = u.bbox.top, h = u.bbox.height;
    ctx.save();
    ctx.font = `${10 * devicePixelRatio}px monospace`;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    for (const m of marks) {
      if (m.at < x[0]) continue;
      const px = u.valToPos(m.at, 'x', true);
      ctx.strokeStyle = ctx.fillStyle = m.copy === 'b' ? COLOR.b : '#ffffff';
      ctx.beginPath();
      ctx.moveTo(px, top);
      ctx.lineTo(px, top + h);
      ctx.stroke();
      ctx.fillText(m.text, px + 3, top + 2);
    }
    ctx.restore();
  }

  const charts = SERIES.map((s) => {
    const box = document.createElement('div');
    box.className = 'plot';
    root.append(box);
    const opts = {
      title: s.label, width: 250, height: 96, legend: { show: false }, cursor: { show: false },
      scales: { x: { time: false }, y: s.log ? { distr: 3, range: logRange } : {} },
      axes: [
        { stroke: '#aaa', grid: { stroke: '#333' }, size: 22, font: '10px sans-serif',
          values: (u, splits) => splits.map((i) => {
            const t = time[i - x[0]];
            return t === undefined ? '' : t.toFixed(2);
          }) },
        { stroke: '#aaa', grid: { stroke: '#333' }, size: 46, font: '10px sans-serif',
          ...(s.log ? { splits: logSplits } : {}),
          values: (u, splits) => splits.map((v) => (v === null || v === undefined ? ''
            : s.log ? v.toExponential(0) : Number(v.toPrecision(4)))) },
      ],
      series: [{}, { stroke: COLOR.a, width: 1.5, label: 'A' },
               { stroke: COLOR.b, width: 1.5, dash: [5, 3], label: 'B' }],
      hooks: { draw: [drawMarks] },
    };
    return new uPlot(opts, [[], [], []], box);
  });

  // a stats message of copy A ("a") or B: A opens a sample, B fills its half of the last one
  function add(stats) {
    const copy = stats.copy === 'b' ? 'b' : 'a';
    const parts = `${stats.solver} / ${stats.integrator}`;
    if (copy === 'a' || !x.length) {
      x.push(count++);
      time.push(stats.time);
      for (const c of ['a', 'b']) val[c].forEach((v) => v.push(null));
      if (x.length > N) {
        x.shift();
        time.shift();
        for (const c of ['a', 'b']) val[c].forEach((v) => v.shift());
      }
    }
    if (last[copy] && parts !== last[copy]) {
      marks.push({ at: x[x.length - 1], text: (copy === 'b' ? 'B: ' : '') + parts, copy });
    }
    last[copy] = parts;
    SERIES.forEach((s, i) => {
      let y = (stats[s.key] || 0) * (s.scale || 1);
      if (s.log) y = y > 0 ? Math.min(LOGMAX, Math.max(LOGMIN, y)) : null;   // 0: no iteration
      val[copy][i][val[copy][i].length - 1] = y;
    });
    dirty = true;
  }

  // copy B stops: its series end (A/B off)
  function endB() {
    last.b = '';
  }

  // redraw when new samples came, at most 5 times a second
  let drawn = 0;
  function draw() {
    const t = performance.now();
    if (!dirty || t - drawn < 200) return;
    dirty = false;
    drawn = t;
    charts.forEach((u, i) => u.setData([x.slice(), val.a[i].slice(), val.b[i].slice()]));
  }

  // for the tests: the samples of a series (key as in SERIES, copy "a" or "b") as the chart has
  // them, the marks' labels, and the charts' titles
  const series = (key, copy = 'a') => {
    const i = SERIES.findIndex((s) => s.key === key);
    return i < 0 ? [] : charts[i].data[copy === 'b' ? 2 : 1].slice();
  };
  return { add, draw, endB, series, samples: () => count, xs: () => charts[0].data[0].slice(),
           marks: () => marks.map((m) => m.text),
           titles: () => charts.map((u) => u.root.querySelector('.u-title').textContent),
           axisScale: (key) => {
             const i = SERIES.findIndex((s) => s.key === key);
             const sc = charts[i].scales.y;
             return [sc.min, sc.max, sc.distr];
           } };
}
