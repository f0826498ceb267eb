import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './process.js';

/**
 * A PostgreSQL server of a test's own, made with `initdb` in a temporary directory and run with
 * `pg_ctl` on a free loopback port: what a test stops, restarts or freezes. Never the shared
 * server of 127.0.0.1:5432, which every other test uses.
 */
export interface ThrowawayPostgres {
  /** `postgres://…/postgres` on its port. */
  url: string;
  /** Stops it: `fast` ends sessions as a restart does, `immediate` as a crash does. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Freezes the server and every backend (SIGSTOP): it accepts connections and then says nothing. */
  freeze(): void;
  thaw(): void;
  /** Stops it and removes its directory. */
  destroy(): Promise<void>;
}

/** Why a throwaway server cannot be made on this machine, or undefined when it can. */
export function throwawayPostgresUnavailable(): string | undefined {
  if (!binDir()) return 'no PostgreSQL server binaries under /usr/lib/postgresql';
  if (process.getuid?.() === 0 && !userExists('postgres')) return 'running as root and there is no postgres user to run initdb as';
  return undefined;
}

function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(root, versions[0], 'bin') : undefined;
}

function userExists(name: string): boolean {
  return fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .some((line) => line.startsWith(`${name}:`));
}

/** Runs a PostgreSQL tool, as the postgres user when this is root (initdb refuses root). */
function run(tool: string, args: string[]): Promise<void> {
  const bin = path.join(binDir()!, tool);
  const [command, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${tool} ${args.join(' ')} exited ${code}:\n${output}`))));
  });
}

/** Every process of the server: the postmaster and its children (backends, checkpointer, …). */
function serverProcesses(dataDir: string): number[] {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return [];
  const postmaster = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  const children = fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // /proc/PID/stat: "pid (name) state ppid …"; the name may hold spaces, so read after its ')'.
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

const started = new Set<string>();

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-pg-'));
  const dataDir = path.join(dir, 'data');
  if (process.getuid?.() === 0) {
    const { uid, gid } = idsOf('postgres');
    fs.chownSync(dir, uid, gid);
  }
  await run('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  // No fsync: a test's data need not survive the machine; stop/start is what is under test.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const logFile = path.join(dir, 'server.log');
  const start = () => run('pg_ctl', ['-D', dataDir, '-o', options, '-l', logFile, '-w', '-t', '120', 'start']);
  const stop = (mode: 'fast' | 'immediate' = 'fast') => run('pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '120', 'stop']);
  await start();
  started.add(dataDir);
  const signal = (name: NodeJS.Signals) => {
    for (const pid of serverProcesses(dataDir)) {
      try {
        process.kill(pid, name);
      } catch {
        // gone meanwhile
      }
    }
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
    async destroy() {
      signal('SIGCONT');
      await stop('immediate').catch(() => {});
      started.delete(dataDir);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function idsOf(user: string): { uid: number; gid: number } {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`))!;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

// A test that fails or times out half-way leaves no server running (frozen ones are thawed to die).
process.once('exit', () => {
  for (const dataDir of started) {
    for (const pid of serverProcesses(dataDir)) {
      try {
        process.kill(pid, 'SIGCONT');
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
});
