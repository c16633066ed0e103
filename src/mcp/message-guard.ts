import { Transform, type TransformCallback } from "node:stream";
import { checkLine, type MalformedMessage } from "./malformed-message.js";

/** Bytes kept from each end of a dropped message, to find its request id in. */
const EDGE_BYTES = 512;

/** A request id written last (`{…,"id":7}`, as the SDK's clients do) or first (`{"jsonrpc":"2.0","id":7,…`). */
const ID_LAST = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*\}\s*$/;
const ID_FIRST = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/;

/** What became of a message over the limit: its request id when one was found, and its size. */
export interface OversizedMessage {
  id: string | number | null;
  bytes: number;
}

/** What the guard tells of the lines it does not pass on. */
export interface RefusedMessages {
  /** A line over the size limit: dropped, never held whole. */
  oversized(message: OversizedMessage): void;
  /** A line that is not a JSON-RPC message (see `checkLine`), with the error that answers it. */
  malformed(message: MalformedMessage): void;
}

/**
 * Reads stdin, one JSON-RPC message a line, for the MCP stdio transport
 * (`GuardedStdioTransport`): it passes on each line that is a JSON-RPC message, parsed (an
 * object stream of `JSONRPCMessage`s, read once: `checkLine`), and tells `refused` of the
 * others (which answers them). A line longer than `maxBytes`: without the guard, the SDK's
 * transport's own 10 MiB cap closed the whole connection on one such message, cancelling
 * every call in flight, silently, while `/mcp` and `/v1` refuse a body over the limit (413)
 * and go on serving. A dropped line is never held whole: only its two ends, where its id
 * is. A line that is not JSON, or not a JSON-RPC message: the SDK's transport dropped it,
 * telling no one but the log, and the client waited for its timeout. Blank lines are dropped.
 */
export class MessageGuard extends Transform {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private dropping: { head: Buffer; tail: Buffer; bytes: number } | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly refused: RefusedMessages,
  ) {
    super({ readableObjectMode: true });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.takePiece(chunk.subarray(start, end), newline !== -1);
      start = end;
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    // A last line without its newline is no message: the SDK's transport never read one either.
    callback();
  }

  /** One piece of a line; `endsLine` when it ends with the newline. */
  private takePiece(piece: Buffer, endsLine: boolean): void {
    if (this.dropping) {
      this.dropping.bytes += piece.length;
      this.dropping.tail = lastBytes(Buffer.concat([this.dropping.tail, piece]));
    } else if (this.heldBytes + piece.length - (endsLine ? 1 : 0) > this.maxBytes) {
      const line = Buffer.concat([...this.held, piece]);
      this.dropping = {
        head: Buffer.from(line.subarray(0, EDGE_BYTES)),
        tail: lastBytes(line),
        bytes: line.length,
      };
      this.held = [];
      this.heldBytes = 0;
    } else {
      this.held.push(piece);
      this.heldBytes += piece.length;
    }
    if (!endsLine) return;
    if (this.dropping) {
      const { head, tail, bytes } = this.dropping;
      this.dropping = undefined;
      this.refused.oversized({
        id: requestIdOf(head.toString("utf8"), tail.toString("utf8")),
        bytes: bytes - 1,
      });
    } else {
      const line = Buffer.concat(this.held);
      this.held = [];
      this.heldBytes = 0;
      const verdict = checkLine(line.toString("utf8"));
      if (verdict === "blank") return;
      if ("parsed" in verdict) this.push(verdict.parsed);
      else this.refused.malformed(verdict);
    }
  }
}

/** A copy of the last `EDGE_BYTES` (a copy: the chunk it came from must not stay alive). */
function lastBytes(buffer: Buffer): Buffer {
  return Buffer.from(buffer.subarray(Math.max(0, buffer.length - EDGE_BYTES)));
}

function requestIdOf(head: string, tail: string): string | number | null {
  const raw = ID_LAST.exec(tail.trimEnd())?.[1] ?? ID_FIRST.exec(head)?.[1];
  if (raw === undefined) return null;
  try {
    return JSON.parse(raw) as string | number;
  } catch {
    return null;
  }
}
