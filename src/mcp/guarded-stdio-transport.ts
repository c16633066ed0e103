import type { Readable, Writable } from "node:stream";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * MCP over stdio, taking its messages from `MessageGuard` already parsed and checked
 * (`JSONRPCMessageSchema`, as the SDK's `StdioServerTransport` reads a line). That
 * transport reads raw stdin only: behind the guard it parsed and checked every line a
 * second time, about 2 % of a tool call. It writes as that one does, one message a line,
 * waiting for `drain` when the output is full, but the messages sent in one turn of the
 * event loop leave in one write: stdout to a pipe is written synchronously on Linux, one
 * system call a message, and the answers of the calls one group commit made durable are
 * all sent in the same turn (with 16 calls in flight, about 7 % of a call's CPU went to
 * those writes).
 */
export class GuardedStdioTransport implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];
  private started = false;
  /** Whether this turn's writes are being held (`corkUntilTurnEnds`). */
  private corked = false;
  /** Resolves once the output, full, has drained: what the sends since it filled wait for. */
  private drained: Promise<void> | undefined;
  private readonly deliver = (message: JSONRPCMessage) => this.onmessage?.(message);
  private readonly fail = (error: Error) => this.onerror?.(error);

  /** `messages`: the guard's object stream of parsed messages; `output`: stdout. */
  constructor(
    private readonly messages: Readable,
    private readonly output: Writable,
  ) {}

  async start(): Promise<void> {
    // As the SDK's transports: a second start is a mistake of the caller's (`connect` starts it).
    if (this.started) throw new Error("GuardedStdioTransport already started");
    this.started = true;
    this.messages.on("data", this.deliver);
    this.messages.on("error", this.fail);
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.corkUntilTurnEnds();
    if (this.output.write(serializeMessage(message))) return Promise.resolve();
    // One listener for every send waiting: one each made Node warn of a listener leak
    // ("11 drain listeners added") on stderr, in the assistant's log, when a client read slowly.
    this.drained ??= new Promise((resolve) =>
      this.output.once("drain", () => {
        this.drained = undefined;
        resolve();
      }),
    );
    return this.drained;
  }

  /**
   * Holds this turn's writes until the current operation, with the promise callbacks it
   * set off, has run (`process.nextTick`), then sends them together.
   */
  private corkUntilTurnEnds(): void {
    if (this.corked) return;
    this.corked = true;
    this.output.cork();
    process.nextTick(() => {
      this.corked = false;
      this.output.uncork();
    });
  }

  /** Takes no more messages (those still arriving wait in the paused stream) and says it closed. */
  async close(): Promise<void> {
    this.messages.off("data", this.deliver);
    this.messages.off("error", this.fail);
    this.messages.pause();
    this.onclose?.();
  }
}
