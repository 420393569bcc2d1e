// Option tables of file-viewing and text programs, taken from their --help on Debian 12
// (coreutils 9.1, diffutils 3.8, grep 3.8, file 5.44, ripgrep 13) and tree 2.x's manual. Every
// option that writes or runs something is listed with its effect, so that an abbreviation or
// an exact name resolves to it (`sort --outp` is `--output`).
import { table } from '../getopt.js';
import type { ProgramSpec } from './spec.js';
import { wordDanger } from './spec.js';

const GNU = 'help version';

const cat = table({ short: 'AbeEnstTuv', long: `show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting ${GNU}` });
const head = table({ short: 'c:n:qvz', long: `bytes= lines= quiet silent verbose zero-terminated ${GNU}`, numeric: true });
const tail = table({
  short: 'c:n:fFqs:vz',
  long: `bytes= follow[=] lines= max-unchanged-stats= pid= quiet silent retry sleep-interval= verbose zero-terminated ${GNU}`,
  numeric: true,
});
const wc = table({ short: 'clLmw', long: `bytes chars lines files0-from= max-line-length words total= ${GNU}` });
const ls = table({
  short: 'aAbBcCdDfFgGhHiI:klLmnNopqQrRsStT:uUvw:xXZ1',
  long:
    'all almost-all author escape block-size= ignore-backups color[=] directory dired classify[=] file-type format= ' +
    'full-time group-directories-first no-group human-readable si dereference-command-line ' +
    'dereference-command-line-symlink-to-dir hide= hyperlink[=] indicator-style= inode ignore= kibibytes dereference ' +
    'numeric-uid-gid literal hide-control-chars show-control-chars quote-name quoting-style= reverse recursive size ' +
    `sort= time= time-style= tabsize= width= context zero ${GNU}`,
});
const stat = table({ short: 'c:fLt', long: `dereference file-system cached= format= printf= terse ${GNU}` });
const du = table({
  short: '0abB:cDd:hHklLmPSst:xX:',
  long:
    'null all apparent-size block-size= bytes total dereference-args max-depth= files0-from= human-readable inodes ' +
    'count-links dereference no-dereference separate-dirs si summarize threshold= time[=] time-style= exclude-from= ' +
    `exclude= one-file-system ${GNU}`,
});
const df = table({
  short: 'aB:hHiklPt:Tx:v',
  long: `all block-size= human-readable si inodes local no-sync output[=] portability sync total type= print-type exclude-type= ${GNU}`,
});
const cut = table({ short: 'b:c:d:f:nsz', long: `bytes= characters= delimiter= fields= complement only-delimited output-delimiter= zero-terminated ${GNU}` });
const tr = table({ short: 'cCdst', long: `complement delete squeeze-repeats truncate-set1 ${GNU}` });
const diff = table({
  short: '0123456789abBcC:dD:eEF:hHiI:lL:nNpPqrsS:tTuU:vwW:x:X:yZ',
  long:
    'normal brief report-identical-files context[=] unified[=] ed rcs side-by-side width= left-column ' +
    'suppress-common-lines show-c-function show-function-line= label= expand-tabs initial-tab tabsize= ' +
    'suppress-blank-empty paginate recursive no-dereference new-file unidirectional-new-file ignore-file-name-case ' +
    'no-ignore-file-name-case exclude= exclude-from= starting-file= from-file= to-file= ignore-case ' +
    'ignore-tab-expansion ignore-trailing-space ignore-space-change ignore-all-space ignore-blank-lines ' +
    'ignore-matching-lines= text strip-trailing-cr ifdef= old-group-format= new-group-format= unchanged-group-format= ' +
    'changed-group-format= line-format= old-line-format= new-line-format= unchanged-line-format= minimal ' +
    `horizon-lines= speed-large-files color[=] palette= binary ${GNU}`,
  // --paginate pipes the output through pr(1).
  exec: ['l', 'paginate'],
  numeric: true,
});
const cmp = table({ short: 'bi:ln:sv', long: `print-bytes ignore-initial= verbose bytes= quiet silent ${GNU}` });
const sort = table({
  short: 'bcCdfghik:mMno:rRsS:t:T:uVy:z',
  long:
    'ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort ' +
    'human-numeric-sort numeric-sort random-sort random-source= reverse sort= version-sort batch-size= check[=] ' +
    'compress-program= debug files0-from= key= merge output= stable buffer-size= field-separator= ' +
    `temporary-directory= parallel= unique zero-terminated ${GNU}`,
  // -T puts temporary files into a directory of the caller's choosing.
  write: ['o', 'output', 'T', 'temporary-directory'],
  exec: ['compress-program'],
});
const uniq = table({
  short: 'cdDf:is:uw:z',
  long: `count repeated all-repeated[=] skip-fields= group[=] ignore-case skip-chars= unique zero-terminated check-chars= ${GNU}`,
  numeric: true,
});
const date = table({
  short: 'd:f:I::r:Rs:u',
  long: `date= debug file= iso-8601[=] resolution rfc-email rfc-822 rfc-2822 rfc-3339= reference= set= utc universal uct ${GNU}`,
  // Setting the clock.
  write: ['s', 'set'],
});
const file = table({
  short: 'bcCde:Ef:F:hiklLm:nNpP:rsSvzZ0',
  long:
    'magic-file= uncompress uncompress-noreport brief checking-printout exclude= exclude-quiet= files-from= separator= ' +
    'mime apple extension mime-type mime-encoding keep-going list dereference no-dereference no-buffer no-pad print0 ' +
    `preserve-date parameter= raw special-files no-sandbox compile debug ${GNU}`,
  // --compile writes a .mgc file; --preserve-date writes access times back.
  write: ['C', 'compile', 'p', 'preserve-date'],
});
const realpath = table({ short: 'eLmPqsz', long: `canonicalize-existing canonicalize-missing logical physical quiet relative-to= relative-base= strip no-symlinks zero ${GNU}` });
const readlink = table({ short: 'efmnqsvz', long: `canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero ${GNU}` });
const basename = table({ short: 'as:z', long: `multiple suffix= zero ${GNU}` });
const dirname = table({ short: 'z', long: `zero ${GNU}` });
const id = table({ short: 'aZgGnruz', long: `context group groups name real user zero ${GNU}` });
const uname = table({
  short: 'asnrvmpio',
  long: `all kernel-name nodename kernel-release kernel-version machine processor hardware-platform operating-system sysname release ${GNU}`,
});
const whoami = table({ long: GNU });
const grep = table({
  short: '0123456789A:B:C:D:EFGHILPRTUVZabcd:e:f:hilm:noqrsuvwxyz',
  long:
    'extended-regexp fixed-strings basic-regexp perl-regexp regexp= file= ignore-case no-ignore-case word-regexp ' +
    'line-regexp null-data no-messages invert-match max-count= byte-offset line-number line-buffered with-filename ' +
    'no-filename label= only-matching quiet silent binary-files= text directories= devices= recursive ' +
    'dereference-recursive include= exclude= exclude-from= exclude-dir= files-without-match files-with-matches count ' +
    `initial-tab null before-context= after-context= context= group-separator= no-group-separator color[=] colour[=] binary ${GNU}`,
  numeric: true,
});
// tree parses its own options: no abbreviations.
const tree = table({
  short: 'aAcCdDfFghH:iI:JlL:nNo:pP:qQrRsStT:uUvxX',
  long:
    'inodes device noreport nolinks dirsfirst filesfirst charset= filelimit= si du prune timefmt= sort= fromfile ' +
    `fromtabfile fflinks gitignore gitfile= ignore-case matchdirs metafirst info infofile= hintro= houtro= opt-toggle output= ${GNU}`,
  // -R re-runs tree into 00Tree.html files below each directory (with -H and -o).
  write: ['o', 'output', 'R'],
  abbreviate: false,
});
// ripgrep 13 parses with clap: no abbreviations.
const RG_NO = 'auto-hybrid-regex binary block-buffered column config context-separator crlf encoding filename fixed-strings follow glob-case-insensitive heading hidden ignore ignore-dot ignore-exclude ignore-file-case-insensitive ignore-files ignore-global ignore-messages ignore-parent ignore-vcs include-zero invert-match json line-buffered line-number max-columns-preview messages mmap multiline multiline-dotall one-file-system pcre2 pcre2-unicode pre require-git search-zip sort-files stats text trim unicode';
const rg = table({
  short: 'A:B:C:E:FHILM:NPST:UVabce:f:g:hij:lm:nopqr:st:uvwxz0.',
  long:
    'after-context= auto-hybrid-regex before-context= binary block-buffered byte-offset case-sensitive color= colors= ' +
    'column context= context-separator= count count-matches crlf debug dfa-size-limit= encoding= engine= ' +
    'field-context-separator= field-match-separator= file= files files-with-matches files-without-match fixed-strings ' +
    'follow glob= glob-case-insensitive heading hidden iglob= ignore-case ignore-file= ignore-file-case-insensitive ' +
    'include-zero invert-match json line-buffered line-number line-regexp max-columns= max-columns-preview max-count= ' +
    'max-depth= max-filesize= mmap multiline multiline-dotall null null-data one-file-system only-matching passthru ' +
    'passthrough path-separator= pcre2 pcre2-version pre= pre-glob= pretty quiet regex-size-limit= regexp= replace= ' +
    'search-zip smart-case sort= sortr= sort-files stats text threads= trim type= type-add= type-clear= type-list ' +
    'type-not= unrestricted vimgrep with-filename word-regexp trace hostname-bin= hyperlink-format= generate= ' +
    RG_NO.split(' ').map((n) => `no-${n}`).join(' ') +
    ` ${GNU}`,
  // --pre runs a program on every file searched; --hostname-bin runs one for hyperlinks.
  exec: ['pre', 'hostname-bin'],
  abbreviate: false,
});

const plain = (options: ReturnType<typeof table>): ProgramSpec => ({ options, readOnly: true });

export const TEXT_PROGRAMS: Record<string, ProgramSpec> = {
  cat: plain(cat),
  head: plain(head),
  tail: plain(tail),
  wc: plain(wc),
  ls: plain(ls),
  stat: plain(stat),
  du: plain(du),
  df: plain(df),
  cut: plain(cut),
  tr: plain(tr),
  diff: plain(diff),
  cmp: plain(cmp),
  sort: plain(sort),
  realpath: plain(realpath),
  readlink: plain(readlink),
  basename: plain(basename),
  dirname: plain(dirname),
  id: plain(id),
  uname: plain(uname),
  whoami: plain(whoami),
  grep: plain(grep),
  egrep: plain(grep),
  fgrep: plain(grep),
  file: plain(file),
  tree: plain(tree),
  rg: plain(rg),
  uniq: {
    options: uniq,
    readOnly: true,
    // uniq INPUT OUTPUT writes OUTPUT.
    operands: (p) => p.operands.length <= 1,
    dangers: (args, p) => p.operands.slice(1, 2).map((i) => wordDanger(args, i, 'write', 'uniq writes its second operand')),
  },
  date: {
    options: date,
    readOnly: true,
    // An operand other than +FORMAT sets the clock.
    operands: (p, args) => p.operands.every((i) => !args[i]!.dynamic && args[i]!.value.startsWith('+')),
    dangers: (args, p) =>
      p.operands
        .filter((i) => args[i]!.dynamic || !args[i]!.value.startsWith('+'))
        .map((i) => wordDanger(args, i, 'write', 'date sets the clock from an operand that is not +FORMAT')),
  },
};
