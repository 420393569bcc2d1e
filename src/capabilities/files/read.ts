// Read: numbered lines of a text file inside the workspace (cat -n style).
import { Type, type Static } from '@sinclair/typebox';
import { createInterface } from 'node:readline';
import { defineTool, textOutput } from '../../tools/tool.js';
import type { FileDeps } from './deps.js';
import { fileSubject } from './subject-paths.js';
import { readDescription } from './read.description.js';

export const DEFAULT_READ_LINES = 2000;
export const MAX_LINE_CHARS = 2000;
const BINARY_SNIFF_BYTES = 8192;
const WHOLE_READ_BYTES = 1024 * 1024;

const ReadInput = Type.Object(
  {
    file_path: Type.String({ minLength: 1, maxLength: 4096, description: 'Path of the file, relative to the workspace or absolute inside it' }),
    offset: Type.Optional(Type.Integer({ minimum: 1, description: 'First line to read (1-based)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: `Number of lines (default ${DEFAULT_READ_LINES})` })),
  },
  { additionalProperties: false },
);
type ReadInput = Static<typeof ReadInput>;

export const readTool = defineTool<ReadInput, FileDeps>({
  name: 'Read',
  description: readDescription({ defaultLines: DEFAULT_READ_LINES, maxLineChars: MAX_LINE_CHARS }),
  inputSchema: ReadInput,
  permissionSubject: (input, ctx) => fileSubject(ctx, 'read', input.file_path, false),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  requiresApproval: () => false,
  async call(input, ctx, deps) {
    const file = await ctx.workspace.openForRead(input.file_path);
    try {
      deps.readState.record(file.path, file);
      // Small files (the common case) are read whole in one call and sniffed from memory.
      const whole = file.size <= WHOLE_READ_BYTES ? await readExactly(file.handle, file.size) : null;
      const head = whole ? whole.subarray(0, BINARY_SNIFF_BYTES) : Buffer.alloc(BINARY_SNIFF_BYTES);
      if (!whole) await file.handle.read(head, 0, head.length, 0);
      if (head.includes(0)) {
        return textOutput(`${ctx.workspace.display(file.path)} is a binary file; Read only returns text.`, true);
      }
      if (file.size === 0) return textOutput(`${ctx.workspace.display(file.path)} is empty.`);

      const first = input.offset ?? 1;
      const limit = input.limit ?? DEFAULT_READ_LINES;
      const out: string[] = [];
      let lineNo = 0;
      let cutLines = 0;
      let more = false;
      // Returns false once the window is full.
      const take = (line: string): boolean => {
        lineNo++;
        if (lineNo < first) return true;
        if (out.length >= limit) {
          more = true;
          return false;
        }
        let text = line;
        if (text.length > MAX_LINE_CHARS) {
          text = `${text.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} characters]`;
          cutLines++;
        }
        out.push(`${String(lineNo).padStart(6, ' ')}\t${text}`);
        return true;
      };
      if (whole) {
        const lines = whole.toString('utf8').split(/\r?\n/);
        if (lines[lines.length - 1] === '') lines.pop();
        for (const line of lines) if (!take(line)) break;
      } else {
        // Large files are streamed: memory stays bounded by the window, not the file.
        const lines = createInterface({
          input: file.handle.createReadStream({ encoding: 'utf8', autoClose: false, start: 0 }),
          crlfDelay: Infinity,
        });
        for await (const line of lines) {
          if (ctx.signal.aborted || !take(line)) break;
        }
        lines.close();
      }
      if (out.length === 0) {
        return textOutput(`${ctx.workspace.display(file.path)} has ${lineNo} lines; offset ${first} is past the end.`, true);
      }
      const notes: string[] = [];
      if (more) notes.push(`[more lines follow: continue with offset ${first + out.length}]`);
      if (cutLines > 0) notes.push(`[${cutLines} line(s) were cut at ${MAX_LINE_CHARS} characters]`);
      return textOutput([...out, ...notes].join('\n'));
    } finally {
      await file.handle.close();
    }
  },
});

/** Reads `size` bytes from the start (a file that shrank meanwhile yields what is there). */
export async function readExactly(handle: import('node:fs/promises').FileHandle, size: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(buf, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buf.subarray(0, filled);
}
