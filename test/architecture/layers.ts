// The layers of src/ and routes/, lowest first (ARCHITECTURE.md "The way data flows"). A file may
// import files of its own layer or of lower ones, never of a higher one; type imports count too.
// The first matching prefix names a file's layer.
export const LAYERS: readonly (readonly string[])[] = [
  // 0: shapes and primitives everything may use (the trace context among them, loading a library on first use;
  // the evidence chain, signatures and sealing: node:crypto only)
  ['src/contract/', 'src/trace/', 'src/errors.ts', 'src/ids.ts', 'src/digest.ts', 'src/json-depth.ts', 'src/redact.ts', 'src/config.ts', 'src/config-store.ts', 'src/config-sandbox.ts', 'src/config-admission.ts', 'src/config-mcp-server.ts', 'src/lazy.ts', 'src/evidence/'],
  // 1: the places that persist, the event log, the process sandbox, the outbound guard, globs,
  // the MCP client (its transports run in the sandbox and through the guard), and telemetry
  // (metrics and log lines derived from the event log, the store's timer), and the replicas'
  // coordination through the database (liveness, leases, commands, notifications), and the
  // worker thread where work on schemas and patterns from outside runs with a deadline
  ['src/store/', 'src/events/', 'src/sandbox/', 'src/glob/', 'src/egress/', 'src/mcp/', 'src/telemetry/', 'src/cluster/', 'src/bounded/'],
  // 2: what tools analyse with (shell analysis, rule subjects), the pause broker, and the
  // workspace's recorded states (checkpoints: object packs, confined walks, diffs, restores)
  ['src/permission/shell/', 'src/permission/shell.ts', 'src/permission/subject.ts', 'src/interaction/', 'src/checkpoints/'],
  // 3: the tool contract
  ['src/tools/tool.ts', 'src/tools/registry.ts', 'src/tools/capability.ts', 'src/tools/name-pattern.ts'],
  // 4: tool implementations and the state their groups keep (capabilities), the web's parts
  ['src/capabilities/', 'src/web/'],
  // 5: which tools exist; the permission engine and hooks (they see tools only through the
  // contract); tenants, their keys and policies (policies hold rules and hooks)
  ['src/tools/catalog.ts', 'src/permission/', 'src/hooks/', 'src/tenants/'],
  // 6: the model providers
  ['src/model/'],
  // 7: the pipeline
  ['src/pipeline/'],
  // 8: sessions (runtime, build, settings, turns)
  ['src/session/'],
  // 9: use cases
  ['src/app/'],
  // 10: the HTTP edge and composition (the MCP server at /mcp is an edge like routes/)
  ['src/http/', 'routes/', 'src/mcp/server/', 'src/app-context.ts', 'src/server.ts', 'src/main.ts', 'src/openapi.ts'],
];

/** Edges named as forbidden on their own, whatever the layers say. */
export const FORBIDDEN: readonly { from: string; to: string; why: string }[] = [
  { from: 'src/store/', to: 'src/model/', why: 'the store keeps transcripts as data, it does not know the model\'s types' },
  { from: 'src/permission/', to: 'src/capabilities/', why: 'permission sees tools only through the CoreTool contract' },
  { from: 'src/capabilities/', to: 'src/session/', why: 'tools never reach the session' },
  { from: 'src/capabilities/', to: 'src/store/', why: 'tools never reach the store' },
  { from: 'src/capabilities/', to: 'src/events/', why: 'tools never emit events' },
];

export function layerOf(file: string): number {
  let best = -1;
  let bestLen = -1;
  for (const [i, prefixes] of LAYERS.entries()) {
    for (const p of prefixes) if (file.startsWith(p) && p.length > bestLen) [best, bestLen] = [i, p.length];
  }
  return best;
}
