/**
 * The documents (by slot number) in which one term occurs in one field, with the term's
 * frequency there. Typed arrays keep 100k-skill indexes compact (6 bytes a posting) and
 * scans cache-friendly; order is irrelevant to term-at-a-time scoring, so removal swaps
 * the last posting into the hole instead of shifting.
 */
export class PostingList {
  docs: Int32Array;
  frequencies: Uint16Array;
  length = 0;

  constructor(initialCapacity = 2) {
    this.docs = new Int32Array(initialCapacity);
    this.frequencies = new Uint16Array(initialCapacity);
  }

  push(doc: number, frequency: number): void {
    if (this.length === this.docs.length) this.grow();
    this.docs[this.length] = doc;
    // Uint16 saturates far beyond where BM25's k1 already has: no information is lost.
    this.frequencies[this.length] = Math.min(frequency, 0xffff);
    this.length += 1;
  }

  /** Where `doc`'s posting is, or -1 (a plain loop: a subarray per lookup costs an allocation). */
  indexOf(doc: number): number {
    for (let index = 0; index < this.length; index += 1) if (this.docs[index] === doc) return index;
    return -1;
  }

  /** Removes the posting of `doc`; false if there is none. */
  remove(doc: number): boolean {
    const index = this.indexOf(doc);
    if (index < 0) return false;
    const last = this.length - 1;
    this.docs[index] = this.docs[last] ?? 0;
    this.frequencies[index] = this.frequencies[last] ?? 0;
    this.length = last;
    return true;
  }

  private grow(): void {
    const capacity = Math.max(2, this.docs.length * 2);
    const docs = new Int32Array(capacity);
    docs.set(this.docs);
    const frequencies = new Uint16Array(capacity);
    frequencies.set(this.frequencies);
    this.docs = docs;
    this.frequencies = frequencies;
  }
}
