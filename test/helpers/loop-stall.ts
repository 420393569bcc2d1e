// How long this process's event loop was held: a timer asks to run every few milliseconds and
// the longest gap between its runs, less the interval, is the longest stall.
export function watchLoop(intervalMs = 5): { stop(): number } {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - intervalMs);
    last = now;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      // A stall still going on when the watch ends counts too.
      return Math.max(worst, performance.now() - last - intervalMs);
    },
  };
}
