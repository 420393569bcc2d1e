// The Dockerfile and docker-compose.yml, read as files (no Docker engine is needed): a maintained
// Node base, a non-root user, a health check on /readyz, every COPY source present, the Debian
// packages the README names; in compose, the sandbox's security options, a read-only root, the
// port on the host's loopback only; in the replicas' compose file, PostgreSQL, two replicas with
// their own node ids on one shared volume, and nginx in front (deploy/nginx.conf is run for real
// by test/e2e/proxy.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SERVER_NODE_FLAGS } from '../bench/lib.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

/** The Node major the image is based on: a maintained LTS line (the Dockerfile says why this one; scripts/container-check.mjs builds and runs it). */
const NODE_MAJOR = 22;

interface Instruction {
  keyword: string;
  args: string;
  /** Index of the stage (FROM) it belongs to. */
  stage: number;
}

/** Dockerfile instructions: comments dropped, `\` continuations joined. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = -1;
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (pending !== '' && line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    const [, keyword, args] = /^(\S+)\s*([\s\S]*)$/.exec(full)!;
    if (keyword!.toUpperCase() === 'FROM') stage++;
    out.push({ keyword: keyword!.toUpperCase(), args: args!.trim(), stage });
  }
  return out;
}

/** Packages named by `apt-get install` in some instructions. */
function aptPackages(list: Instruction[]): string[] {
  return list.flatMap((i) =>
    [...i.args.matchAll(/apt-get install ([^&;]+)/g)].flatMap((m) => m[1]!.split(/\s+/).filter((w) => w && !w.startsWith('-'))),
  );
}

/** A shell or exec-form (JSON array) command as one string. */
function commandText(args: string): string {
  return args.startsWith('[') ? (JSON.parse(args) as string[]).join(' ') : args;
}

describe('Dockerfile', () => {
  const all = instructions(read('Dockerfile'));
  const stages = all.filter((i) => i.keyword === 'FROM');
  const last = stages.length - 1;

  it(`builds on Node ${NODE_MAJOR} LTS, Debian slim, in a build stage and a run stage`, () => {
    expect(stages.length).toBe(2);
    for (const from of stages) expect(from.args).toMatch(new RegExp(`^node:${NODE_MAJOR}(\\.\\d+)*-(trixie|bookworm)-slim( AS \\w+)?$`, 'i'));
    // The same Debian release in both: what node-gyp compiled against is what runs.
    expect(new Set(stages.map((s) => /-(\w+)-slim/.exec(s.args)![1])).size).toBe(1);
  });

  it('compiles node-pty in the build stage, and ships the sandbox\'s packages and tini, not the compilers', () => {
    const build = aptPackages(all.filter((i) => i.stage === 0));
    const run = aptPackages(all.filter((i) => i.stage === last));
    expect(build).toEqual(expect.arrayContaining(['python3', 'make', 'g++']));
    // The README quick start's run-time packages.
    expect(run).toEqual(expect.arrayContaining(['bubblewrap', 'ripgrep', 'socat', 'tini']));
    for (const compiler of ['python3', 'make', 'g++']) expect(run).not.toContain(compiler);
    const readme = read('README.md');
    for (const p of ['bubblewrap', 'ripgrep', 'socat']) expect(readme).toMatch(new RegExp(`apt-get install -y [^\\n]*\\b${p}\\b`));
  });

  it('runs as a user that is not root, under tini, the built server directly', () => {
    const users = all.filter((i) => i.stage === last && i.keyword === 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)!.args).not.toMatch(/^(root|0)(:|$)/);
    expect(all.find((i) => i.stage === last && i.keyword === 'ENTRYPOINT')!.args).toBe('["/usr/bin/tini", "--"]');
    const cmd = all.filter((i) => i.stage === last && i.keyword === 'CMD').at(-1)!;
    // With the same V8 flags `npm start` uses (a young generation of 2 MB semi-spaces, see docs/DESIGN.md).
    expect(commandText(cmd.args)).toBe(`node ${SERVER_NODE_FLAGS.join(' ')} dist/src/main.js`);
    expect(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start).toBe(`node ${SERVER_NODE_FLAGS.join(' ')} scripts/start.mjs`);
    // The entry point the build makes.
    expect(fs.existsSync(path.join(root, 'src', 'main.ts'))).toBe(true);
  });

  it('checks its health on /readyz with node (the image has no curl)', () => {
    const hc = all.filter((i) => i.stage === last && i.keyword === 'HEALTHCHECK');
    expect(hc.length).toBe(1);
    const cmd = /CMD\s+([\s\S]*)$/.exec(hc[0]!.args)![1]!;
    expect(commandText(cmd)).toMatch(/^node -e .*\/readyz/);
    expect(cmd).not.toMatch(/\bcurl\b|\bwget\b/);
  });

  it('copies only what exists and what the build context sends', () => {
    const ignored = read('.dockerignore').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    const copies = all.filter((i) => i.keyword === 'COPY' && !/--from=/.test(i.args));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const words = copy.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      for (const source of words.slice(0, -1)) {
        expect(fs.existsSync(path.join(root, source)), `COPY ${source}`).toBe(true);
        const top = source.split('/')[0]!;
        expect(ignored.includes(top), `COPY ${source} is in .dockerignore`).toBe(false);
      }
    }
  });

  it('has what `npm run build` runs before it runs it', () => {
    const build = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.build!;
    const script = /^node (\S+)/.exec(build)?.[1];
    expect(script).toBeDefined();
    const buildStage = all.filter((i) => i.stage === 0);
    const runsBuild = buildStage.findIndex((i) => i.keyword === 'RUN' && i.args.includes('npm run build'));
    expect(runsBuild).toBeGreaterThan(-1);
    const copied = buildStage.slice(0, runsBuild).filter((i) => i.keyword === 'COPY').flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    expect(copied.some((src) => script === src || script!.startsWith(`${src.replace(/\/$/, '')}/`)), `${script} is copied before npm run build`).toBe(true);
    // And what the build compiles.
    for (const input of ['tsconfig.json', 'tsconfig.build.json', 'src', 'routes', 'console', 'scripts/build-console.mjs']) expect(copied).toContain(input);
  });
});

interface Service {
  image?: string;
  build?: unknown;
  profiles?: string[];
  ports?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  healthcheck?: { test: string[] | string };
  security_opt?: string[];
  read_only?: boolean;
  tmpfs?: string[];
  depends_on?: unknown;
}

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml')) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
  const norma = compose.services.norma!;
  const testOf = (s: Service) => (Array.isArray(s.healthcheck!.test) ? s.healthcheck!.test.join(' ') : s.healthcheck!.test);

  it('norma: health on /readyz with node, like the image', () => {
    expect(norma.healthcheck).toBeDefined();
    const test = norma.healthcheck!.test;
    expect(Array.isArray(test) && test[0]).toBe('CMD');
    expect(testOf(norma)).toMatch(/^CMD node -e .*http:\/\/127\.0\.0\.1:7070\/readyz/);
  });

  it('norma: the security options bubblewrap needs, a read-only root with a /tmp tmpfs', () => {
    expect(norma.security_opt).toEqual(expect.arrayContaining(['seccomp=unconfined', 'apparmor=unconfined', 'systempaths=unconfined']));
    expect(norma.read_only).toBe(true);
    expect(norma.tmpfs).toContain('/tmp');
  });

  it('norma: the port is bound to the host\'s loopback only', () => {
    expect(norma.ports!.length).toBeGreaterThan(0);
    for (const p of norma.ports!) expect(p).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
  });

  it('norma: data on a named volume, SQLite, one service', () => {
    expect(norma.volumes).toContain('norma-data:/data');
    expect(compose.volumes).toHaveProperty('norma-data');
    expect(Object.keys(compose.services)).toEqual(['norma']);
    expect(norma.environment?.NORMA_STORE).toBeUndefined();
  });
});

describe('docker-compose.replicas.yml', () => {
  const compose = parse(read('docker-compose.replicas.yml'), { merge: true }) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
  const { postgres, proxy } = compose.services as Record<string, Service>;
  const replicas = ['norma-a', 'norma-b'].map((name) => compose.services[name]!);

  it('has PostgreSQL, two replicas and a proxy, and nothing else', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['norma-a', 'norma-b', 'postgres', 'proxy']);
  });

  it('postgres: postgres:17, pg_isready, a named volume, a password that must be given, not published', () => {
    expect(postgres!.image).toBe('postgres:17');
    expect(JSON.stringify(postgres!.healthcheck!.test)).toMatch(/pg_isready/);
    expect(postgres!.volumes).toContain('norma-postgres:/var/lib/postgresql/data');
    expect(postgres!.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{NORMA_POSTGRES_PASSWORD:\?[^}]+\}$/);
    expect(postgres!.ports).toBeUndefined();
  });

  it('replicas: PostgreSQL through the password variable, their own node ids, one shared data volume, health on /readyz, the sandbox\'s options', () => {
    const ids = replicas.map((r) => r.environment!.NORMA_NODE_ID);
    expect(new Set(ids).size).toBe(2);
    for (const r of replicas) {
      const env = r.environment!;
      expect(env.NORMA_STORE).toBe('postgres');
      expect(env.NORMA_DATABASE_URL).toBe('postgres://norma:${NORMA_POSTGRES_PASSWORD:?set NORMA_POSTGRES_PASSWORD}@postgres:5432/norma');
      expect(r.volumes).toEqual(['norma-shared:/data']);
      expect(JSON.stringify(r.depends_on)).toContain('service_healthy');
      expect(JSON.stringify(r.healthcheck!.test)).toContain('/readyz');
      expect(r.security_opt).toEqual(expect.arrayContaining(['seccomp=unconfined', 'apparmor=unconfined', 'systempaths=unconfined']));
      expect(r.read_only).toBe(true);
      // Reached through the proxy only.
      expect(r.ports).toBeUndefined();
    }
    expect(compose.volumes).toHaveProperty('norma-shared');
  });

  it('proxy: nginx with the committed configuration, on the host\'s loopback only, after both replicas are healthy', () => {
    expect(proxy!.image).toMatch(/^nginx:/);
    expect(proxy!.volumes).toContain('./deploy/nginx.conf:/etc/nginx/nginx.conf:ro');
    for (const p of proxy!.ports!) expect(p).toMatch(/^127\.0\.0\.1:\d+:8080$/);
    expect(JSON.stringify(proxy!.depends_on)).toContain('norma-a');
    expect(JSON.stringify(proxy!.depends_on)).toContain('norma-b');
    const conf = read('deploy/nginx.conf');
    expect(conf).toMatch(/server norma-a:7070/);
    expect(conf).toMatch(/server norma-b:7070/);
    expect(conf).toMatch(/proxy_buffering off;/);
    expect(conf).toMatch(/listen 8080;/);
  });
});
