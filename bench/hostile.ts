import autocannon, { type Result } from 'autocannon';
import { ADMIN, api, besideRaw, DURATION, measure, type Figure } from './harness.js';

/** `[` × 400,000 then `]` × 400,000: about 0.8 MB that JSON.parse needs half a second of CPU for. */
const NESTED = '['.repeat(400_000) + ']'.repeat(400_000);
const ATTACKERS = 8;

/**
 * Issue 24 §1: while 8 authenticated clients send deeply nested JSON bodies to
 * `POST /v3/businesses/subscriptions` for the whole run, how fast does `/healthz` answer? Goal:
 * p99 below 50 ms. The nested bodies are refused (400 MALFORMED_JSON) by a scan that stops at the
 * 33rd bracket, before JSON.parse sees them.
 */
export async function hostileBodiesScenario(base: string): Promise<Figure[]> {
  const partner = await api(
    base,
    'POST',
    '/admin/v1/partners',
    ADMIN,
    JSON.stringify({ name: 'Hostile bench', interfaces: ['business_subscriptions'] }),
  );
  const key = (await api(base, 'POST', `/admin/v1/partners/${partner.id}/credentials`, ADMIN, JSON.stringify({ kind: 'api_key' })))
    .api_key as string;
  const quiet = await besideRaw(() => measure('/healthz, no other traffic', { url: `${base}/healthz` }, 10));
  let attack: Result | undefined;
  const attacking = autocannon({
    url: `${base}/v3/businesses/subscriptions`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: NESTED,
    connections: ATTACKERS,
    duration: DURATION + 4,
  }).then((r) => (attack = r));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const underAttack = await besideRaw(() =>
    measure(`/healthz while ${ATTACKERS} clients send nested JSON (0.8 MB each)`, { url: `${base}/healthz` }, 10),
  );
  await attacking;
  const refused = attack!['4xx'];
  underAttack.extra = `${Math.round(refused / (DURATION + 4)).toLocaleString('en-US')} nested bodies refused a second (4xx), ${attack!.errors} errors; goal p99 < 50 ms`;
  return [quiet, underAttack];
}
