// tar (GNU tar 1.34, argp: long options abbreviate). Only listing (-t/--list, and --diff,
// which compares) with options known to be harmless is free of danger: every other operation
// writes, and --to-command, --checkpoint-action, -I/--use-compress-program, -F/--info-script,
// --rsh-command … run programs. A remote archive (`-f host:file`, without --force-local) runs
// rsh. The old bundled form (`tar tvf a.tar`) is understood.
import { parseArgs, table } from '../getopt.js';
import type { ArgWord } from '../words.js';
import { wordDanger, type ArgDanger, type ProgramSpec } from './spec.js';

const TAR = table({
  short: 'AcdrtuxGg:nSC:T:X:kUWOmpsf:F:L:Mb:BiH:V:aI:jJzZhK:N:PlRwov',
  long:
    'absolute-names acls add-file= after-date= anchored append atime-preserve[=] auto-compress backup[=] block-number ' +
    'blocking-factor= bzip2 catenate check-device check-links checkpoint-action= checkpoint[=] clamp-mtime compare ' +
    'compress concatenate confirmation create delay-directory-restore delete dereference diff directory= ' +
    'exclude-backups exclude-caches exclude-caches-all exclude-caches-under exclude-from= exclude-ignore-recursive= ' +
    'exclude-ignore= exclude-tag-all= exclude-tag-under= exclude-tag= exclude-vcs exclude-vcs-ignores exclude= extract ' +
    'file= files-from= force-local format= full-time get group-map= group= gunzip gzip hard-dereference help ' +
    'hole-detection= ignore-case ignore-command-error ignore-failed-read ignore-zeros incremental index-file= ' +
    'info-script= interactive keep-directory-symlink keep-newer-files keep-old-files label= level= list ' +
    'listed-incremental= lzip lzma lzop mode= mtime= multi-volume new-volume-script= newer-mtime= newer= no-acls ' +
    'no-anchored no-auto-compress no-check-device no-delay-directory-restore no-ignore-case no-ignore-command-error ' +
    'no-null no-overwrite-dir no-quote-chars= no-recursion no-same-owner no-same-permissions no-seek no-selinux ' +
    'no-unquote no-verbatim-files-from no-wildcards no-wildcards-match-slash no-xattrs null numeric-owner ' +
    'occurrence[=] old-archive one-file-system one-top-level[=] overwrite overwrite-dir owner-map= owner= ' +
    'pax-option= portability posix preserve-order preserve-permissions quote-chars= quoting-style= ' +
    'read-full-records record-size= recursion recursive-unlink remove-files restrict rmt-command= rsh-command= ' +
    'same-order same-owner same-permissions seek selinux show-defaults show-omitted-dirs ' +
    'show-snapshot-field-ranges show-stored-names show-transformed-names skip-old-files sort= sparse ' +
    'sparse-version= starting-file= strip-components= suffix= tape-length= test-label to-command= to-stdout ' +
    'totals[=] touch transform= uncompress ungzip unlink-first unquote update usage use-compress-program= utc ' +
    'verbatim-files-from verbose verify version volno-file= warning= wildcards wildcards-match-slash xattrs ' +
    'xattrs-exclude= xattrs-include= xform= xz zstd',
  exec: ['to-command', 'checkpoint-action', 'use-compress-program', 'I', 'info-script', 'new-volume-script', 'F', 'rsh-command', 'rmt-command'],
  write: [
    'A', 'c', 'r', 'u', 'x', 'catenate', 'concatenate', 'create', 'append', 'update', 'extract', 'get', 'delete',
    'index-file', 'listed-incremental', 'g', 'remove-files', 'volno-file',
  ],
});

/** Options harmless while listing (short letters and long names). */
const LISTING = new Set([
  't', 'd', 'f', 'v', 'z', 'j', 'J', 'Z', 'a', 'C', 'T', 'X', 'b', 'B', 'i', 'R', 'O', 'h', 'P', 'n', 'H', 'K', 'N', 'l', 'S', 's', 'w', 'o', 'V',
  'list', 'diff', 'compare', 'test-label', 'show-defaults', 'file', 'verbose', 'gzip', 'gunzip', 'ungzip', 'bzip2', 'xz', 'lzip',
  'lzma', 'lzop', 'zstd', 'compress', 'uncompress', 'auto-compress', 'no-auto-compress', 'directory', 'files-from',
  'exclude-from', 'exclude', 'exclude-vcs', 'exclude-vcs-ignores', 'exclude-backups', 'exclude-caches', 'exclude-caches-all',
  'exclude-caches-under', 'exclude-tag', 'exclude-tag-all', 'exclude-tag-under', 'exclude-ignore', 'exclude-ignore-recursive',
  'anchored', 'no-anchored', 'wildcards', 'no-wildcards', 'wildcards-match-slash', 'no-wildcards-match-slash', 'ignore-case',
  'no-ignore-case', 'blocking-factor', 'record-size', 'read-full-records', 'ignore-zeros', 'block-number', 'totals',
  'checkpoint', 'quoting-style', 'quote-chars', 'no-quote-chars', 'utc', 'numeric-owner', 'full-time',
  'show-transformed-names', 'show-stored-names', 'show-omitted-dirs', 'transform', 'xform', 'strip-components', 'occurrence',
  'null', 'no-null', 'verbatim-files-from', 'no-verbatim-files-from', 'unquote', 'no-unquote', 'format', 'label',
  'check-links', 'absolute-names', 'dereference', 'hard-dereference', 'warning', 'seek', 'no-seek', 'force-local',
  'to-stdout', 'starting-file', 'newer', 'after-date', 'newer-mtime', 'one-file-system', 'recursion', 'no-recursion',
  'ignore-failed-read', 'restrict', 'sparse', 'sparse-version', 'preserve-order', 'same-order', 'interactive', 'confirmation',
  'usage', 'help', 'version', 'no-xattrs', 'no-acls', 'no-selinux', 'posix', 'portability', 'old-archive',
]);

const bare = (name: string): string => name.replace(/^--?/, '');

function tarDangers(args: readonly ArgWord[]): ArgDanger[] {
  const out: ArgDanger[] = [];
  const archives: number[] = [];
  let start = 0;
  // Old style: the first word is a bundle of option letters whose values follow in order.
  const first = args[0];
  if (first && !first.dynamic && /^[A-Za-z]+$/.test(first.value)) {
    let next = 1;
    for (const ch of first.value) {
      const def = TAR.short.get(ch);
      if (!def || !LISTING.has(ch)) {
        out.push(wordDanger(args, 0, def?.effect ?? 'write', `tar ${ch} ${def ? 'is not a listing option' : 'is not known'}`));
        break;
      }
      if (def.arg === 'required') {
        if (ch === 'f') archives.push(next);
        next++;
      }
    }
    start = next;
  }
  const p = parseArgs(TAR, args, start);
  for (const o of p.options) {
    if (LISTING.has(bare(o.name))) {
      if (o.name === '-f' || o.name === '--file') archives.push(o.valueIndex ?? o.index);
      continue;
    }
    // Options that write or run something are dangers already (read-only.ts); the others are
    // not known to be harmless.
    if (o.effect === null) out.push({ index: o.index, kind: 'write', description: `tar ${o.name} is not a listing option`, spelling: o.spelling });
  }
  for (const pr of p.problems) if (pr.kind === 'unknown') out.push(wordDanger(args, pr.index, 'exec', `tar: ${pr.message}`));
  const forceLocal = p.options.some((o) => o.name === '--force-local');
  for (const i of archives) {
    const w = args[i];
    if (w === undefined || forceLocal) continue;
    const v = w.value;
    if (w.dynamic || /^[^/]*:/.test(v)) out.push(wordDanger(args, i, 'exec', 'tar reaches an archive named host:file through a remote shell'));
  }
  return out;
}

export const TAR_SPEC: ProgramSpec = { options: TAR, readOnly: false, dangers: (args) => tarDangers(args) };

