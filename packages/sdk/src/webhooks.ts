import { createHmac, timingSafeEqual } from 'node:crypto';

/** A message pbs POSTs to a partner's webhook URL (README "Subscriptions and webhooks"). */
export interface WebhookMessage {
  time: string;
  object: string;
  data: { id: string; updates: Array<{ event_type: string; event_id?: string; [field: string]: unknown }> } & Record<string, unknown>;
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The endpoint's secret (`whsec_…`); during a rotation, both the old and the new one. */
  secret: string | string[];
  /** The raw body exactly as received (parse it only after verifying). */
  body: string | Uint8Array;
  headers: HeaderBag;
  /** How far `webhook-timestamp` may be from now; default 5 minutes (replayed messages are refused). */
  toleranceSeconds?: number;
  /** Now, in ms (pbs signs with its own clock: a receiver of a sandbox whose clock moved passes pbs's time or a larger tolerance). */
  now?: number;
}

function header(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the secret's key (Standard Webhooks). */
export function signWebhook(secret: string, id: string, timestamp: number, body: string | Uint8Array): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const payload = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), typeof body === 'string' ? Buffer.from(body) : Buffer.from(body)]);
  return `v1,${createHmac('sha256', key).update(payload).digest('base64')}`;
}

/**
 * Checks a delivery's Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) against the raw body, and answers the parsed message. Throws
 * WebhookVerificationError when a header is missing, the timestamp is outside the tolerance, or
 * no signature matches. De-duplicate on `webhook-id`: delivery is at least once.
 */
export function verifyWebhook(options: VerifyWebhookOptions): WebhookMessage & { webhookId: string } {
  const id = header(options.headers, 'webhook-id');
  const timestampText = header(options.headers, 'webhook-timestamp');
  const signatures = header(options.headers, 'webhook-signature');
  if (!id || !timestampText || !signatures)
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const timestamp = Number(timestampText);
  if (!Number.isInteger(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a whole number of seconds');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(now - timestamp) > tolerance) throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s from now`);
  const secrets = Array.isArray(options.secret) ? options.secret : [options.secret];
  const offered = signatures.split(' ').map((s) => Buffer.from(s));
  const matches = secrets.some((secret) => {
    const expected = Buffer.from(signWebhook(secret, id, timestamp, options.body));
    return offered.some((got) => got.length === expected.length && timingSafeEqual(got, expected));
  });
  if (!matches) throw new WebhookVerificationError('no signature matches the secret');
  const text = typeof options.body === 'string' ? options.body : Buffer.from(options.body).toString('utf8');
  return { ...(JSON.parse(text) as WebhookMessage), webhookId: id };
}

/**
 * The answer to pbs's URL verification (`GET <url>?verification=<random>`): the body to send
 * back, or undefined when the request is not a verification.
 */
export function verificationAnswer(url: string | URL): { verification: string } | undefined {
  const value = new URL(url, 'http://receiver.invalid').searchParams.get('verification');
  return value === null ? undefined : { verification: value };
}
