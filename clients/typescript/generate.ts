// The client's types from an OpenAPI document: openapi-typescript with its default options,
// as `npx openapi-typescript openapi.json` would write them.
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const HEADER = '// Generated from openapi/openapi.json by openapi-typescript (default options): `npm run client:write`. Do not edit.\n';

export async function generateClientTypes(documentPath: string): Promise<string> {
  const ast = await openapiTS(pathToFileURL(documentPath));
  return HEADER + astToString(ast);
}
