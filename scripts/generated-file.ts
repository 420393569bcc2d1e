// A committed file that a script generates: `write` replaces it, `check` exits 1 when the
// committed one differs (CI and a test run the check).
import fs from 'node:fs';
import path from 'node:path';

export function writeOrCheck(mode: string | undefined, file: string, generated: string, howToUpdate: string): void {
  const name = path.relative(process.cwd(), file);
  if (mode === 'write') {
    fs.writeFileSync(file, generated);
    console.log(`wrote ${name} (${generated.length} bytes)`);
  } else if (mode === 'check') {
    const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (committed !== generated) {
      console.error(`${name} is not what it is generated from: run \`${howToUpdate}\` and commit it`);
      process.exit(1);
    }
    console.log(`${name} is current`);
  } else {
    console.error('usage: write | check');
    process.exit(2);
  }
}
