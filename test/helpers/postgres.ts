// Databases of their own for tests, in the run's PostgreSQL cluster (test/global-setup.ts):
// each is created empty and dropped (connections and all) when the test is done with it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export interface TestDatabase {
  url: string;
  /** Runs SQL in it (checks, and faults a test makes on purpose). */
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  drop(): Promise<void>;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: inject('pgUrl') });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `norma_t_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const u = new URL(inject('pgUrl'));
  u.pathname = `/${name}`;
  const url = u.toString();
  // Connected on first use: a database only handed to a server costs no connection here.
  let client: Promise<pg.Client> | null = null;
  const connect = (): Promise<pg.Client> => {
    if (!client) {
      const c = new pg.Client({ connectionString: url });
      client = c.connect().then(() => c);
    }
    return client;
  };
  return {
    url,
    query: async (sql, params) => (await (await connect()).query(sql, params)).rows,
    drop: async () => {
      if (client) await (await client).end().catch(() => undefined);
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
