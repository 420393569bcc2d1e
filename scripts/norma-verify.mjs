#!/usr/bin/env node
// `norma-verify <export.json> [--key …] [--outputs <dir>] [--json]` (the package's bin): checks a
// session export offline. It runs the compiled verifier in dist/, built first when the sources
// changed since the last build (that step writes only to stderr, so stdout stays the report).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await import('./build-if-stale.mjs');
const { main } = await import(pathToFileURL(path.join(root, 'dist', 'src', 'evidence', 'verify-cli.js')).href);
await main();
