/**
 * The `k` best of `count` candidates, best first, without sorting them all: a min-heap of
 * size k holds the best seen so far, so a query touching 50k documents costs
 * O(50k · log k), not O(50k · log 50k). `isBetter` must be a strict total order
 * (break score ties, e.g. by id) so that results are deterministic.
 */
export function topK(
  candidates: ArrayLike<number>,
  count: number,
  k: number,
  isBetter: (a: number, b: number) => boolean,
): number[] {
  if (k <= 0) return [];
  const heap: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const candidate = candidates[index];
    if (candidate !== undefined && admits(heap, candidate, k, isBetter)) keep(heap, candidate, k, isBetter);
  }
  return drain(heap, isBetter);
}

/**
 * In one pass, the `k` best of all candidates and the `k` best of those `accepts` keeps:
 * a filtered answer ranked against the whole catalog (discovery-index.ts) needs both.
 * `accepts` is asked only about a candidate good enough to enter the second selection,
 * so once that heap is full a filter costs a comparison per candidate, no more.
 */
export function topKWithin(
  candidates: ArrayLike<number>,
  count: number,
  k: number,
  isBetter: (a: number, b: number) => boolean,
  accepts: (candidate: number) => boolean,
): { all: number[]; within: number[] } {
  if (k <= 0) return { all: [], within: [] };
  const all: number[] = [];
  const within: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const candidate = candidates[index];
    if (candidate === undefined) continue;
    if (admits(all, candidate, k, isBetter)) keep(all, candidate, k, isBetter);
    if (admits(within, candidate, k, isBetter) && accepts(candidate)) keep(within, candidate, k, isBetter);
  }
  return { all: drain(all, isBetter), within: drain(within, isBetter) };
}

/** True when `candidate` belongs among the `k` best seen so far. */
function admits(
  heap: number[],
  candidate: number,
  k: number,
  isBetter: (a: number, b: number) => boolean,
): boolean {
  return heap.length < k || isBetter(candidate, heap[0] ?? candidate);
}

/** Adds an admitted candidate, dropping the worst kept when the heap is full. */
function keep(
  heap: number[],
  candidate: number,
  k: number,
  isBetter: (a: number, b: number) => boolean,
): void {
  if (heap.length < k) {
    heap.push(candidate);
    siftUp(heap, heap.length - 1, isBetter);
  } else {
    heap[0] = candidate;
    siftDown(heap, 0, isBetter);
  }
}

/** Empties the heap, best first: its root is the worst kept, so popping it repeatedly yields worst to best. */
function drain(heap: number[], isBetter: (a: number, b: number) => boolean): number[] {
  const sorted = new Array<number>(heap.length);
  for (let position = heap.length - 1; position >= 0; position -= 1) {
    sorted[position] = heap[0] ?? 0;
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last;
      siftDown(heap, 0, isBetter);
    }
  }
  return sorted;
}

/** Min-heap by "worse first": a parent is never better than its children. */
function siftUp(heap: number[], start: number, isBetter: (a: number, b: number) => boolean): void {
  let index = start;
  while (index > 0) {
    const parent = (index - 1) >> 1;
    const item = heap[index] ?? 0;
    const parentItem = heap[parent] ?? 0;
    if (!isBetter(parentItem, item)) return;
    heap[index] = parentItem;
    heap[parent] = item;
    index = parent;
  }
}

function siftDown(heap: number[], start: number, isBetter: (a: number, b: number) => boolean): void {
  let index = start;
  for (;;) {
    const left = index * 2 + 1;
    if (left >= heap.length) return;
    const right = left + 1;
    let worst = left;
    if (right < heap.length && isBetter(heap[left] ?? 0, heap[right] ?? 0)) worst = right;
    const item = heap[index] ?? 0;
    const child = heap[worst] ?? 0;
    if (!isBetter(item, child)) return;
    heap[index] = child;
    heap[worst] = item;
    index = worst;
  }
}
