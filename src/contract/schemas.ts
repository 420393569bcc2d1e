// The HTTP contract's shared schemas (API.md), one module per resource, exported from here as
// one public index. Each schema has an `$id`, is registered once with Fastify and referenced by
// routes, so the OpenAPI document gets named components. Types come from these schemas
// (`Static<typeof X>`); there is no hand-written twin.
import './formats.js';
export * from './common.js';
export * from './hooks.js';
export * from './model.js';
export * from './preview.js';
export * from './permission.js';
export * from './decision.js';
export * from './question.js';
export * from './client-tool.js';
export * from './todo.js';
export * from './memory.js';
export * from './session.js';
export * from './tool.js';
export * from './turn.js';
export * from './budget.js';
export * from './compaction.js';
export * from './output.js';
export * from './health.js';
export * from './tenant.js';
export * from './console.js';
export * from './checkpoint.js';
export * from './inbox.js';
export * from './evidence.js';
