// MCP servers: how a session (or the operator's NORMA_MCP_FILE) names them, and how the server
// reports them. A server's `env` values and `headers` are secrets of its own: stored apart from the
// session document and never echoed (the session shows their names only).
import { Type, type Static } from '@sinclair/typebox';
import { ref, StringEnum } from './common.js';
import { Timestamp } from './fields.js';

/** A server's name; its tools join as `mcp__<server>__<tool>`. */
export const MCP_SERVER_NAME_PATTERN = '^[a-zA-Z0-9_-]{1,32}$';
/** A tool name an MCP server may advertise (the providers' own limit on tool names). */
export const MCP_TOOL_NAME_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';

const Timeouts = {
  startup_timeout_s: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, maximum: 300, description: 'Start, initialize and list the tools within this long (default 30)' }),
  ),
  request_timeout_s: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, maximum: 3600, description: 'Each request (a tool call, a resource read) within this long (default 120)' }),
  ),
  trust_read_only_hint: Type.Optional(
    Type.Boolean({
      description:
        'Take the server\'s `readOnlyHint` annotation as true: such tools are read-only (allowed without asking, concurrent, allowed in plan mode). ' +
        'Default false: a hint from the server is not trusted, and every tool of it is mutating and approval-required unless rules say otherwise',
    }),
  ),
};

const stdioProperties = 
  {
    command: Type.String({
      minLength: 1,
      maxLength: 4096,
      description:
        'The program, run in the session\'s process sandbox: an absolute path, or a name found on the absolute directories of PATH (the sandbox\'s, or the one `env` gives). ' +
        'Never one in the workspaces, unless `workspace_code` is true',
    }),
    args: Type.Optional(
      Type.Array(Type.String({ maxLength: 4096 }), {
        maxItems: 256,
        description: '`${NORMA_WORKSPACE}` in an argument stands for the session\'s workspace (which the server also finds in its NORMA_WORKSPACE variable)',
      }),
    ),
    env: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' }), Type.String({ maxLength: 65_536 }), {
        description:
          'The only variables the server gets besides a minimal base (PATH, HOME, TMPDIR, LANG) and NORMA_WORKSPACE; never echoed back. ' +
          'A value naming a path in the workspaces (PYTHONPATH, NODE_PATH, NODE_OPTIONS --require, PERL5LIB, LD_PRELOAD, …) is refused unless `workspace_code` is true; ' +
          'relative PATH entries are dropped',
      }),
    ),
    read_only_paths: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
        maxItems: 32,
        description:
          'Absolute host paths the server may read besides the system directories and the workspace (its install directory). ' +
          'For a session\'s own servers each must lie under NORMA_MCP_READ_ONLY_ROOTS',
      }),
    ),
    network: Type.Optional(Type.Boolean({ description: 'HTTP(S) out through the session\'s egress proxy and guard (default: no network)' })),
    workspace: Type.Optional(
      StringEnum(['read-write', 'read-only', 'none'], {
        description:
          'How the server sees the session\'s workspace (default `read-write`; `none`: not at all). It is never the server\'s working directory: ' +
          'the server starts in a home of its own, and nothing in the workspace is a program, module or configuration it loads',
      }),
    ),
    workspace_code: Type.Optional(
      Type.Boolean({
        description:
          'Run the server in the workspace as code it trusts (default false): the workspace is its working directory, and its command, PATH and ' +
          'variables may name paths there — whatever the session writes into the workspace may then run with this server\'s environment and network',
      }),
    ),
    ...Timeouts,
};

const httpProperties = {
    url: Type.String({ minLength: 1, maxLength: 4096, description: 'A Streamable HTTP endpoint, reached through the egress guard' }),
    headers: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]{1,128}$' }), Type.String({ maxLength: 16_384 }), { description: 'Sent with every request; never echoed back' }),
    ),
    ...Timeouts,
};

export const McpStdioServerSchema = Type.Object(stdioProperties, { $id: 'McpStdioServer', additionalProperties: false });
export const McpHttpServerSchema = Type.Object(httpProperties, { $id: 'McpHttpServer', additionalProperties: false });
/** The same shapes without ids, for checking a value in one go (the operator's file). */
const McpServerConfigValue = Type.Union([
  Type.Object(stdioProperties, { additionalProperties: false }),
  Type.Object(httpProperties, { additionalProperties: false }),
]);
export type McpServerConfig = Static<typeof McpServerConfigValue>;

export const McpServerConfigSchema = Type.Union([ref(McpStdioServerSchema), ref(McpHttpServerSchema)], { $id: 'McpServerConfig' });

const SERVERS_OPTIONS = {
  maxProperties: 32,
  description:
    'MCP servers by name (`^[a-zA-Z0-9_-]{1,32}$`): `{command, args?, env?, read_only_paths?, network?, workspace?, workspace_code?}` (stdio, in the process sandbox) or `{url, headers?}` (Streamable HTTP, through the egress guard)',
};
export const McpServersSchema = Type.Record(Type.String({ pattern: MCP_SERVER_NAME_PATTERN }), ref(McpServerConfigSchema), SERVERS_OPTIONS);
/** The same without references (Value.Check of the operator's file). */
export const McpServersValue = Type.Record(Type.String({ pattern: MCP_SERVER_NAME_PATTERN }), McpServerConfigValue, SERVERS_OPTIONS);
export type McpServers = Record<string, McpServerConfig>;

/** A server as the session resource shows it: no env values, no header values. */
export const McpServerPublicSchema = Type.Object(
  {
    transport: StringEnum(['stdio', 'http']),
    source: StringEnum(['session', 'operator']),
    command: Type.Optional(Type.String()),
    args: Type.Optional(Type.Array(Type.String())),
    env_keys: Type.Optional(Type.Array(Type.String(), { description: 'Names of the variables given (values are never shown)' })),
    read_only_paths: Type.Optional(Type.Array(Type.String())),
    network: Type.Optional(Type.Boolean()),
    workspace: Type.Optional(StringEnum(['read-write', 'read-only', 'none'])),
    workspace_code: Type.Optional(Type.Boolean()),
    url: Type.Optional(Type.String()),
    header_names: Type.Optional(Type.Array(Type.String())),
    trust_read_only_hint: Type.Boolean(),
  },
  { $id: 'McpServerPublic' },
);
export type McpServerPublic = Static<typeof McpServerPublicSchema>;

export const McpServerStatusSchema = StringEnum(
  ['starting', 'running', 'restarting', 'failed', 'closed'],
  { description: '`restarting`: it exited and starts again after a pause; `failed`: it could not be (re)started and is not retried' },
);

export const McpServerStateSchema = Type.Object(
  {
    name: Type.String(),
    status: McpServerStatusSchema,
    config: ref(McpServerPublicSchema),
    server_info: Type.Union([Type.Object({ name: Type.String(), version: Type.String() }), Type.Null()]),
    protocol_version: Type.Union([Type.String(), Type.Null()]),
    tools: Type.Array(
      Type.Object({
        name: Type.String({ description: 'The full name, `mcp__<server>__<tool>`' }),
        tool: Type.String({ description: 'The name the server gave it' }),
        description: Type.String(),
        read_only: Type.Boolean({ description: 'Judged read-only (only with trust_read_only_hint and the server\'s readOnlyHint)' }),
      }),
    ),
    resources: Type.Array(Type.Object({ uri: Type.String(), name: Type.String(), mime_type: Type.Optional(Type.String()) })),
    problems: Type.Array(Type.String(), { description: 'Tools left out (bad names, schemas that do not compile) and other trouble, in words' }),
    restarts: Type.Integer({ minimum: 0, description: 'How many times it was started again after exiting' }),
    last_exit: Type.Union([Type.Object({ code: Type.Union([Type.Integer(), Type.Null()]), signal: Type.Union([Type.String(), Type.Null()]), at: Timestamp('When it exited'), reason: Type.String() }), Type.Null()]),
    stderr_tail: Type.String({ description: 'The last few KiB the server wrote to stderr (secrets redacted)' }),
    started_at: Type.Union([Timestamp('When the running process started'), Type.Null()]),
  },
  { $id: 'McpServerState' },
);
export type McpServerState = Static<typeof McpServerStateSchema>;

export const McpServerListSchema = Type.Object({ servers: Type.Array(ref(McpServerStateSchema)) }, { $id: 'McpServerList' });
