/**
 * What every benchmark scenario shares: starting servers as processes on loopback, loading a
 * metro through the operator API, measuring with autocannon beside raw node:http, and printing
 * rows. The scenarios live in run.ts and in a file of their own each (catalogue.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import autocannon, { type Result } from 'autocannon';
import pg from 'pg';
import { profileOnCpu, PROFILED_CWD, PROFILED_NODE_FLAGS } from './on-cpu-profile.js';
import { demoReservationSettings, generateDemoBusinesses, seededRandom, type City } from '../src/demo/demo-dataset.js';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const DURATION = Number(process.env.BENCH_DURATION ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const ADMIN = 'bench-admin-token';
export const METRO: City = {
  name: 'Bench City',
  state: 'CA',
  country: 'US',
  timezone: 'America/Los_Angeles',
  latitude: 37.7749,
  longitude: -122.4194,
  areaCode: '415',
  zipCodes: ['94102', '94103', '94107', '94109', '94110'],
  streets: ['Main St', 'Oak St', 'Pine St', 'Elm St', 'Cedar Ave'],
};

export interface Started {
  url: string;
  child: ChildProcess;
}

/** The process behind each server the bench started, by origin: its CPU time per request is measured. */
const serverPids = new Map<string, number>();
/** Which of them are pbs (BENCH_PERF profiles those, not raw node:http or Fastify alone). */
const pbsPids = new Set<number>();

/**
 * CPU time (user + system) a process has used, in µs: all its threads, or with `mainThread` its
 * main thread's only (the event loop that answers requests); undefined where /proc is not.
 */
export function processCpuMicros(pid: number, mainThread = false): number | undefined {
  const times = processCpuTimes(pid, mainThread);
  return times && times.user + times.system;
}

/**
 * What a server spends with no traffic at all (its timers, its polls of the database), in ms of
 * CPU a second over `seconds`, whole process and main thread; part of every CPU-per-request
 * figure at low rates. Undefined where /proc is not.
 */
export async function idleCpu(pid: number, seconds = 10): Promise<{ process: number; main: number } | undefined> {
  const before = [processCpuMicros(pid), processCpuMicros(pid, true)];
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = [processCpuMicros(pid), processCpuMicros(pid, true)];
  if (before.includes(undefined) || after.includes(undefined)) return undefined;
  const perSecond = (i: number) => (after[i]! - before[i]!) / 1000 / seconds;
  return { process: perSecond(0), main: perSecond(1) };
}

/** As `processCpuMicros`, split into user space (the code: ours, Node's, V8's) and the kernel's (system). */
export function processCpuTimes(pid: number, mainThread = false): { user: number; system: number } | undefined {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = fs.readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: (Number(fields[11]) * 1e6) / CLOCK_TICKS, system: (Number(fields[12]) * 1e6) / CLOCK_TICKS };
  } catch {
    return undefined;
  }
}
/** Linux's USER_HZ, the unit of /proc/<pid>/stat's times (100 on every Linux in practice). */
const CLOCK_TICKS = 100;

export function start(args: string[], env: Record<string, string>, cwd = ROOT): Promise<Started> {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start: ${out}`)), 60_000);
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        const url = match[1].replace('localhost', '127.0.0.1');
        // A cluster's primary only hands connections over: its CPU says nothing of a request's cost.
        if (child.pid !== undefined && Number(env.PBS_PROCESSES ?? 1) <= 1) serverPids.set(new URL(url).origin, child.pid);
        resolve({ url, child });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
    // A process that cannot start (no such working directory or program) is a failed start the
    // caller's cleanup sees, not an uncaught 'error' that ends the bench before it stops the others.
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

export async function stop(s: Started): Promise<void> {
  s.child.removeAllListeners('exit');
  await new Promise<void>((resolve) => {
    s.child.on('exit', () => resolve());
    s.child.kill('SIGTERM');
  });
}

/** The Node.js flags `npm start` and `bin/pbs.js` run the server with (package.json config.serverNodeFlags). */
export const SERVER_NODE_FLAGS: string[] = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
  .config.serverNodeFlags.split(/\s+/)
  .filter(Boolean);

/** BENCH_CPU_PROFILE=DIR: each server writes a V8 CPU profile there when it stops (open it in Chrome's DevTools). */
const PROFILE_FLAGS = process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROFILE)}`] : [];

export async function startPbs(dataDir: string, extra: Record<string, string> = {}): Promise<Started> {
  const started = await start(
    [...SERVER_NODE_FLAGS, ...PROFILE_FLAGS, ...PROFILED_NODE_FLAGS, path.join(ROOT, 'dist/main.js'), 'serve'],
    {
      PORT: '0',
      HOST: '127.0.0.1',
      PBS_DATA_DIR: dataDir,
      PBS_LOG_LEVEL: 'warn',
      PBS_LOG_REQUESTS: '0',
      PBS_SEED_DEMO: '0',
      PBS_ADMIN_TOKEN: ADMIN,
      PBS_RATE_LIMIT_PER_SECOND: '1000000000',
      PBS_RATE_LIMIT_PER_DAY: '1000000000',
      // Off as on a production server; the requestlog scenario measures what it costs.
      PBS_REQUEST_LOG: '0',
      ...extra,
    },
    PROFILED_CWD,
  );
  if (started.child.pid !== undefined) pbsPids.add(started.child.pid);
  return started;
}

export async function api(base: string, method: string, route: string, token: string, body?: string, type = 'application/json') {
  const response = await fetch(base + route, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': type } : {}) },
    body,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route} → ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Loads `count` reservable restaurants in one metro through the operator API; returns their ids and a partner key. */
/** Loads businesses through the operator's streamed NDJSON import. */
export async function importBusinesses(base: string, businesses: object[]) {
  await api(
    base,
    'POST',
    '/admin/v1/businesses/import',
    ADMIN,
    businesses.map((b) => JSON.stringify(b)).join('\n'),
    'application/x-ndjson',
  );
}

export async function loadMetro(base: string, count: number) {
  const businesses = generateDemoBusinesses(count, 4242, [METRO]).map((b) => ({ ...b, transactions: ['restaurant_reservation'] }));
  await importBusinesses(base, businesses);
  const random = seededRandom(99);
  const settings = businesses.map((b) => JSON.stringify({ business_id: b.id, settings: demoReservationSettings(b, random) }));
  await api(base, 'POST', '/admin/v1/reservation-settings/import', ADMIN, settings.join('\n'), 'application/x-ndjson');
  const partner = await api(base, 'POST', '/admin/v1/partners', ADMIN, JSON.stringify({ name: 'Bench', interfaces: ['reservations'] }));
  const key = await api(base, 'POST', `/admin/v1/partners/${partner.id}/credentials`, ADMIN, JSON.stringify({ kind: 'api_key' }));
  return { ids: businesses.map((b) => b.id), key: key.api_key as string };
}

/** Upcoming local dates that are not Mondays (some demo restaurants close on Mondays). */
export function upcomingDates(days: number): string[] {
  const out: string[] = [];
  for (let d = 2; out.length < days; d++) {
    const date = new Date(Date.now() + d * 86_400_000);
    if (date.getUTCDay() !== 1) out.push(date.toISOString().slice(0, 10));
  }
  return out;
}

export interface Figure {
  name: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  connections: number;
  /** Share of CPU time the hypervisor took (steal) while this was measured: the noise on shared VMs. */
  stealPercent: number;
  /**
   * The server's CPU time (user + system) per request served during the measurement, in µs:
   * what a request costs the server, whatever the load generator and the machine's other guests
   * take meanwhile (a steadier figure than req/s on a shared VM). Absent where unknown.
   */
  cpuMicrosPerRequest?: number;
  /** Of that, the main thread's (the event loop); the rest is other threads' (the request log's writer, libuv's pool, GC). */
  mainThreadCpuMicrosPerRequest?: number;
  /**
   * Of `cpuMicrosPerRequest`, user space's (the rest is the kernel's: mostly sending the answer
   * and waking the load generator, which a slower server pays more of per request on these VMs).
   */
  userMicrosPerRequest?: number;
  /** The raw node:http figure measured just before this one. */
  raw?: number;
  /** Raw node:http's CPU time per request in that measurement. */
  rawCpuMicrosPerRequest?: number;
  /**
   * Raw node:http answering a body as large as this scenario's answers, measured in the same run:
   * its req/s (the ceiling for that size), the size, and its CPU per request, the figure a read
   * path's own CPU per request is judged against (the kernel's and the load generator's cost of
   * the bytes is in both).
   */
  rawSameSize?: { reqPerSec: number; bytes: number; cpuMicrosPerRequest?: number; userMicrosPerRequest?: number };
  /**
   * Fastify alone (bench/fastify-floor.mjs, nothing of pbs) answering the same bytes in the same
   * pair: the stack's own floor, so a read path's ratio can be split into the framework's share
   * and what pbs adds on top.
   */
  frameworkSameSize?: { reqPerSec: number; cpuMicrosPerRequest?: number };
  /**
   * Raw node:http answering the same bytes after spinning as long as raw's own CPU a request (the
   * same pair): a server doing exactly twice raw's work, measured as the read path is. On these
   * machines a slower server's every answer costs the kernel more (the load generator sleeps
   * between answers and must be woken), so this control measures above 2× raw: it is what "twice
   * raw's work" measures here.
   */
  rawTwiceWork?: { reqPerSec: number; cpuMicrosPerRequest?: number };
  /** A read path's CPU ratio to raw's (same bytes) in each of its interleaved rounds, in the order measured. */
  roundRatios?: number[];
  /** Judged as a read path: CPU per request beside raw answering the same bytes (readPath). */
  readPath?: boolean;
  extra?: string;
}

/** Total and steal jiffies of all CPUs (Linux; zeros elsewhere). */
export function cpuJiffies(): { total: number; steal: number } {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
  } catch {
    return { total: 0, steal: 0 };
  }
}

/** Runs `work`, returning its result and the CPU steal share meanwhile. */
export async function withSteal<T>(work: () => Promise<T>): Promise<[T, number]> {
  const before = cpuJiffies();
  const result = await work();
  const after = cpuJiffies();
  const total = after.total - before.total;
  return [result, total > 0 ? ((after.steal - before.steal) / total) * 100 : 0];
}

/**
 * One measurement of `options` for DURATION seconds, after `warmUpSeconds` of the same load (JIT,
 * caches, connections; 0 when the server was just warmed by the same requests).
 */
export async function measure(
  name: string,
  options: Parameters<typeof autocannon>[0],
  connections = CONNECTIONS,
  warmUpSeconds = 2,
): Promise<Figure> {
  if (warmUpSeconds > 0) await autocannon({ ...options, connections, duration: warmUpSeconds });
  const pid = typeof options.url === 'string' ? serverPids.get(new URL(options.url).origin) : undefined;
  const cpuBefore = pid === undefined ? undefined : processCpuTimes(pid);
  const mainBefore = pid === undefined ? undefined : processCpuMicros(pid, true);
  const profile = pid !== undefined && pbsPids.has(pid) ? profileOnCpu(pid, name, DURATION) : undefined;
  const [r, stealPercent] = await withSteal(() => autocannon({ ...options, connections, duration: DURATION }));
  const cpuAfter = pid === undefined ? undefined : processCpuTimes(pid);
  const mainAfter = pid === undefined ? undefined : processCpuMicros(pid, true);
  await profile;
  const figure = figureOf(name, r, connections, stealPercent);
  const answered = r.requests.total ?? 0;
  if (cpuBefore !== undefined && cpuAfter !== undefined && answered > 0) {
    figure.cpuMicrosPerRequest = (cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) / answered;
    figure.userMicrosPerRequest = (cpuAfter.user - cpuBefore.user) / answered;
  }
  if (mainBefore !== undefined && mainAfter !== undefined && answered > 0)
    figure.mainThreadCpuMicrosPerRequest = (mainAfter - mainBefore) / answered;
  return figure;
}

/** A scenario's figure from autocannon's result. */
export function figureOf(name: string, r: Result, connections: number, stealPercent: number): Figure {
  return {
    name,
    reqPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    connections,
    stealPercent,
  };
}

let rawUrl = '';
let frameworkUrl = '';

/**
 * The raw node:http server every ratio is measured against, and optionally Fastify alone
 * answering the same bytes (the framework's floor beside each read path); set once they listen.
 */
export function setRawUrl(url: string, framework = ''): void {
  rawUrl = url;
  frameworkUrl = framework;
}

/**
 * A scenario beside the raw node:http figure measured just before it: on a shared VM the speed
 * of the machine drifts within minutes, so a ratio needs both measured under the same conditions.
 */
export async function besideRaw(scenario: () => Promise<Figure>): Promise<Figure> {
  const raw = await measure('raw node:http JSON', { url: rawUrl });
  return { ...(await scenario()), raw: raw.reqPerSec, rawCpuMicrosPerRequest: raw.cpuMicrosPerRequest };
}

/** BENCH_ROUNDS: the interleaved rounds a read path is measured in (default 5: odd, so one is the median). */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
/**
 * A read path's warm-up, longer than the others': V8 was still optimizing pbs 1–7 % of the
 * measured time after 2 s (perf), where raw node:http, a few functions, is done at once.
 */
const READ_PATH_WARM_UP_SECONDS = 4;

/**
 * A read path beside raw node:http answering a body of `bytes` (its answers are that large), in
 * `ROUNDS` interleaved rounds. Each server is warmed once; then every round measures raw
 * node:http's 15-byte answer, Fastify alone and the twice-raw's-work control (all answering
 * `bytes`), raw node:http answering `bytes`, and the read path, the last two back to back, and
 * the next round the same in reverse order. On a shared machine whose speed drifts within
 * minutes, the ratio then compares two measurements seconds apart, not the ends of a pair that
 * took a minute and a half. The round with the median CPU ratio is reported, every round's ratio
 * beside it (the spread says how far one measurement of this machine is from the next).
 */
async function interleavedWithRaw(name: string, options: Options, connections: number, bytes: number): Promise<Figure> {
  const same: Options = { url: `${rawUrl}bytes/${bytes}` };
  const sameName = `raw node:http, ${bytes} bytes`;
  // The control spins as long as raw's own CPU a request, as last measured (first: this warm-up).
  let spin = (await measure(sameName, same)).cpuMicrosPerRequest;
  const twice = (): Options => ({ url: `${rawUrl}bytes/${bytes}?spin=${spin?.toFixed(1) ?? 0}` });
  const twiceName = `${sameName}, twice its work`;
  const frameworkName = `Fastify alone, ${bytes} bytes`;
  const framework: Options | undefined = frameworkUrl ? { url: `${frameworkUrl}bytes/${bytes}` } : undefined;
  await autocannon({ url: rawUrl, connections: CONNECTIONS, duration: 2 });
  if (framework) await autocannon({ ...framework, connections: CONNECTIONS, duration: 2 });
  if (spin) await autocannon({ ...twice(), connections: CONNECTIONS, duration: 2 });
  await autocannon({ ...options, connections, duration: READ_PATH_WARM_UP_SECONDS });

  const rounds: Figure[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const got: Partial<Record<'raw' | 'framework' | 'twice' | 'same' | 'path', Figure>> = {};
    const steps: Array<() => Promise<void>> = [
      async () => void (got.raw = await measure('raw node:http JSON', { url: rawUrl }, CONNECTIONS, 0)),
      async () => void (got.framework = framework && (await measure(frameworkName, framework, CONNECTIONS, 0))),
      async () => void (got.twice = spin ? await measure(twiceName, twice(), CONNECTIONS, 0) : undefined),
      async () => {
        got.same = await measure(sameName, same, CONNECTIONS, 0);
        spin = got.same.cpuMicrosPerRequest ?? spin;
      },
      async () => void (got.path = await measure(name, options, connections, 0)),
    ];
    for (const step of round % 2 === 0 ? steps : steps.reverse()) await step();
    const { raw, framework: fastify, twice: control, same: sized, path } = got;
    if (!raw || !sized || !path) throw new Error(`${name}: a round measured nothing`);
    rounds.push({
      ...path,
      raw: raw.reqPerSec,
      rawCpuMicrosPerRequest: raw.cpuMicrosPerRequest,
      rawSameSize: {
        reqPerSec: sized.reqPerSec,
        bytes,
        cpuMicrosPerRequest: sized.cpuMicrosPerRequest,
        userMicrosPerRequest: sized.userMicrosPerRequest,
      },
      ...(fastify ? { frameworkSameSize: { reqPerSec: fastify.reqPerSec, cpuMicrosPerRequest: fastify.cpuMicrosPerRequest } } : {}),
      ...(control ? { rawTwiceWork: { reqPerSec: control.reqPerSec, cpuMicrosPerRequest: control.cpuMicrosPerRequest } } : {}),
    });
  }
  const measured = rounds.every((f) => cpuTimesRaw(f) !== undefined);
  // Of an even count, the higher of the middle two: a median that never flatters the read path.
  const median = measured ? [...rounds].sort((a, b) => cpuTimesRaw(a)! - cpuTimesRaw(b)!)[Math.floor(rounds.length / 2)] : rounds[0];
  if (!measured || rounds.length === 1) return median;
  const each = rounds.map((f) => `${cpuTimesRaw(f)!.toFixed(2)}×`).join(', ');
  return { ...median, roundRatios: rounds.map((f) => cpuTimesRaw(f)!), extra: `median of ${rounds.length} rounds: ${each}` };
}

export const PAIRS = Math.max(1, Number(process.env.BENCH_PAIRS ?? 3));

/** The item with the median `value` (the lower middle one of an even count). */
export function medianBy<T>(items: T[], value: (item: T) => number): T {
  return [...items].sort((a, b) => value(a) - value(b))[Math.floor((items.length - 1) / 2)];
}

/**
 * `PAIRS` alternating raw/scenario pairs, reported as the pair with the median ratio, every
 * pair's figures listed beside it. One pair's req/s ratio moved by up to twenty points between
 * identical runs (the machine's speed drifts); the median of several is what a target can be held
 * to. Read paths are measured in interleaved rounds instead (readPath).
 */
export async function pairedWithRaw(scenario: () => Promise<Figure>): Promise<Figure> {
  const pairs: Figure[] = [];
  for (let i = 0; i < PAIRS; i++) pairs.push(await besideRaw(scenario));
  const share = (f: Figure) => f.reqPerSec / f.raw!;
  const median = medianBy(pairs, share);
  if (pairs.length === 1) return median;
  const each = pairs
    .map((f) => `${(share(f) * 100).toFixed(1)} % (p99 ${f.p99}${f.cpuMicrosPerRequest ? `, ${cpuText(f)}` : ''})`)
    .join(', ');
  return { ...median, extra: `median of ${pairs.length} pairs: ${each}` };
}

/** The mean size of the answers to `paths` (the first 20), for the same-size ceiling (besideRawAndSameSize). */
export async function meanAnswerBytes(base: string, headers: Record<string, string>, paths: string[]): Promise<number> {
  const sample = paths.slice(0, 20);
  let total = 0;
  for (const path of sample) {
    const response = await fetch(base + path, { headers });
    if (!response.ok) throw new Error(`GET ${path} → ${response.status} ${(await response.text()).slice(0, 300)}`);
    total += (await response.arrayBuffer()).byteLength;
  }
  return Math.round(total / sample.length);
}

type Options = Parameters<typeof autocannon>[0];

/** The paths a scenario's connections cycle through (what its `setupClient` would give a connection). */
export function samplePaths(options: Options): string[] {
  const requests: Array<{ path?: string }> = [...(options.requests ?? [])];
  options.setupClient?.({ setRequests: (list: Array<{ path?: string }>) => requests.splice(0, requests.length, ...list) } as never);
  const url = new URL(String(options.url));
  // A scenario of one fixed request names it in its URL alone.
  if (requests.length === 0) return [url.pathname + url.search];
  return requests.map((r) => r.path ?? url.pathname + url.search);
}

/**
 * A read path, judged as issue 41 asks: its server CPU per request beside raw node:http
 * answering as many bytes in the same run (target: at most twice raw's), with req/s and the share
 * of raw node:http kept beside it; measured in ROUNDS interleaved rounds (interleavedWithRaw).
 */
export async function readPath(name: string, options: Options, connections = CONNECTIONS): Promise<Figure> {
  const headers = (options.headers ?? {}) as Record<string, string>;
  const base = new URL(String(options.url)).origin;
  const bytes = await meanAnswerBytes(base, headers, samplePaths(options));
  return { ...(await interleavedWithRaw(name, options, connections, bytes)), readPath: true };
}

/** How many times raw node:http's CPU per request (answering the same bytes) a read path took. */
export function cpuTimesRaw(f: Figure): number | undefined {
  const raw = f.rawSameSize?.cpuMicrosPerRequest;
  return f.cpuMicrosPerRequest === undefined || !raw ? undefined : f.cpuMicrosPerRequest / raw;
}

/** Fastify alone's CPU per request beside raw's, both answering the read path's bytes (the framework's floor). */
export function frameworkTimesRaw(f: Figure): number | undefined {
  const raw = f.rawSameSize?.cpuMicrosPerRequest;
  const framework = f.frameworkSameSize?.cpuMicrosPerRequest;
  return framework === undefined || !raw ? undefined : framework / raw;
}

/** The twice-raw's-work control's CPU per request beside raw's (what 2× measures on this machine). */
export function twiceWorkTimesRaw(f: Figure): number | undefined {
  const raw = f.rawSameSize?.cpuMicrosPerRequest;
  const twice = f.rawTwiceWork?.cpuMicrosPerRequest;
  return twice === undefined || !raw ? undefined : twice / raw;
}

/** The headline table of the read paths: server CPU per request beside raw answering the same bytes. */
export function readPathLines(figures: Figure[]): string[] {
  const n = (v: number) => Math.round(v).toLocaleString('en-US');
  return [
    '| read path | answer bytes | server CPU µs a request | raw node:http, same bytes | × raw (target ≤ 2; every round’s range) | user space of it: pbs µs, raw µs (× raw) | control: raw doing twice its work, µs (× raw) | Fastify alone, same bytes: µs (× raw) | pbs above Fastify alone, µs | req/s | share of raw node:http (15 bytes / same bytes) | p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...figures.map((f) => {
      const times = cpuTimesRaw(f);
      const same = f.rawSameSize;
      const framework = f.frameworkSameSize?.cpuMicrosPerRequest;
      const floor = framework === undefined ? '–' : `${framework.toFixed(1)} (${frameworkTimesRaw(f)?.toFixed(2) ?? '–'}×)`;
      const above = framework === undefined || f.cpuMicrosPerRequest === undefined ? '–' : (f.cpuMicrosPerRequest - framework).toFixed(1);
      const twice = f.rawTwiceWork?.cpuMicrosPerRequest;
      const control = twice === undefined ? '–' : `${twice.toFixed(1)} (${twiceWorkTimesRaw(f)?.toFixed(2) ?? '–'}×)`;
      const rawUser = same?.userMicrosPerRequest;
      const user =
        f.userMicrosPerRequest === undefined || !rawUser
          ? '–'
          : `${f.userMicrosPerRequest.toFixed(1)}, ${rawUser.toFixed(1)} (${(f.userMicrosPerRequest / rawUser).toFixed(2)}×)`;
      const shares = [f.raw, same?.reqPerSec].map((raw) => (raw ? `${((f.reqPerSec / raw) * 100).toFixed(1)} %` : '–')).join(' / ');
      return `| ${f.name} | ${same ? n(same.bytes) : '–'} | ${f.cpuMicrosPerRequest?.toFixed(1) ?? '–'} | ${same?.cpuMicrosPerRequest?.toFixed(1) ?? '–'} | ${times === undefined ? '–' : `**${times.toFixed(2)}**${verdict(f, times)}${spread(f)}`} | ${user} | ${control} | ${floor} | ${above} | ${n(f.reqPerSec)} | ${shares} | ${f.p99} |`;
    }),
  ];
}

/** The lowest and highest of a read path's round ratios, as `; rounds 2.41–2.93`. */
function spread(f: Figure): string {
  const ratios = f.roundRatios;
  if (!ratios || ratios.length < 2) return '';
  return `; rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
}

/**
 * Beside a ratio over 2: whether the path costs no more than the twice-raw's-work control, that
 * is, whether it does at most twice raw's work as far as this machine can show it.
 */
function verdict(f: Figure, times: number): string {
  if (times <= 2) return '';
  const twice = f.rawTwiceWork?.cpuMicrosPerRequest;
  return twice !== undefined && f.cpuMicrosPerRequest !== undefined && f.cpuMicrosPerRequest <= twice ? ' (≤ the control)' : ' (over)';
}

export const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
export const times = ['18:00', '18:15', '18:30', '18:45', '19:00', '19:15', '19:30', '19:45', '20:00'];

/** The server's CPU per request, and raw node:http's where measured beside it. */
export function cpuText(f: Figure): string {
  if (f.cpuMicrosPerRequest === undefined) return '';
  const raw = f.rawCpuMicrosPerRequest === undefined ? '' : ` (raw node:http ${f.rawCpuMicrosPerRequest.toFixed(1)})`;
  return `CPU ${f.cpuMicrosPerRequest.toFixed(1)} µs a request${raw}`;
}

export function row(f: Figure): string {
  const n = (v: number) => Math.round(v).toLocaleString('en-US');
  const vsRaw = f.raw ? `${((f.reqPerSec / f.raw) * 100).toFixed(1)} % of ${n(f.raw)}` : '';
  const same = f.rawSameSize
    ? `${((f.reqPerSec / f.rawSameSize.reqPerSec) * 100).toFixed(1)} % of raw node:http answering the same ${n(f.rawSameSize.bytes)} bytes (${n(f.rawSameSize.reqPerSec)} req/s)`
    : '';
  return `| ${f.name} | ${f.connections} | ${n(f.reqPerSec)} | ${f.p50} | ${f.p99} | ${vsRaw} | ${f.stealPercent.toFixed(0)} % | ${f.non2xx} | ${f.errors} | ${[cpuText(f), same, f.extra].filter(Boolean).join('; ')} |`;
}

export async function withPostgres<T>(run: (url: string) => Promise<T>): Promise<T | undefined> {
  if (PG_URL === 'off') return undefined;
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: PG_URL });
  try {
    await client.connect();
  } catch (error) {
    process.stderr.write(`PostgreSQL scenarios skipped: ${(error as Error).message}\n`);
    return undefined;
  }
  await client.query(`create schema ${schema}`);
  try {
    const url = new URL(PG_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return await run(url.toString());
  } finally {
    await client.query(`drop schema ${schema} cascade`);
    await client.end();
  }
}
