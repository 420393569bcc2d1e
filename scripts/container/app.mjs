// 3. and 4. of the container check: the image started again and again on one data volume, and a
// turn in the bubblewrap sandbox of a running container. The compose checks use http(), waitReady(),
// turnInSandbox() and readyz() too.
import { SANDBOX_OPTS, created, exitCode, fail, figures, freePort, log, logs, podman, running, secs, sleep, stats } from './podman.mjs';

// ---------------------------------------------------------------------------------------------
// 3. and 4. Starts, a turn in the sandbox.

/** A request to the server with the check's token. */
export async function http(token, base, method, url, body, { timeout = 30_000, host } = {}) {
  const headers = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (host) headers.host = host;
  const res = await fetch(base + url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeout) });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

/** Polls /readyz until 200; returns ms, or throws after timeoutMs / when the container stopped. */
export async function waitReady(name, base, startedAt, timeoutMs = 90_000) {
  while (Date.now() - startedAt < timeoutMs) {
    try {
      const r = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2000) });
      if (r.status === 200) return Date.now() - startedAt;
    } catch {}
    if (name && !running(name)) throw new Error(`${name} stopped before it was ready:\n${logs(name)}`);
    await sleep(100);
  }
  throw new Error(`not ready within ${secs(timeoutMs)}${name ? `:\n${logs(name)}` : ''}`);
}

/** opts: the check's options (image, token). */
async function runApp(opts, name, volume, extra = []) {
  const port = await freePort();
  created.containers.add(name);
  const startedAt = Date.now();
  podman([
    'run', '-d', '--name', name, ...SANDBOX_OPTS, '--read-only', '--tmpfs', '/tmp',
    '-v', `${volume}:/data`, '-e', `NORMA_TOKEN=${opts.token}`, '-e', `PORT=${port}`,
    '-p', `127.0.0.1:${port}:${port}`, ...extra, opts.image,
  ]);
  return { port, base: `http://127.0.0.1:${port}`, startedAt };
}

export async function starts(opts) {
  const volume = `${opts.prefix}-data`;
  podman(['volume', 'create', volume]);
  created.volumes.add(volume);
  const times = [];
  let aborts = 0;
  for (let i = 1; i <= opts.starts; i++) {
    const name = `${opts.prefix}-start-${i}`;
    const { base, startedAt } = await runApp(opts, name, volume);
    let ms = null;
    try {
      ms = await waitReady(name, base, startedAt);
      await sleep(opts.hold);
    } catch {
      // Said below, with the container's log.
    }
    const alive = running(name);
    if (alive) podman(['stop', '-t', '20', name], { timeout: 60_000 });
    const code = exitCode(name);
    const out = logs(name);
    const aborted = code === 134 || /Assertion failed|Aborted|SIGABRT/.test(out);
    if (aborted) aborts++;
    const ok = ms !== null && alive && code === 0 && !aborted;
    log(`start ${String(i).padStart(2)}/${opts.starts}: ${ms === null ? 'not ready' : `ready in ${secs(ms)}`}, ${alive ? `alive after ${opts.hold / 1000} s` : 'DIED'}, exit ${code}${aborted ? ' (ABORT)' : ''}`);
    if (!ok) fail(`start ${i}: ${aborted ? 'aborted' : `ready=${ms !== null} alive=${alive} exit=${code}`}\n${out}`);
    else times.push(ms);
    podman(['rm', '-f', name], { ok: true });
    created.containers.delete(name);
  }
  const s = times.length ? stats(times) : null;
  figures.starts = `${times.length}/${opts.starts} ready, ${aborts} aborted` + (s ? `; to ready min ${secs(s.min)}, median ${secs(s.median)}, max ${secs(s.max)}` : '');
  figures.startTimes = times.map((t) => (t / 1000).toFixed(1)).join(' ');
  log(`starts: ${figures.starts}`);
}

/** Answers every pending permission of a turn with allow until it is done; returns the turn. */
async function driveTurn(token, base, sid, body, host) {
  let turn = (await http(token, base, 'POST', `/v1/sessions/${sid}/turns?wait=10`, body, { host })).body;
  const asked = [];
  for (let round = 0; round < 10 && turn.status === 'awaiting_permission'; round++) {
    for (const perm of turn.pending ?? []) {
      asked.push(perm);
      const r = await http(token, base, 'POST', `/v1/sessions/${sid}/permissions/${perm}`, { behavior: 'allow' }, { host });
      if (r.status >= 300) throw new Error(`approving ${perm}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    turn = (await http(token, base, 'GET', `/v1/sessions/${sid}/turns/${turn.id}?wait=10`, undefined, { host })).body;
  }
  return { turn, asked };
}

function resultText(turn) {
  return (turn.results ?? []).map((r) => (r.content ?? []).map((c) => c.text ?? '').join('')).join(' | ');
}

export async function turnInSandbox(token, base, label, host) {
  const s = await http(token, base, 'POST', '/v1/sessions', {}, { host });
  if (s.status !== 201 && s.status !== 200) throw new Error(`POST /v1/sessions: ${s.status} ${JSON.stringify(s.body)}`);
  const sid = s.body.id;
  const write = await driveTurn(token, base, sid, { tool_uses: [{ id: 'toolu_1', name: 'Write', input: { file_path: 'hello.txt', content: 'Hello' } }] }, host);
  const wOk = write.asked.length === 1 && write.turn.status === 'completed' && write.turn.results?.[0]?.is_error === false;
  log(`${label}: Write asked ${write.asked.length} permission(s), approved → ${write.turn.status}: ${resultText(write.turn).slice(0, 120).replace(/\n/g, '\\n')}`);
  if (!wOk) fail(`${label}: the Write-then-approve turn: ${JSON.stringify(write.turn).slice(0, 1500)}`);
  const bash = await driveTurn(
    token,
    base,
    sid,
    { tool_uses: [{ id: 'toolu_2', name: 'Bash', input: { command: 'echo hi > f.txt && cat f.txt hello.txt && echo " uid=$(id -u) pidns=$(readlink /proc/self/ns/pid)"' } }] },
    host,
  );
  const text = resultText(bash.turn);
  const bOk = bash.turn.status === 'completed' && bash.turn.results?.[0]?.is_error === false && /^hi\nHello/.test(text);
  log(`${label}: Bash (${bash.asked.length} permission(s) approved) → ${bash.turn.status}: ${text.slice(0, 160).replace(/\n/g, '\\n')}`);
  if (!bOk) fail(`${label}: the Bash turn in the sandbox: ${JSON.stringify(bash.turn).slice(0, 1500)}`);
  return { write: write.turn, bash: bash.turn };
}

export async function readyz(token, base, label, host) {
  const r = await http(token, base, 'GET', '/readyz', undefined, { host });
  const sandbox = r.body.checks?.find((c) => c.name === 'sandbox');
  log(`${label}: /readyz ${r.status} ${r.body.status}; ${(r.body.checks ?? []).map((c) => `${c.name}=${c.ok}`).join(' ')}`);
  if (r.status !== 200 || r.body.status !== 'ready' || !sandbox?.ok) fail(`${label}: /readyz: ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function sandboxTurn(opts) {
  const volume = `${opts.prefix}-turn`;
  podman(['volume', 'create', volume]);
  created.volumes.add(volume);
  const name = `${opts.prefix}-turn`;
  const { base, startedAt } = await runApp(opts, name, volume);
  await waitReady(name, base, startedAt);
  const hc = podman(['healthcheck', 'run', name], { ok: true, timeout: 30_000 });
  log(`the image's HEALTHCHECK: ${hc.status === 0 ? 'healthy' : `exit ${hc.status} ${hc.stdout}${hc.stderr}`}`);
  if (hc.status !== 0) fail(`podman healthcheck run: ${hc.status} ${hc.stdout}${hc.stderr}`);
  const turns = await turnInSandbox(opts.token, base, 'image');
  figures.writeTurn = resultText(turns.write);
  figures.bashTurn = resultText(turns.bash);
  figures.readyz = JSON.stringify(await readyz(opts.token, base, 'image'));
  podman(['stop', '-t', '20', name], { timeout: 60_000 });
  const code = exitCode(name);
  if (code !== 0) fail(`the turn's container exited ${code} on stop:\n${logs(name)}`);
  podman(['rm', '-f', name], { ok: true });
  created.containers.delete(name);
}
