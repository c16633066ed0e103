import type { SignalChannel, StoreSignal } from "../../core/ports.js";
import { signalPayload } from "../signal-payload.js";

type Listener = (signal: StoreSignal) => void;

/** The listeners of every store opened on one data: what their channels share. */
export type SignalListeners = Set<Listener>;

/**
 * A channel between the stores opened on one data, as LISTEN/NOTIFY is between
 * PostgreSQL's sessions: every store's listeners receive each signal, the sender's too,
 * after `publish` returns, each a copy of the payload the channel carried (a too-long
 * progress message dropped, `signalPayload`).
 */
export class InMemorySignalChannel implements SignalChannel {
  /** This store's listeners, dropped when it closes. */
  private readonly own = new Set<Listener>();

  constructor(private readonly listeners: SignalListeners) {}

  async publish(signal: StoreSignal): Promise<void> {
    const payload = signalPayload(signal);
    setImmediate(() => {
      for (const listener of this.listeners) listener(JSON.parse(payload) as StoreSignal);
    });
  }

  subscribe(listener: Listener): () => void {
    // Wrapped, so that one function subscribed twice is two subscriptions.
    const subscription: Listener = (signal) => listener(signal);
    this.listeners.add(subscription);
    this.own.add(subscription);
    return () => {
      this.listeners.delete(subscription);
      this.own.delete(subscription);
    };
  }

  close(): void {
    for (const subscription of this.own) this.listeners.delete(subscription);
    this.own.clear();
  }
}
