// Moduco viewer: live plots of the server's statistics (energy, solver iterations, contacts,
// wall time per step), drawn on one canvas; a solver or integrator change is marked by a
// vertical line labelled with the new name.
const N = 300;                              // samples kept per series
const SERIES = [
  { key: 'energy', label: 'energy', color: '#f0c040' },
  { key: 'iter', label: 'solver iterations', color: '#60c0ff' },
  { key: 'ncon', label: 'contacts', color: '#80e080' },
  { key: 'steptime', label: 'step time (us)', color: '#ff8080', scale: 1e6 },
];

export function makePlots(canvas) {
  const data = SERIES.map(() => []);
  const marks = [];                         // { at: sample count, text }
  let count = 0, last = '';

  function add(stats) {
    const parts = `${stats.solver} / ${stats.integrator}`;
    if (last && parts !== last) marks.push({ at: count, text: parts });
    last = parts;
    SERIES.forEach((s, i) => {
      data[i].push((stats[s.key] || 0) * (s.scale || 1));
      if (data[i].length > N) data[i].shift();
    });
    count++;
  }

  function draw() {
    const ctx = canvas.getContext('2d');
    const w = canvas.width, h = canvas.height, rowh = h / SERIES.length;
    ctx.clearRect(0, 0, w, h);
    ctx.font = '10px monospace';
    const first = count - data[0].length;
    SERIES.forEach((s, i) => {
      const d = data[i], top = i * rowh;
      if (!d.length) return;
      let lo = Math.min(...d), hi = Math.max(...d);
      if (hi - lo < 1e-12) { hi += 0.5; lo -= 0.5; }
      ctx.strokeStyle = s.color;
      ctx.beginPath();
      d.forEach((y, k) => {
        const px = (k / (N - 1)) * w, py = top + rowh - 2 - ((y - lo) / (hi - lo)) * (rowh - 14);
        if (k) ctx.lineTo(px, py); else ctx.moveTo(px, py);
      });
      ctx.stroke();
      ctx.fillStyle = s.color;
      ctx.fillText(`${s.label} ${Number(d[d.length - 1].toPrecision(4))}`, 2, top + 10);
    });
    ctx.fillStyle = ctx.strokeStyle = '#ffffff';
    for (const m of marks) {
      if (m.at < first) continue;
      const px = ((m.at - first) / (N - 1)) * w;
      ctx.beginPath();
      ctx.moveTo(px, 0);
      ctx.lineTo(px, h);
      ctx.stroke();
      ctx.fillText(m.text, Math.min(px + 2, w - 80), h - 2);
    }
  }

  return { add, draw, samples: () => count, marks: () => marks.map((m) => m.text) };
}
