import fs from 'node:fs';
import path from 'node:path';

/** What pbs creates in its data directory (PBS_DATA_DIR): the database and its request log, sandbox credentials, the import spool. */
const OWN_FILES = /^pbs(\.logs)?\.sqlite(-wal|-shm|-journal)?$|^demo-credentials.*\.json$|^spool$/;

/**
 * Keeps the directory holding the SQLite database to its owner (0700): the database holds
 * partners' data and credential hashes. A directory made by pbs is made so; one that already
 * exists with a looser mode (an older pbs made `data/` 0755) is tightened when it is evidently
 * pbs's own (owned by this user, not sticky like /tmp, holding nothing but pbs's files);
 * otherwise pbs warns once and leaves it as it is (docs/security.md, "What is stored how").
 */
export function keepDirectoryToOwner(dir: string, warn: (message: string) => void = (message) => process.emitWarning(message)): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.statSync(dir);
  if ((stat.mode & 0o077) === 0) return;
  const ours = stat.uid === process.getuid?.() && (stat.mode & 0o1000) === 0 && fs.readdirSync(dir).every((name) => OWN_FILES.test(name));
  if (ours) {
    fs.chmodSync(dir, 0o700);
    return;
  }
  warn(
    `The database directory ${path.resolve(dir)} is open to other users (mode ${(stat.mode & 0o777).toString(8)}); pbs keeps its database file 0600, but consider \`chmod 700\` on the directory.`,
  );
}
