import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import { apiError } from '../errors.js';
import type { LineSource } from '../json-lines.js';

/** The JSON-lines types an import route takes as a stream. */
const STREAMED_TYPES = ['application/x-ndjson', 'application/jsonl'];

/**
 * A request body left unread by Fastify, for imports larger than memory should hold. The stream
 * sits in a private field, so the input checks that walk a body see nothing to walk.
 */
export class StreamedBody {
  readonly #source: Readable;

  constructor(source: Readable) {
    this.#source = source;
  }

  /**
   * Copies the body to a temporary file (at most `maxBytes`, else 413 PAYLOAD_TOO_LARGE), then
   * runs `work` on the file's contents and removes the file. The request is then received at the
   * speed of the disk, not of the import: Node cuts off requests not received within
   * PBS_REQUEST_TIMEOUT_MS, and an import of 100,000 records takes longer than that to apply.
   */
  async spooled<T>(maxBytes: number, work: (source: LineSource) => Promise<T>): Promise<T> {
    const file = path.join(os.tmpdir(), `pbs-import-${randomBytes(8).toString('hex')}.jsonl`);
    let received = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        done(received > maxBytes ? apiError('PAYLOAD_TOO_LARGE', `An import takes at most ${maxBytes} bytes.`) : null, chunk);
      },
    });
    try {
      await pipeline(this.#source, limit, fs.createWriteStream(file, { mode: 0o600 }));
      return await work(fs.createReadStream(file, { highWaterMark: 256 * 1024 }));
    } finally {
      await fs.promises.rm(file, { force: true });
    }
  }
}

/**
 * Makes the routes of this (encapsulated) Fastify context receive JSON-lines bodies as a
 * StreamedBody instead of text. Register it in a plugin holding import routes only.
 */
export function streamJsonLines(app: FastifyInstance): void {
  for (const type of STREAMED_TYPES) {
    if (app.hasContentTypeParser(type)) app.removeContentTypeParser(type);
    app.addContentTypeParser(type, (_request, payload, done) => done(null, new StreamedBody(payload)));
  }
}

/** What an import route hands its service: the spooled stream, or a text body (text/plain) as it came. */
export async function importSource<T>(body: unknown, maxBytes: number, work: (source: LineSource) => Promise<T>): Promise<T> {
  if (body instanceof StreamedBody) return body.spooled(maxBytes, work);
  return work(typeof body === 'string' ? body : '');
}
