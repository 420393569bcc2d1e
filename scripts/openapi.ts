// Writes or checks openapi/openapi.json: the document the server generates from its route schemas.
//   tsx scripts/openapi.ts write   — regenerate the committed file
//   tsx scripts/openapi.ts check   — exit 1 when the committed file differs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateOpenApiDocument } from '../src/openapi.js';

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'openapi', 'openapi.json');
const mode = process.argv[2];
const generated = await generateOpenApiDocument();

if (mode === 'write') {
  fs.writeFileSync(file, generated);
  console.log(`wrote ${path.relative(process.cwd(), file)} (${generated.length} bytes)`);
} else if (mode === 'check') {
  const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (committed !== generated) {
    console.error('openapi/openapi.json is not what the server generates: run `npm run openapi:write` and commit it');
    process.exit(1);
  }
  console.log('openapi/openapi.json is current');
} else {
  console.error('usage: tsx scripts/openapi.ts write|check');
  process.exit(2);
}
