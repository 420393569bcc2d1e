// Bench harness only (preloaded with --import): the first SIGUSR2 starts the V8 CPU profiler,
// the second stops it and writes the profile to $NORMA_PROFILE_OUT, so start-up and warm-up stay
// out of the profile.
import fs from 'node:fs';
import inspector from 'node:inspector';

const session = new inspector.Session();
session.connect();
let running = false;
process.on('SIGUSR2', () => {
  if (!running) {
    running = true;
    session.post('Profiler.enable', () =>
      session.post('Profiler.setSamplingInterval', { interval: Number(process.env.NORMA_PROFILE_INTERVAL_US ?? 100) }, () =>
        session.post('Profiler.start', () => fs.writeFileSync(`${process.env.NORMA_PROFILE_OUT}.started`, '')),
      ),
    );
    return;
  }
  running = false;
  session.post('Profiler.stop', (err, res) => {
    fs.writeFileSync(process.env.NORMA_PROFILE_OUT, err ? JSON.stringify({ error: String(err) }) : JSON.stringify(res.profile));
  });
});
