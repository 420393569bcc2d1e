// Compaction of a prompt session's conversation (API.md "Long sessions"): the session's settings,
// the record a compaction leaves on the turn it happened in (what the model is sent instead of the
// messages it covers), and the body of an on-demand compaction.
import { Type, type Static } from '@sinclair/typebox';
import { Id, ref, StringEnum } from './common.js';
import { Timestamp } from './fields.js';

export const DEFAULT_COMPACTION_THRESHOLD = 0.8;

export const CompactionSettingsSchema = Type.Object(
  {
    auto: Type.Optional(
      Type.Boolean({
        description: 'Compact before a model call whose input would pass the threshold, and once when the provider says the context is too long (default true); false: never on its own, overflow included',
      }),
    ),
    threshold: Type.Optional(
      Type.Number({ minimum: 0.5, maximum: 0.95, description: 'The share of the model\'s context window (model.context_window, or the known model\'s own) past which a call compacts first; default 0.8' }),
    ),
  },
  { $id: 'CompactionSettings', additionalProperties: false },
);
export type CompactionSettings = Static<typeof CompactionSettingsSchema>;

export const COMPACTION_TRIGGERS = ['auto', 'manual', 'overflow'] as const;

/** What a compaction says about itself (its event and its record). */
const CompactionFacts = {
  trigger: StringEnum(COMPACTION_TRIGGERS, { description: '`auto`: the threshold was passed; `manual`: POST …/compact; `overflow`: the provider said the context was too long' }),
  stage: StringEnum(['elided', 'summarised'], {
    description: '`elided`: leaving out old tool results (each replaced by a note naming where its full text stays) was enough; `summarised`: the older messages were summarised by the session\'s model',
  }),
  tokens_before: Type.Integer({ minimum: 0, description: 'The conversation\'s input tokens before (estimated)' }),
  tokens_after: Type.Integer({ minimum: 0, description: 'And after' }),
  elided_results: Type.Integer({ minimum: 0, description: 'Tool results left out' }),
  summarised_messages: Type.Integer({ minimum: 0, description: 'Messages the summary stands for' }),
  kept_messages: Type.Integer({ minimum: 0, description: 'The newest messages kept verbatim' }),
  summary_sha256: Type.Union([Type.String(), Type.Null()], { description: 'SHA-256 (hex) of the summary text' }),
};

export const CompactionSchema = Type.Object(
  {
    id: Id('Server-made compaction id (`cmp_…`)'),
    ...CompactionFacts,
    covers: Type.Integer({ minimum: 0, description: 'How many of this turn\'s `messages` it stands for (with every earlier prompt turn\'s)' }),
    // By reference (turn.ts names this schema): the Message component.
    messages: Type.Array(Type.Unsafe<{ role: 'user' | 'assistant'; content: unknown[] }>({ $ref: 'Message#' }), {
      description: 'What the model is sent instead of the messages it covers; the later messages follow verbatim',
    }),
    created_at: Timestamp('When it was made'),
  },
  { $id: 'Compaction', description: 'The newest compaction of the conversation, on the turn it was made in; the full transcript stays in `messages` and the export' },
);
export type Compaction = Static<typeof CompactionSchema>;

export const CompactionEventFacts = { compaction_id: Type.String(), ...CompactionFacts };

export const CompactRequestSchema = Type.Object(
  {
    instructions: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000, description: 'What the summary should keep or stress, added to the summary\'s instructions' })),
  },
  { $id: 'CompactRequest', additionalProperties: false },
);
export type CompactRequest = Static<typeof CompactRequestSchema>;

export const CompactResultSchema = Type.Object(
  {
    compacted: Type.Boolean({ description: 'false: there was nothing to compact (said in `detail`)' }),
    turn_id: Type.Union([Type.String(), Type.Null()], { description: 'The turn the compaction is recorded on' }),
    compaction: Type.Union([ref(CompactionSchema), Type.Null()]),
    detail: Type.Optional(Type.String()),
  },
  { $id: 'CompactResult' },
);
export type CompactResult = Static<typeof CompactResultSchema>;
