import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { stopStrayProcesses, track } from './children.js';
import { PBS_ENTRY } from './entry.js';
import { ADMIN_TOKEN, postgresSchemaForProcesses } from './harness.js';
import { TEST_DEADLINE_MS } from './wait.js';

export { eventually } from './wait.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Stops every process this file started that is still running (the setup file also does, after every file). */
export const stopStrayServers = stopStrayProcesses;

/** Starts `pbs serve` as a real process and waits until it says it is listening. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...PBS_ENTRY, 'serve'], {
    cwd: ROOT,
    // A shutdown's grace as long as a busy machine needs (load 10 on 2 cores slows every step of it).
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PBS_LOG_LEVEL: 'warn', PBS_SHUTDOWN_GRACE_MS: '60000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  track(child);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${TEST_DEADLINE_MS} ms:\n${out}`));
    }, TEST_DEADLINE_MS);
    const check = () => {
      if (/listening on/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`server exited:\n${out}`));
    });
  });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

/**
 * Runs one CLI command to completion. Asynchronous, so the test worker keeps answering vitest
 * while the command runs (a blocked worker misses vitest's RPC deadline on a busy machine).
 */
export function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string; json: any }> {
  return new Promise((resolve) => {
    const child = track(
      spawn(process.execPath, [...PBS_ENTRY, ...args], {
        cwd: ROOT,
        env: { ...process.env, PBS_LOG_LEVEL: 'warn', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), TEST_DEADLINE_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      let json: any;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

/**
 * Where the pbs processes of one test keep their data: a fresh data directory and, on
 * PostgreSQL, a schema of their own (`env` holds PBS_DATA_DIR and DATABASE_URL); `cleanup`
 * removes both.
 */
export async function processTarget(
  dialect: 'sqlite' | 'postgres',
  prefix: string,
): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pbs-${prefix}-`));
  const pg = dialect === 'postgres' ? await postgresSchemaForProcesses(prefix) : undefined;
  return {
    env: { PBS_DATA_DIR: dir, ...(pg ? { DATABASE_URL: pg.databaseUrl } : {}) },
    async cleanup() {
      await pg?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Two pbs processes on one PostgreSQL database (a schema of its own) and one data directory. */
export interface ProcessPair {
  servers: ServerProcess[];
  /** The schema's database, for reading rows directly. */
  pg: Awaited<ReturnType<typeof postgresSchemaForProcesses>>;
  /** Stops both processes, drops the schema and removes the data directory. */
  close(): Promise<void>;
}

/**
 * Starts two pbs processes sharing one PostgreSQL schema: what the tests of guarantees across
 * processes share. No demo data, the operator's test token, and rate limits out of the way;
 * `env` adds to or overrides that.
 */
export async function startProcessPair(name: string, env: Record<string, string> = {}): Promise<ProcessPair> {
  const pg = await postgresSchemaForProcesses(name);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `pbs-${name}-`));
  const servers: ServerProcess[] = [];
  const close = async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await pg.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const all = {
      DATABASE_URL: pg.databaseUrl,
      PBS_DATA_DIR: dataDir,
      PBS_ADMIN_TOKEN: ADMIN_TOKEN,
      PBS_SEED_DEMO: '0',
      PBS_RATE_LIMIT_PER_SECOND: '1000000',
      ...env,
    };
    servers.push(await startServerProcess(all));
    servers.push(await startServerProcess(all));
  } catch (error) {
    await close();
    throw error;
  }
  return { servers, pg, close };
}
