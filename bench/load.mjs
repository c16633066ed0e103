// Load generator, run as its own process so it never shares an event loop with the
// server it measures. Input: one JSON argument {url, method, headers, body, connections,
// duration, pipelining}. Output: one JSON line on stdout.
//
// Latency percentiles are computed here from every response time (float ms), because
// autocannon's own histogram has a 1 ms resolution, too coarse for a 1-2 ms p50.
import autocannon from "autocannon";

const opts = JSON.parse(process.argv[2]);
const samples = [];
const instance = autocannon({
  url: opts.url,
  method: opts.method ?? "POST",
  headers: opts.headers ?? {},
  body: opts.body,
  connections: opts.connections ?? 50,
  pipelining: opts.pipelining ?? 1,
  duration: opts.duration ?? 10,
});
instance.on("response", (_client, statusCode, _bytes, ms) => {
  if (statusCode >= 200 && statusCode < 300) samples.push(ms);
});
const r = await instance;

samples.sort((a, b) => a - b);
const pct = (p) =>
  samples.length ? samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))] : null;
const round = (x) => (x === null ? null : Math.round(x * 100) / 100);
process.stdout.write(
  `${JSON.stringify({
    duration_s: r.duration,
    requests_per_s: round(r.requests.total / r.duration),
    ok_2xx: r["2xx"],
    non_2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    p50_ms: round(pct(50)),
    p90_ms: round(pct(90)),
    p99_ms: round(pct(99)),
    max_ms: round(samples.at(-1) ?? null),
    // autocannon's own (1 ms resolution) figures, for comparison with its CLI output
    autocannon: { req_per_s_avg: r.requests.average, p50_ms: r.latency.p50, p99_ms: r.latency.p99 },
  })}\n`,
);
