// What every example needs: where pbs is and the demo partner's credentials, as a newcomer has
// them after `npm start` (the sandbox saves them in data/demo-credentials.json).
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';

export interface ExampleEnv {
  baseUrl: string;
  partnerId: string;
  apiKey: string;
  basic: { username: string; password: string };
  oauth: { clientId: string; clientSecret: string };
  /** The operator token: examples use it only for what a partner cannot do (set up a waitlist, register a webhook URL). */
  adminToken: string;
  log: (line: string) => void;
}

/** From PBS_URL (default http://127.0.0.1:8080) and PBS_CREDENTIALS (default data/demo-credentials.json). */
export function envFromCredentialsFile(
  file = process.env.PBS_CREDENTIALS ?? 'data/demo-credentials.json',
  baseUrl = process.env.PBS_URL ?? 'http://127.0.0.1:8080',
  log: (line: string) => void = (line) => console.log(line),
): ExampleEnv {
  const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  return {
    baseUrl,
    partnerId: saved.partner_id,
    apiKey: saved.api_key,
    basic: { username: saved.basic_username, password: saved.basic_password },
    oauth: { clientId: saved.oauth_client_id, clientSecret: saved.oauth_client_secret },
    adminToken: saved.admin_token,
    log,
  };
}

/** Runs `example` when its file is the program (`npx tsx examples/reservations.ts`), not when a test imports it. */
export function runWhenMain(moduleUrl: string, example: (env: ExampleEnv) => Promise<unknown>): void {
  if (process.argv[1] && pathToFileURL(process.argv[1]).href === moduleUrl) {
    example(envFromCredentialsFile()).then(
      (result) => console.log(JSON.stringify(result, null, 2)),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  }
}

/** A date `days` after `iso` (YYYY-MM-DD). */
export function addDays(iso: string, days: number): string {
  return new Date(Date.parse(`${iso.slice(0, 10)}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
