// Checkpoints, changes, rewind and fork (API.md "Checkpoints, changes, rewind and fork"), and
// compaction on demand ("Long sessions"): what changes a session's record of work after the fact.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../src/app-context.js';
import {
  ChangeListSchema,
  CompactRequestSchema,
  CompactResultSchema,
  CheckpointDetailSchema,
  CheckpointListSchema,
  ForkRequestSchema,
  Id,
  RewindRequestSchema,
  RewindResultSchema,
  SessionSchema,
  ref,
} from '../src/contract/schemas.js';
import { SessionParams, TurnParams, bodyProblems, commonProblems, problems, scopeOf } from './common.js';

const DIFF_TYPE = 'text/x-diff';

const CheckpointParams = Type.Object({ session_id: Id('Session id'), checkpoint_id: Id('Checkpoint id') }, { additionalProperties: false });

/** JSON, or the unified diff when the client asks for text/x-diff (and not for JSON first). */
function wantsDiff(req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? '';
  const types = accept.split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  const diff = types.indexOf(DIFF_TYPE);
  const json = types.findIndex((t) => t === 'application/json');
  return diff >= 0 && (json < 0 || diff < json);
}

const changesResponses = {
  200: {
    description: 'The changed paths (JSON), or with `Accept: text/x-diff` the unified diff (binary files named, not dumped)',
    content: {
      'application/json': { schema: ref(ChangeListSchema) },
      [DIFF_TYPE]: { schema: Type.String() },
    },
  },
  ...commonProblems,
  404: problems[404],
};

function sendChanges(reply: FastifyReply, value: unknown) {
  if (typeof value === 'string') return reply.type(`${DIFF_TYPE}; charset=utf-8`).send(Buffer.from(value, 'utf8'));
  return reply.type('application/json; charset=utf-8').send(value);
}

export const checkpointRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/v1/sessions/:session_id/checkpoints',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listCheckpoints',
        tags: ['checkpoints'],
        summary: 'List the session\'s checkpoints, oldest first',
        description:
          'A checkpoint records the workspace at the start and end of every turn, before and after every call that may change it ' +
          '(any call that is not read-only), and around a rewind or fork. Content is stored once per distinct content (chunked), so ' +
          'an unchanged file costs nothing per checkpoint.',
        params: SessionParams,
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
            cursor: Type.Optional(Id('The `next_cursor` of the previous page')),
          },
          { additionalProperties: false },
        ),
        response: { 200: ref(CheckpointListSchema, 'A page of checkpoints'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.owner.call(scopeOf(req), 'checkpoints.list', req.params.session_id, req.query),
  );

  app.get(
    '/v1/sessions/:session_id/checkpoints/:checkpoint_id',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getCheckpoint',
        tags: ['checkpoints'],
        summary: 'One checkpoint, with what it did not capture and why',
        description: 'The checkpoint as listed, and each entry it did not capture (special files, files over the size bound or the budget, files written while read) with the reason.',
        params: CheckpointParams,
        response: { 200: ref(CheckpointDetailSchema, 'The checkpoint'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.owner.call(scopeOf(req), 'checkpoints.get', req.params.session_id, req.params.checkpoint_id),
  );

  app.get(
    '/v1/sessions/:session_id/changes',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getChanges',
        tags: ['checkpoints'],
        summary: 'What changed between two checkpoints (or turns), or up to now',
        description:
          '`from` and `to` each take a checkpoint id or a turn id (as `from`: the workspace before the turn started; as `to`: after ' +
          'it ended); `to` also takes `current` (the default; for a closed session its last checkpoint). `from` defaults to the ' +
          'session\'s first checkpoint.',
        params: SessionParams,
        querystring: Type.Object(
          {
            from: Type.Optional(Id('A checkpoint id or a turn id')),
            to: Type.Optional(Id('A checkpoint id, a turn id, or `current`')),
          },
          { additionalProperties: false },
        ),
        response: changesResponses,
      },
    },
    async (req, reply) => {
      const q = { ...(req.query.from ? { from: req.query.from } : {}), ...(req.query.to ? { to: req.query.to } : {}), diff: wantsDiff(req) };
      return sendChanges(reply, await ctx.owner.call(scopeOf(req), 'checkpoints.changes', req.params.session_id, q));
    },
  );

  app.get(
    '/v1/sessions/:session_id/turns/:turn_id/changes',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getTurnChanges',
        tags: ['checkpoints'],
        summary: 'What a turn changed',
        description: 'From the workspace before the turn started to the workspace after it ended, by any process of the session.',
        params: TurnParams,
        response: changesResponses,
      },
    },
    async (req, reply) =>
      sendChanges(reply, await ctx.owner.call(scopeOf(req), 'checkpoints.turnChanges', req.params.session_id, req.params.turn_id, wantsDiff(req))),
  );

  app.post(
    '/v1/sessions/:session_id/rewind',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'rewindSession',
        tags: ['checkpoints'],
        summary: 'Put the workspace (or some paths) back as it was at a checkpoint',
        description:
          'A checkpoint of the workspace is made first (`checkpoint_id`: rewind to it to undo this rewind). A path something other ' +
          'than the session changed since its last checkpoint is a conflict: 409 with `conflicts`, unless `force`. Refused (409) ' +
          'while a turn runs. Each file is replaced whole (written aside, then renamed); a rewind a crash interrupts is finished ' +
          'at the next start. `dry_run` says what would happen and changes nothing. Event `workspace.rewound`.',
        params: SessionParams,
        body: ref(RewindRequestSchema),
        response: { 200: ref(RewindResultSchema, 'What the rewind did (or, with dry_run, would do)'), ...bodyProblems, 404: problems[404], 409: problems[409] },
      },
    },
    async (req) => ctx.owner.call(scopeOf(req), 'checkpoints.rewind', req.params.session_id, req.body),
  );

  app.post(
    '/v1/sessions/:session_id/compact',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'compactSession',
        tags: ['turns'],
        summary: 'Compact the session\'s conversation now',
        description:
          'Between turns: the conversation of its prompt turns is compacted — old tool results left out (each replaced by a note naming where its full text stays), ' +
          'the older messages summarised by the session\'s model (`instructions` added to what the summary keeps), the newest kept verbatim — and recorded on the last ' +
          'prompt turn (`compaction`): later turns send it instead of what it covers. The full transcript stays in the turns and the export. PreCompact hooks may refuse it; ' +
          'PostCompact hooks see the result. Its model call counts toward the session\'s and the tenant\'s budgets. Events `compaction.started`, `compaction.completed` ' +
          '(or `compaction.failed`). 409 while a turn runs, or when the summary fails or a budget is reached (nothing changes); `compacted: false` when there is nothing to compact.',
        params: SessionParams,
        body: ref(CompactRequestSchema),
        response: { 200: ref(CompactResultSchema, 'What the compaction did'), ...bodyProblems, 404: problems[404], 409: problems[409] },
      },
    },
    async (req) => ctx.owner.call(scopeOf(req), 'sessions.compact', req.params.session_id, req.body ?? {}),
  );

  app.post(
    '/v1/sessions/:session_id/fork',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'forkSession',
        tags: ['checkpoints'],
        summary: 'A new session from this one at a checkpoint',
        description:
          'Same tenant, settings, rules and policy limits; a new workspace holding the files as they were at `at` (default: now); ' +
          'the prompt turns that had ended by then as its transcript. The parent is unchanged. Counts against the tenant\'s ' +
          '`max_sessions`.',
        params: SessionParams,
        body: ref(ForkRequestSchema),
        response: {
          201: { ...ref(SessionSchema, 'The new session, with `forked_from`'), headers: { Location: { type: 'string', description: 'The session\'s URL' } } },
          ...bodyProblems,
          404: problems[404],
          409: problems[409],
        },
      },
    },
    async (req, reply) => {
      const session = await ctx.owner.call(scopeOf(req), 'checkpoints.fork', req.params.session_id, req.body ?? {});
      return reply.code(201).header('location', `/v1/sessions/${session.id}`).send(session);
    },
  );
};
