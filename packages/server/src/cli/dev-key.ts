/**
 * `weave dev`'s data folder and the one dev key kept in it (docs/operations.md "weave dev"):
 * the folder is the user's own (0700), the key file `dev-key` is owner-only (0600).
 *
 * - A folder that is ours but open to others (an older `weave dev` made it 0755) is tightened to
 *   0700: it is our own folder and nothing of value was in the key yet.
 * - A key file readable or writable by others is refused, not fixed: the key may have been read
 *   already, so the user decides between keeping it (`chmod 600`) and a new one (delete the file).
 * - A folder or file owned by another user is refused.
 * Permission bits mean nothing on Windows; there the checks are skipped.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEV_KEY_FILE = 'dev-key';
const KEY_PATTERN = /^wv_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/;
const CHECKS_MODES = process.platform !== 'win32';

/** Creates the folder (0700) or checks and tightens it. */
export function prepareDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!CHECKS_MODES) {
    return;
  }
  const stat = statSync(dir);
  if (!stat.isDirectory()) {
    throw new Error(`${dir} is not a directory`);
  }
  checkOwner(dir, stat.uid);
  if ((stat.mode & 0o077) !== 0) {
    chmodSync(dir, 0o700);
  }
}

/** The kept key, or undefined when there is none yet; throws a one-line reason when unsafe. */
export function readDevKey(dir: string): string | undefined {
  const file = join(dir, DEV_KEY_FILE);
  if (!existsSync(file)) {
    return undefined;
  }
  if (CHECKS_MODES) {
    const stat = statSync(file);
    checkOwner(file, stat.uid);
    const mode = stat.mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new Error(
        `${file} is open to other users (mode ${mode.toString(8).padStart(4, '0')}); ` +
          `run 'chmod 600 ${file}' to keep the key, or delete the file to get a new one`,
      );
    }
  }
  const key = readFileSync(file, 'utf8').trim();
  if (!KEY_PATTERN.test(key)) {
    throw new Error(`${file} does not hold a Weave key; delete it to get a new one`);
  }
  return key;
}

/** Writes the key owner-only, replacing the file in one rename. */
export function writeDevKey(dir: string, key: string): void {
  const file = join(dir, DEV_KEY_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${key}\n`, { mode: 0o600, flag: 'w' });
  if (CHECKS_MODES) {
    chmodSync(temporary, 0o600);
  }
  renameSync(temporary, file);
}

function checkOwner(path: string, uid: number): void {
  const mine = process.getuid?.();
  if (mine !== undefined && uid !== mine) {
    throw new Error(
      `${path} belongs to another user (uid ${uid}); use --data with a folder of yours`,
    );
  }
}
