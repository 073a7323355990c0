/** The built console's size (packages/server/build/console), raw and gzip, summed over files. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const CONSOLE_BUILD = fileURLToPath(
  new URL('../../../../server/build/console/', import.meta.url),
);

export function bundleSizes(dir: string = CONSOLE_BUILD): {
  files: number;
  bytes: number;
  gzipBytes: number;
} {
  let files = 0;
  let bytes = 0;
  let gzipBytes = 0;
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, name);
    if (!statSync(path).isFile()) {
      continue;
    }
    const body = readFileSync(path);
    files += 1;
    bytes += body.length;
    gzipBytes += gzipSync(body, { level: 9 }).length;
  }
  return { files, bytes, gzipBytes };
}
