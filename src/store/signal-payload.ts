import type { StoreSignal } from "../core/ports.js";

/**
 * The most a signal's JSON may take, in bytes: PostgreSQL's NOTIFY refuses a payload of
 * 8000 bytes or more. Every channel keeps to it, so a signal arrives alike whichever store
 * carries it.
 */
const MAX_PAYLOAD_BYTES = 7_000;

/**
 * A signal as a channel carries it: its JSON, where a progress update too long for the
 * channel loses its message rather than the whole signal being lost.
 */
export function signalPayload(signal: StoreSignal): string {
  const payload = JSON.stringify(signal);
  if (Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES || signal.type !== "progress") return payload;
  return JSON.stringify({ ...signal, update: { ...signal.update, message: undefined } });
}
