// The launcher: a few lines of bash between the server and bwrap, the same for every sandboxed
// process (commands, tasks, PTY shells, command hooks, ripgrep). It runs on the host with an empty
// environment and, before it becomes bwrap:
//   1. closes every descriptor but 0-2 and the ones it was told to keep: descriptors the server
//      holds without close-on-exec (node-pty's masters of other sessions' shells, anything its
//      own parent passed down) never reach a sandbox;
//   2. joins the command's cgroup leaf, if any, so everything it starts is counted there;
//   3. sets its rlimits (inherited by everything inside);
//   4. opens bwrap's argument list and seccomp program as pipes from its own arguments, so the
//      sandbox's view of its PID 1 (`/proc/1/cmdline`) shows `bwrap --args 4 -- <command>` and no
//      host path,
//      and `/proc/1/environ` is empty (`exec -c`);
//   5. execs bwrap, under nice when a CPU share must be had without cgroups — for a server running
//      as root, through setpriv as the sandbox's unprivileged user (sandbox-user.ts): after 2 and
//      3, which need root, so the cgroup is joined and the limits set before the drop, and before
//      bwrap, so nothing inside ever had root's ids.
// Arguments: keep-fds cgroup-procs rlimits nice seccomp-escapes|piped drop -- bwrap N option₁…optionN|piped command…
// (drop: setpriv's argv joined by spaces, or empty)

/** Descriptor numbers the launcher opens for bwrap. */
export const ARGS_FD = 4;
export const SECCOMP_FD = 5;

export const LAUNCHER_SCRIPT = [
  "set -u",
  "keep=\" $1 \"; cg=$2; lims=$3; nice=$4; bpf=$5; drop=$6; shift 7",
  "set -f; IFS=' '; run=($drop); IFS=:",
  "for f in $cg; do",
  "  printf '%s\\n' \"$$\" > \"$f\" || { printf 'norma sandbox: cannot join cgroup %s\\n' \"$f\" >&2; exit 125; }",
  "done",
  "IFS=' '",
  "for l in $lims; do",
  "  ulimit -S -H \"-${l%%=*}\" \"${l#*=}\" 2>/dev/null || ulimit -S \"-${l%%=*}\" \"${l#*=}\" 2>/dev/null || true",
  "done",
  "set +f; IFS=$' \\t\\n'",
  "bwrap=$1; n=$2; shift 2",
  "if [ \"$n\" = piped ]; then keep=\"$keep 4 \"; else exec 4< <(printf '%s\\0' \"${@:1:n}\"); shift \"$n\"; keep=\"$keep 4 \"; fi",
  "if [ \"$bpf\" = piped ]; then keep=\"$keep 5 \"; elif [ -n \"$bpf\" ]; then exec 5< <(printf \"$bpf\"); keep=\"$keep 5 \"; fi",
  "for f in /proc/self/fd/*; do",
  "  n=${f##*/}",
  "  case $n in 0|1|2) continue ;; esac",
  "  case $keep in *\" $n \"*) continue ;; esac",
  "  eval \"exec $n>&-\" 2>/dev/null",
  "done",
  // The sandbox user may not pass through the server's working directory: bwrap starts from /.
  "[ ${#run[@]} -eq 0 ] || cd /",
  "if [ \"$nice\" != 0 ]; then exec -c ${run[@]+\"${run[@]}\"} \"${nice%% *}\" -n \"${nice#* }\" \"$bwrap\" --args 4 -- \"$@\"; fi",
  "exec -c ${run[@]+\"${run[@]}\"} \"$bwrap\" --args 4 -- \"$@\"",
].join('\n');

export interface LaunchPlan {
  /** Descriptors (beyond 0-2) the server passes and bwrap uses, e.g. its --info-fd. */
  keepFds: number[];
  /** cgroup.procs files to join (none without cgroups). */
  cgroupProcs: string[];
  /** `letter=value …` for bash ulimit (see limits.ts rlimitSpec). */
  rlimits: string;
  /** `/usr/bin/nice <increment>`, or null for none. */
  nice: string | null;
  /** setpriv's argv (sandbox-user.ts setprivArgv) to become the sandbox user before bwrap; null: no change of user. */
  drop?: string[] | null;
  seccomp: Buffer | null;
  bwrapPath: string;
  /** bwrap's options (they travel through the args pipe, out of the sandbox's sight). */
  bwrapArgs: string[];
  /** The program and its arguments, run inside. */
  command: string[];
  /**
   * The server itself passes bwrap's options on descriptor 4 and the seccomp program on 5
   * (execa can; node-pty cannot, and then the launcher makes the pipes from its arguments).
   */
  piped?: boolean;
}

/** printf escapes for binary data (the seccomp program), so it can travel as an argument. */
export function printfEscapes(data: Buffer): string {
  let out = '';
  for (const b of data) out += `\\x${b.toString(16).padStart(2, '0')}`;
  return out;
}

/** The argv of the launcher for a plan: `/bin/bash … -c SCRIPT …`. */
export function launcherArgv(plan: LaunchPlan): string[] {
  for (const a of [...plan.bwrapArgs, ...plan.command]) if (a.includes('\0')) throw new Error('a sandbox argument contains a NUL byte');
  // The drop travels as one word split on spaces: none of its parts may hold one (or be empty).
  for (const a of plan.drop ?? []) if (!/^[^\s*?[\]]+$/.test(a)) throw new Error(`setpriv argument ${JSON.stringify(a)} cannot travel to the launcher`);
  return [
    '/bin/bash',
    '--noprofile',
    '--norc',
    '-c',
    LAUNCHER_SCRIPT,
    'norma-sandbox',
    plan.keepFds.join(' '),
    plan.cgroupProcs.join(':'),
    plan.rlimits,
    plan.nice ?? '0',
    plan.seccomp ? (plan.piped ? 'piped' : printfEscapes(plan.seccomp)) : '',
    (plan.drop ?? []).join(' '),
    '--',
    plan.bwrapPath,
    ...(plan.piped ? ['piped'] : [String(plan.bwrapArgs.length), ...plan.bwrapArgs]),
    ...plan.command,
  ];
}
