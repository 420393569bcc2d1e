// The OpenAPI document and its /docs UI. The contract's schemas are registered once, in this
// order, so routes can `$ref` them and the document lists them as named components.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { finishDocument } from './openapi-document.js';
import { DEFAULT_PORT } from '../config.js';
import { EgressListSchema, EVENT_SCHEMAS, EventSchema, HookRunListSchema, McpRequestListSchema, SessionExportSchema } from '../contract/events.js';
import * as schemas from '../contract/schemas.js';
import { McpHttpServerSchema, McpServerConfigSchema, McpServerListSchema, McpServerPublicSchema, McpServerStateSchema, McpStdioServerSchema } from '../contract/mcp.js';

export const SHARED_SCHEMAS = [
  schemas.ProblemSchema,
  schemas.PermissionModeSchema,
  schemas.SessionRuleSchema,
  schemas.SessionHooksSchema,
  schemas.ScriptReplySchema,
  schemas.ModelConfigInputSchema,
  schemas.ModelConfigSchema,
  schemas.InstructionFileSchema,
  McpStdioServerSchema,
  McpHttpServerSchema,
  McpServerConfigSchema,
  McpServerPublicSchema,
  McpServerStateSchema,
  McpServerListSchema,
  schemas.PolicyPublicSchema,
  schemas.EventTicketSchema,
  schemas.SessionCreateSchema,
  schemas.SessionLimitsSchema,
  schemas.SessionPatchSchema,
  schemas.SessionSchema,
  schemas.SessionListSchema,
  schemas.ToolDefinitionSchema,
  schemas.ToolListSchema,
  schemas.ToolUseSchema,
  schemas.TextBlockSchema,
  schemas.ImageBlockSchema,
  schemas.TruncationSchema,
  schemas.ToolResultSchema,
  schemas.ThinkingBlockSchema,
  schemas.RedactedThinkingBlockSchema,
  schemas.ContentBlockSchema,
  schemas.PromptTextBlockSchema,
  schemas.DirectTurnCreateSchema,
  schemas.PromptTurnCreateSchema,
  schemas.TurnCreateSchema,
  schemas.TurnErrorSchema,
  schemas.BudgetSchema,
  schemas.UsageSchema,
  schemas.SessionUsageSchema,
  schemas.CompactionSettingsSchema,
  schemas.CompactionSchema,
  schemas.CompactRequestSchema,
  schemas.CompactResultSchema,
  schemas.MessageSchema,
  schemas.TurnSchema,
  schemas.TurnListSchema,
  schemas.DiffPreviewSchema,
  schemas.CommandPartSchema,
  schemas.CommandPreviewSchema,
  schemas.NetworkPreviewSchema,
  schemas.McpPreviewSchema,
  schemas.PlanPreviewSchema,
  schemas.PermissionPreviewSchema,
  schemas.PermissionRequestSchema,
  schemas.PermissionListSchema,
  schemas.DecisionSchema,
  schemas.DecisionListSchema,
  schemas.PermissionAllowSchema,
  schemas.PermissionDenySchema,
  schemas.PermissionResponseSchema,
  schemas.QuestionItemSchema,
  schemas.QuestionSchema,
  schemas.QuestionListSchema,
  schemas.QuestionResponseSchema,
  schemas.ClientToolDefinitionSchema,
  schemas.ClientToolRequestSchema,
  schemas.ClientToolRequestListSchema,
  schemas.ClientToolResponseSchema,
  schemas.PendingSessionSchema,
  schemas.PendingPermissionSchema,
  schemas.PendingQuestionSchema,
  schemas.PendingItemSchema,
  schemas.PendingListSchema,
  schemas.TodoItemSchema,
  schemas.TodoListSchema,
  schemas.MemoryFileSchema,
  schemas.MemoryListingSchema,
  schemas.SkillSchema,
  schemas.SkillListSchema,
  schemas.OutputSchema,
  schemas.OutputListSchema,
  schemas.CheckpointSchema,
  schemas.CheckpointListSchema,
  schemas.CheckpointDetailSchema,
  schemas.FileChangeSchema,
  schemas.ChangeListSchema,
  schemas.CallChangesSchema,
  schemas.RewindRequestSchema,
  schemas.RewindResultSchema,
  schemas.ForkRequestSchema,
  schemas.ForkedFromSchema,
  schemas.HealthSchema,
  schemas.ReadinessSchema,
  ...EVENT_SCHEMAS,
  EventSchema,
  schemas.ChainPointSchema,
  schemas.SignedHeadSchema,
  schemas.ChainExportSchema,
  SessionExportSchema,
  schemas.SigningKeySetSchema,
  schemas.ChainVerificationSchema,
  schemas.KeyRotationSchema,
  HookRunListSchema,
  EgressListSchema,
  McpRequestListSchema,
  schemas.ConsoleLoginSchema,
  schemas.ConsoleSessionSchema,
];

/** A route the app serves: its method, its URL as the router has it (`:param`), and whether the document leaves it out (`hide`). */
export interface ServedRoute {
  method: string;
  url: string;
  hidden: boolean;
}

const SERVED = new WeakMap<FastifyInstance, ServedRoute[]>();

/** Every route registered after registerOpenApi (all of the app's), HEAD routes Fastify adds included: what the document is checked against. */
export function servedRoutes(app: FastifyInstance): readonly ServedRoute[] {
  return SERVED.get(app) ?? [];
}

/** Registers the shared schemas, then the OpenAPI generator and the /docs UI. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  for (const s of SHARED_SCHEMAS) app.addSchema(s);
  const served: ServedRoute[] = [];
  SERVED.set(app, served);
  app.addHook('onRoute', (route) => {
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    for (const method of [route.method].flat()) served.push({ method, url: route.url, hidden });
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Norma Server',
        version: '1.0.0',
        description:
          'Runs an AI agent\'s tool pipeline server-side: schema validation, permissions, hooks, sandbox, output cap, ' +
          'paired tool_results, and Server-Sent Events. Errors are application/problem+json (RFC 9457), those refused before ' +
          'any route runs included: a malformed request (400), one whose headers did not arrive in time (408), a path ' +
          'parameter longer than 100 characters (414), an Expect other than 100-continue (417), a request line and headers ' +
          'over Node\'s limit, 16 KiB by default (431), an HTTP version other than 1.0 or 1.1 (505), and any request while ' +
          'the server shuts down (503).',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key (NORMA_TOKEN or one of NORMA_API_KEYS_FILE)' },
          ticket: {
            type: 'apiKey',
            in: 'query',
            name: 'ticket',
            description: 'A single-use event ticket (POST /v1/sessions/{session_id}/events/tickets), for clients that cannot send headers: the event stream only',
          },
        },
      },
      // A key, or none at all: a server started without keys serves loopback callers without one
      // (and refuses a key sent to it).
      security: [{ bearer: [] }, {}],
      tags: [
        { name: 'sessions', description: 'A session: its workspace, tools, permission mode and rules, hooks, model and MCP servers; its audit trails' },
        { name: 'turns', description: 'Tool calls to run (direct turns) or a prompt for the server\'s model loop (prompt turns), each call answered by exactly one tool_result' },
        { name: 'permissions', description: 'The requests a person is asked to approve or deny, and the decisions of the permission pipeline' },
        { name: 'questions', description: 'Questions the model asks a person (AskUser), and their answers' },
        { name: 'client tools', description: 'Calls of the tools a session\'s client runs (`client_tools`), and the client\'s answers' },
        { name: 'mcp', description: 'Norma as an MCP server: Streamable HTTP at /mcp, an MCP session per session' },
        { name: 'inbox', description: 'What waits for a person across a tenant\'s sessions, and one event stream of them all' },
        { name: 'state', description: 'What a session keeps besides its resource: todo list, memory files, skills' },
        { name: 'events', description: 'The event stream (Server-Sent Events) and the tickets a browser opens it with' },
        { name: 'outputs', description: 'Spill files: the full text of tool results the output cap shortened' },
        { name: 'checkpoints', description: 'Checkpoints of a session\'s workspace: what changed, rewind, fork' },
        { name: 'evidence', description: 'The hash-chained, signed trail anyone can verify, and encryption at rest\'s key rotation' },
        { name: 'health', description: 'Liveness and readiness for load balancers and orchestrators (no key needed)' },
        { name: 'operations', description: 'What an operator watches the server with: its metrics (Prometheus)' },
        {
          name: 'console',
          description:
            'The web console\'s login. The console itself is served at /console/ and uses the routes above; a key entered ' +
            'there once becomes a login token in an HttpOnly, SameSite=Strict cookie, which counts only on requests that carry ' +
            '`X-Norma-Console: 1` from the server\'s own origin.',
        },
      ],
    },
    // Fastify answers HEAD on every GET route (the event stream excepted: routes/events.ts):
    // the document declares each one it serves (src/http/openapi-document.ts names them).
    exposeHeadRoutes: true,
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      return finishDocument(documentObject.openapiObject as Record<string, unknown>, { serverUrl: `http://127.0.0.1:${DEFAULT_PORT}` }) as typeof documentObject.openapiObject;
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    // The UI's default policy upgrades every asset to https, which leaves a blank page wherever
    // the server is reached over plain http by a name other than localhost (a LAN address, a
    // name in NORMA_ALLOWED_HOSTS). TLS, where there is one, is the proxy's to enforce.
    transformStaticCSP: (header: string) => header.replace(/\s*upgrade-insecure-requests;?/g, ''),
  });
}
