import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advertising } from '../../examples/advertising.js';
import { businessMatch } from '../../examples/business-match.js';
import { engagement } from '../../examples/engagement.js';
import { leads } from '../../examples/leads.js';
import { reservations } from '../../examples/reservations.js';
import { reviews } from '../../examples/reviews.js';
import { subscriptionsAndWebhooks } from '../../examples/subscriptions-and-webhooks.js';
import { envFromCredentialsFile, type ExampleEnv } from '../../examples/support.js';
import { waitlist } from '../../examples/waitlist.js';
import { processTarget, startServerProcess, stopStrayServers } from '../support/process.js';

/**
 * Every example in examples/, run as a newcomer would after `npm start`: against a real pbs
 * process with its demo dataset, reading the sandbox's saved credentials.
 */
describe.each(['sqlite', 'postgres'] as const)('the SDK examples against a live pbs on %s', (dialect) => {
  let target: Awaited<ReturnType<typeof processTarget>>;
  let env: ExampleEnv;
  const lines: string[] = [];

  beforeAll(async () => {
    target = await processTarget(dialect, 'examples');
    const server = await startServerProcess({
      ...target.env,
      PBS_TASKS_POLL_MS: '50',
      PBS_WEBHOOK_POLL_MS: '50',
      PBS_AD_JOB_DELAY_MS: '500',
    });
    const file = /also saved in (\S+)\)/.exec(server.output())![1];
    env = envFromCredentialsFile(file, server.url, (line) => lines.push(line));
  });
  afterAll(async () => {
    await stopStrayServers();
    await target?.cleanup();
  });

  it('reservations: search, openings, hold, reserve, status, cancel', async () => {
    const result = await reservations(env);
    expect(result).toMatchObject({ activeBefore: true, afterCancel: 'RESERVATION_CANCELED' });
    expect(lines.join('\n')).toMatch(/reserved \S+: http/);
  });

  it('finding businesses: search by words, Business Match, details by id', async () => {
    const result = await businessMatch(env);
    expect(result).toMatchObject({ found: 5, sameAsSearched: true, photos: 1 });
  });

  it('advertising: a program created and ended through polled jobs', async () => {
    const result = await advertising(env);
    expect(result).toMatchObject({ created: 'COMPLETED', active: ['AD_GOAL', 'CUSTOM_RADIUS_TARGETING'], ended: 'COMPLETED' });
    expect(result.program).toMatch(/\S+/);
  });

  it('waitlist: the line opened by the operator, a visit joined, followed and cancelled', async () => {
    const result = await waitlist(env);
    expect(result).toMatchObject({ state: 'OPEN', partiesAhead: 1, cancelAgain: 'VISIT_ALREADY_IN_TERMINAL_STATE' });
  });

  it('private reviews with the OAuth token flow', async () => {
    const result = await reviews(env);
    expect(result.total).toBe(3);
    expect(result.language).toBe('en_US');
    expect(result.newest).toMatchObject({ rating: expect.any(Number), user: { name: expect.stringMatching(/^\S+ [A-Z]\.$/) } });
  });

  it('leads: a business user authorizes the app, which reads a lead, replies and marks it read', async () => {
    const result = await leads(env);
    expect(result).toMatchObject({ lead: 'demo-lead-birthday', jobs: [expect.any(String)], replied: expect.any(String) });
    expect(result.leadIds).toContain('demo-lead-birthday');
  });

  it('engagement metrics for three businesses', async () => {
    const result = await engagement(env);
    expect(result.businesses).toBe(3);
    for (const week of result.metrics)
      expect(week).toMatchObject({
        engagement_metric: expect.any(Number),
        intent_metric: expect.any(Number),
        transaction_metric: expect.any(Number),
      });
  });

  it('subscriptions and a signed webhook verified by the receiver', async () => {
    const result = await subscriptionsAndWebhooks(env);
    expect(result.events).toContain('NEW_EVENT');
    expect(result.webhookId).toMatch(/^msg_/);
  });
});
