// Memory's manual for the model: what the store is for, when to use it and when not, its paths,
// commands and limits.
import {
  MAX_MEMORY_DEPTH,
  MAX_MEMORY_FILES,
  MAX_MEMORY_FILE_BYTES,
  MAX_MEMORY_PATH_CHARS,
  MAX_MEMORY_STORE_BYTES,
  MEMORY_ROOT,
} from './files.js';

export const MEMORY_DESCRIPTION = `Your persistent memory: a small directory of text files at ${MEMORY_ROOT} that outlives this \
conversation. What you write here is there in later conversations and sessions that use the same memory store, \
so keep facts worth knowing next time (the user's preferences, decisions and their reasons, how this project \
is built and tested, pitfalls found) and notes on the progress of long tasks (what is done, what is next).

Use it to keep what should outlive this conversation:
- At the start of a task, view ${MEMORY_ROOT} to see what earlier sessions recorded, and read what is relevant before working.
- While working, record decisions, findings and progress as they happen, so that the work can be resumed if this conversation ends.
- Keep it current: correct or delete notes that turn out to be wrong or stale.

Do not use it for anything else:
- Not for the workspace's files: read and change those with Read, Write and Edit. ${MEMORY_ROOT} is a separate store.
- Not for secrets (passwords, tokens, keys, personal data): the store may be shared by other sessions.
- Not as a log of everything: keep files small, few and organised by topic (e.g. ${MEMORY_ROOT}/project.md, \
${MEMORY_ROOT}/decisions.md), and update them rather than adding near-duplicates.

Commands:
- view {path, view_range?}: a directory lists its files and subdirectories up to 2 levels deep with their sizes \
(directories end in "/", hidden items are left out); a file shows its lines numbered. view_range [start, end] is 1-based; end -1 reads to the end.
- create {path, file_text}: creates a file, or replaces an existing one whole. Parent directories are created.
- str_replace {path, old_str, new_str}: replaces old_str, which must occur exactly once in the file (include \
surrounding text to make it unique).
- insert {path, insert_line, insert_text}: inserts text after line insert_line (0 inserts at the top).
- delete {path}: deletes a file, or a directory with everything in it. ${MEMORY_ROOT} itself cannot be deleted.
- rename {old_path, new_path}: renames or moves a file or directory; new_path must not exist yet.

Paths are absolute: ${MEMORY_ROOT} or ${MEMORY_ROOT}/<name>/..., with names separated by "/". Relative paths, \
"." and ".." components, empty components ("//") and backslashes are refused; symbolic links and special files \
in the store are never followed. Limits: a file at most ${MAX_MEMORY_FILE_BYTES / 1024} KiB, the whole store at \
most ${MAX_MEMORY_STORE_BYTES / (1024 * 1024)} MiB and ${MAX_MEMORY_FILES} files, paths at most \
${MAX_MEMORY_DEPTH} levels below ${MEMORY_ROOT} and ${MAX_MEMORY_PATH_CHARS} characters. A change that would \
exceed a limit is refused and nothing is written. Changes are atomic.`;
