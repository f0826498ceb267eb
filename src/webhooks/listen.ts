import http from 'node:http';
import { judgeDelivery, TIMESTAMP_TOLERANCE_SECONDS, type DeliveryVerdict } from './signing.js';
import { isRecord } from '../platform/values.js';

export interface ListenOptions {
  port: number;
  host: string;
  /** The endpoint's signing secret (whsec_…): deliveries are checked against it when given. */
  secret?: string;
  /** Where lines go (stdout by default). */
  print?: (line: string) => void;
}

/**
 * `pbs webhook-listen`: a webhook receiver for trying pbs on one machine. It answers the
 * verification challenge (spec, Events 2) and prints every delivery, saying whether a Standard
 * Webhooks library would accept it: the signature with the given secret, and the timestamp within
 * the libraries' tolerance of this machine's clock. Other requests get 200 `{"status": "listening"}`.
 */
export async function listenForWebhooks(options: ListenOptions): Promise<{ url: string; close(): Promise<void> }> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://listener');
    const challenge = url.searchParams.get('verification');
    if (req.method === 'GET' && challenge !== null) {
      print(`verification challenge answered (${challenge})`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ verification: challenge }));
      return;
    }
    if (req.method !== 'POST') {
      // Anything else (a readiness check, a browser) is no delivery.
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"listening"}');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 1024 * 1024) chunks.push(chunk);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id'] ?? '');
      const verdict = !options.secret
        ? 'signature not checked (no --secret)'
        : verdictLine(
            judgeDelivery(
              options.secret,
              {
                id,
                timestamp: String(req.headers['webhook-timestamp'] ?? ''),
                body,
                signature: String(req.headers['webhook-signature'] ?? ''),
              },
              Date.now(),
            ),
          );
      let summary = body;
      try {
        summary = `${summaryOf(JSON.parse(body))}\n  ${body}`;
      } catch {
        // printed as it came
      }
      print(`${req.method ?? 'POST'} ${id} ${verdict}: ${summary}`);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://${options.host}:${port}/hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The verdict as `webhook-listen` prints it: what a receiver's library would do, in capitals when it refuses. */
function verdictLine(verdict: DeliveryVerdict): string {
  if (verdict === 'ok') return 'signature ok';
  if (verdict === 'signature does not match') return 'SIGNATURE DOES NOT MATCH';
  return `${verdict.toUpperCase()} (receivers refuse a webhook-timestamp more than ${TIMESTAMP_TOLERANCE_SECONDS} s from their clock)`;
}

/** `NEW_REVIEW,… for business ID` from a delivery's JSON, `?` where a part is missing. */
function summaryOf(parsed: unknown): string {
  const data = isRecord(parsed) && isRecord(parsed.data) ? parsed.data : {};
  const updates = Array.isArray(data.updates) ? data.updates : undefined;
  const types = updates?.map((u: unknown) => (isRecord(u) && typeof u.event_type === 'string' ? u.event_type : '?')).join(',') ?? '?';
  return `${types} for business ${typeof data.id === 'string' ? data.id : '?'}`;
}
