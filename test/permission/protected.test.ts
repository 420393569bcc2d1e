// Files that make programs run code (shell and readline startup files, git, package-manager,
// direnv, editor and ssh configuration) are protected like .git: every edit is asked about,
// whatever the mode and the allow rules, and denied where nobody can be asked.
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { evaluatePermission } from '../../src/permission/evaluate.js';
import { parseRules } from '../../src/permission/rules.js';
import { buildTool, textOutput } from '../../src/tools/tool.js';

const write = buildTool({
  name: 'Write',
  description: 'writes',
  inputSchema: Type.Object({}, { additionalProperties: true }),
  isFileEdit: true,
  isReadOnly: () => false,
  call: async () => textOutput('ok'),
});

const ROOT = '/ws';

function decide(rel: string, mode: 'default' | 'acceptEdits' | 'bypassPermissions' | 'dontAsk' | 'auto', allow: string[] = []) {
  const abs = rel.startsWith('/') ? rel : `${ROOT}/${rel}`;
  return evaluatePermission({
    tool: write,
    input: {},
    mode,
    rules: { allow: parseRules('allow', allow).rules, deny: [], ask: [] },
    toolCheck: { behavior: 'passthrough' },
    subject: { kind: 'paths', access: 'edit', paths: [{ lexical: abs, real: abs, isDir: false }] },
    root: ROOT,
  });
}

const PROTECTED = [
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zshenv', '.zprofile', '.zlogin',
  '.kshrc', '.mkshrc', '.inputrc', '.gitconfig', '.gitattributes', 'sub/.gitattributes', '.envrc', 'app/.envrc', '.npmrc',
  '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', '.ssh/config', '.ssh/authorized_keys', '.vscode/settings.json',
  '.vscode/tasks.json', '.idea/workspace.xml', '.devcontainer/devcontainer.json', '.config/git/config',
  '.config/git/attributes', '.yarn/releases/yarn-4.cjs', '/root/.bashrc', '/home/u/.ssh/rc', '.curlrc', '.vimrc',
];
const NOT_PROTECTED = ['.gitignore', '.editorconfig', 'src/bashrc.ts', '.config/app.json', 'config/git/x', '.yarn/cache/x.zip', 'notes.profile', '.prettierrc'];

describe('protected dotfiles', () => {
  it.each(PROTECTED)('%s: asked in default and acceptEdits, even with an allow rule and in bypassPermissions', (p) => {
    for (const mode of ['default', 'acceptEdits', 'bypassPermissions'] as const) {
      const d = decide(p, mode, ['Edit(**)', 'Write']);
      expect(d, `${p} ${mode}`).toMatchObject({ behavior: 'ask', decidedBy: 'protected_path' });
      expect(d.reason).toContain('is protected');
    }
    expect(decide(p, 'dontAsk', ['Write'])).toMatchObject({ behavior: 'deny', decidedBy: 'protected_path' });
    expect(decide(p, 'auto')).toMatchObject({ behavior: 'deny', decidedBy: 'protected_path' });
  });

  it.each(NOT_PROTECTED)('%s: an ordinary file', (p) => {
    expect(decide(p, 'acceptEdits')).toMatchObject({ behavior: 'allow', decidedBy: 'mode' });
  });

  it('names the protected part of the path', () => {
    expect(decide('.ssh/keys/id', 'default').reason).toMatch(/^\.ssh is protected/);
    expect(decide('.config/git/config', 'default').reason).toMatch(/^\.config\/git is protected/);
    expect(decide('x/.npmrc', 'default').reason).toMatch(/^x\/\.npmrc is protected/);
  });
});
