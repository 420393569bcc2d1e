// Writes or checks openapi/openapi.json: the document the server generates from its route schemas.
//   tsx scripts/openapi.ts write   — regenerate the committed file
//   tsx scripts/openapi.ts check   — exit 1 when the committed file differs
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateOpenApiDocument } from '../src/openapi.js';
import { writeOrCheck } from './generated-file.js';

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'openapi', 'openapi.json');
writeOrCheck(process.argv[2], file, await generateOpenApiDocument(), 'npm run openapi:write');
