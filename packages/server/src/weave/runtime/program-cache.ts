/**
 * Compiled programs by pinned version (runtime.md §9 "programs compiled once per version"): a
 * version is immutable and its digest is checked against the instance's, so a compiled Program
 * can be shared by every round of every instance of it. Compiling the source costs about
 * 0.3 ms of CPU for a 6-node workflow, more than the rest of a round's planning. One cache per
 * consumer loop; bounded, oldest entry out first.
 */
import { parse } from '@weave/json';
import { compile } from '@weave/engine';
import type { Program } from '@weave/engine';

const DEFAULT_ENTRIES = 512;

export class ProgramCache {
  readonly #programs = new Map<string, Program>();
  readonly #limit: number;

  constructor(limit = DEFAULT_ENTRIES) {
    this.#limit = limit;
  }

  /** The program of a version's source; undefined when the source does not compile. */
  get(versionId: string, digest: string, source: string): Program | undefined {
    const key = `${versionId}:${digest}`;
    const cached = this.#programs.get(key);
    if (cached !== undefined) {
      return cached;
    }
    const compiled = compile(parse(source));
    if (!compiled.ok) {
      return undefined;
    }
    if (this.#programs.size >= this.#limit) {
      const oldest = this.#programs.keys().next();
      if (oldest.done !== true) {
        this.#programs.delete(oldest.value);
      }
    }
    this.#programs.set(key, compiled.program);
    return compiled.program;
  }
}
