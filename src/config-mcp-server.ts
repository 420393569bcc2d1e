// The settings of the MCP endpoint at /mcp (src/mcp/server/): whether it is served, what the end
// of an MCP session does to a session made for it, and how many MCP sessions this server holds in
// memory (each is taken up again from its stored record when it is needed after being let go).
export interface McpEndpointSettings {
  /** NORMA_MCP_ENDPOINT: `on` (default) or `off` (then /mcp is 404). */
  enabled: boolean;
  /** NORMA_MCP_SESSION_END: `close` (default) closes a session made at initialize when its MCP session is deleted; `keep` leaves it open. Attached sessions are never closed by it. */
  sessionEnd: 'close' | 'keep';
  /** NORMA_MCP_IDLE_S: an MCP session with no call in flight and no open stream is let go from memory after this long (default 900 s). */
  idleMs: number;
  /** NORMA_MCP_MAX_SESSIONS: MCP sessions held in memory at once (default 1000); beyond, the longest idle is let go, and with none idle a new one is a 503. */
  maxSessions: number;
}

export function readMcpEndpointSettings(
  get: (name: string) => string | undefined,
  positiveInt: (name: string, fallback: number) => number,
  problems: string[],
): McpEndpointSettings {
  const endpoint = get('NORMA_MCP_ENDPOINT') ?? 'on';
  if (endpoint !== 'on' && endpoint !== 'off') problems.push(`NORMA_MCP_ENDPOINT must be on or off, got ${JSON.stringify(endpoint)}`);
  const end = get('NORMA_MCP_SESSION_END') ?? 'close';
  if (end !== 'close' && end !== 'keep') problems.push(`NORMA_MCP_SESSION_END must be close or keep, got ${JSON.stringify(end)}`);
  return {
    enabled: endpoint !== 'off',
    sessionEnd: end === 'keep' ? 'keep' : 'close',
    idleMs: positiveInt('NORMA_MCP_IDLE_S', 900) * 1000,
    maxSessions: positiveInt('NORMA_MCP_MAX_SESSIONS', 1000),
  };
}
