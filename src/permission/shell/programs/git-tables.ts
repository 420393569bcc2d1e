// What git accepts, from git 2.39 on Debian 12: its command list (`git --list-cmds=main`), the
// options of the subcommands judged read-only (`git <cmd> --git-completion-helper`, `-h`, and
// the revision/diff option documentation), and the configuration keys that name programs.
import { table } from '../getopt.js';

/** `git --list-cmds=main`, plus commands of newer releases and common add-ons. */
export const GIT_COMMANDS = new Set(
  (
    'add add--interactive am annotate apply archive bisect bisect--helper blame branch bugreport bundle cat-file ' +
    'check-attr check-ignore check-mailmap check-ref-format checkout checkout--worker checkout-index cherry ' +
    'cherry-pick clean clone column commit commit-graph commit-tree config count-objects credential ' +
    'credential-cache credential-cache--daemon credential-store daemon describe diagnose diff diff-files diff-index ' +
    'diff-tree difftool difftool--helper env--helper fast-export fast-import fetch fetch-pack filter-branch ' +
    'fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects fsmonitor--daemon gc ' +
    'get-tar-commit-id grep hash-object help hook http-backend http-fetch http-push imap-send index-pack init ' +
    'init-db instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge ' +
    'merge-base merge-file merge-index merge-octopus merge-one-file merge-ours merge-recursive merge-recursive-ours ' +
    'merge-recursive-theirs merge-resolve merge-subtree merge-tree mergetool mktag mktree multi-pack-index mv ' +
    'name-rev notes pack-objects pack-redundant pack-refs patch-id pickaxe prune prune-packed pull push ' +
    'quiltimport range-diff read-tree rebase receive-pack reflog remote remote-ext remote-fd remote-ftp ' +
    'remote-ftps remote-http remote-https repack replace request-pull rerere reset restore rev-list rev-parse ' +
    'revert rm send-pack sh-i18n--envsubst shell shortlog show show-branch show-index show-ref sparse-checkout ' +
    'stage stash status stripspace submodule submodule--helper subtree switch symbolic-ref tag unpack-file ' +
    'unpack-objects update-index update-ref update-server-info upload-archive upload-archive--writer upload-pack ' +
    'var verify-commit verify-pack verify-tag version web--browse whatchanged worktree write-tree ' +
    // newer releases
    'backfill last-modified refs replay repo scalar ' +
    // add-ons found on PATH
    'lfs send-email svn p4 gui citool cvsimport cvsserver cvsexportcommit archimport gitk'
  ).split(' '),
);

// Revision options (rev-list-options), diff options (`git diff --git-completion-helper`) and
// the log/show ones, shared by diff, log, show, rev-list and whatchanged.
const DIFF_LONG =
  'patch no-patch unified[=] function-context no-function-context raw patch-with-raw patch-with-stat numstat ' +
  'shortstat dirstat[=] cumulative dirstat-by-file[=] check summary name-only name-status stat[=] stat-width= ' +
  'stat-name-width= stat-graph-width= stat-count= compact-summary no-compact-summary binary full-index ' +
  'no-full-index color[=] no-color ws-error-highlight= abbrev[=] no-abbrev src-prefix= dst-prefix= line-prefix= ' +
  'no-prefix default-prefix inter-hunk-context= output-indicator-new= output-indicator-old= ' +
  'output-indicator-context= break-rewrites[=] find-renames[=] no-renames irreversible-delete find-copies[=] ' +
  'find-copies-harder no-find-copies-harder rename-empty no-rename-empty follow no-follow minimal no-minimal ' +
  'ignore-all-space ignore-space-change ignore-space-at-eol ignore-cr-at-eol ignore-blank-lines ' +
  'ignore-matching-lines= no-ignore-matching-lines indent-heuristic no-indent-heuristic patience histogram ' +
  'diff-algorithm= anchored= word-diff[=] word-diff-regex= color-words[=] color-moved[=] no-color-moved ' +
  'color-moved-ws= no-color-moved-ws relative[=] no-relative text no-text exit-code no-exit-code quiet no-quiet ' +
  'ext-diff no-ext-diff textconv no-textconv ignore-submodules[=] submodule[=] ita-invisible-in-index ' +
  'ita-visible-in-index pickaxe-all pickaxe-regex rotate-to= skip-to= find-object= diff-filter= output= ' +
  'cached staged merge-base no-index base ours theirs cc combined-all-paths diff-merges= no-diff-merges ' +
  'remerge-diff dd';
const REV_LONG =
  'all branches[=] tags[=] remotes[=] glob= exclude= exclude-hidden= reflog alternate-refs single-worktree ' +
  'ignore-missing bisect stdin cherry-mark cherry-pick left-only right-only cherry walk-reflogs merge boundary ' +
  'simplify-by-decoration full-history dense sparse simplify-merges ancestry-path[=] show-pulls first-parent ' +
  'exclude-first-parent-only not no-walk[=] do-walk merges no-merges min-parents= max-parents= no-min-parents ' +
  'no-max-parents topo-order date-order author-date-order reverse objects in-commit-order objects-edge ' +
  'objects-edge-aggressive indexed-objects unpacked object-names no-object-names filter= no-filter ' +
  'filter-provided-objects filter-print-omitted missing= exclude-promisor-objects timestamp left-right graph ' +
  'show-linear-break[=] count max-count= skip= since= after= until= before= since-as-filter= author= committer= ' +
  'grep-reflog= grep= all-match invert-grep regexp-ignore-case basic-regexp extended-regexp fixed-strings ' +
  'perl-regexp remove-empty pretty[=] format= abbrev-commit no-abbrev-commit oneline encoding= expand-tabs[=] ' +
  'no-expand-tabs notes[=] no-notes show-notes[=] standard-notes no-standard-notes show-signature relative-date ' +
  'date= parents children header no-commit-header commit-header disk-usage[=] bisect-vars bisect-all progress= ' +
  'use-bitmap-index no-graph';
const LOG_LONG =
  'source no-source use-mailmap no-use-mailmap mailmap no-mailmap clear-decorations decorate-refs= ' +
  'decorate-refs-exclude= no-decorate-refs no-decorate-refs-exclude decorate[=] no-decorate log-size full-diff ' +
  'show-origin';

const REV_DIFF = table({
  short: 'pusU::zM::C::B::DS:G:O:RabwWX::I:l:n:igEFPcmtrL:q',
  long: `${DIFF_LONG} ${REV_LONG} ${LOG_LONG} help`,
  write: ['output'],
  exec: ['ext-diff', 'textconv'],
  numeric: true,
});

/** Option tables of the subcommands that can be read-only. */
export const GIT_READ_ONLY_TABLES = {
  status: table({
    short: 'vsbzu::M::',
    long:
      'verbose no-verbose short no-short branch no-branch show-stash no-show-stash ahead-behind no-ahead-behind ' +
      'porcelain[=] no-porcelain long no-long null no-null untracked-files[=] no-untracked-files ignored[=] ' +
      'no-ignored ignore-submodules[=] no-ignore-submodules column[=] no-column no-renames find-renames[=] renames help',
  }),
  diff: REV_DIFF,
  log: REV_DIFF,
  show: REV_DIFF,
  'rev-list': REV_DIFF,
  whatchanged: REV_DIFF,
  'ls-files': table({
    short: 'ztvfcdmoiskux:X:',
    long:
      'cached no-cached deleted no-deleted modified no-modified others no-others ignored no-ignored stage no-stage ' +
      'killed no-killed directory no-directory eol no-eol empty-directory no-empty-directory unmerged no-unmerged ' +
      'resolve-undo no-resolve-undo exclude= exclude-from= exclude-per-directory= no-exclude-per-directory ' +
      'exclude-standard full-name recurse-submodules no-recurse-submodules error-unmatch no-error-unmatch ' +
      'with-tree= no-with-tree abbrev[=] no-abbrev debug no-debug deduplicate no-deduplicate sparse no-sparse format= help',
  }),
  'ls-tree': table({
    short: 'drtzl',
    long: 'long name-only name-status object-only full-name no-full-name full-tree no-full-tree format= abbrev[=] no-abbrev help',
  }),
  blame: table({
    short: 'bfnpctlsewS:C::M::L:',
    long:
      'incremental no-incremental root no-root show-stats no-show-stats progress no-progress score-debug ' +
      'no-score-debug show-name no-show-name show-number no-show-number porcelain no-porcelain line-porcelain ' +
      'no-line-porcelain show-email no-show-email ignore-rev= no-ignore-rev ignore-revs-file= no-ignore-revs-file ' +
      'color-lines no-color-lines color-by-age no-color-by-age minimal no-minimal contents= no-contents abbrev[=] ' +
      'no-abbrev date= reverse= first-parent encoding= help',
  }),
  describe: table({
    long:
      'contains no-contains debug no-debug all no-all tags no-tags long no-long first-parent no-first-parent ' +
      'abbrev[=] no-abbrev exact-match no-exact-match candidates= no-candidates match= no-match exclude= ' +
      'no-exclude always no-always dirty[=] no-dirty broken[=] no-broken help',
  }),
  'merge-base': table({ short: 'a', long: 'all no-all octopus independent is-ancestor fork-point help' }),
  // rev-parse has a parser of its own and does not abbreviate.
  'rev-parse': table({
    short: 'q',
    long:
      'show-toplevel show-prefix show-cdup git-dir git-common-dir absolute-git-dir is-inside-git-dir ' +
      'is-inside-work-tree is-bare-repository is-shallow-repository show-superproject-working-tree ' +
      'shared-index-path show-object-format[=] show-ref-format verify quiet short[=] abbrev-ref[=] symbolic ' +
      'symbolic-full-name sq sq-quote not all branches[=] tags[=] remotes[=] glob= exclude= exclude-hidden= ' +
      'disambiguate= default= prefix= since= after= until= before= resolve-git-dir= git-path= path-format= ' +
      'local-env-vars stop-at-non-option keep-dashdash flags no-flags revs-only no-revs end-of-options',
    abbreviate: false,
  }),
  // Listing only: every option that creates, deletes, moves or configures a branch is absent.
  branch: table({
    short: 'vqrali',
    long:
      'verbose no-verbose quiet remotes all list show-current color[=] no-color column[=] no-column contains= ' +
      'no-contains= merged= no-merged= points-at= sort= format= ignore-case omit-empty abbrev[=] no-abbrev help',
  }),
} as const;

/**
 * Options that write or run something, by subcommand (`*` for every one), long names with
 * their abbreviations and short letters. `--text` is exact and safe, not `--textconv`.
 */
export const GIT_DANGEROUS: Record<string, { long: Record<string, 'write' | 'exec'>; short?: Record<string, 'write' | 'exec'> }> = {
  '*': { long: { output: 'write', 'ext-diff': 'exec', textconv: 'exec' } },
  grep: { long: { 'open-files-in-pager': 'exec' }, short: { O: 'exec' } },
  clone: { long: { 'upload-pack': 'exec', template: 'exec', config: 'exec' }, short: { u: 'exec', c: 'exec' } },
  fetch: { long: { 'upload-pack': 'exec' } },
  pull: { long: { 'upload-pack': 'exec' } },
  'ls-remote': { long: { 'upload-pack': 'exec' } },
  archive: { long: { exec: 'exec', output: 'write' }, short: { o: 'write' } },
  push: { long: { 'receive-pack': 'exec', exec: 'exec' } },
  'send-pack': { long: { 'receive-pack': 'exec', exec: 'exec' } },
  init: { long: { template: 'exec' } },
  'init-db': { long: { template: 'exec' } },
  rebase: { long: { exec: 'exec' }, short: { x: 'exec' } },
  difftool: { long: { extcmd: 'exec', tool: 'exec' }, short: { x: 'exec', t: 'exec' } },
  mergetool: { long: { tool: 'exec' }, short: { t: 'exec' } },
  config: { long: { edit: 'exec' }, short: { e: 'exec' } },
  'format-patch': { long: { 'output-directory': 'write' }, short: { o: 'write' } },
  'send-email': { long: { 'smtp-server': 'exec', 'to-cmd': 'exec', 'cc-cmd': 'exec', 'header-cmd': 'exec', 'sendmail-cmd': 'exec' } },
  'for-each-repo': { long: { config: 'exec' } },
  'filter-branch': {
    long: {
      'env-filter': 'exec', 'tree-filter': 'exec', 'index-filter': 'exec', 'parent-filter': 'exec', 'msg-filter': 'exec',
      'commit-filter': 'exec', 'tag-name-filter': 'exec', 'subdirectory-filter': 'exec', setup: 'exec',
    },
  },
};

/** Safe options whose names are prefixes of dangerous ones: an exact match wins. */
export const GIT_SAFE_PREFIXES = new Set(['text', 'no-text', 'exec-path', 'config-env', 'output-indicator-new', 'output-indicator-old', 'output-indicator-context']);

/** Subcommands that run a program or code however they are called. */
export const GIT_EXEC_SUBCOMMANDS: Record<string, string> = {
  'filter-branch': 'git filter-branch runs shell filters',
  instaweb: 'git instaweb starts a web server and a browser',
  'web--browse': 'git web--browse starts a browser',
  hook: 'git hook runs repository hooks',
};

/** Operands that make a subcommand run a command (`git submodule foreach CMD`, `git bisect run CMD`). */
export const GIT_EXEC_OPERANDS: Record<string, string> = { submodule: 'foreach', bisect: 'run' };

/** Configuration keys whose value is a program, code, or a redirection of what git runs. */
export const GIT_EXEC_CONFIG =
  /^(alias\..+|core\.(fsmonitor|pager|editor|sshcommand|hookspath|askpass|gitproxy|worktree|alternaterefscommand)|diff\.(external|tool|guitool)|diff\..+\.(textconv|command)|difftool\..+|merge\.(tool|guitool)|merge\..+\.driver|mergetool\..+|filter\..+|credential\.(.+\.)?helper|gpg\.program|gpg\..+\.(program|defaultkeycommand)|sequence\.editor|uploadpack\.packobjectshook|pager\..+|web\.browser|browser\..+\.(cmd|path)|man\.viewer|man\..+\.(cmd|path)|sendemail\.(smtpserver|tocmd|cccmd|headercmd|sendmailcmd)|include\.path|includeif\..+\.path|remote\..+\.(uploadpack|receivepack|vcs)|url\..+\.(insteadof|pushinsteadof)|protocol\.(.+\.)?allow|ssh\.variant|submodule\..+\.update|init\.templatedir|instaweb\..+|help\.autocorrect|trailer\..+\.(command|cmd)|imap\.tunnel|safe\.directory|receive\.procreceiverefs)$/i;
