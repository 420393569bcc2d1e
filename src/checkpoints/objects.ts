// The content-addressed store under a checkpoint directory: a file's content is kept as its
// chunks (chunker.ts), each compressed and named by the SHA-256 of its bytes, and a recipe named
// by the SHA-256 of the whole file that lists them. Content already stored costs nothing again;
// an edit of a large file stores the chunks it changed. Every object is written to a temporary
// name, flushed and renamed, so a crash leaves an object whole or absent, never half-written;
// what is read is checked against its name.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { chunks } from './chunker.js';

const HEX64 = /^[0-9a-f]{64}$/;

export interface PutResult {
  /** SHA-256 of the whole content, hex: its name. */
  sha256: string;
  size: number;
  /** Bytes this put added to the disk (0 when everything was stored before). */
  added: number;
}

export class ObjectStore {
  constructor(readonly dir: string) {}

  private file(kind: 'c' | 'f', sha256: string): string {
    if (!HEX64.test(sha256)) throw new Error(`not an object name: ${sha256.slice(0, 80)}`);
    return path.join(this.dir, kind, sha256.slice(0, 2), sha256.slice(2));
  }

  /** True when the content named `sha256` is stored. */
  async has(sha256: string): Promise<boolean> {
    return (await fs.stat(this.file('f', sha256)).catch(() => null)) !== null;
  }

  /** Stores `content` (once per distinct content; once per distinct chunk within it). */
  async put(content: Uint8Array): Promise<PutResult> {
    const sha256 = createHash('sha256').update(content).digest('hex');
    const recipe = this.file('f', sha256);
    if (await exists(recipe)) return { sha256, size: content.length, added: 0 };
    let added = 0;
    const names: string[] = [];
    for (const c of chunks(content)) {
      names.push(c.sha256);
      const target = this.file('c', c.sha256);
      if (await exists(target)) continue;
      added += await this.write(target, deflateRawSync(content.subarray(c.offset, c.offset + c.length)));
    }
    added += await this.write(recipe, Buffer.from(JSON.stringify({ size: content.length, chunks: names })));
    return { sha256, size: content.length, added };
  }

  /** The content named `sha256`, checked against its name; an error when it is missing or damaged. */
  async get(sha256: string): Promise<Buffer> {
    const recipe = JSON.parse(await fs.readFile(this.file('f', sha256), 'utf8')) as { size: number; chunks: string[] };
    const parts: Buffer[] = [];
    for (const name of recipe.chunks) {
      const bytes = inflateRawSync(await fs.readFile(this.file('c', name)));
      if (createHash('sha256').update(bytes).digest('hex') !== name) throw new Error(`checkpoint object ${name} is damaged`);
      parts.push(bytes);
    }
    const content = Buffer.concat(parts);
    if (content.length !== recipe.size || createHash('sha256').update(content).digest('hex') !== sha256) throw new Error(`checkpoint content ${sha256} is damaged`);
    return content;
  }

  /** Writes whole or not at all: a temporary name, flushed, then renamed. The bytes written. */
  private async write(target: string, bytes: Uint8Array): Promise<number> {
    await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await fs.open(tmp, 'wx', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, target);
    return bytes.length;
  }
}

async function exists(p: string): Promise<boolean> {
  return (await fs.stat(p).catch(() => null)) !== null;
}
