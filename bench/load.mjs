// Load generator, run as its own process so it never shares an event loop with the
// server it measures. Input: one JSON argument {url | urls, method, headers, body,
// connections, duration, pipelining}; with `urls` (replicas), the connections are spread
// evenly over them (one autocannon instance each, run at once: a round-robin balancer).
// `headers` may be an array, one per url. Output: one JSON line on stdout.
//
// Latency percentiles are computed here from every response time (float ms), because
// autocannon's own histogram has a 1 ms resolution, too coarse for a 1-2 ms p50.
import autocannon from "autocannon";

const opts = JSON.parse(process.argv[2]);
const urls = opts.urls ?? [opts.url];
const connections = opts.connections ?? 50;
const samples = [];
const runs = urls.map((url, i) => {
  const instance = autocannon({
    url,
    method: opts.method ?? "POST",
    headers: (Array.isArray(opts.headers) ? opts.headers[i] : opts.headers) ?? {},
    body: opts.body,
    connections: Math.floor(connections / urls.length) + (i < connections % urls.length ? 1 : 0),
    pipelining: opts.pipelining ?? 1,
    duration: opts.duration ?? 10,
  });
  instance.on("response", (_client, statusCode, _bytes, ms) => {
    if (statusCode >= 200 && statusCode < 300) samples.push(ms);
  });
  return instance;
});
const all = await Promise.all(runs);
const sum = (f) => all.reduce((total, r) => total + f(r), 0);
const duration = Math.max(...all.map((r) => r.duration));

samples.sort((a, b) => a - b);
const pct = (p) =>
  samples.length ? samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))] : null;
const round = (x) => (x === null ? null : Math.round(x * 100) / 100);
const first = all[0];
process.stdout.write(
  `${JSON.stringify({
    duration_s: duration,
    requests_per_s: round(sum((r) => r.requests.total) / duration),
    ok_2xx: sum((r) => r["2xx"]),
    non_2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    p50_ms: round(pct(50)),
    p90_ms: round(pct(90)),
    p99_ms: round(pct(99)),
    max_ms: round(samples.at(-1) ?? null),
    // autocannon's own (1 ms resolution) figures of the first target, for comparison with its CLI
    autocannon: {
      req_per_s_avg: first.requests.average,
      p50_ms: first.latency.p50,
      p99_ms: first.latency.p99,
    },
  })}\n`,
);
