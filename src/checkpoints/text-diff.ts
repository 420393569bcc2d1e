// A permission request's diff preview of one text file: the unified diff (a new file: all its
// lines added), the lines added and removed, the digests and sizes before and after.
import { createHash } from 'node:crypto';
import type { DiffPreview } from '../contract/preview.js';
import { counts, diffLines, hunks, linesOf } from './line-diff.js';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** `before`: the file's text now (null: it does not exist); `beforeBytes`: its bytes, for the digest. */
export function textDiffPreview(shown: string, before: string | null, beforeBytes: Buffer | null, after: string): DiffPreview {
  const operation = before === null ? 'create' : 'update';
  const head = {
    kind: 'diff' as const,
    path: shown,
    operation,
    before_sha256: beforeBytes === null ? (before === null ? null : sha256(before)) : sha256(beforeBytes),
    ...(before === null ? {} : { before_bytes: beforeBytes?.length ?? Buffer.byteLength(before) }),
    after_sha256: sha256(after),
    after_bytes: Buffer.byteLength(after),
  } satisfies Partial<DiffPreview>;
  if (after.includes('\0')) return { ...head, binary: true };
  const ops = diffLines(linesOf(before ?? ''), linesOf(after));
  const body = hunks(ops);
  const diff = body === '' ? '' : `--- ${before === null ? '/dev/null' : `a/${shown}`}\n+++ b/${shown}\n${body}`;
  return { ...head, diff, ...counts(ops) };
}
