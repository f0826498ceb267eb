import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import { apiError } from '../errors.js';
import type { LineSource } from '../json-lines.js';

/** The JSON-lines types an import route takes as a stream. */
const STREAMED_TYPES = ['application/x-ndjson', 'application/jsonl'];

/** Spooled import files are named so: what `clearLeftovers` removes. */
const SPOOL_FILE = /^pbs-import-[0-9a-f]{16}\.jsonl$/;

declare module 'fastify' {
  interface FastifyInstance {
    /** Where import bodies are spooled (app.ts decorates the server with it). */
    importSpool?: ImportSpool;
  }
}

/**
 * Where import bodies wait on disk (`<PBS_DATA_DIR>/spool`, 0700): at most `maxTotalBytes` held
 * by all imports at once (past it an import answers 503 with Retry-After), and at start, files a
 * stopped process left there are removed (docs/security.md "Limits").
 */
export class ImportSpool {
  /** Bytes spooled by imports under way. */
  private held = 0;

  constructor(
    readonly directory: string,
    private readonly maxTotalBytes: number,
  ) {}

  /** Removes spool files left by a process that stopped mid-import; call at start, before anything spools. Answers how many. */
  async clearLeftovers(): Promise<number> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.directory);
    } catch {
      return 0; // no directory: nothing was ever spooled
    }
    const left = names.filter((name) => SPOOL_FILE.test(name));
    await Promise.all(left.map((name) => fs.promises.rm(path.join(this.directory, name), { force: true })));
    return left.length;
  }

  /** A new spool file's path, its directory made (0700) if need be. */
  async newFile(): Promise<string> {
    await fs.promises.mkdir(this.directory, { recursive: true, mode: 0o700 });
    return path.join(this.directory, `pbs-import-${randomBytes(8).toString('hex')}.jsonl`);
  }

  /** Counts `bytes` more against the total; false (nothing counted) when they do not fit. */
  take(bytes: number): boolean {
    if (this.held + bytes > this.maxTotalBytes) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held -= bytes;
  }
}

/** How long an import refused for want of spool room is told to wait. */
const SPOOL_FULL_RETRY_SECONDS = 30;

/**
 * A request body left unread by Fastify, for imports larger than memory should hold. The stream
 * sits in a private field, so the input checks that walk a body see nothing to walk.
 */
export class StreamedBody {
  readonly #source: Readable;
  readonly #spool: ImportSpool;

  constructor(source: Readable, spool: ImportSpool) {
    this.#source = source;
    this.#spool = spool;
  }

  /**
   * Copies the body to a spool file (at most `maxBytes`, else 413 PAYLOAD_TOO_LARGE; while other
   * imports hold the spool's room, 503), then runs `work` on the file's contents and removes the
   * file. The request is then received at the speed of the disk, not of the import: Node cuts off
   * requests not received within PBS_REQUEST_TIMEOUT_MS, and an import of 100,000 records takes
   * longer than that to apply.
   */
  async spooled<T>(maxBytes: number, work: (source: LineSource) => Promise<T>): Promise<T> {
    const spool = this.#spool;
    const file = await spool.newFile();
    let received = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (received + chunk.length > maxBytes) return done(apiError('PAYLOAD_TOO_LARGE', `An import takes at most ${maxBytes} bytes.`));
        if (!spool.take(chunk.length))
          return done(
            apiError(
              'SERVICE_UNAVAILABLE',
              'Other imports are holding all the room pbs keeps for imports; retry after the Retry-After seconds.',
              {
                headers: { 'retry-after': String(SPOOL_FULL_RETRY_SECONDS) },
              },
            ),
          );
        received += chunk.length;
        done(null, chunk);
      },
    });
    try {
      await pipeline(this.#source, limit, fs.createWriteStream(file, { mode: 0o600 }));
      return await work(fs.createReadStream(file, { highWaterMark: 256 * 1024 }));
    } finally {
      await fs.promises.rm(file, { force: true });
      spool.give(received);
    }
  }
}

/**
 * Makes the routes of this (encapsulated) Fastify context receive JSON-lines bodies (and the
 * `also` types, e.g. text/csv) as a StreamedBody instead of text. Register it in a plugin holding
 * import routes only.
 */
export function streamJsonLines(app: FastifyInstance, also: string[] = []): void {
  for (const type of [...STREAMED_TYPES, ...also]) {
    if (app.hasContentTypeParser(type)) app.removeContentTypeParser(type);
    app.addContentTypeParser(type, (request, payload, done) => {
      const spool = request.server.importSpool;
      if (!spool) return done(new Error('no import spool: app.ts decorates the server with one'), undefined);
      done(null, new StreamedBody(payload, spool));
    });
  }
}

/** What an import route hands its service: the spooled stream, or a text body (text/plain) as it came. */
export async function importSource<T>(body: unknown, maxBytes: number, work: (source: LineSource) => Promise<T>): Promise<T> {
  if (body instanceof StreamedBody) return body.spooled(maxBytes, work);
  return work(typeof body === 'string' ? body : '');
}
