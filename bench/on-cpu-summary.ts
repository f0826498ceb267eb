/**
 * Where a server's CPU went, from an on-CPU profile BENCH_PERF recorded (bench/on-cpu-profile.ts):
 * `npx tsx bench/on-cpu-summary.ts DIR/<scenario>.data …`. Each sample goes to its owner: the
 * kernel when the CPU was in it (sending and receiving on loopback, waking the load generator),
 * else the first JavaScript frame above it (a V8 builtin counts for the JavaScript that called it):
 * Node.js itself (http, streams, timers), Fastify, a folder of pbs (dist/…), another package;
 * or, with no JavaScript above it, V8's garbage collector or compiler, Node.js's native http
 * parser, or other native code (libuv).
 */
import { execFileSync } from 'node:child_process';

const FRAME = /^\s*[0-9a-f]+ (.*) \((.*)\)$/;
const FRAMEWORK = /node_modules\/(fastify|find-my-way|avvio|@fastify\/[\w-]+|fast-json-stringify|light-my-request)\//;

/** The owner of one sample, from its frames (leaf first). */
function ownerOf(frames: Array<{ symbol: string; object: string }>): { owner: string; fn?: string } {
  if (frames.length === 0) return { owner: 'unknown' };
  if (frames[0].object.includes('kernel')) return { owner: 'kernel' };
  const js = frames.find((f) => f.symbol.startsWith('JS:'));
  if (!js) {
    const all = frames.map((f) => f.symbol).join(' ');
    if (/Heap|Scavenge|MarkCompact|GCTracer|Sweeper/.test(all)) return { owner: 'V8: garbage collector' };
    if (/compiler::|Compiler|Compile/.test(all)) return { owner: 'V8: compiler' };
    if (/llhttp|Parser/.test(all)) return { owner: 'Node.js (http parser, native)' };
    return { owner: 'native, other (libuv, Node.js C++)' };
  }
  const fn = js.symbol
    .replace(/\+0x[0-9a-f]+$/, '')
    .replace(/^JS:[*^~]?/, '')
    .replace(/file:\/\/\/?\S*?\/(dist|node_modules)\//, '$1/');
  if (/ node:/.test(fn)) return { owner: 'Node.js (http, net, streams, timers)', fn };
  if (FRAMEWORK.test(js.symbol)) return { owner: 'Fastify', fn };
  const dep = /node_modules\/((?:@[\w-]+\/)?[\w.-]+)\//.exec(js.symbol);
  if (dep) return { owner: dep[1], fn };
  const pbs = /\/dist\/([\w-]+(?:\/[\w-]+)?)\/[\w.-]+\.js/.exec(js.symbol);
  return { owner: pbs ? `pbs: ${pbs[1]}` : 'other JavaScript', fn };
}

function summarize(file: string): string[] {
  const script = execFileSync('perf', ['script', '-i', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  let samples = 0;
  for (const block of script.split('\n\n')) {
    const frames = block
      .split('\n')
      .slice(1)
      .map((line) => FRAME.exec(line))
      .filter((m) => m !== null)
      .map((m) => ({ symbol: m[1], object: m[2] }));
    if (frames.length === 0) continue;
    samples++;
    const { owner, fn } = ownerOf(frames);
    owners.set(owner, (owners.get(owner) ?? 0) + 1);
    if (fn && owner.startsWith('pbs')) functions.set(fn, (functions.get(fn) ?? 0) + 1);
  }
  const share = (n: number) => `${((n / Math.max(samples, 1)) * 100).toFixed(1).padStart(5)} %`;
  const top = (map: Map<string, number>, count: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count);
  return [
    `${file}: ${samples} samples`,
    ...top(owners, 14).map(([owner, n]) => `  ${share(n)}  ${owner}`),
    '  pbs functions (with the builtins they called):',
    ...top(functions, 12).map(([fn, n]) => `  ${share(n)}    ${fn}`),
  ];
}

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: npx tsx bench/on-cpu-summary.ts DIR/<scenario>.data …  (recorded with BENCH_PERF=DIR npm run bench)\n');
  process.exit(2);
}
for (const file of files) process.stdout.write(`${summarize(file).join('\n')}\n\n`);
