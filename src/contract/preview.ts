// What a permission request would do, for a person to judge before allowing it (API.md "An inbox
// for people"): computed when the request is made and stored with it.
import { Type, type Static } from '@sinclair/typebox';
import { OneOf, ref, StringEnum } from './common.js';

const common = {
  stale: Type.Optional(
    Type.Boolean({
      description: 'The target changed between the request and its answer: what the call does now was evaluated again when it went on, and may differ from this preview',
    }),
  ),
};

export const DiffPreviewSchema = Type.Object(
  {
    kind: Type.Literal('diff'),
    path: Type.String({ description: 'The file, as the workspace shows it' }),
    operation: StringEnum(['create', 'update', 'delete'], { description: '`create`: the file does not exist yet; `delete`: it would be removed (Memory)' }),
    diff: Type.Optional(Type.String({ description: 'The unified diff against the file as it is (a new file: all its lines added); at most 20,000 characters' })),
    truncated: Type.Optional(Type.Boolean({ description: 'The diff is longer than shown' })),
    output_id: Type.Optional(Type.String({ description: 'With `truncated`: the whole diff, at GET /v1/sessions/{session_id}/outputs/{output_id}' })),
    output_sha256: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$', description: 'With `output_id`: SHA-256 (hex) of the whole diff, so the chained permission.requested event pins the output' })),
    additions: Type.Optional(Type.Integer({ minimum: 0 })),
    deletions: Type.Optional(Type.Integer({ minimum: 0 })),
    before_sha256: Type.Union([Type.String(), Type.Null()], { description: 'SHA-256 of the file as it was when asked (null: it did not exist, or was not read)' }),
    before_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
    after_sha256: Type.Optional(Type.String({ description: 'SHA-256 of the content the call would write' })),
    after_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
    binary: Type.Optional(Type.Boolean({ description: 'Not text (a NUL byte, or not UTF-8): sizes and digests only' })),
    not_shown: Type.Optional(
      Type.String({ description: 'Why there is no diff: a rule hides the file from the session, it is too large, it is not a regular file, the edit would fail (the call will say so too)' }),
    ),
    ...common,
  },
  { $id: 'DiffPreview', description: 'Write, Edit, MultiEdit, Memory: the change to one file' },
);

export const CommandPartSchema = Type.Object(
  {
    command: Type.String({ description: 'One simple command of the line, as the analyser decoded it' }),
    read_only: Type.Boolean(),
    nested: Type.Boolean({ description: 'Found inside a substitution, `bash -c`, `eval`, `xargs`, `find -exec`, …' }),
    verdict: StringEnum(['allow', 'ask', 'deny'], { description: 'What the rules say of this part alone' }),
    decided_by: StringEnum(['rule', 'read_only', 'none'], { description: '`rule`: the rule in `rule`; `read_only`: it only reads; `none`: no rule allows it and it is not read-only' }),
    rule: Type.Optional(Type.String()),
    asks: Type.Boolean({ description: 'This part is why the call asks (or is denied)' }),
    dangers: Type.Array(Type.String(), { description: 'Words that make it write files or run code beyond what its name says' }),
  },
  { $id: 'CommandPart' },
);

export const CommandPreviewSchema = Type.Object(
  {
    kind: Type.Literal('command'),
    command: Type.String({ description: 'The command line (at most 20,000 characters shown)' }),
    analysed: Type.Boolean({ description: 'False: the line could not be analysed (the reason says why); the whole line asks' }),
    reason: Type.String({ description: 'Why the call asks, as the permission stages said' }),
    parts: Type.Array(ref(CommandPartSchema), { description: 'Each distinct simple command, in order (at most 200)' }),
    redirects: Type.Array(Type.Object({ op: Type.String(), target: Type.Union([Type.String(), Type.Null()]), writes: Type.Boolean() })),
    ...common,
  },
  { $id: 'CommandPreview', description: 'Bash and terminal input: the line split into its parts, each with its analysis' },
);

export const NetworkPreviewSchema = Type.Object(
  {
    kind: Type.Literal('network'),
    url: Type.Optional(Type.String({ description: 'WebFetch: the URL (credentials removed)' })),
    scheme: Type.String(),
    host: Type.String(),
    port: Type.Union([Type.Integer(), Type.Null()]),
    address: Type.Union([Type.String(), Type.Null()], {
      description: 'The address when the host is one; a name is not looked up before the approval (a lookup would already send it out)',
    }),
    ...common,
  },
  { $id: 'NetworkPreview', description: 'WebFetch and a process\'s connection (`Network`): where it goes' },
);

export const McpPreviewSchema = Type.Object(
  {
    kind: Type.Literal('mcp'),
    server: Type.String(),
    tool: Type.String({ description: 'The tool\'s name on its server' }),
    input: Type.Unknown(),
    annotations: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description: 'The server\'s own annotations of the tool (readOnlyHint, destructiveHint, …): the server\'s claims, not checked',
    }),
    ...common,
  },
  { $id: 'McpPreview', description: 'An MCP server\'s tool: which server, which tool, with what' },
);

export const PlanPreviewSchema = Type.Object(
  { kind: Type.Literal('plan'), plan: Type.String(), ...common },
  { $id: 'PlanPreview', description: 'ExitPlanMode: the plan to approve' },
);

export const PermissionPreviewSchema = OneOf(
  [ref(DiffPreviewSchema), ref(CommandPreviewSchema), ref(NetworkPreviewSchema), ref(McpPreviewSchema), ref(PlanPreviewSchema)],
  { $id: 'PermissionPreview', discriminator: 'kind', description: 'What the call would do, computed when it asked' },
);
export type PermissionPreview = Static<typeof PermissionPreviewSchema>;
export type DiffPreview = Static<typeof DiffPreviewSchema>;
export type CommandPreview = Static<typeof CommandPreviewSchema>;

/** The longest diff or command line a preview shows. */
export const PREVIEW_MAX_CHARS = 20_000;
