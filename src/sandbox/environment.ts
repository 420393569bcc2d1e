// What a sandboxed process finds: the environment it gets (nothing from the host but these), the
// places inside where its home and the proxy are, and where the programs the sandbox runs are
// looked up.
import fs from 'node:fs';
import path from 'node:path';

/** Where, inside the sandbox, the session's home, the proxy socket and the proxy port are. */
export const SANDBOX_HOME = '/home/sandbox';
export const PROXY_SOCKET = '/run/norma/proxy.sock';
export const PROXY_PORT = 3128;

/** The directories on a sandboxed process's PATH. */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The environment a sandboxed process gets: nothing from the host but these. */
export function baseEnvironment(): Record<string, string> {
  return {
    PATH: SANDBOX_PATH,
    HOME: SANDBOX_HOME,
    TMPDIR: '/tmp',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    NO_COLOR: '1',
    // Configuration is never taken from places a command could have written: git reads no
    // global or system file, readline no inputrc.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    INPUTRC: '/dev/null',
  };
}

/** The variables that point programs at the session's egress proxy. */
export function proxyEnvironment(): Record<string, string> {
  const url = `http://127.0.0.1:${PROXY_PORT}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    NO_PROXY: 'localhost,127.0.0.1,::1',
    no_proxy: 'localhost,127.0.0.1,::1',
  };
}

/** An executable named `name` in the directories of `searchPath` (absolute entries only), or null. */
export function findProgram(name: string, searchPath: string = process.env.PATH ?? ''): string | null {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export function findBwrap(searchPath: string = process.env.PATH ?? ''): string | null {
  return findProgram('bwrap', searchPath);
}
