// What a session's processes use, measured from outside the sandbox: the bytes of its directories
// (du) and the processes of a command's cgroup leaf.
import fs from 'node:fs/promises';
import { loadExeca } from './execa.js';
import type { CommandGroup } from './limits.js';

/** Bytes in words: whole GiB as GiB, else MiB. */
export function mib(n: number): string {
  return n >= 1024 ** 3 && n % 1024 ** 3 === 0 ? `${n / 1024 ** 3} GiB` : `${Math.round(n / 1024 ** 2)} MiB`;
}

/** du's total over `targets`, in bytes; null when du printed nothing. */
export async function diskBytes(targets: readonly string[]): Promise<number | null> {
  const { execa } = await loadExeca();
  const r = await execa('du', ['-s', '-B1', '--', ...targets], { env: { LC_ALL: 'C' }, extendEnv: false, reject: false, timeout: 120_000 });
  if (r.stdout === '') return null;
  return String(r.stdout)
    .split('\n')
    .map((l) => Number(l.split('\t')[0]))
    .filter((n) => Number.isFinite(n))
    .reduce((a, b) => a + b, 0);
}

/** The processes in a command's cgroup leaf (the most any of its hierarchies shows). */
export async function countProcesses(group: CommandGroup): Promise<number> {
  let n = 0;
  for (const f of group.procs) {
    try {
      n = Math.max(n, (await fs.readFile(f, 'utf8')).split('\n').filter(Boolean).length);
    } catch {
      // gone
    }
  }
  return n;
}
