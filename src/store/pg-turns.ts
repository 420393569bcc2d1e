// How the PostgreSQL store keeps turns: the rows of turn-docs.ts, written as upserts so a
// transaction's writes need no answer and go to the database together at commit. What is known
// to be stored (results, a prompt turn's tool_uses) is remembered per open turn, so a write costs
// what changed; after a rollback it is forgotten, and the next write stores everything again.
import { isOpenStatus, type Turn } from '../contract/schemas.js';
import type { PgStatement } from './pg-sync.js';
import { fence } from './pg-schema.js';
import { headJsonOf, keyOf, turnOf } from './turn-docs.js';

/** A turn's head is written by the session's lease holder only. */
function refused(turn: Turn): { rows: number; message: string } {
  return { rows: 1, message: `turn ${turn.id} of session ${turn.session_id} was not stored: another node holds the session's lease` };
}

type TurnRow = { id: string; head: string; tool_uses: string };
type ResultRow = { turn_id: string; data: string };

export class PgTurns {
  private readonly storedResults = new Map<string, Set<number>>();
  private readonly storedToolUses = new Map<string, number>();

  /** `nodeId`: the node writing, which must hold the session's lease. */
  constructor(private readonly nodeId: string) {}

  /** The statements that store what changed since the turn was last written. */
  write(turn: Turn): PgStatement[] {
    const key = keyOf(turn);
    const out: PgStatement[] = [];
    const head = headJsonOf(turn);
    if (this.storedToolUses.get(key) === turn.tool_uses.length) {
      out.push({
        sql: `UPDATE turns SET head = $3 WHERE session_id = $1 AND id = $2 AND ${fence('$1', '$4')}`,
        params: [turn.session_id, turn.id, head, this.nodeId],
        expect: refused(turn),
      });
    } else {
      out.push({
        sql: `INSERT INTO turns (session_id, id, ord, head, tool_uses)
              VALUES ($1, $2, (SELECT COALESCE(MAX(ord), 0) + 1 FROM turns WHERE session_id = $1), $3, $4)
              ON CONFLICT (session_id, id) DO UPDATE SET head = EXCLUDED.head, tool_uses = EXCLUDED.tool_uses
              WHERE ${fence('$1', '$5')}`,
        params: [turn.session_id, turn.id, head, JSON.stringify(turn.tool_uses), this.nodeId],
        expect: refused(turn),
      });
      this.storedToolUses.set(key, turn.tool_uses.length);
    }
    let stored = this.storedResults.get(key);
    if (!stored) this.storedResults.set(key, (stored = new Set()));
    if (turn.results.length > stored.size) {
      const index = new Map(turn.tool_uses.map((tu, i) => [tu.id, i]));
      for (const r of turn.results) {
        const idx = index.get(r.tool_use_id);
        if (idx === undefined || stored.has(idx)) continue;
        out.push({
          sql: `INSERT INTO turn_results (session_id, turn_id, idx, data) VALUES ($1, $2, $3, $4)
                ON CONFLICT (session_id, turn_id, idx) DO UPDATE SET data = EXCLUDED.data`,
          params: [turn.session_id, turn.id, idx, JSON.stringify(r)],
        });
        stored.add(idx);
      }
    }
    if (!isOpenStatus(turn.status)) {
      this.storedResults.delete(key);
      this.storedToolUses.delete(key);
    }
    return out;
  }

  /** A transaction rolled back: what is stored must be written again. */
  rolledBack(): void {
    this.storedResults.clear();
    this.storedToolUses.clear();
  }

  /** Another node may have written the session's turns: nothing of them is known any more. */
  forget(sessionId: string): void {
    const prefix = `${sessionId}\u0000`;
    for (const map of [this.storedResults, this.storedToolUses]) {
      for (const key of map.keys()) if (key.startsWith(prefix)) map.delete(key);
    }
  }

  static get(read: (sql: string, params: unknown[]) => Record<string, unknown>[], sessionId: string, turnId: string): Turn | undefined {
    const row = read('SELECT id, head, tool_uses FROM turns WHERE session_id = $1 AND id = $2', [sessionId, turnId])[0] as TurnRow | undefined;
    if (!row) return undefined;
    const results = read('SELECT turn_id, data FROM turn_results WHERE session_id = $1 AND turn_id = $2 ORDER BY idx', [sessionId, turnId]) as ResultRow[];
    return turnOf(row.head, row.tool_uses, results);
  }

  /** The same as get, read without waiting. */
  static async getLater(read: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>, sessionId: string, turnId: string): Promise<Turn | undefined> {
    const [rows, results] = await Promise.all([
      read('SELECT id, head, tool_uses FROM turns WHERE session_id = $1 AND id = $2', [sessionId, turnId]),
      read('SELECT turn_id, data FROM turn_results WHERE session_id = $1 AND turn_id = $2 ORDER BY idx', [sessionId, turnId]),
    ]);
    const row = rows[0] as TurnRow | undefined;
    return row ? turnOf(row.head, row.tool_uses, results as ResultRow[]) : undefined;
  }

  static list(read: (sql: string, params: unknown[]) => Record<string, unknown>[], sessionId: string): Turn[] {
    const rows = read('SELECT id, head, tool_uses FROM turns WHERE session_id = $1 ORDER BY ord', [sessionId]) as TurnRow[];
    if (rows.length === 0) return [];
    const byTurn = new Map<string, ResultRow[]>();
    for (const r of read('SELECT turn_id, data FROM turn_results WHERE session_id = $1 ORDER BY turn_id, idx', [sessionId]) as ResultRow[]) {
      let list = byTurn.get(r.turn_id);
      if (!list) byTurn.set(r.turn_id, (list = []));
      list.push(r);
    }
    return rows.map((row) => turnOf(row.head, row.tool_uses, byTurn.get(row.id) ?? []));
  }
}
