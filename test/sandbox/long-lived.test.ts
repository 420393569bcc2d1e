// Processes that live as long as the session (MCP servers) are watched less often while they are
// all that runs: a session idling with its servers does not measure its disk every second. As
// soon as a command runs beside them, the ordinary cadence is back.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSandbox } from '../../src/sandbox/session-sandbox.js';
import { testSessionSandbox, unsandboxedHost } from '../helpers/sandbox.js';

let dirs: string[] = [];
let boxes: SessionSandbox[] = [];
afterEach(async () => {
  for (const b of boxes) await b.close();
  boxes = [];
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
  dirs = [];
});

async function sandbox(): Promise<{ box: SessionSandbox; workspace: string }> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-longlived-'));
  dirs.push(root);
  const workspace = path.join(root, 'ws');
  await fs.mkdir(workspace);
  const box = testSessionSandbox(unsandboxedHost(), workspace, path.join(root, 'state'));
  boxes.push(box);
  return { box, workspace };
}

const used = (box: SessionSandbox) => box.describe().disk_used_bytes;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (check()) return true;
  return check();
}

describe('the watch over long-lived processes', () => {
  it('measures the disk once, then not again within 15 s while only long-lived processes run', async () => {
    const { box, workspace } = await sandbox();
    const server = await box.spawn({ argv: ['sleep', '30'], longLived: true });
    expect(await until(() => used(box) !== null, 10_000)).toBe(true);
    const first = used(box)!;
    await fs.writeFile(path.join(workspace, 'big.bin'), Buffer.alloc(4 * 1024 * 1024));
    await sleep(3000);
    expect(used(box)).toBe(first);

    // A command beside it brings the ordinary cadence back: the new file is counted soon.
    const command = await box.spawn({ argv: ['sleep', '30'] });
    expect(await until(() => used(box)! >= first + 4 * 1024 * 1024, 10_000)).toBe(true);
    command.kill();
    server.kill();
    await Promise.all([command.exited, server.exited]);
  });
});
