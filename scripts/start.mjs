// `npm start`: builds dist/ if the sources changed since the last build (scripts/build-if-stale.mjs),
// then runs the server in this same process (one Node start-up, not two).
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await import('./build-if-stale.mjs');
await import(pathToFileURL(path.join(root, 'dist', 'src', 'main.bundle.mjs')).href);
