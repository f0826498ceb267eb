import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Behaviour = (req: Received, res: http.ServerResponse) => void;

/** A real HTTP receiver on loopback whose answers a test scripts request by request. */
export class Receiver {
  readonly received: Received[] = [];
  private readonly server: http.Server;
  behaviour: Behaviour = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  };

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const r = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.received.push(r);
        this.behaviour(r, res);
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  posts(): Received[] {
    return this.received.filter((r) => r.method === 'POST');
  }

  /** Answers the verification challenge correctly, and every POST with `status`. */
  static echoing(status = 200): Behaviour {
    return (req, res) => {
      const token = new URL(req.url, 'http://x').searchParams.get('verification');
      if (req.method === 'GET' && token)
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ verification: token }));
      res.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":true}');
    };
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
