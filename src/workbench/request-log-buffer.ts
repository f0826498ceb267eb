import type { RequestRecord } from '../platform/http/request-recording.js';

/**
 * The request log's waiting entries as bytes (docs/request-log.md "How it is written"). Each
 * record is written into a chunk of memory the moment its answer is sent, so nothing of the
 * request (its objects, the slab its answer is a view of) is kept alive until the batch is
 * written, and a batch goes to the writer thread by moving its chunks (a transfer, no copy)
 * instead of a structured clone of thousands of objects, which the writer thread took ~5 µs a
 * record to take apart (these bytes: ~1 µs; openings, 2026-11-27).
 *
 * A record is `head`, `request body`, `answer`, each a 32-bit length then UTF-8 bytes; a body
 * that is absent has the length NONE. `head` is a JSON array of the small fields, in the order
 * `append` writes them and `decodeRecords` reads them.
 */

/** One batch: the chunks' memory, each used up to its length, and how many records they hold. */
export interface RecordChunks {
  buffers: ArrayBuffer[];
  lengths: number[];
  count: number;
}

/** A record after the trip through bytes: its bodies are text. */
export type DecodedRecord = Omit<RequestRecord, 'requestBody' | 'responseBody'> & {
  requestBody: string | undefined;
  responseBody: string | undefined;
};

const NONE = 0xffff_ffff;

/**
 * A record's small fields, in the order they are written: the one place that order is named,
 * read by `headOf` (writing) and `recordOf` (reading). Absent values are null: JSON has no
 * undefined.
 */
type RecordHead = [
  at: number,
  routeInterface: string,
  operation: string,
  method: string,
  url: string,
  status: number,
  durationMs: number,
  requestId: string,
  idempotencyKey: string | null,
  partnerId: string | null,
  credentialKind: string | null,
  credentialId: string | null,
  clientAddress: string,
  faultRule: string | null,
  retryAfter: string | null,
  realAt: number,
];

function headOf(r: RequestRecord): RecordHead {
  return [
    r.at,
    r.interface,
    r.operation,
    r.method,
    r.url,
    r.status,
    r.durationMs,
    r.requestId,
    r.idempotencyKey ?? null,
    r.partnerId ?? null,
    r.credentialKind ?? null,
    r.credentialId ?? null,
    r.clientAddress,
    r.faultRule ?? null,
    r.retryAfter ?? null,
    r.realAt,
  ];
}

function recordOf(head: RecordHead, requestBody: string | undefined, responseBody: string | undefined): DecodedRecord {
  const [at, routeInterface, operation, method, url, status, durationMs, requestId, ...who] = head;
  const [idempotencyKey, partnerId, credentialKind, credentialId, clientAddress, faultRule, retryAfter, realAt] = who;
  return {
    at,
    interface: routeInterface,
    operation,
    method,
    url,
    status,
    durationMs,
    requestId,
    idempotencyKey: idempotencyKey ?? undefined,
    partnerId: partnerId ?? undefined,
    credentialKind: credentialKind ?? undefined,
    credentialId: credentialId ?? undefined,
    clientAddress,
    faultRule: faultRule ?? undefined,
    retryAfter: retryAfter ?? undefined,
    realAt,
    requestBody,
    responseBody,
  };
}

/** A chunk's size: large enough that a batch of small answers takes few, small enough to cost little when idle. */
const CHUNK_BYTES = 1024 * 1024;
/** Chunks kept for reuse at most: a batch's worth at openings' size and rate. */
const MAX_SPARE = 64;

/** Appends records as bytes; `take` hands over what was written and starts again. */
export class RecordBuffer {
  private buffers: ArrayBuffer[] = [];
  private lengths: number[] = [];
  private chunk: Buffer | undefined;
  private at = 0;
  /** Chunks written out and given back (`recycle`), to be written again. */
  private readonly spare: ArrayBuffer[] = [];
  /** Records written since the last `take`. */
  count = 0;
  /** Bytes written since the last `take`. */
  bytes = 0;

  append(r: RequestRecord): void {
    const head = JSON.stringify(headOf(r));
    const request = requestText(r.requestBody);
    const answer = r.responseBody;
    // At most three bytes of UTF-8 per UTF-16 unit: room enough without measuring the text first
    // (an answer already in bytes takes just its length).
    const answerRoom = answer === undefined ? 0 : typeof answer === 'string' ? answer.length * 3 : answer.length;
    const room = 12 + head.length * 3 + (request === undefined ? 0 : request.length * 3) + answerRoom;
    const out = this.room(room);
    const start = this.at;
    let at = this.writeText(out, start, head);
    at = request === undefined ? this.writeNone(out, at) : this.writeText(out, at, request);
    at =
      answer === undefined
        ? this.writeNone(out, at)
        : typeof answer === 'string'
          ? this.writeText(out, at, answer)
          : this.writeBytes(out, at, answer);
    this.at = at;
    this.bytes += at - start;
    this.count++;
  }

  /** What was written, as whole chunks to hand over; the buffer starts empty. */
  take(): RecordChunks {
    if (this.chunk) this.close();
    const taken = { buffers: this.buffers, lengths: this.lengths, count: this.count };
    this.buffers = [];
    this.lengths = [];
    this.count = 0;
    this.bytes = 0;
    return taken;
  }

  /** Takes back chunks whose records were written, so their memory is used again instead of new memory allocated. */
  recycle(buffers: ArrayBuffer[]): void {
    for (const buffer of buffers) if (buffer.byteLength === CHUNK_BYTES && this.spare.length < MAX_SPARE) this.spare.push(buffer);
  }

  private room(bytes: number): Buffer {
    if (this.chunk && this.at + bytes <= this.chunk.length) return this.chunk;
    if (this.chunk) this.close();
    const spare = bytes <= CHUNK_BYTES ? this.spare.pop() : undefined;
    // Not from Node's shared pool: a chunk's memory is its own, so it can be transferred whole.
    this.chunk = spare ? Buffer.from(spare) : Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, bytes));
    this.at = 0;
    return this.chunk;
  }

  private close(): void {
    // Cast: allocUnsafeSlow's memory is an ArrayBuffer of its own (never shared), so it can be transferred.
    this.buffers.push(this.chunk!.buffer as ArrayBuffer);
    this.lengths.push(this.at);
    this.chunk = undefined;
    this.at = 0;
  }

  private writeText(out: Buffer, at: number, text: string): number {
    const length = out.write(text, at + 4, 'utf8');
    out.writeUInt32LE(length, at);
    return at + 4 + length;
  }

  private writeBytes(out: Buffer, at: number, bytes: Uint8Array): number {
    out.writeUInt32LE(bytes.length, at);
    out.set(bytes, at + 4);
    return at + 4 + bytes.length;
  }

  private writeNone(out: Buffer, at: number): number {
    out.writeUInt32LE(NONE, at);
    return at + 4;
  }
}

/** A request body as text: as sent for text bodies (CSV, NDJSON), as JSON for parsed ones (JSON, forms). */
function requestText(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  try {
    return JSON.stringify(body);
  } catch {
    return undefined;
  }
}

/** The records of a batch, in the order they were written. */
export function decodeRecords(chunks: RecordChunks): DecodedRecord[] {
  const records: DecodedRecord[] = [];
  for (let c = 0; c < chunks.buffers.length; c++) {
    const bytes = Buffer.from(chunks.buffers[c], 0, chunks.lengths[c]);
    let at = 0;
    const text = (): string | undefined => {
      const length = bytes.readUInt32LE(at);
      at += 4;
      if (length === NONE) return undefined;
      at += length;
      return bytes.toString('utf8', at - length, at);
    };
    while (at < bytes.length) {
      // Written by `append` in this process from `headOf`: the bytes are pbs's own, not input.
      const head = JSON.parse(text()!) as RecordHead;
      const requestBody = text();
      records.push(recordOf(head, requestBody, text()));
    }
  }
  return records;
}
