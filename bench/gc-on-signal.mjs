// Bench harness only (preloaded with --expose-gc): SIGUSR2 runs a full garbage collection, so a
// memory reading of the server measures what it retains, not when V8 last collected.
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
});
