// The tools whose engines the composition root chooses (Grep's ripgrep, Bash's analysis cache),
// made here as the server makes them, for tests that drive them directly.
import { createGrepTool, findRipgrep } from '../../src/capabilities/files/grep.js';
import { createBashTool } from '../../src/capabilities/shell/bash.js';

export const bashTool = createBashTool();
export const grepTool = createGrepTool({ rgPath: findRipgrep() });
export const RG_PATH = findRipgrep();
