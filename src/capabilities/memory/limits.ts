// The size and count limits of a memory store, and how sizes and limits are spelled in listings
// and refusals.
import { MAX_MEMORY_DEPTH } from './memory-path.js';

/** Largest text of one memory file, in UTF-8 bytes. */
export const MAX_MEMORY_FILE_BYTES = 256 * 1024;
/** Largest total size of the regular files of one store, in bytes. */
export const MAX_MEMORY_STORE_BYTES = 8 * 1024 * 1024;
/** Most regular files one store holds. */
export const MAX_MEMORY_FILES = 1000;
/** Most entries one walk of the store visits: a store filled from outside cannot make a walk unbounded. */
export const MAX_MEMORY_WALK_ENTRIES = 50_000;

export interface MemoryLimits {
  fileBytes: number;
  storeBytes: number;
  files: number;
  depth: number;
}

export const MEMORY_LIMITS: Readonly<MemoryLimits> = {
  fileBytes: MAX_MEMORY_FILE_BYTES,
  storeBytes: MAX_MEMORY_STORE_BYTES,
  files: MAX_MEMORY_FILES,
  depth: MAX_MEMORY_DEPTH,
};

/** Sizes as `du -h` shows them: `512B`, `1.5K`, `2.0M`. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}K`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}M`;
}

/** A limit as the refusal names it: `256 KiB (262144 bytes)`. */
export function limitText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB (${bytes} bytes)`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB (${bytes} bytes)`;
  return `${bytes} bytes`;
}
