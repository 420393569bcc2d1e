// What a session keeps besides its resource: its todo list, its memory files and its skills.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MemoryListingSchema, SkillListSchema, TodoListSchema, ref } from '../src/contract/schemas.js';
import { McpServerListSchema } from '../src/contract/mcp.js';
import type { AppContext } from '../src/app-context.js';
import { SessionParams, commonProblems, problems, scopeOf } from './common.js';

export const sessionStateRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/v1/sessions/:session_id/todos',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getTodos',
        tags: ['state'],
        summary: 'The session\'s todo list, as TodoWrite last replaced it',
        description: 'The list and when it was last replaced (`updated_at`, null before the first TodoWrite). Durable: it survives restarts.',
        params: SessionParams,
        response: { 200: ref(TodoListSchema, 'The list'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.owner.call(scopeOf(req), 'state.todos', req.params.session_id),
  );

  app.get(
    '/v1/sessions/:session_id/memory',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listMemory',
        tags: ['state'],
        summary: 'The files of the session\'s memory store (`/memories` of the Memory tool)',
        description: 'Every regular file, with its size and SHA-256. A named store (`memory_store`) is shared by the sessions that name it.',
        params: SessionParams,
        response: { 200: ref(MemoryListingSchema, 'The files'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.app.state.memory(scopeOf(req), req.params.session_id),
  );

  app.get(
    '/v1/sessions/:session_id/mcp',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listMcpServers',
        tags: ['state'],
        summary: 'The session\'s MCP servers: status, tools, resources, restarts and what went wrong',
        description: 'Configuration is shown without env or header values. A closed session lists its servers as `closed`.',
        params: SessionParams,
        response: { 200: ref(McpServerListSchema, 'The servers'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.owner.call(scopeOf(req), 'state.mcp', req.params.session_id),
  );

  app.get(
    '/v1/sessions/:session_id/skills',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listSkills',
        tags: ['state'],
        summary: 'The skills the session may use, and which it has used',
        description: 'Each skill with its source (operator or workspace), description and allowed tools; `used` marks those a Skill call loaded.',
        params: SessionParams,
        response: { 200: ref(SkillListSchema, 'The skills'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.owner.call(scopeOf(req), 'state.skills', req.params.session_id),
  );
};
