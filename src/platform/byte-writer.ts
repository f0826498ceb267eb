/**
 * Assembles a response body as bytes in one reused scratch buffer and hands out an exact copy.
 * A body built by string concatenation costs a chain of string pieces, a flat copy when its
 * length is taken and an encoded copy when it is written to the socket; this costs one buffer.
 * Synchronous use only (one body at a time per writer).
 */
export class ByteWriter {
  private scratch = Buffer.allocUnsafe(16 * 1024);
  private length = 0;

  /** Starts a new body. */
  reset(): this {
    this.length = 0;
    return this;
  }

  /** Appends a string of ASCII (or Latin-1) characters. */
  ascii(text: string): this {
    this.room(text.length);
    this.length += this.scratch.write(text, this.length, 'latin1');
    return this;
  }

  /** Appends any string as UTF-8. */
  utf8(text: string): this {
    this.room(Buffer.byteLength(text));
    this.length += this.scratch.write(text, this.length, 'utf8');
    return this;
  }

  /** Appends bytes prepared earlier (fragments used by every body). */
  bytes(bytes: Uint8Array): this {
    this.room(bytes.length);
    this.scratch.set(bytes, this.length);
    this.length += bytes.length;
    return this;
  }

  /** The body so far, copied out (small ones come from Node's shared buffer pool). */
  finish(): Buffer {
    const body = Buffer.allocUnsafe(this.length);
    this.scratch.copy(body, 0, 0, this.length);
    return body;
  }

  private room(bytes: number): void {
    if (this.length + bytes <= this.scratch.length) return;
    const larger = Buffer.allocUnsafe(Math.max(this.scratch.length * 2, this.length + bytes));
    this.scratch.copy(larger, 0, 0, this.length);
    this.scratch = larger;
  }
}
