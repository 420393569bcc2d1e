// How the SQLite store keeps turns. A turn is written on every result and status change. Its
// tool_uses never change and its results only grow, so they are stored once each: writing a
// turn costs what changed, not the size of everything it has produced so far. A turn is kept
// as a head row (the turn without tool_uses and results), its tool_uses, and one row per result.
import type Database from 'better-sqlite3';
import { isOpenStatus, type Turn } from '../contract/schemas.js';
import type { Row } from './sqlite-rows.js';
import { headJsonOf, keyOf, turnOf } from './turn-docs.js';

type TurnRow = { id: string; head: string; tool_uses: string };

export class SqliteTurns {
  /** For turns being written: which results (by tool_use index) are stored already. */
  private readonly storedResults = new Map<string, Set<number>>();
  /** For prompt turns being written: how many tool_uses are stored (they grow with each model call). */
  private readonly storedToolUses = new Map<string, number>();

  /** `stmt` prepares (and caches) a statement of the store's database. */
  constructor(private readonly stmt: (sql: string) => Database.Statement) {}

  /** Writes what changed since the turn was last written; the caller runs it inside a transaction. */
  write(turn: Turn): void {
    const { results, tool_uses } = turn;
    const key = keyOf(turn);
    const headJson = headJsonOf(turn);
    const updated =
      turn.kind === 'prompt' && this.storedToolUses.get(key) !== tool_uses.length
        ? this.stmt('UPDATE turns SET head = ?, tool_uses = ? WHERE session_id = ? AND id = ?').run(headJson, JSON.stringify(tool_uses), turn.session_id, turn.id)
        : this.stmt('UPDATE turns SET head = ? WHERE session_id = ? AND id = ?').run(headJson, turn.session_id, turn.id);
    this.storedToolUses.set(key, tool_uses.length);
    if (updated.changes === 0) {
      const ord = (this.stmt('SELECT COALESCE(MAX(ord), 0) + 1 AS n FROM turns WHERE session_id = ?').get(turn.session_id) as { n: number }).n;
      this.stmt('INSERT INTO turns (session_id, id, ord, head, tool_uses) VALUES (?, ?, ?, ?, ?)').run(
        turn.session_id,
        turn.id,
        ord,
        headJson,
        JSON.stringify(tool_uses),
      );
    }
    let stored = this.storedResults.get(key);
    if (!stored) {
      const rows = this.stmt('SELECT idx FROM turn_results WHERE session_id = ? AND turn_id = ?').all(turn.session_id, turn.id) as { idx: number }[];
      stored = new Set(rows.map((r) => r.idx));
      this.storedResults.set(key, stored);
    }
    if (results.length > stored.size) {
      const index = new Map(tool_uses.map((tu, i) => [tu.id, i]));
      for (const r of results) {
        const idx = index.get(r.tool_use_id);
        if (idx === undefined || stored.has(idx)) continue;
        this.stmt('INSERT OR REPLACE INTO turn_results (session_id, turn_id, idx, data) VALUES (?, ?, ?, ?)').run(turn.session_id, turn.id, idx, JSON.stringify(r));
        stored.add(idx);
      }
    }
  }

  /** After a write: a turn that can no longer change needs no record of what is stored. */
  written(turn: Turn): void {
    if (!isOpenStatus(turn.status)) {
      const key = keyOf(turn);
      this.storedResults.delete(key);
      this.storedToolUses.delete(key);
    }
  }

  /** A transaction rolled back: which results and how many tool uses are stored must be learnt again. */
  rolledBack(): void {
    this.storedResults.clear();
    this.storedToolUses.clear();
  }

  get(sessionId: string, turnId: string): Turn | undefined {
    const row = this.stmt('SELECT id, head, tool_uses FROM turns WHERE session_id = ? AND id = ?').get(sessionId, turnId) as TurnRow | undefined;
    return row ? this.toTurn(sessionId, row) : undefined;
  }

  list(sessionId: string): Turn[] {
    const rows = this.stmt('SELECT id, head, tool_uses FROM turns WHERE session_id = ? ORDER BY ord').all(sessionId) as TurnRow[];
    return rows.map((row) => this.toTurn(sessionId, row));
  }

  private toTurn(sessionId: string, row: TurnRow): Turn {
    const results = this.stmt('SELECT data FROM turn_results WHERE session_id = ? AND turn_id = ? ORDER BY idx').all(sessionId, row.id) as Row[];
    return turnOf(row.head, row.tool_uses, results);
  }
}

