// Once for the whole run: a throwaway PostgreSQL cluster for the tests that need one (or the one
// NORMA_TEST_DATABASE_URL names, as .ci/run starts it), and at the end what test processes could
// not remove themselves (a worker ended without its exit handlers, a server process killed with
// SIGKILL).
import type { TestProject } from 'vitest/node';
import { sweepStaleCgroups } from '../src/sandbox/limits.js';
// @ts-expect-error -- a plain script of the repository, without type declarations
import { startCluster, stopCluster } from '../scripts/pg-cluster.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A superuser URL of the run's PostgreSQL cluster: tests make databases of their own in it. */
    pgUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let cluster: { url: string; dir: string } | null = null;
  const given = process.env.NORMA_TEST_DATABASE_URL;
  if (given) project.provide('pgUrl', given);
  else {
    cluster = (await startCluster()) as { url: string; dir: string };
    project.provide('pgUrl', cluster.url);
  }
  return async () => {
    if (cluster) stopCluster(cluster.dir);
    // Workers are gone by now: every cgroup of theirs belongs to a dead pid.
    await sweepStaleCgroups();
  };
}
