import { createHash } from "node:crypto";

/** A stand-in model's vector: a unit vector from the text's SHA-256, the same for the same text. */
export function hashVector(text: string, dimensions: number): Float32Array {
  const bytes = createHash("sha256").update(text).digest();
  const vector = Float32Array.from({ length: dimensions }, (_, i) => (bytes[i] ?? 0) - 127.5);
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}
