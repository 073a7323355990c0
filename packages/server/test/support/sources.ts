/**
 * The repository's sources, for tests that scan them (rules no linter checks). Tests run from
 * packages/server/build/test/, so the paths are found from this file's compiled location.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../../../', import.meta.url));
export const serverSrc = join(repoRoot, 'packages/server/src');

export interface SourceFile {
  /** Relative to packages/server/src, with forward slashes. */
  readonly path: string;
  readonly text: string;
}

/** Every `.ts` file under packages/server/src. */
export function serverSources(): SourceFile[] {
  return readdirSync(serverSrc, { recursive: true, encoding: 'utf8' })
    .filter((p) => p.endsWith('.ts'))
    .map((p) => ({
      path: relative(serverSrc, join(serverSrc, p)).split('\\').join('/'),
      text: readFileSync(join(serverSrc, p), 'utf8'),
    }));
}
