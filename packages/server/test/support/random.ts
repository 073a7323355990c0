/**
 * Seeded random choices for tests whose schedule is random (the crash test): one seed per run,
 * printed, and settable to replay the same choices. `Math.random` cannot be seeded.
 */
import { randomInt } from 'node:crypto';

/** mulberry32: a 32-bit seeded generator, uniform in [0, 1); the same seed, the same sequence. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The run's seed: the variable `name` (an integer 0 … 2³²−1) if set, else a fresh one. */
export function seedFrom(env: NodeJS.ProcessEnv, name: string): number {
  const text = env[name];
  if (text === undefined || text === '') {
    return randomInt(2 ** 32);
  }
  const seed = Number(text);
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    throw new Error(`${name} must be an integer from 0 to 4294967295, not ${JSON.stringify(text)}`);
  }
  return seed;
}

/**
 * The seed of sub-stream `stream` (e.g. the n-th child process started): derived from the run's
 * seed, so that a replay gives each process the same choices as before.
 */
export function deriveSeed(seed: number, stream: number): number {
  return Math.floor(seededRandom((seed ^ Math.imul(stream + 1, 0x9e3779b1)) >>> 0)() * 2 ** 32);
}
