// execa, loaded when the first process is about to start rather than when the server starts
// (a tenth of start-up). Async code awaits `loadExeca()`; `startProcess`, which is synchronous,
// reads `execaNow()` — every path to it awaits `loadExeca()` first.
type Execa = typeof import('execa');

let loaded: Execa | undefined;
let loading: Promise<Execa> | undefined;

export function loadExeca(): Promise<Execa> {
  loading ??= import('execa').then((m) => (loaded = m));
  return loading;
}

export function execaNow(): Execa['execa'] {
  if (!loaded) throw new Error('a process is started before loadExeca() resolved');
  return loaded.execa;
}
