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

/**
 * `items.map(fn)` for the hot path, as a list of one elements kind in every tier. Node 20's
 * `Array.prototype.map` returns a packed array from the builtin and a holey one from TurboFan's
 * inlined copy, so a function compiled while its lists' maker ran in the interpreter meets a
 * second map once the maker is optimized, and is thrown away and compiled again
 * (docs/design/hot-path.md §56). A loop that pushes keeps the list packed.
 */
export function mapped<T, U>(items: readonly T[], fn: (item: T, index: number) => U): U[] {
  const out: U[] = [];
  for (let i = 0; i < items.length; i++) {
    out.push(fn(items[i] as T, i));
  }
  return out;
}

/** `items.filter(keep)` for the hot path, packed in every tier as `mapped`. */
export function kept<T>(items: readonly T[], keep: (item: T) => boolean): T[] {
  const out: T[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as T;
    if (keep(item)) {
      out.push(item);
    }
  }
  return out;
}
