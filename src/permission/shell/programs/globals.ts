// Global options that come before a program's subcommand (`git -C repo push`, `npm --prefix x
// install`, `kubectl -n prod delete`), and subcommand aliases (`npm i` is `npm install`): a deny
// or ask rule written for the subcommand must still match (pattern.ts).
//
// For each program the subcommand may start at several places (an unknown option may or may not
// take a value): every one is tried. Programs whose options may also follow the subcommand
// (kubectl, docker, helm, make …) are matched as a subsequence instead (pattern.ts).
import { resolveLong, table, type OptionTable } from '../getopt.js';
import type { SimpleCommand } from '../types.js';
import { baseName, literalArgs, own } from '../words.js';
import { gitSubcommandStart } from './git.js';

interface GlobalsSpec {
  options?: OptionTable;
  /** Single words to skip as well (cargo +toolchain, terraform -chdir=DIR). */
  skip?: (word: string) => boolean;
  /** Options may come anywhere: match the pattern's words as a subsequence. */
  interspersed?: boolean;
  /** The canonical name of a subcommand alias, or null. */
  canonical?: (word: string) => string | null;
}

// npm 11: lib/utils/cmd-list.js (commands, aliases; a unique abbreviation resolves too).
const NPM_COMMANDS =
  'access adduser approve-scripts audit bugs cache ci completion config dedupe deny-scripts deprecate diff dist-tag docs ' +
  'doctor edit exec explain explore find-dupes fund get help help-search init install install-ci-test install-scripts ' +
  'install-test link ll login logout ls org outdated owner pack ping pkg prefix profile prune publish query rebuild repo ' +
  'restart root run sbom search set shrinkwrap stage star stars start stop team test token trust undeprecate uninstall ' +
  'unpublish unstar update version view whoami';
const NPM_ALIASES: Record<string, string> = {
  author: 'owner', home: 'docs', issues: 'bugs', info: 'view', show: 'view', find: 'search', add: 'install',
  unlink: 'uninstall', remove: 'uninstall', rm: 'uninstall', r: 'uninstall', un: 'uninstall', rb: 'rebuild',
  list: 'ls', ln: 'link', create: 'init', i: 'install', it: 'install-test', cit: 'install-ci-test', u: 'update',
  up: 'update', c: 'config', s: 'search', se: 'search', tst: 'test', t: 'test', ddp: 'dedupe', v: 'view',
  'run-script': 'run', 'clean-install': 'ci', 'clean-install-test': 'install-ci-test', x: 'exec', why: 'explain',
  la: 'll', verison: 'version', ic: 'ci', innit: 'init', in: 'install', ins: 'install', inst: 'install',
  insta: 'install', instal: 'install', isnt: 'install', isnta: 'install', isntal: 'install', isntall: 'install',
  'install-clean': 'ci', 'isntall-clean': 'ci', hlep: 'help', 'dist-tags': 'dist-tag', upgrade: 'update',
  udpate: 'update', rum: 'run', sit: 'install-ci-test', urn: 'run', ogr: 'org', 'add-user': 'adduser',
};
const NPM_NAMES = [...NPM_COMMANDS.split(' '), ...Object.keys(NPM_ALIASES)].sort();

function npmCanonical(word: string): string | null {
  if (NPM_COMMANDS.split(' ').includes(word)) return word;
  const alias = own(NPM_ALIASES, word);
  if (alias) return alias;
  const hits = NPM_NAMES.filter((n) => n.startsWith(word));
  if (word === '' || hits.length !== 1) return null;
  let c = hits[0]!;
  for (let a = own(NPM_ALIASES, c); a; a = own(NPM_ALIASES, c)) c = a;
  return c;
}

const PNPM_ALIASES: Record<string, string> = {
  i: 'install', add: 'add', rm: 'remove', uninstall: 'remove', un: 'remove', uni: 'remove', up: 'update', upgrade: 'update',
  t: 'test', tst: 'test', 'run-script': 'run', ln: 'link', ls: 'list', la: 'list', ll: 'list', x: 'exec',
};
const CARGO_ALIASES: Record<string, string> = { b: 'build', c: 'check', d: 'doc', r: 'run', t: 'test', rm: 'remove' };
const aliasOf = (m: Record<string, string>) => (w: string): string | null => own(m, w) ?? w;

const KUBE_VALUE =
  'as= as-group= as-uid= cache-dir= certificate-authority= client-certificate= client-key= cluster= context= ' +
  'kubeconfig= log-flush-frequency= namespace= password= profile= profile-output= request-timeout= server= ' +
  'tls-server-name= token= user= username= v= vmodule=';

const GLOBALS: Record<string, GlobalsSpec> = {
  npm: {
    options: table({
      short: 'C:w:gsqdyfhlvDPOBES',
      long:
        'prefix= workspace= loglevel= userconfig= globalconfig= cache= registry= location= otp= tag= access= scope= ' +
        'include= omit= install-strategy= script-shell= node-options= cafile= workspaces include-workspace-root global ' +
        'silent quiet verbose json yes force dry-run if-present ignore-scripts',
    }),
    canonical: npmCanonical,
  },
  pnpm: {
    options: table({ short: 'C:F:wrgs', long: 'dir= filter= workspace-root recursive global silent reporter= loglevel= stream parallel workspace-concurrency=', abbreviate: false }),
    canonical: aliasOf(PNPM_ALIASES),
  },
  yarn: { options: table({ long: 'cwd= silent verbose offline frozen-lockfile non-interactive', abbreviate: false }) },
  cargo: {
    options: table({ short: 'C:Z:vqVh', long: 'config= color= list explain= locked offline frozen verbose quiet version help', abbreviate: false }),
    skip: (w) => w.startsWith('+'),
    canonical: aliasOf(CARGO_ALIASES),
  },
  terraform: { skip: (w) => /^-chdir=/.test(w) },
  docker: {
    options: table({ short: 'c:DH:l:v', long: 'config= context= debug host= log-level= tls tlscacert= tlscert= tlskey= tlsverify version', abbreviate: false }),
    interspersed: true,
  },
  podman: { interspersed: true },
  kubectl: {
    options: table({
      short: 'n:s:v:',
      long: `${KUBE_VALUE} disable-compression insecure-skip-tls-verify match-server-version warnings-as-errors`,
      abbreviate: false,
    }),
    interspersed: true,
  },
  helm: {
    options: table({
      short: 'n:',
      long:
        'namespace= kube-context= kubeconfig= debug registry-config= repository-cache= repository-config= burst-limit= ' +
        'kube-apiserver= kube-as-group= kube-as-user= kube-ca-file= kube-insecure-skip-tls-verify kube-tls-server-name= ' +
        'kube-token= qps=',
      abbreviate: false,
    }),
    interspersed: true,
  },
  make: { interspersed: true },
};

export interface Variant {
  /** Indices into argv, in order: the words this reading of the command consists of. */
  idx: readonly number[];
  /** Position (in idx) of the subcommand, when known. */
  sub: number | null;
  /** Match the pattern's words as a subsequence (options may come anywhere). */
  subsequence: boolean;
  canonical?: (word: string) => string | null;
}

/** Where the subcommand may start after leading options (indices into argv). */
function subcommandStarts(spec: GlobalsSpec, argv: readonly string[], dynamic: readonly boolean[]): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  const queue = [1];
  const t = spec.options;
  while (queue.length > 0) {
    const i = queue.pop()!;
    if (seen.has(i) || i >= argv.length) continue;
    seen.add(i);
    const w = argv[i]!;
    if (dynamic[i]) {
      out.push(i);
      queue.push(i + 1, i + 2);
      continue;
    }
    if (spec.skip?.(w)) {
      queue.push(i + 1);
      continue;
    }
    if (!w.startsWith('-') || w === '-') {
      out.push(i);
      continue;
    }
    if (w === '--') {
      queue.push(i + 1);
      continue;
    }
    const eq = w.indexOf('=');
    if (w.startsWith('--') && t) {
      const r = resolveLong(t, w.slice(2, eq === -1 ? undefined : eq));
      if (typeof r !== 'string') {
        queue.push(r.def.arg === 'required' && eq === -1 ? i + 2 : i + 1);
        continue;
      }
    } else if (t && !w.startsWith('--')) {
      let next = i + 1;
      let known = true;
      for (let k = 1; k < w.length; k++) {
        const d = t.short.get(w[k]!);
        if (!d) {
          known = false;
          break;
        }
        if (d.arg !== 'none') {
          if (k === w.length - 1 && d.arg === 'required') next = i + 2;
          break;
        }
      }
      if (known) {
        queue.push(next);
        continue;
      }
    }
    // Unknown: it may or may not take the next word as its value.
    queue.push(i + 1);
    if (eq === -1) queue.push(i + 2);
  }
  return out.sort((a, b) => a - b);
}

const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);

const lenientCache = new WeakMap<SimpleCommand, Variant[]>();
const allowCache = new WeakMap<SimpleCommand, Variant[]>();

/** The readings of a command a deny or ask rule is matched against (the command as written first). */
export function lenientVariants(cmd: SimpleCommand): Variant[] {
  let v = lenientCache.get(cmd);
  if (v) return v;
  const argv = cmd.argv;
  const identity: Variant = { idx: range(0, argv.length), sub: argv.length > 1 ? 1 : null, subsequence: false };
  v = [identity];
  const name = baseName(argv[0] ?? '');
  if (name === 'git' && !cmd.dynamic[0]) {
    const g = gitSubcommandStart(literalArgs(argv.slice(1)).map((a, i) => ({ ...a, dynamic: cmd.dynamic[i + 1] ?? false, mayBeOption: true })));
    if (g) v.push({ idx: [0, ...range(g.sub + 1, argv.length)], sub: 1, subsequence: false });
  }
  const spec = own(GLOBALS, name);
  if (spec && !cmd.dynamic[0]) {
    for (const s of subcommandStarts(spec, argv, cmd.dynamic)) {
      if (s !== 1) v.push({ idx: [0, ...range(s, argv.length)], sub: 1, subsequence: false, ...(spec.canonical ? { canonical: spec.canonical } : {}) });
    }
    if (spec.canonical) identity.canonical = spec.canonical;
    if (spec.interspersed) v.push({ idx: identity.idx, sub: null, subsequence: true });
  }
  lenientCache.set(cmd, v);
  return v;
}

/** The readings an allow rule is matched against: as written, and git without harmless global options. */
export function allowVariants(cmd: SimpleCommand): Variant[] {
  let v = allowCache.get(cmd);
  if (v) return v;
  const argv = cmd.argv;
  v = [{ idx: range(0, argv.length), sub: null, subsequence: false }];
  if (argv[0] === 'git' && !cmd.dynamic.slice(0, 1).some(Boolean)) {
    const g = gitSubcommandStart(literalArgs(argv.slice(1)).map((a, i) => ({ ...a, dynamic: cmd.dynamic[i + 1] ?? false, mayBeOption: true })));
    // A harmless option's value may be non-literal (`git -C "$dir" status`) only as a value.
    if (g?.harmless) v.push({ idx: [0, ...range(g.sub + 1, argv.length)], sub: 1, subsequence: false });
  }
  allowCache.set(cmd, v);
  return v;
}
