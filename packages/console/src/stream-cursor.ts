/**
 * Where the Streams page starts reading a stream's recent events. Seqs are decimal strings, so
 * the arithmetic is BigInt.
 */

/**
 * The cursor before the last `count` events: `head - count`, but never before the earliest event
 * retention kept (an older cursor reads 410 `cursor_expired`), and never below 0.
 */
export function recentAfter(head: string, earliest: string, count: number): string {
  const fromHead = BigInt(head) - BigInt(count);
  const kept = BigInt(earliest) - 1n;
  const after = fromHead > kept ? fromHead : kept;
  return after > 0n ? after.toString() : '0';
}
