// `npm install` on the Node.js this suite runs on (20.19+) prints no EBADENGINE warning: every
// package the lock file installs accepts this Node version (what npm checks for that warning).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean }>;
};
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };

describe('engines', () => {
  it('every installed package accepts the running Node.js, and package.json asks for no less than they need', () => {
    const refused: string[] = [];
    let checked = 0;
    for (const [where, p] of Object.entries(lock.packages)) {
      const range = p.engines && !Array.isArray(p.engines) ? p.engines.node : undefined;
      if (!where || !range) continue;
      checked++;
      if (!semver.satisfies(process.version, range, { includePrerelease: true })) refused.push(`${where}@${p.version}: node ${range}`);
      // The lowest Node package.json allows must satisfy the package too.
      const lowest = semver.minVersion(pkg.engines.node)!;
      if (!semver.satisfies(lowest, range)) refused.push(`${where}@${p.version}: node ${range} excludes ${lowest} (package.json engines)`);
    }
    expect(checked).toBeGreaterThan(100);
    expect(refused).toEqual([]);
  });
});
