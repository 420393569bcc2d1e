// Libraries only some requests need (HTML parsing for web search, diffs for edits), loaded
// synchronously the first time they are used rather than at start-up: a server that never uses
// them does not hold them.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** `name`'s module, required once on the first call. */
export function lazy<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
