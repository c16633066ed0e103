import { writeSync } from "node:fs";
import pino from "pino";
import { redactSecrets } from "./core/keys/secret.js";

/**
 * Structured JSON logs. Secrets never reach them: the core never logs a secret, and as
 * second lines of defence any field that could hold one is redacted by name, and anything
 * shaped like a secret by value as each line is written (a path a client put its key in, or
 * a library's error message quoting that path).
 */
export function createLogger(level: string, destination: 1 | 2 | pino.DestinationStream = 1): pino.Logger {
  return pino(
    {
      level,
      base: { service: "skillport" },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          "secret",
          "*.secret",
          "authorization",
          "*.authorization",
          "headers.authorization",
          "*.headers.authorization",
        ],
        censor: "[redacted]",
      },
      hooks: { streamWrite: redactSecrets },
    },
    typeof destination === "number" ? droppedOnFailure(destination) : destination,
  );
}

/**
 * The log on `fd`, written to no more once a write to it fails. pino does that for EPIPE
 * (a reader gone) only; any other error was thrown as an uncaught exception, and at the
 * exit that followed, pino's final flush retried the write every 100 ms for ever. So a
 * closed terminal (EIO: `serve` under `npm start` when its window closes) or a full disk
 * (ENOSPC) wedged the process: neither serving nor stopping, its runs left `running`. The
 * log has nowhere to go then; the process goes on without it. A log on stdout (`serve`)
 * says so once on stderr, should that one still be written; `mcp` logs on stderr, and its
 * stdout carries protocol messages only.
 */
function droppedOnFailure(fd: 1 | 2): pino.DestinationStream {
  const destination = pino.destination({ fd, sync: false });
  destination.on("error", (err: NodeJS.ErrnoException) => {
    if (destination.write === ignore) return;
    destination.write = ignore;
    destination.flushSync = ignore;
    destination.end = ignore;
    destination.destroy = ignore;
    if (fd !== 1) return;
    try {
      writeSync(
        2,
        `skillport: the log (stdout) cannot be written (${err.code ?? err.message}); logging stops\n`,
      );
    } catch {
      // stderr is gone too (a terminal both wrote to).
    }
  });
  return destination;
}

function ignore(): boolean {
  return true;
}
