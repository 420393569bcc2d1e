// The string formats the contract's schemas use (`uri`, `date-time`), known to TypeBox's own
// checker too: files the server reads (NORMA_HOOKS_FILE, NORMA_API_KEYS_FILE) are checked with
// `Value.Check`, which refuses a format it does not know. Fastify's validator has its own.
import { FormatRegistry } from '@sinclair/typebox';

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)));
if (!FormatRegistry.Has('uri')) {
  FormatRegistry.Set('uri', (v) => {
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(v)) return false;
    try {
      new URL(v);
      return true;
    } catch {
      return false;
    }
  });
}
