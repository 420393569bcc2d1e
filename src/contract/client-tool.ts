// Tools the client runs (API.md "tools the client runs"): what a session declares in
// `client_tools`, the request a call of one makes (`ct_…`), and the client's answer.
import { Type, type Static } from '@sinclair/typebox';
import { Id, ImageBlockSchema, OneOf, ref, StringEnum, TextBlockSchema } from './common.js';
import { Timestamp } from './fields.js';

/** A client tool's name: a tool name (letters, digits, `_`, `-`) of at most 64 characters, which every model provider takes. */
export const CLIENT_TOOL_NAME_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
/** Most client tools one session declares. */
export const MAX_CLIENT_TOOLS = 64;
/** The longest description of one client tool (characters). */
export const MAX_CLIENT_TOOL_DESCRIPTION = 10_000;
/** The largest input schema of one client tool (bytes of JSON). */
export const MAX_CLIENT_TOOL_SCHEMA_BYTES = 64 * 1024;
/** The deepest nesting of one client tool's input schema. */
export const MAX_CLIENT_TOOL_SCHEMA_DEPTH = 32;
/** Most content blocks in one answer. */
export const MAX_CLIENT_TOOL_BLOCKS = 1000;

export const ClientToolDefinitionSchema = Type.Object(
  {
    name: Type.String({ pattern: CLIENT_TOOL_NAME_PATTERN, description: 'The name the model calls it by: not a built-in tool\'s name, not `mcp__…`, unique in the session' }),
    description: Type.String({ minLength: 1, maxLength: MAX_CLIENT_TOOL_DESCRIPTION, description: 'What the tool does and when to use it, for the model' }),
    input_schema: Type.Record(Type.String(), Type.Unknown(), {
      description: `JSON Schema (2020-12 unless \`$schema\` names 2019-09 or draft-07) of the input, describing an object (\`"type": "object"\`); at most ${MAX_CLIENT_TOOL_SCHEMA_BYTES / 1024} KiB and ${MAX_CLIENT_TOOL_SCHEMA_DEPTH} levels deep. A call whose input does not match it is an error result, and the client is not asked`,
    }),
  },
  { $id: 'ClientToolDefinition', additionalProperties: false, description: 'A tool the session\'s client runs: the model may call it, the call waits for the client\'s answer' },
);
export type ClientToolDefinition = Static<typeof ClientToolDefinitionSchema>;

export const CLIENT_TOOL_STATUSES = ['pending', 'answered', 'timed_out', 'cancelled'] as const;
export type ClientToolStatus = (typeof CLIENT_TOOL_STATUSES)[number];

export const ClientToolRequestSchema = Type.Object(
  {
    id: Id('Server-made request id (`ct_…`)'),
    session_id: Type.String(),
    turn_id: Type.String(),
    tool_use_id: Type.String({ description: 'The call the answer becomes the tool_result of' }),
    name: Type.String({ description: 'The client tool called' }),
    input: Type.Unknown({ description: 'The call\'s input, valid against the tool\'s input_schema (as PreToolUse hooks left it)' }),
    status: StringEnum(CLIENT_TOOL_STATUSES),
    is_error: Type.Optional(Type.Boolean({ description: 'Answered: whether the client reported an error' })),
    message: Type.Optional(Type.String({ description: 'Timed out or cancelled: why, as the model is told' })),
    resolved_by: Type.Optional(StringEnum(['client', 'timeout', 'cancel', 'session_closed'], { description: 'Who or what resolved the request' })),
    answered_by: Type.Optional(Type.String({ description: 'With resolved_by `client`: the name of the API key that answered (absent without keys)' })),
    created_at: Timestamp('Creation time'),
    resolved_at: Type.Optional(Timestamp('Resolution time')),
  },
  {
    $id: 'ClientToolRequest',
    description: 'A call of a client tool waiting for (or answered by) the client. The answer\'s content is not kept here: it is the call\'s tool_result (capped, with its spill file)',
  },
);
export type ClientToolRequest = Static<typeof ClientToolRequestSchema>;

export const ClientToolRequestListSchema = Type.Object({ items: Type.Array(ref(ClientToolRequestSchema)) }, { $id: 'ClientToolRequestList' });

export const ClientToolResponseSchema = Type.Object(
  {
    content: OneOf(
      [
        Type.String({ description: 'Text (an empty string: no content)' }),
        Type.Array(OneOf([ref(TextBlockSchema), ref(ImageBlockSchema)], { discriminator: 'type' }), {
          maxItems: MAX_CLIENT_TOOL_BLOCKS,
          description: 'Blocks as tool_results carry them: text, and images (base64, at most 5 MiB each)',
        }),
      ],
      { description: 'What the tool returned: the call\'s tool_result content (text passes the session\'s output cap; the rest is kept as a spill file)' },
    ),
    is_error: Type.Optional(Type.Boolean({ default: false, description: 'The tool failed: the tool_result is an error result' })),
  },
  { $id: 'ClientToolResponse', additionalProperties: false, description: 'The client\'s answer to a client-tool request' },
);
export type ClientToolResponse = Static<typeof ClientToolResponseSchema>;
