import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` for one secret (Standard Webhooks). */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** What a receiver does: true when any of the space-separated signatures matches. */
export function verifySignature(secret: string, id: string, timestamp: number, body: string, header: string): boolean {
  const expected = Buffer.from(sign(secret, id, timestamp, body));
  return header.split(' ').some((candidate) => {
    const got = Buffer.from(candidate);
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}

/**
 * How far a `webhook-timestamp` may be from the receiver's clock, either way: the tolerance of
 * the Standard Webhooks libraries (npm `standardwebhooks`, `svix`), which refuse a message
 * outside it as a replay.
 */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export type DeliveryVerdict = 'ok' | 'signature does not match' | 'timestamp too old' | 'timestamp too new' | 'timestamp missing';

/** What a Standard Webhooks library decides about one delivery, checked against `nowMs` (real time). */
export function judgeDelivery(
  secret: string,
  delivery: { id: string; timestamp: string; body: string; signature: string },
  nowMs: number,
): DeliveryVerdict {
  if (!/^\d+$/.test(delivery.timestamp)) return 'timestamp missing';
  const timestamp = Number(delivery.timestamp);
  const now = Math.floor(nowMs / 1000);
  if (now - timestamp > TIMESTAMP_TOLERANCE_SECONDS) return 'timestamp too old';
  if (timestamp - now > TIMESTAMP_TOLERANCE_SECONDS) return 'timestamp too new';
  return verifySignature(secret, delivery.id, timestamp, delivery.body, delivery.signature) ? 'ok' : 'signature does not match';
}
