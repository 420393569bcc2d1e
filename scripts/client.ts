// Writes or checks clients/typescript/src/schema.ts: the client's types, generated from the
// committed OpenAPI document by openapi-typescript with its default options.
//   tsx scripts/client.ts write   — regenerate the types
//   tsx scripts/client.ts check   — exit 1 when the committed types differ
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateClientTypes } from '../clients/typescript/generate.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(root, 'clients', 'typescript', 'src', 'schema.ts');
const mode = process.argv[2];
const generated = await generateClientTypes(path.join(root, 'openapi', 'openapi.json'));

if (mode === 'write') {
  fs.writeFileSync(file, generated);
  console.log(`wrote ${path.relative(process.cwd(), file)} (${generated.length} bytes)`);
} else if (mode === 'check') {
  const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (committed !== generated) {
    console.error('clients/typescript/src/schema.ts is not what openapi/openapi.json generates: run `npm run client:write` and commit it');
    process.exit(1);
  }
  console.log('clients/typescript/src/schema.ts is current');
} else {
  console.error('usage: tsx scripts/client.ts write|check');
  process.exit(2);
}
