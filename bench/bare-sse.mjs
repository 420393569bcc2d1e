// Baseline for the fan-out bench: a bare node:http server that sends the frames in $FRAMES_FILE
// (SSE, one per line of JSON) to every subscriber of /events once $SUBSCRIBERS are connected, in
// bursts of $BURST frames every $INTERVAL_MS, each stamped with the time it is written — no store,
// no framework.
import fs from 'node:fs';
import http from 'node:http';

const frames = fs.readFileSync(process.env.FRAMES_FILE, 'utf8').split('\n').filter((l) => l !== '');
const want = Number(process.env.SUBSCRIBERS);
const burst = Number(process.env.BURST);
const interval = Number(process.env.INTERVAL_MS);
const clients = [];
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(': hi\n\n');
  clients.push(res);
  if (clients.length === want) setTimeout(send, 200);
});
function send(at = 0) {
  const end = Math.min(frames.length, at + burst);
  for (let i = at; i < end; i++) {
    const f = frames[i];
    const t = f.lastIndexOf('"time":"') + 8;
    const data = f.slice(0, t) + new Date().toISOString() + f.slice(f.indexOf('"', t));
    const text = `id: ${i + 1}\nevent: e\ndata: ${data}\n\n`;
    for (const c of clients) c.write(text);
  }
  if (end < frames.length) setTimeout(() => send(end), interval);
  else for (const c of clients) c.end();
}
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
