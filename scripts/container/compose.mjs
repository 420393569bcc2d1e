// 5. of the container check: the compose files' services, started the way compose would (their
// options translated to podman run), with stand-ins for postgres and nginx where podman has no such
// image.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { http, readyz, turnInSandbox, waitReady } from './app.mjs';
import { dockerfileFrom } from './image.mjs';
import { created, exitCode, fail, freePort, log, logs, podman, root, running, secs, sleep, tmp } from './podman.mjs';

// ---------------------------------------------------------------------------------------------
// 5. The compose files, started the way compose would.

/** ${VAR}, ${VAR:-default}, ${VAR:?message} as compose interpolates them. */
function interpolate(value, vars) {
  return String(value).replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name, op, arg) => {
    const v = vars[name];
    if (op === '?' && !v) throw new Error(`compose refuses to start: ${name}: ${arg}`);
    if (op === '-' && !v) return arg;
    return v ?? '';
  });
}

const seconds = (d) => {
  const m = /^(\d+)(ms|s|m)$/.exec(String(d));
  if (!m) throw new Error(`duration ${d}`);
  return Number(m[1]) / (m[2] === 'ms' ? 1000 : m[2] === 'm' ? 1 / 60 : 1);
};

/**
 * podman run arguments for a compose service: image, ports, environment, volumes (named ones
 * prefixed with the project, bind mounts from the compose file's directory), security_opt (Docker's
 * systempaths=unconfined is podman's unmask=ALL), read_only, tmpfs, healthcheck, stop_grace_period.
 * Anything else in the service fails the check, so a new key is noticed.
 */
function serviceArgs(project, name, svc, vars, { portMap = (p) => p } = {}) {
  const known = new Set(['build', 'image', 'restart', 'stop_grace_period', 'ports', 'environment', 'volumes', 'healthcheck', 'security_opt', 'read_only', 'tmpfs', 'depends_on']);
  for (const k of Object.keys(svc)) if (!known.has(k)) throw new Error(`${name}: the check does not translate "${k}" yet`);
  const a = ['--name', `${project}-${name}`, '--hostname', name];
  if (svc.stop_grace_period) a.push('--stop-timeout', String(Math.ceil(seconds(svc.stop_grace_period))));
  for (const p of svc.ports ?? []) a.push('-p', portMap(interpolate(p, vars)));
  for (const [k, v] of Object.entries(svc.environment ?? {})) {
    const value = interpolate(v ?? '', vars);
    // Compose passes a blank value as set-and-empty; so does podman -e K=.
    a.push('-e', `${k}=${value}`);
  }
  for (const v of svc.volumes ?? []) {
    const [src, ...rest] = interpolate(v, vars).split(':');
    const bind = src.startsWith('.') || src.startsWith('/');
    a.push('-v', [bind ? path.resolve(root, src) : `${project}_${src}`, ...rest].join(':'));
  }
  for (const s of svc.security_opt ?? []) a.push('--security-opt', s === 'systempaths=unconfined' ? 'unmask=ALL' : s);
  if (svc.read_only) a.push('--read-only');
  for (const t of svc.tmpfs ?? []) a.push('--tmpfs', t);
  if (svc.healthcheck) {
    const test = svc.healthcheck.test;
    const cmd = Array.isArray(test) ? (test[0] === 'CMD' ? JSON.stringify(test.slice(1)) : test.slice(1).join(' ')) : test;
    a.push('--health-cmd', cmd);
    for (const [k, f] of [['interval', '--health-interval'], ['timeout', '--health-timeout'], ['start_period', '--health-start-period'], ['retries', '--health-retries']]) {
      if (svc.healthcheck[k] !== undefined) a.push(f, String(svc.healthcheck[k]));
    }
  }
  a.push(svc.image);
  return a;
}

/** Runs the service's health check on demand until healthy (podman has no timer without systemd). */
async function waitHealthy(container, timeoutMs = 120_000) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (!running(container)) throw new Error(`${container} stopped:\n${logs(container)}`);
    if (podman(['healthcheck', 'run', container], { ok: true, timeout: 30_000 }).status === 0) return Date.now() - started;
    await sleep(500);
  }
  throw new Error(`${container} not healthy within ${secs(timeoutMs)}:\n${logs(container)}`);
}

/** opts: the check's options (prefix, image, token). */
export async function composeSingle(opts) {
  const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'));
  const project = `${opts.prefix}-c1`;
  // The host side of the published port on a free one of the loopback (the file's is 7070), and
  // that name allowed, as NORMA_ALLOWED_HOSTS is meant for.
  const port = await freePort();
  for (const v of Object.keys(compose.volumes ?? {})) {
    podman(['volume', 'create', `${project}_${v}`]);
    created.volumes.add(`${project}_${v}`);
  }
  const norma = compose.services.norma;
  tagFor(opts.image, norma.image);
  const vars = { NORMA_TOKEN: opts.token, NORMA_ALLOWED_HOSTS: `127.0.0.1:${port}` };
  const a = serviceArgs(project, 'norma', norma, vars, { portMap: (p) => p.replace(/^127\.0\.0\.1:\d+:/, `127.0.0.1:${port}:`) });
  created.containers.add(`${project}-norma`);
  const startedAt = Date.now();
  podman(['run', '-d', ...a]);
  const base = `http://127.0.0.1:${port}`;
  await waitReady(`${project}-norma`, base, startedAt);
  const healthy = await waitHealthy(`${project}-norma`);
  log(`docker-compose.yml: norma ready in ${secs(Date.now() - startedAt)}, its healthcheck healthy (${secs(healthy)})`);
  await turnInSandbox(opts.token, base, 'docker-compose.yml');
  await readyz(opts.token, base, 'docker-compose.yml');
  podman(['stop', `${project}-norma`], { timeout: 60_000 });
  const code = exitCode(`${project}-norma`);
  if (code !== 0) fail(`docker-compose.yml: norma exited ${code} on stop`);
}

/** Names the compose files use, on this run's images for as long as it runs (untagged at the end). */
function tagFor(image, name) {
  const full = name.includes('/') ? name : `localhost/${name}`;
  if (podman(['image', 'exists', full], { ok: true }).status === 0) {
    const a = podman(['image', 'inspect', '--format', '{{.Id}}', full]).stdout.trim();
    const b = podman(['image', 'inspect', '--format', '{{.Id}}', image]).stdout.trim();
    if (a === b) return;
    throw new Error(`${full} exists and is not ${image}: remove it (podman rmi ${full}) or run the check elsewhere`);
  }
  podman(['tag', image, full]);
  created.tags.add(full);
}

/**
 * Stand-ins, from Debian's packages, for images no registry gives here (used only where podman has
 * no image of that name, e.g. one pulled from a registry).
 */
async function ensureStandIns(suite) {
  const made = [];
  const pg = 'docker.io/library/postgres:17';
  const exists = (name) => podman(['image', 'exists', name], { ok: true }).status === 0;
  const pgOwn = 'localhost/norma-standin-postgres:17';
  if (!exists(pg) && exists(pgOwn)) tagFor(pgOwn, pg);
  else if (!exists(pg)) {
    // The official image's interface the compose file uses: POSTGRES_USER/DB/PASSWORD on a first
    // start, data in /var/lib/postgresql/data, pg_isready; a password required over the network.
    const dir = path.join(tmp, 'pg');
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, 'entrypoint.sh'),
      `#!/bin/sh
set -e
D=/var/lib/postgresql/data
B=/usr/lib/postgresql/17/bin
if [ "$(id -u)" = 0 ]; then mkdir -p "$D" /run/postgresql; chown -R postgres:postgres "$D" /run/postgresql; chmod 700 "$D"; exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"; fi
if [ ! -s "$D/PG_VERSION" ]; then
  : "\${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
  U="\${POSTGRES_USER:-postgres}"
  printf '%s\\n' "$POSTGRES_PASSWORD" > /tmp/pw
  "$B/initdb" -D "$D" -U "$U" --pwfile=/tmp/pw --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /tmp/pw
  echo "host all all all scram-sha-256" >> "$D/pg_hba.conf"
  "$B/pg_ctl" -D "$D" -o "-c listen_addresses=''" -w start >/dev/null
  [ "\${POSTGRES_DB:-$U}" = postgres ] || "$B/createdb" -U "$U" "\${POSTGRES_DB:-$U}"
  "$B/pg_ctl" -D "$D" -m fast -w stop >/dev/null
fi
exec "$B/postgres" -D "$D" -c listen_addresses='*'
`,
      { mode: 0o755 },
    );
    fs.writeFileSync(
      path.join(dir, 'Containerfile'),
      `FROM docker.io/library/debian-standin:${suite}
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-17 && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/17/bin:$PATH
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
STOPSIGNAL SIGINT
`,
    );
    made.push({ dir, own: pgOwn, tag: pg });
  }
  const nginxTag = `docker.io/library/${parse(fs.readFileSync(path.join(root, 'docker-compose.replicas.yml'), 'utf8')).services.proxy.image}`;
  const nginxOwn = 'localhost/norma-standin-nginx:debian';
  if (!exists(nginxTag) && exists(nginxOwn)) tagFor(nginxOwn, nginxTag);
  else if (!exists(nginxTag)) {
    const dir = path.join(tmp, 'nginx');
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, 'Containerfile'),
      `FROM docker.io/library/debian-standin:${suite}
RUN apt-get update && apt-get install -y --no-install-recommends nginx && rm -rf /var/lib/apt/lists/*
CMD ["nginx", "-g", "daemon off;"]
STOPSIGNAL SIGQUIT
`,
    );
    made.push({ dir, own: nginxOwn, tag: nginxTag });
  }
  if (!made.length) return;
  // Their Debian: the base image's root file system without Node.
  const from = dockerfileFrom();
  const debian = `docker.io/library/debian-standin:${suite}`;
  const b = path.join(tmp, 'deb');
  fs.mkdirSync(b);
  fs.writeFileSync(path.join(b, 'Containerfile'), `FROM docker.io/library/${from.image}\nUSER root\nRUN rm -rf /usr/local/bin/node /usr/local/bin/npm /usr/local/bin/npx /usr/local/lib/node_modules /usr/local/include/node\n`);
  podman(['build', '--pull=never', '--network=host', '-t', debian, b], { timeout: 600_000, quiet: true });
  for (const m of made) {
    const started = Date.now();
    podman(['build', '--pull=never', '--format', 'docker', '--network=host', '-t', m.own, m.dir], { timeout: 1200_000, quiet: true });
    tagFor(m.own, m.tag);
    log(`stand-in ${m.tag} (${m.own}) built from Debian's packages in ${secs(Date.now() - started)}`);
  }
  podman(['rmi', debian], { ok: true });
}

/** opts: the check's options (prefix, token). */
export async function composeReplicas(opts) {
  const file = path.join(root, 'docker-compose.replicas.yml');
  const compose = parse(fs.readFileSync(file, 'utf8'), { merge: true });
  const project = `${opts.prefix}-c2`;
  // Without the password compose refuses to start: so does the translation.
  try {
    serviceArgs(project, 'postgres', compose.services.postgres, {});
    fail('docker-compose.replicas.yml starts without NORMA_POSTGRES_PASSWORD');
  } catch (err) {
    if (!/NORMA_POSTGRES_PASSWORD/.test(err.message)) throw err;
  }
  await ensureStandIns(dockerfileFrom().suite);
  const vars = { NORMA_POSTGRES_PASSWORD: randomBytes(12).toString('hex'), NORMA_TOKEN: opts.token };
  const port = await freePort();
  // A network of its own with fixed addresses: compose's service names resolve through
  // /etc/hosts entries (CNI here has no DNS plugin).
  const netName = `${project}-net`;
  const octet = 100 + (process.pid % 100);
  const subnet = `10.231.${octet}.0/24`;
  podman(['network', 'create', '--subnet', subnet, netName]);
  created.networks.add(netName);
  const names = Object.keys(compose.services);
  const ip = Object.fromEntries(names.map((n, i) => [n, `10.231.${octet}.${10 + i}`]));
  const hosts = names.flatMap((n) => ['--add-host', `${n}:${ip[n]}`]);
  for (const v of Object.keys(compose.volumes ?? {})) {
    podman(['volume', 'create', `${project}_${v}`]);
    created.volumes.add(`${project}_${v}`);
  }
  // Start order: depends_on, waiting for service_healthy as compose does.
  const order = [];
  const visit = (n) => {
    if (order.includes(n)) return;
    for (const d of Object.keys(compose.services[n].depends_on ?? {})) visit(d);
    order.push(n);
  };
  names.forEach(visit);
  const started = Date.now();
  for (const n of order) {
    const svc = compose.services[n];
    for (const [d, c] of Object.entries(svc.depends_on ?? {})) {
      if (c.condition === 'service_healthy') await waitHealthy(`${project}-${d}`);
    }
    // The proxy publishes on a free port of the host's loopback; the replicas are told that name.
    const a = serviceArgs(project, n, svc, { ...vars, NORMA_PUBLIC_HOSTS: `127.0.0.1:${port}` }, { portMap: (p) => p.replace(/^127\.0\.0\.1:\d+:/, `127.0.0.1:${port}:`) });
    created.containers.add(`${project}-${n}`);
    podman(['run', '-d', '--network', netName, '--ip', ip[n], ...hosts, ...a]);
    log(`docker-compose.replicas.yml: ${n} started`);
  }
  const base = `http://127.0.0.1:${port}`;
  await waitReady(`${project}-proxy`, base, started, 120_000);
  log(`docker-compose.replicas.yml: ready through the proxy in ${secs(Date.now() - started)}`);
  const r = await readyz(opts.token, base, 'replicas via nginx');
  if (!/PostgreSQL/.test(r.checks?.find((c) => c.name === 'store')?.detail ?? '')) fail(`replicas: the store is not PostgreSQL: ${JSON.stringify(r)}`);
  await turnInSandbox(opts.token, base, 'replicas via nginx');
  // Both replicas answer behind the proxy: their node ids in /readyz.
  const seen = new Set();
  for (let i = 0; i < 10; i++) seen.add((await http(opts.token, base, 'GET', '/readyz')).body.node_id);
  log(`docker-compose.replicas.yml: /readyz through nginx answered by ${[...seen].sort().join(', ')}`);
  if (seen.size !== 2) fail(`replicas: nginx reached ${[...seen].join(', ')}, not both replicas`);
  for (const n of [...order].reverse()) podman(['stop', '-t', '30', `${project}-${n}`], { timeout: 90_000, ok: true });
  for (const n of ['norma-a', 'norma-b']) {
    const code = exitCode(`${project}-${n}`);
    if (code !== 0) fail(`replicas: ${n} exited ${code} on stop:\n${logs(`${project}-${n}`)}`);
  }
}
