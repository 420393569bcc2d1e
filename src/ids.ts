// Server-made ids only (SPEC §9.8): a fixed prefix plus 128 random bits, base64url.
// They match the path-param pattern ^[A-Za-z0-9_-]{1,64}$ and are never taken from a client.
import { randomBytes } from 'node:crypto';

export type IdPrefix = 'ses' | 'turn' | 'perm' | 'toolu' | 'out' | 'req';

export type IdFactory = (prefix: IdPrefix) => string;

export const newId: IdFactory = (prefix) => `${prefix}_${randomBytes(16).toString('base64url')}`;

export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
