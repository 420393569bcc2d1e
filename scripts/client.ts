// Writes or checks clients/typescript/src/schema.ts: the client's types, generated from the
// committed OpenAPI document by openapi-typescript with its default options and one `transform`
// (clients/typescript/generate.ts: `{"not": {}}` is `never`, an event stream's body its event type).
//   tsx scripts/client.ts write   — regenerate the types
//   tsx scripts/client.ts check   — exit 1 when the committed types differ
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateClientTypes } from '../clients/typescript/generate.js';
import { writeOrCheck } from './generated-file.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(root, 'clients', 'typescript', 'src', 'schema.ts');
writeOrCheck(process.argv[2], file, await generateClientTypes(path.join(root, 'openapi', 'openapi.json')), 'npm run client:write');
