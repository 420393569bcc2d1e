// How long a server process's event loop was held, seen from outside: /healthz is asked every
// 5 ms while an attack runs, and the slowest answer is the longest stall. A probe unanswered for
// `giveUpMs` fails the attack at once (the loop is stalled; waiting longer proves nothing more).
import { expect } from 'vitest';
import type { ServerProcess } from './server-process.js';

export async function measured<T>(r: ServerProcess, attack: () => Promise<T>, giveUpMs = 60_000): Promise<{ value: T; ms: number; stallMs: number }> {
  let stop = false;
  let worst = 0;
  let gaveUp: (err: Error) => void = () => undefined;
  const stalled = new Promise<never>((_, reject) => (gaveUp = reject));
  stalled.catch(() => undefined);
  const probe = (async () => {
    while (!stop) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${r.url}/healthz`, { signal: AbortSignal.timeout(giveUpMs) });
        await res.arrayBuffer();
      } catch {
        worst = Math.max(worst, performance.now() - t0);
        gaveUp(new Error(`the server did not answer /healthz for ${giveUpMs} ms: its event loop is stalled`));
        return;
      }
      worst = Math.max(worst, performance.now() - t0);
      await new Promise((done) => setTimeout(done, 5));
    }
  })();
  const t0 = performance.now();
  try {
    const value = await Promise.race([attack(), stalled]);
    return { value, ms: performance.now() - t0, stallMs: worst };
  } finally {
    stop = true;
    await probe;
  }
}

/** The process is up and answers. */
export async function alive(r: ServerProcess): Promise<void> {
  expect(r.child.exitCode).toBeNull();
  expect((await fetch(`${r.url}/healthz`)).status).toBe(200);
}
