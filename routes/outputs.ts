// Spill files (API.md "Outputs"): list, and download with ETag, Repr-Digest and Range.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../src/app-context.js';
import { Id, OutputListSchema, ref } from '../src/contract/schemas.js';
import { DomainError } from '../src/errors.js';
import type { OpenOutput } from '../src/store/outputs.js';
import { SessionParams, commonProblems, problems, scopeOf } from './common.js';

const OutputParams = Type.Object(
  { session_id: Id('Session id'), output_id: Id('Output id') },
  { additionalProperties: false },
);

const text = (description: string, headers: Record<string, { type: 'string'; description?: string }>) => ({
  description,
  headers,
  content: { 'text/plain': { schema: Type.String() } },
});
const str = { type: 'string' as const };
/** What every download carries: the whole output's validators. */
const validators = { ETag: str, 'Repr-Digest': str, 'Accept-Ranges': { type: 'string' as const, description: '`bytes`' }, 'Cache-Control': str };

/** A single `bytes=` range, resolved against the size; null: serve the whole file. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  if (header === undefined) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Invalid or multi-range requests are answered with the whole representation (RFC 9110 §14.2).
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

export const outputRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/v1/sessions/:session_id/outputs',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listOutputs',
        tags: ['outputs'],
        summary: 'List the session\'s spill files, oldest first',
        description: 'Each spill file of the session with its id, the call it belongs to, size, SHA-256 and status (`expired` once retention removed the file; the record stays).',
        params: SessionParams,
        response: { 200: ref(OutputListSchema, 'The outputs with digest and provenance'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.app.audit.outputs(scopeOf(req), req.params.session_id),
  );

  app.get(
    '/v1/sessions/:session_id/outputs/:output_id',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getOutput',
        tags: ['outputs'],
        summary: 'Download a spill file',
        description:
          'The full output as `text/plain; charset=utf-8`, with `ETag` (the SHA-256), `Repr-Digest: sha-256=:<base64>:` ' +
          '(of the whole output, also on partial responses), single `Range: bytes=` requests (206), `If-None-Match` (304) ' +
          'and `If-Range`. An output removed by retention answers 410; its record stays in the list.',
        params: OutputParams,
        headers: Type.Object({
          range: Type.Optional(Type.String({ maxLength: 256 })),
          'if-none-match': Type.Optional(Type.String({ maxLength: 1024 })),
          'if-range': Type.Optional(Type.String({ maxLength: 1024 })),
        }),
        response: {
          200: text('The whole output', validators),
          206: text('The requested byte range', { ...validators, 'Content-Range': str }),
          304: { ...Type.Null({ description: 'Not modified (the ETag matched)' }), headers: validators },
          ...commonProblems,
          404: problems[404],
          410: problems[410],
          416: { ...problems[416], headers: { ...validators, 'Content-Range': str } },
        },
      },
    },
    async (req, reply) => {
      const { output, open } = ctx.app.audit.outputForDownload(scopeOf(req), req.params.session_id, req.params.output_id);
      const etag = `"${output.sha256}"`;
      reply.header('etag', etag);
      reply.header('repr-digest', `sha-256=:${Buffer.from(output.sha256, 'hex').toString('base64')}:`);
      reply.header('accept-ranges', 'bytes');
      reply.header('cache-control', 'private, max-age=31536000, immutable');
      const inm = req.headers['if-none-match'];
      if (inm !== undefined && (inm.trim() === '*' || inm.split(',').map((t) => t.trim().replace(/^W\//, '')).includes(etag))) {
        // No body, and no Content-Type (a 304 describes the representation the client already
        // has): a reply sent without a payload gets none, where `null` would be labelled JSON.
        return reply.code(304).send(undefined as unknown as null);
      }
      let file: OpenOutput;
      try {
        file = await open();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new DomainError('gone', `output ${output.id} is no longer on disk`);
        throw err;
      }
      const size = file.size;
      const ifRange = req.headers['if-range'];
      const range = ifRange !== undefined && ifRange.trim() !== etag ? null : parseRange(req.headers.range, size);
      if (range === 'unsatisfiable') {
        await file.close();
        reply.header('content-range', `bytes */${size}`);
        throw new DomainError('range_not_satisfiable', `range ${req.headers.range} is outside the output's ${size} bytes`);
      }
      reply.type('text/plain; charset=utf-8');
      if (range === null) {
        reply.header('content-length', size);
        return reply.code(200).send(size === 0 ? (await file.close(), '') : file.stream());
      }
      reply.header('content-range', `bytes ${range.start}-${range.end}/${size}`);
      reply.header('content-length', range.end - range.start + 1);
      return reply.code(206).send(file.stream(range.start, range.end));
    },
  );
};
