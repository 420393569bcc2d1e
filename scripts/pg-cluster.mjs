// A throwaway PostgreSQL cluster for tests and benches: Debian's initdb/pg_ctl in a temp dir of
// its own, on a free loopback port, never the machine's own cluster. Run as root, the server
// runs as the unprivileged `postgres` user (initdb refuses root).
//
//   node scripts/pg-cluster.mjs start [--durable]   prints {"url", "dir"} as JSON
//   node scripts/pg-cluster.mjs stop <dir>          stops it and removes the dir
//
// Without --durable the cluster skips fsync (tests: a crash of the machine loses nothing of
// value); --durable keeps PostgreSQL's defaults (the bench measures what production pays).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Where Debian's server programs are (pg_ctl on PATH is a wrapper on some installs). */
export function findPgBin() {
  const candidates = [];
  if (process.env.NORMA_PG_BIN) candidates.push(process.env.NORMA_PG_BIN);
  try {
    for (const v of fs.readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))) candidates.push(path.join('/usr/lib/postgresql', v, 'bin'));
  } catch {
    // not Debian's layout
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir) candidates.push(dir);
  for (const dir of candidates) {
    if (fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl'))) return dir;
  }
  return null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function asServerUser(root) {
  // initdb and postgres refuse to run as root: the cluster belongs to Debian's postgres user.
  if (process.getuid?.() !== 0) return { prefix: [], uid: null };
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root and there is no postgres user to run the server as (install Debian\'s postgresql package)');
  const [, , uid, gid] = line.split(':');
  fs.chownSync(root, Number(uid), Number(gid));
  return { prefix: ['runuser', '-u', 'postgres', '--'], uid: Number(uid) };
}

function run(prefix, file, args) {
  const [cmd, ...rest] = [...prefix, file, ...args];
  return execFileSync(cmd, rest, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
}

/** Starts a cluster; resolves to { url, dir }. */
export async function startCluster({ durable = false } = {}) {
  const bin = findPgBin();
  if (!bin) throw new Error("PostgreSQL's initdb and pg_ctl were not found: install Debian's postgresql package (apt-get install postgresql)");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-pg-'));
  try {
    fs.chmodSync(dir, 0o700);
    const user = asServerUser(dir);
    const data = path.join(dir, 'data');
    run(user.prefix, path.join(bin, 'initdb'), ['-D', data, '-U', 'norma', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    const port = await freePort();
    const options = [
      `-c listen_addresses=127.0.0.1`,
      `-c port=${port}`,
      `-c unix_socket_directories=${dir}`,
      `-c max_connections=200`,
      ...(durable ? [] : ['-c fsync=off', '-c full_page_writes=off']),
    ].join(' ');
    run(user.prefix, path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start']);
    fs.writeFileSync(path.join(dir, 'bin'), bin);
    return { url: `postgres://norma@127.0.0.1:${port}/postgres`, dir };
  } catch (err) {
    const log = path.join(dir, 'server.log');
    const tail = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-2000) : '';
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`${err.message}${err.stderr ? `\n${err.stderr}` : ''}${tail ? `\n${tail}` : ''}`);
  }
}

/** Stops the cluster in `dir` at once and removes the dir. */
export function stopCluster(dir) {
  try {
    const bin = fs.readFileSync(path.join(dir, 'bin'), 'utf8').trim();
    const user = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
    run(user, path.join(bin, 'pg_ctl'), ['-D', path.join(dir, 'data'), '-m', 'immediate', '-w', '-t', '30', 'stop']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [cmd, arg] = process.argv.slice(2);
  if (cmd === 'start') {
    process.stdout.write(`${JSON.stringify(await startCluster({ durable: arg === '--durable' }))}\n`);
  } else if (cmd === 'stop' && arg) {
    stopCluster(arg);
  } else {
    process.stderr.write('usage: pg-cluster.mjs start [--durable] | stop <dir>\n');
    process.exit(2);
  }
}
