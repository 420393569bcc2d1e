// Checkpoints, changes, rewind and fork (API.md "Checkpoints, changes, rewind and fork").
import { Type, type Static } from '@sinclair/typebox';
import { Id, ref, StringEnum } from './common.js';
import { Timestamp } from './fields.js';

const Sha = Type.String({ pattern: '^[0-9a-f]{64}$' });

export const CheckpointSchema = Type.Object(
  {
    id: Id('Server-made checkpoint id (`ckpt_…`)'),
    turn_id: Type.Union([Type.String(), Type.Null()], { description: 'The turn it was made in; null for those a rewind or fork made' }),
    tool_use_id: Type.Optional(Type.String({ description: 'The call it was made before (`before_call`) or after (`after_call`)' })),
    reason: StringEnum(['turn_start', 'before_call', 'after_call', 'turn_end', 'before_rewind', 'after_rewind', 'fork'], {
      description:
        'When it was made: as a turn started or ended (its end only when the workspace changed after the turn\'s last checkpoint), before or after a call that may change the workspace, just before a rewind ' +
        '(the checkpoint that undoes it) and just after, or as a fork\'s workspace was filled',
    }),
    created_at: Timestamp('When it was made'),
    files: Type.Integer({ minimum: 0, description: 'Files and links it holds' }),
    bytes: Type.Integer({ minimum: 0, description: 'Bytes of those files, as the workspace had them' }),
    added_bytes: Type.Integer({ minimum: 0, description: 'Bytes it added to the session\'s checkpoint store (content stored before costs nothing)' }),
    not_captured: Type.Integer({ minimum: 0, description: 'Entries it did not capture: special files, files over the size bound or the budget (GET …/checkpoints/{id} lists them)' }),
    complete: Type.Boolean({ description: 'False: something other than special files was not captured (over the budget, written while it was read); a rewind to it leaves those paths alone' }),
    warnings: Type.Array(Type.String()),
  },
  { $id: 'Checkpoint', description: 'A recorded state of the session\'s workspace' },
);
export type Checkpoint = Static<typeof CheckpointSchema>;

export const CheckpointListSchema = Type.Object(
  {
    items: Type.Array(ref(CheckpointSchema)),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page' }),
  },
  { $id: 'CheckpointList' },
);

export const CheckpointDetailSchema = Type.Object(
  {
    checkpoint: ref(CheckpointSchema),
    not_captured: Type.Array(Type.Object({ path: Type.String(), reason: Type.String() }), { description: 'What it did not capture, and why' }),
  },
  { $id: 'CheckpointDetail' },
);

export const FileChangeSchema = Type.Object(
  {
    path: Type.String({ description: 'Relative to the workspace' }),
    status: StringEnum(['added', 'modified', 'deleted']),
    binary: Type.Boolean(),
    before_sha256: Type.Optional(Sha),
    after_sha256: Type.Optional(Sha),
    additions: Type.Integer({ minimum: 0 }),
    deletions: Type.Integer({ minimum: 0 }),
  },
  { $id: 'FileChange', description: 'One path that differs (a rename is a deletion and an addition; a link is compared by its target)' },
);
export type FileChangeView = Static<typeof FileChangeSchema>;

export const ChangeListSchema = Type.Object(
  {
    from: Type.String({ description: 'The checkpoint compared from' }),
    to: Type.String({ description: 'The checkpoint compared to, or `current`' }),
    files: Type.Array(ref(FileChangeSchema)),
  },
  { $id: 'ChangeList' },
);

/** What `tool.completed` says of a call that may change the workspace. */
export const CallChangesSchema = Type.Object(
  {
    checkpoint_id: Type.Union([Type.String(), Type.Null()], { description: 'The checkpoint made before the call (rewind to it to undo the call); null when none could be made' }),
    undoable: Type.Boolean({ description: 'False: the checkpoint before the call did not capture everything (over the budget, a full disk): the call cannot be undone whole' }),
    files: Type.Array(ref(FileChangeSchema), { description: 'What the call changed, by any process of the session, while it ran: the first 1,000 paths' }),
    files_total: Type.Integer({ minimum: 0, description: 'How many paths it changed (more than `files` holds past 1,000: GET …/changes lists them all)' }),
    warnings: Type.Array(Type.String()),
  },
  { $id: 'CallChanges' },
);
export type CallChanges = Static<typeof CallChangesSchema>;

export const RewindRequestSchema = Type.Object(
  {
    to: Id('A checkpoint id, or a turn id: the workspace just before that turn started'),
    paths: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
        maxItems: 256,
        description: 'Only these paths (globs relative to the workspace, gitignore-style; a directory takes what is below it); default: the whole workspace',
      }),
    ),
    conversation: Type.Optional(Type.Boolean({ description: 'Prompt sessions: also drop the transcript of the turns from that point on, so the model does not remember undone work' })),
    dry_run: Type.Optional(Type.Boolean({ description: 'Say what would happen (conflicts included); change nothing' })),
    force: Type.Optional(Type.Boolean({ description: 'Rewind paths something other than the session changed, too' })),
  },
  { $id: 'RewindRequest', additionalProperties: false },
);
export type RewindRequest = Static<typeof RewindRequestSchema>;

export const RewindResultSchema = Type.Object(
  {
    restored: Type.Array(Type.String(), { description: 'Paths written (or directories made) to match the checkpoint' }),
    deleted: Type.Array(Type.String(), { description: 'Paths removed (the checkpoint does not have them)' }),
    conflicts: Type.Array(Type.Object({ path: Type.String(), reason: Type.String() })),
    skipped: Type.Array(Type.String(), { description: 'Paths the checkpoint did not capture: left as they are' }),
    checkpoint_id: Type.Union([Type.String(), Type.Null()], { description: 'The checkpoint made just before rewinding (rewind to it to undo this rewind); null in a dry run' }),
    dropped_turns: Type.Array(Type.String(), { description: 'With `conversation`: the turns whose transcript the model no longer sees' }),
    dry_run: Type.Boolean(),
  },
  { $id: 'RewindResult' },
);
export type RewindResult = Static<typeof RewindResultSchema>;

export const ForkRequestSchema = Type.Object(
  { at: Type.Optional(Id('A checkpoint id, or a turn id (the workspace just before that turn); default: the workspace now')) },
  { $id: 'ForkRequest', additionalProperties: false },
);
export type ForkRequest = Static<typeof ForkRequestSchema>;

export const ForkedFromSchema = Type.Object(
  { session_id: Type.String(), checkpoint_id: Type.String() },
  { $id: 'ForkedFrom', description: 'The session and checkpoint a fork was made from' },
);
export type ChangeList = Static<typeof ChangeListSchema>;
