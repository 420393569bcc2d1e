// Who is calling: every use case takes the caller's scope first. One principal today (the
// server's key, or loopback without one); tenants and key scopes narrow what a scope sees.
export interface Scope {
  /**
   * How the caller was admitted. `key`: it presented the configured NORMA_TOKEN; `loopback`: no
   * token is configured, which the config allows only on a loopback bind; `internal`: the server.
   */
  principal: 'key' | 'loopback' | 'internal';
}

/** The server acting for itself (recovery, retention, shutdown). */
export const INTERNAL: Scope = { principal: 'internal' };
