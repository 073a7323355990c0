/**
 * The one flag of a small probe script: `--name N`, a positive integer, `fallback` when absent.
 * Any other flag, or a value that is not a positive integer, prints `usage` and exits 2.
 */
export function onlyIntFlag(name: string, fallback: number, usage: string): number {
  const args = process.argv.slice(2);
  const at = args.indexOf(name);
  const value = at === -1 ? fallback : Number(args[at + 1]);
  if (!Number.isInteger(value) || value < 1 || args.some((a) => a.startsWith('--') && a !== name)) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  return value;
}
