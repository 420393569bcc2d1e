// What a console login may do, by its scopes (each includes the ones below it:
// admin ⊇ write ⊇ approve ⊇ read; the server lists them expanded, this does not rely on it).
import type { Scope } from './types.js';

const ORDER: readonly Scope[] = ['admin', 'write', 'approve', 'read'];

function widest(scopes: readonly Scope[]): number {
  return Math.min(...scopes.map((s) => ORDER.indexOf(s)).filter((i) => i >= 0), ORDER.length);
}

/** Answer permission requests and questions. */
export const canAnswer = (scopes: readonly Scope[]): boolean => widest(scopes) <= ORDER.indexOf('approve');
/** Post and cancel turns, change sessions. */
export const canWrite = (scopes: readonly Scope[]): boolean => widest(scopes) <= ORDER.indexOf('write');
/** See every tenant's column. */
export const isAdmin = (scopes: readonly Scope[]): boolean => widest(scopes) === 0;
