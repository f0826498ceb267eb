import { request, type Agent } from 'undici';
import { isRecord } from '../platform/values.js';
import { checkWebhookUrl, type AddressPolicy } from './address-guard.js';
import { describeRequestFailure, MAX_ANSWER_BYTES } from './outbound.js';

/**
 * Why a receiver failed verification (spec Events 2), or undefined when it passed: GET
 * <url>?verification=<token> must answer 2xx with a JSON object whose one key `verification`
 * echoes the token. Only addresses the policy allows are reached (the agent checks them as it
 * connects).
 */
export async function verificationFailure(
  rawUrl: string,
  token: string,
  options: { policy: AddressPolicy; agent: Agent; timeoutMs: number },
): Promise<string | undefined> {
  const refused = await checkWebhookUrl(rawUrl, options.policy);
  if (refused) return `url refused: ${refused}`;
  const url = new URL(rawUrl);
  url.searchParams.set('verification', token);
  try {
    // One deadline for the whole exchange, and at most MAX_ANSWER_BYTES read: the answer is a
    // one-key JSON object, and a receiver must not make pbs read (or wait for) more.
    const response = await request(url, {
      method: 'GET',
      dispatcher: options.agent,
      headers: { accept: 'application/json', 'user-agent': 'pbs-webhooks/1' },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      // undici's body yields Buffers (no encoding is set on it); the check keeps that honest.
      if (!Buffer.isBuffer(chunk)) throw new Error('the answer body yielded text, not bytes');
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        response.body.destroy();
        return `answer is longer than ${MAX_ANSWER_BYTES} bytes`;
      }
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (response.statusCode < 200 || response.statusCode >= 300) return `answered HTTP ${response.statusCode}`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return 'answer is not JSON';
    }
    if (!isRecord(parsed)) return 'answer is not a JSON object';
    const keys = Object.keys(parsed);
    if (keys.length !== 1 || keys[0] !== 'verification') return 'answer must have exactly one key, "verification"';
    if (parsed.verification !== token) return 'answer does not echo the verification string';
    return undefined;
  } catch (error) {
    return describeRequestFailure(error, options.timeoutMs);
  }
}
