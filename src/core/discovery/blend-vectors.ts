/**
 * `baseWeight · base + (1 − baseWeight) · mean(others)`, scaled back to unit length: a unit
 * vector moved part of the way towards the centroid of others. Without others (or with all
 * the weight on `base`), `base` itself.
 */
export function blendTowards(
  base: Float32Array,
  others: readonly Float32Array[],
  baseWeight: number,
): Float32Array {
  if (others.length === 0 || baseWeight >= 1) return base;
  const blended = new Float32Array(base.length);
  const share = (1 - baseWeight) / others.length;
  for (let index = 0; index < base.length; index += 1) {
    let sum = 0;
    for (const vector of others) sum += vector[index] ?? 0;
    blended[index] = baseWeight * (base[index] ?? 0) + share * sum;
  }
  let norm = 0;
  for (const value of blended) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm === 0) return base;
  for (let index = 0; index < blended.length; index += 1) blended[index] = (blended[index] ?? 0) / norm;
  return blended;
}
