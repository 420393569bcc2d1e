// The client's types from an OpenAPI document: openapi-typescript with its default options but
// for one `transform` that reads what the document says in its own words:
//
// - `{"not": {}}` (a property that may never be present: `prompt` in a direct turn's body) is
//   `never`, so a body with both `prompt` and `tool_uses` is a type error. The document writes it
//   as a schema, not as `false`, because some tools refuse boolean schemas.
// - A `text/event-stream` body is a string on the wire; the `x-sse-data-schema` extension names
//   the schema each event's JSON `data` follows, and the client types the body as that (the
//   event union), which is what its event reader yields.
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, NEVER, oapiRef } from 'openapi-typescript';

/** The extension that names the schema of a `text/event-stream` body's `data` (one JSON event each). */
export const SSE_DATA_SCHEMA = 'x-sse-data-schema';

const HEADER = '// Generated from openapi/openapi.json by openapi-typescript (clients/typescript/generate.ts): `npm run client:write`. Do not edit.\n';

export async function generateClientTypes(documentPath: string): Promise<string> {
  const ast = await openapiTS(pathToFileURL(documentPath), {
    transform(schema) {
      const o = schema as Record<string, unknown>;
      const not = o.not;
      if (not !== null && typeof not === 'object' && Object.keys(not).length === 0 && Object.keys(o).every((k) => k === 'not' || k === 'description')) return NEVER;
      const data = o[SSE_DATA_SCHEMA] as { $ref?: unknown } | undefined;
      if (data && typeof data.$ref === 'string') return oapiRef(data.$ref);
      return undefined;
    },
  });
  return HEADER + astToString(ast);
}
