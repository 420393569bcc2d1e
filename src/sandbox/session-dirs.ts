// The directories and the socket a session's processes are given on the host (their home, /tmp,
// the egress proxy's socket), made so the user they run as can use them: for a root server, the
// sandbox user owns them and may pass through the server's directories above them (ownership.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { SandboxHost } from './process.js';

/**
 * Makes `dirs` (below `stateDir`, private) the sandbox user's; the way to them is opened from
 * `stateRoot` (the server's data directory), or from the directory that holds `stateDir`.
 */
export async function makeProcessDirs(host: SandboxHost, stateDir: string, stateRoot: string | undefined, dirs: readonly string[]): Promise<void> {
  for (const d of dirs) {
    await fs.mkdir(d, { recursive: true, mode: 0o700 });
    await host.openWay(path.dirname(d), stateRoot ?? path.dirname(stateDir));
    await host.handOver(d);
  }
}

/** Lets the sandbox user reach and connect to a listening Unix socket (bwrap mounts it by path). */
export async function exposeSocket(host: SandboxHost, socketPath: string, reachFrom: string): Promise<void> {
  await host.openWay(path.dirname(socketPath), reachFrom);
  await host.handOver(socketPath);
}
