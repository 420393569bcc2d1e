// The real server as its own process (src/main.ts through tsx), for what only a real process
// shows: its environment, its descriptors, a SIGKILL. The caller owns the data directory.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContractClient } from './contract.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ServerProcess {
  child: ChildProcess;
  api: ContractClient;
  url: string;
  exited: Promise<unknown>;
  /** What the process printed so far. */
  output(): string;
  /** SIGKILL, and wait for the exit. */
  kill(): Promise<void>;
}

/** Starts the server on a free loopback port with `env` (PATH is added); resolves once it listens. */
export async function launchServer(
  env: Record<string, string>,
  token?: string,
  opts: { inheritExtraFd?: boolean; /** How long to wait for the URL (default 20 s). */ startTimeoutMs?: number } = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/main.ts')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: '0', NORMA_LOG_LEVEL: 'info', ...env },
    // An extra descriptor from the parent stands for whatever a supervisor leaves open.
    stdio: opts.inheritExtraFd ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  const deadline = Date.now() + (opts.startTimeoutMs ?? 20_000);
  for (;;) {
    const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out)?.[1];
    if (url) return { child, api: new ContractClient(url, token), url, exited, output: () => out + err, kill };
    if (child.exitCode !== null || Date.now() > deadline) {
      await kill();
      throw new Error(`server did not start: ${err || out}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}
