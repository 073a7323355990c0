/**
 * `items.flatMap(fn)` for the hot path. Node 20's `Array.prototype.flatMap` costs ~0.1 µs per
 * element it yields (a packet's 1,000 parameters: ~130 µs; a loop: ~8), and a worker-call group
 * flattens parameter lists several times per statement (docs/design/hot-path.md §14).
 */
export function flatten<T, U>(
  items: readonly T[],
  fn: (item: T, index: number) => readonly U[],
): U[] {
  const out: U[] = [];
  for (let i = 0; i < items.length; i++) {
    const part = fn(items[i] as T, i);
    for (let j = 0; j < part.length; j++) {
      out.push(part[j] as U);
    }
  }
  return out;
}
