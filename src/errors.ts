// Domain errors: what a service call refuses, by kind. The HTTP edge maps kinds to status
// codes and problem+json; nothing below routes/ knows about HTTP.
export type DomainErrorKind =
  | 'invalid'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'range_not_satisfiable'
  | 'not_implemented'
  | 'unavailable'
  /** The caller may not do this (its key's scopes, or its tenant's policy). */
  | 'forbidden'
  /** A limit of the caller's tenant is reached (sessions, running turns, outstanding tickets). */
  | 'limit';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** Each problem, for `invalid` errors that found several; each starts with the field it is about (`tools[2]: …`). */
    readonly problems: string[] = [],
    /** Where the offending values are: the request body unless said otherwise. */
    readonly location: 'body' | 'query' | 'params' | 'headers' = 'body',
  ) {
    super(message);
    this.name = 'DomainError';
  }

  /** Seconds the caller should wait before trying again (sent as Retry-After), when known. */
  retryAfterS?: number;

  /** A rewind's conflicts (the problem's `conflicts` member). */
  conflicts?: { path: string; reason: string }[];
}

export const notFound = (what: string, id: string) => new DomainError('not_found', `${what} ${id} does not exist`);
