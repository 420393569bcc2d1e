// The one table of WebSearch backends: a name in SEARCH_BACKENDS → its implementation. Everything
// that differs between backends is read from here, so adding one is a file and a line.
import { brave } from './brave.js';
import { ddgs } from './ddgs.js';
import { deepseek } from './deepseek.js';
import { searxng } from './searxng.js';
import { tavily } from './tavily.js';
import type { SearchBackend, SearchBackendName } from './types.js';

export const BACKENDS: Readonly<Record<SearchBackendName, SearchBackend>> = { ddgs, brave, tavily, deepseek, searxng };
