import fs from 'node:fs';
import cliProgress from 'cli-progress';

/** Where progress goes: stderr, so stdout stays the command's answer. A terminal gets a bar. */
export type ProgressStream = NodeJS.WritableStream & { isTTY?: boolean };

/** A bar of `total` (total, share, rate, time left) on a terminal; undefined elsewhere. */
function bar(what: string, total: number, stream: ProgressStream): { update(done: number): void; stop(done: number): void } | undefined {
  if (!stream.isTTY) return undefined;
  const started = Date.now();
  const rate = (done: number) => Math.round(done / Math.max(0.001, (Date.now() - started) / 1000)).toLocaleString('en-US');
  const progress = new cliProgress.SingleBar(
    {
      format: `{bar} {percentage}% | {value}/{total} ${what} | {rate}/s | {eta_formatted} left`,
      stream,
      // The cursor stays: an import refused midway ends without the bar's stop, which would show it again.
      hideCursor: false,
      etaBuffer: 50,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  progress.start(total, 0, { rate: '0' });
  return {
    update: (done) => progress.update(Math.min(done, total), { rate: rate(done) }),
    stop(done) {
      progress.setTotal(Math.max(total, done));
      progress.update(done, { rate: rate(done) });
      progress.stop();
    },
  };
}

/**
 * Progress of an import whose service reports (done, total), as `{verb} {done}/{total} {what}`
 * lines (scripts and logs read them), or a bar on a terminal.
 */
export function lineProgress(verb: string, what: string, stream: ProgressStream = process.stderr) {
  let shown: ReturnType<typeof bar> | null = null;
  return (done: number, total: number) => {
    if (shown === null) shown = bar(what, total, stream);
    if (!shown) stream.write(`${verb} ${done}/${total} ${what}\n`);
    else if (done >= total) shown.stop(done);
    else shown.update(done);
  };
}

/**
 * Progress of a streamed import from `file` (lines checked as they arrive, then the moment they
 * are in): `checked N …` and `imported N …` lines, or on a terminal a bar of the file's lines
 * (counted first; a CSV's header is not one).
 */
export function importProgress(what: string, file?: string, stream: ProgressStream = process.stderr) {
  const total = stream.isTTY && file ? countLines(file) - (/\.csv$/i.test(file) ? 1 : 0) : 0;
  const shown = total > 0 ? bar(what, total, stream) : undefined;
  return (lines: number, phase: 'staged' | 'done') => {
    if (!shown) stream.write(phase === 'staged' ? `checked ${lines} ${what}\n` : `imported ${lines} ${what}\n`);
    else if (phase === 'done') shown.stop(lines);
    else shown.update(lines);
  };
}

/** The file's lines, counted in chunks (a country's import is over a gigabyte); blank ones too. */
export function countLines(file: string): number {
  const fd = fs.openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    let lines = 0;
    let endsOpen = false;
    for (let read; (read = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0;) {
      for (let at = chunk.indexOf(0x0a); at >= 0 && at < read; at = chunk.indexOf(0x0a, at + 1)) lines++;
      endsOpen = chunk[read - 1] !== 0x0a;
    }
    return endsOpen ? lines + 1 : lines;
  } finally {
    fs.closeSync(fd);
  }
}
