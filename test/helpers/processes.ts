// Finding processes on the host by their command line (to prove none outlive a kill).
import fs from 'node:fs/promises';

/** Pids whose /proc cmdline starts with `prefix` (argv words are NUL-separated there). */
export async function processesStartingWith(prefix: string): Promise<number[]> {
  const found: number[] = [];
  for (const pid of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmd = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmd.startsWith(prefix)) found.push(Number(pid));
  }
  return found;
}

/** How many `sleep <marker>` processes run (the marker makes them unique to one test). */
export async function sleepers(marker: string): Promise<number> {
  return (await processesStartingWith(`sleep\u0000${marker}`)).length;
}

/** Polls until `count()` satisfies `done`, at most `tries` × 20 ms. */
export async function waitUntil(count: () => Promise<number>, done: (n: number) => boolean, tries = 100): Promise<number> {
  let n = await count();
  for (let i = 0; i < tries && !done(n); i++) {
    await new Promise((r) => setTimeout(r, 20));
    n = await count();
  }
  return n;
}
