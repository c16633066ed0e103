import type { EventId, EventStore, StreamId } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** How long an event can be replayed: a client resumes a cut stream within seconds. */
const MAX_AGE_MS = 60_000;
/** The most kept across every session, in characters of JSON: a few large results, or many small events. */
const MAX_CHARS = 64 * 1024 * 1024;

interface StoredEvent {
  id: EventId;
  streamId: StreamId;
  message: JSONRPCMessage;
  chars: number;
  storedAt: number;
  session: SessionEventStore;
}

/**
 * The recent events of every `/mcp` session, oldest first, bounded by age and size as a
 * whole: 1,000 sessions must not keep 1,000 times as much. Each session reads its own
 * through `forSession`.
 */
export class ReplayBuffer {
  private readonly events: StoredEvent[] = [];
  private chars = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The event store of a new session. */
  forSession(): SessionEventStore {
    return new SessionEventStore(this);
  }

  /** @internal Keeps `event` and lets the oldest go past the bounds (the newest always stays). */
  add(event: Omit<StoredEvent, "chars" | "storedAt">): StoredEvent {
    // Member by member: V8 (Node 20) grows a spread copy on a slow path, for every message sent.
    const { id, streamId, message, session } = event;
    const stored = {
      id,
      streamId,
      message,
      session,
      chars: JSON.stringify(message).length,
      storedAt: this.now(),
    };
    this.events.push(stored);
    this.chars += stored.chars;
    this.evict();
    return stored;
  }

  /** @internal */
  evict(): void {
    const oldest = this.now() - MAX_AGE_MS;
    while (this.events.length > 1) {
      const first = this.events[0] as StoredEvent;
      if (first.storedAt >= oldest && this.chars <= MAX_CHARS) break;
      this.events.shift();
      this.chars -= first.chars;
      first.session.forget(first);
    }
  }
}

/**
 * The events of one MCP session's streams, so that a client whose response stream was
 * cut (a proxy, a network blip) resumes it with `Last-Event-ID` and gets what it missed:
 * above all the answer to its call, which was otherwise lost, and an agent calling again
 * would run the skill twice. With a store, the SDK's transport gives every event an id and
 * sends a priming event first (MCP 2025-11-25, "Resumability"), and the SDK's client
 * reconnects by itself.
 */
export class SessionEventStore implements EventStore {
  /** This session's events still kept, oldest first, and by id. */
  private readonly events: StoredEvent[] = [];
  private readonly byId = new Map<EventId, StoredEvent>();
  private sequence = 0;

  constructor(private readonly buffer: ReplayBuffer) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const event = this.buffer.add({ id: String(++this.sequence), streamId, message, session: this });
    this.events.push(event);
    this.byId.set(event.id, event);
    return event.id;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    this.buffer.evict();
    return this.byId.get(eventId)?.streamId;
  }

  /**
   * Sends the events of `lastEventId`'s stream stored after it, in order. An id no longer
   * kept is refused before this runs (`getStreamIdForEventId`: the SDK answers 400).
   */
  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const last = this.byId.get(lastEventId);
    if (!last) return "";
    for (const event of this.events.slice(this.events.indexOf(last) + 1)) {
      // A priming event (no message, only an id) is not sent again.
      if (event.streamId === last.streamId && "jsonrpc" in event.message) await send(event.id, event.message);
    }
    return last.streamId;
  }

  /** @internal The buffer let `event` go: it is always this session's oldest. */
  forget(event: StoredEvent): void {
    if (this.events[0] === event) this.events.shift();
    this.byId.delete(event.id);
  }
}
