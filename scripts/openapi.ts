// Writes the OpenAPI document the routes generate to openapi.json (npm run openapi). The test
// suite fails when the committed file and the served document differ.
import fs from 'node:fs';
import path from 'node:path';
import { createPbs } from '../src/app.js';
import { loadConfig } from '../src/platform/config.js';
import { openDatabase } from '../src/platform/db/database.js';

const root = path.resolve(import.meta.dirname, '..');
const config = loadConfig({ PBS_SANDBOX: '1', PBS_LOG_LEVEL: 'silent', PBS_ADMIN_TOKEN: 'openapi', PBS_TASKS: '0', PBS_SEED_DEMO: '0' });
const pbs = await createPbs(config, { database: await openDatabase({}), issueAdminToken: false });
try {
  fs.writeFileSync(path.join(root, 'openapi.json'), `${JSON.stringify(pbs.app.swagger(), null, 2)}\n`);
  process.stdout.write(`wrote openapi.json (${Object.keys((pbs.app.swagger() as { paths: object }).paths).length} paths)\n`);
} finally {
  await pbs.close();
}
