// Writes the OpenAPI document the routes generate to openapi.json (npm run openapi), and the SDK's
// generated files from it. The test suite fails when the committed files and these differ.
import fs from 'node:fs';
import path from 'node:path';
import { createPbs } from '../src/app.js';
import { loadConfig } from '../src/platform/config.js';
import { openDatabase } from '../src/platform/db/database.js';
import { sdkSources } from './sdk-sources.js';

const root = path.resolve(import.meta.dirname, '..');
const config = loadConfig({ PBS_SANDBOX: '1', PBS_LOG_LEVEL: 'silent', PBS_ADMIN_TOKEN: 'openapi', PBS_TASKS: '0', PBS_SEED_DEMO: '0' });
const pbs = await createPbs(config, { database: await openDatabase({}), issueAdminToken: false });
try {
  const document = pbs.app.swagger();
  fs.writeFileSync(path.join(root, 'openapi.json'), `${JSON.stringify(document, null, 2)}\n`);
  process.stdout.write(`wrote openapi.json (${Object.keys((document as { paths: object }).paths).length} paths)\n`);
  for (const [file, text] of Object.entries(await sdkSources(document))) {
    fs.writeFileSync(path.join(root, file), text);
    process.stdout.write(`wrote ${file}\n`);
  }
} finally {
  await pbs.close();
}
