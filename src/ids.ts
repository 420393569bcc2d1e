// Server-made ids only (SPEC §9.8): a fixed prefix plus 128 random bits, base64url.
// They match the path-param pattern ^[A-Za-z0-9_-]{1,64}$ and are never taken from a client.
import { randomFillSync } from 'node:crypto';

export type IdPrefix = 'ses' | 'turn' | 'perm' | 'q' | 'ct' | 'toolu' | 'out' | 'req' | 'task' | 'shell' | 'ckpt' | 'cmp';

export type IdFactory = (prefix: IdPrefix) => string;

const ID_BYTES = 16;
// Random bytes are drawn from the CSPRNG in blocks: one syscall serves 256 ids.
const pool = Buffer.alloc(ID_BYTES * 256);
let offset = pool.length;

export const newId: IdFactory = (prefix) => {
  if (offset + ID_BYTES > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return `${prefix}_${id}`;
};

export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
