// The process sandbox's settings of the configuration: the mode (NORMA_SANDBOX), who a root
// server's sandboxes run as (NORMA_SANDBOX_USER), each session's resource limits
// (NORMA_SANDBOX_*) and how they are enforced (NORMA_CGROUP). Problems are added to `problems`,
// as config.ts does.
import path from 'node:path';
import { DEFAULT_LIMITS, type ResourceLimits } from './contract/limits.js';

export type SandboxMode = 'bwrap' | 'off';

export interface SandboxSettings {
  sandbox: SandboxMode;
  sandboxUser: string | undefined;
  sandboxLimits: ResourceLimits;
  cgroup: string;
  /** NORMA_SECRETS_FILE: secrets every session's processes may use (`{NAME: {value, hosts, header?, format?}}`). */
  secretsFile: string | undefined;
  /** NORMA_EGRESS_CA_FILE: certificates trusted for servers the proxy terminates TLS for, besides the system's store. */
  egressCaFile: string | undefined;
}

export function readSandboxSettings(
  get: (name: string) => string | undefined,
  positiveInt: (name: string, fallback: number) => number,
  problems: string[],
  cwd: string = process.cwd(),
): SandboxSettings {
  const sandbox = (get('NORMA_SANDBOX') ?? 'bwrap') as SandboxMode;
  if (sandbox !== 'bwrap' && sandbox !== 'off') {
    problems.push(`NORMA_SANDBOX must be "bwrap" or "off", got ${JSON.stringify(sandbox)}`);
  }

  const sandboxUser = get('NORMA_SANDBOX_USER'); // user[:group], each a name or a number (resolved by the sandbox)
  const account = '(?:[A-Za-z_][A-Za-z0-9_.-]{0,31}\\$?|\\d{1,10})';
  if (sandboxUser !== undefined && (!new RegExp(`^${account}(?::${account})?$`).test(sandboxUser) || sandboxUser.split(':').some((p) => /^0+$/.test(p) || p === 'root'))) {
    problems.push(`NORMA_SANDBOX_USER must be an unprivileged user (name or uid), optionally with :group or :gid, never root's (e.g. nobody, norma-sandbox, 65534:65534), got ${JSON.stringify(sandboxUser)}`);
  }

  const mb = 1024 * 1024;
  const sandboxLimits: ResourceLimits = {
    memory_bytes: positiveInt('NORMA_SANDBOX_MEMORY_MB', DEFAULT_LIMITS.memory_bytes / mb) * mb,
    processes: positiveInt('NORMA_SANDBOX_PROCESSES', DEFAULT_LIMITS.processes),
    cpu_weight: positiveInt('NORMA_SANDBOX_CPU_WEIGHT', DEFAULT_LIMITS.cpu_weight),
    file_size_bytes: positiveInt('NORMA_SANDBOX_FILE_SIZE_MB', DEFAULT_LIMITS.file_size_bytes / mb) * mb,
    open_files: positiveInt('NORMA_SANDBOX_OPEN_FILES', DEFAULT_LIMITS.open_files),
    disk_bytes: positiveInt('NORMA_SANDBOX_DISK_MB', DEFAULT_LIMITS.disk_bytes / mb) * mb,
  };
  if (sandboxLimits.memory_bytes < 16 * mb) problems.push('NORMA_SANDBOX_MEMORY_MB must be at least 16');
  if (sandboxLimits.processes < 8) problems.push('NORMA_SANDBOX_PROCESSES must be at least 8');
  if (sandboxLimits.cpu_weight > 10000) problems.push('NORMA_SANDBOX_CPU_WEIGHT must be from 1 to 10000');
  if (sandboxLimits.open_files < 32) problems.push('NORMA_SANDBOX_OPEN_FILES must be at least 32');
  const cgroup = get('NORMA_CGROUP') ?? 'auto';
  if (cgroup !== 'auto' && cgroup !== 'off' && !path.isAbsolute(cgroup)) {
    problems.push(`NORMA_CGROUP must be "auto", "off" or the absolute path of a delegated cgroup v2 directory, got ${JSON.stringify(cgroup)}`);
  }
  const file = (name: string) => (get(name) !== undefined ? path.resolve(cwd, get(name)!) : undefined);
  return { sandbox, sandboxUser, sandboxLimits, cgroup, secretsFile: file('NORMA_SECRETS_FILE'), egressCaFile: file('NORMA_EGRESS_CA_FILE') };
}
