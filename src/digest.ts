// Canonical JSON (object keys sorted) and its SHA-256: identifies an exact input, whatever the
// key order it was written in. Approvals, decisions and hook rewrites are recorded by it.
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value as object).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

export function inputDigest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
