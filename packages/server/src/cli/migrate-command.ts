/** `weave migrate --db …`: apply pending migrations; `--print` shows the SQL instead. */
import { parseConnectionUrl } from '../store/connection-url.js';
import { openDatabase } from '../store/database.js';
import { loadMigrationFiles } from '../store/migration-files.js';
import { migrate } from '../store/migrate.js';
import { parseCommand, readDb } from './options.js';

const HELP = `usage: weave migrate --db <url> [--print]

  --db URL   the database [WEAVE_DB]
  --print    print every migration of that database's dialect and change nothing`;

export async function runMigrate(argv: readonly string[]): Promise<number> {
  const { values } = parseCommand(argv, {
    help: { type: 'boolean', short: 'h' },
    db: { type: 'string' },
    print: { type: 'boolean' },
  });
  if (values.help === true) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const url = readDb(values.db as string | undefined);
  if (values.print === true) {
    for (const file of loadMigrationFiles(parseConnectionUrl(url).kind)) {
      process.stdout.write(
        `-- ${String(file.version).padStart(4, '0')}_${file.name}\n${file.sql}\n`,
      );
    }
    return 0;
  }
  const database = openDatabase(url);
  try {
    const result = await migrate(database);
    process.stdout.write(
      result.applied.length === 0
        ? `database is current (version ${result.current})\n`
        : `applied ${result.applied.join(', ')}; database is at version ${result.current}\n`,
    );
    return 0;
  } finally {
    await database.close();
  }
}
