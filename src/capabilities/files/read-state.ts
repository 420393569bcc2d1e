// What a session has read, so a write never clobbers a file the model has not seen or that
// changed since it looked (mtime and size as of its last Read or write).
export interface FileVersion {
  mtimeMs: number;
  size: number;
}

export type ReadCheck = { ok: true } | { ok: false; reason: 'unread' | 'changed' };

export class FileReadState {
  private readonly files = new Map<string, FileVersion>();

  /** Records the version the session has seen (after a Read, Write or Edit). */
  record(absPath: string, version: FileVersion): void {
    this.files.set(absPath, { mtimeMs: version.mtimeMs, size: version.size });
  }

  check(absPath: string, current: FileVersion): ReadCheck {
    const seen = this.files.get(absPath);
    if (!seen) return { ok: false, reason: 'unread' };
    if (seen.mtimeMs !== current.mtimeMs || seen.size !== current.size) return { ok: false, reason: 'changed' };
    return { ok: true };
  }
}
