import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { postgresSchemaForProcesses } from './harness.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ENTRY = ['--import', 'tsx', path.join(ROOT, 'src/main.ts')];

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

/** Servers started and not yet exited: a test that fails half-way must not leave one running. */
const running = new Set<ChildProcess>();

/** Stops every server this file started that is still running (call from afterAll). */
export async function stopStrayServers(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** Starts `pbs serve` as a real process and waits until it says it is listening. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...ENTRY, 'serve'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PBS_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 30_000);
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
export function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; json: any }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...ENTRY, ...args], { cwd: ROOT, env: { ...process.env, PBS_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
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
export async function processTarget(dialect: 'sqlite' | 'postgres', prefix: string): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
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

/** Reads until `done` holds: what processes do in the background shows up a moment later. */
export async function eventually<T>(read: () => Promise<T> | T, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
