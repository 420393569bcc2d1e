// The committed OpenAPI document passes both linters people run on it with no finding at all:
// Redocly's recommended rules (redocly.yaml) and Spectral's spectral:oas (.spectral.yaml).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
// Offline and quiet: no telemetry, no update check.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

async function lint(cmd: string, args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(cmd, args, { cwd: root, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('openapi/openapi.json under the linters', () => {
  it('Redocly (recommended): valid, 0 errors, 0 warnings', async () => {
    const r = await lint(bin('redocly'), ['lint', 'openapi/openapi.json', '--format=json']);
    expect(r.code, r.out).toBe(0);
    // The report is the JSON object in the output (a Node-version notice may come before it).
    const report = JSON.parse(r.out.slice(r.out.indexOf('{'), r.out.lastIndexOf('}') + 1)) as { totals: { errors: number; warnings: number }; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);

  it('Spectral (spectral:oas): no finding of any severity', async () => {
    const r = await lint(bin('spectral'), ['lint', '--ruleset', '.spectral.yaml', '--fail-severity=hint', 'openapi/openapi.json']);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/No results with a severity of 'hint' or higher found/);
  }, 120_000);
});
