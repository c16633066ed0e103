import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { type Logger, maskingLogger } from "../core/logger.js";

/** Past this many characters a line is logged cut (`truncated: true`), the rest of it dropped. */
const MAX_LINE_CHARS = 8_192;

/**
 * Logs each line the skill host process writes on its `stream` (stdout or stderr) as a
 * `warn` entry of the server's JSON log, with `source: "skill_host"`: a library's warning, a
 * skill's `console.error` in a worker, V8's report of the heap blow-up that aborts the host.
 * Written to the server's stderr as they were, they reached the operator as raw text among
 * the JSON lines, which a log collector cannot parse, and unmasked: the text goes through
 * `maskingLogger` as a skill's own log lines do (a URL's credentials, working secrets), and
 * then the redaction of every log line. A line is bounded, so a host writing without a
 * line break cannot grow the server's memory.
 */
export function logHostOutput(stream: Readable, name: "stdout" | "stderr", logger: Logger): void {
  const log = maskingLogger(logger);
  const decoder = new StringDecoder("utf8");
  let pending = "";
  /** The start of the line being read was logged cut: the rest of it, to its line break, is dropped. */
  let cut = false;
  const write = (line: string, truncated: boolean) => {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (text.trim() === "") return;
    log.warn(
      { source: "skill_host", stream: name, text, ...(truncated && { truncated }) },
      `the skill host process wrote to its ${name}`,
    );
  };
  stream.on("data", (chunk: Buffer) => {
    const lines = (pending + decoder.write(chunk)).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (cut) cut = false;
      else write(line, false);
    }
    if (pending.length > MAX_LINE_CHARS) {
      if (!cut) write(pending.slice(0, MAX_LINE_CHARS), true);
      cut = true;
      pending = "";
    }
  });
  stream.on("end", () => {
    const rest = pending + decoder.end();
    if (!cut) write(rest, false);
  });
}
