/**
 * `npm run bench`: starts the servers it measures as separate processes on loopback, drives them
 * with autocannon and prints req/s and latency, each scenario beside the raw node:http baseline
 * measured in the same run. Options: BENCH_DURATION (seconds per scenario, default 10),
 * BENCH_CONNECTIONS (default 50).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon, { type Result } from 'autocannon';

const ROOT = path.resolve(import.meta.dirname, '..');
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

interface Started {
  url: string;
  child: ChildProcess;
  output: () => string;
}

function start(command: string, args: string[], env: Record<string, string>): Promise<Started> {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start: ${out}`)), 60_000);
    child.stdout!.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1], child, output: () => out });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
}

async function stop(s: Started): Promise<void> {
  s.child.removeAllListeners('exit');
  await new Promise<void>((resolve) => {
    s.child.on('exit', () => resolve());
    s.child.kill('SIGTERM');
  });
}

interface Figure {
  name: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function measure(name: string, options: Parameters<typeof autocannon>[0]): Promise<Figure> {
  // A short warm-up so JIT and connection setup do not count.
  await autocannon({ ...options, connections: CONNECTIONS, duration: 2 });
  const r: Result = await autocannon({ ...options, connections: CONNECTIONS, duration: DURATION });
  return { name, reqPerSec: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts };
}

function row(f: Figure, baseline?: Figure): string {
  const ratio = baseline ? `${((f.reqPerSec / baseline.reqPerSec) * 100).toFixed(1)} %` : '100 %';
  return `| ${f.name} | ${Math.round(f.reqPerSec).toLocaleString('en-US')} | ${f.p50} | ${f.p99} | ${ratio} | ${f.non2xx} | ${f.errors} |`;
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-bench-'));
  const raw = await start(process.execPath, [path.join(ROOT, 'bench/raw-server.mjs')], { PORT: '0' });
  const pbs = await start(process.execPath, [path.join(ROOT, 'dist/main.js'), 'serve'], {
    PORT: '0',
    HOST: '127.0.0.1',
    PBS_DATA_DIR: dataDir,
    PBS_LOG_LEVEL: 'warn',
    PBS_LOG_REQUESTS: '0',
  });
  pbs.url = pbs.url.replace('localhost', '127.0.0.1');
  const figures: Figure[] = [];
  try {
    const baseline = await measure('raw node:http JSON', { url: `${raw.url}/` });
    figures.push(baseline);
    figures.push(await measure('pbs GET /healthz', { url: `${pbs.url}/healthz` }));
    // Scenarios of the API families are added here as they land.

    const lines = [
      `pbs benchmark — ${new Date().toISOString()} — node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'})`,
      `autocannon: ${CONNECTIONS} connections, ${DURATION} s per scenario after a 2 s warm-up; servers are separate processes on loopback`,
      '',
      '| scenario | req/s | p50 ms | p99 ms | vs raw node:http | non-2xx | errors |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...figures.map((f) => row(f, baseline)),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stop(pbs);
    await stop(raw);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
