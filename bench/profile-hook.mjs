// Preloaded into the skillport server (`node --import bench/profile-hook.mjs`) by
// profile.mjs so the CPU profile covers only the measured window, not start-up or
// warm-up: the first SIGUSR2 starts the V8 profiler, the second writes the profile to
// $BENCH_PROFILE_OUT and prints "profile written" on stdout.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const session = new Session();
session.connect();
let running = false;
process.on("SIGUSR2", () => {
  if (!running) {
    running = true;
    session.post("Profiler.enable", () =>
      session.post("Profiler.start", () => process.stdout.write("profile started\n")),
    );
    return;
  }
  running = false;
  session.post("Profiler.stop", (err, { profile }) => {
    if (err) throw err;
    writeFileSync(process.env.BENCH_PROFILE_OUT, JSON.stringify(profile));
    process.stdout.write("profile written\n");
  });
});
