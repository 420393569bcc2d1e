// undici, loaded the first time the server makes an outbound request (a model call, an http hook,
// a web tool) rather than at start: about 5 MB of heap a server that never calls out does not need.
export type Undici = typeof import('undici');

let loaded: Promise<Undici> | undefined;

export function undici(): Promise<Undici> {
  loaded ??= import('undici');
  return loaded;
}
