// Measure how fast `moduco view` simulates while streaming (not a test: a benchmark helper for
// docs/viewer.md). Usage: node --experimental-websocket stream_rate.mjs PORT [CLIENTS] [--ab]
// [--stalled]. Asks speed 64 (more than the humanoid can do, so it steps as fast as it can),
// waits 2 s, then reports steps/s over 6 s from the simulated time of the frames, and the frames
// per second each client received. --ab turns on the A/B mode (two copies stepped); --stalled
// adds a raw client that completes the handshake and never reads.
import net from 'node:net';

const [port, n = '1', ...flags] = process.argv.slice(2);
const timestep = (await (await fetch(`http://127.0.0.1:${port}/model.json`)).json()).timestep;
if (flags.includes('--stalled')) {
  const s = net.connect(Number(port), '127.0.0.1', () => s.write(
    'GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n'));
  s.once('data', () => s.pause());                  // the handshake's answer, then never read
}
const clients = [];
for (let i = 0; i < Number(n); i++) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  ws.binaryType = 'arraybuffer';
  const c = { ws, frames: 0, time: 0 };
  ws.onmessage = (ev) => {
    if (typeof ev.data === 'string') return;
    const v = new DataView(ev.data);
    if (v.getUint32(0, true) !== 0x4656434d) return;
    c.frames++;
    c.time = v.getFloat64(8, true);
  };
  await new Promise((ok) => { ws.onopen = ok; });
  clients.push(c);
}
clients[0].ws.send(JSON.stringify({ cmd: 'speed', value: 64 }));
if (flags.includes('--ab')) clients[0].ws.send(JSON.stringify({ cmd: 'ab', value: true }));
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
await sleep(2000);
const t0 = clients[0].time, f0 = clients.map((c) => c.frames);
await sleep(6000);
const steps = (clients[0].time - t0) / timestep / 6;
console.log(`steps/s ${steps.toFixed(0)}; frames/s per client ` +
            clients.map((c, i) => ((c.frames - f0[i]) / 6).toFixed(1)).join(' '));
process.exit(0);
