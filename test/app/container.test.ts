import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort } from '../support/process.js';
import { track } from '../support/children.js';
import { TEST_DEADLINE_MS } from '../support/wait.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

interface Instruction {
  keyword: string;
  args: string;
}

/** A Dockerfile's instructions per stage (continuation lines joined, comments dropped). */
function dockerfileStages(text: string): Array<{ from: string; name?: string; instructions: Instruction[] }> {
  const lines = text.replace(/\\\n\s*/g, ' ').split('\n');
  const stages: Array<{ from: string; name?: string; instructions: Instruction[] }> = [];
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const [, keyword, args] = /^(\w+)\s+(.*)$/.exec(trimmed)!;
    if (keyword.toUpperCase() === 'FROM') {
      const [, from, name] = /^(\S+)(?:\s+AS\s+(\S+))?/i.exec(args)!;
      stages.push({ from, name, instructions: [] });
    } else if (keyword.toUpperCase() !== 'ARG' || stages.length > 0) {
      stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
    }
  }
  return stages;
}

const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const stages = dockerfileStages(dockerfile);
const runtime = stages.at(-1)!;
const of = (keyword: string) => runtime.instructions.filter((i) => i.keyword === keyword);
const env = Object.fromEntries(of('ENV').flatMap((i) => [...i.args.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]])));
const healthcheck = JSON.parse(/CMD\s+(\[.*\])$/.exec(of('HEALTHCHECK')[0].args)![1]) as string[];
const command = JSON.parse(of('CMD')[0].args) as string[];

describe('the Dockerfile', () => {
  it('builds in one stage and runs from a small one, as a user other than root', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0].name).toBe('build');
    expect(runtime.from).toMatch(/^node:\$\{NODE_VERSION\}$/);
    expect(dockerfile).toMatch(/ARG NODE_VERSION=20-bookworm-slim/);
    expect(of('USER').map((i) => i.args)).toEqual(['node']);
    // Only the built output and production dependencies reach the runtime stage.
    const copied = of('COPY').map((i) => i.args);
    expect(copied.filter((c) => c.includes('--from=build'))).toEqual([
      expect.stringContaining('/app/node_modules'),
      expect.stringContaining('/app/dist'),
    ]);
    expect(copied.some((c) => /\bsrc\b/.test(c))).toBe(false);
    expect(stages[0].instructions.some((i) => i.keyword === 'RUN' && i.args.includes('npm prune --omit=dev'))).toBe(true);
    expect(of('EXPOSE').map((i) => i.args)).toEqual(['8080']);
    expect(env).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0', PORT: '8080', PBS_DATA_DIR: '/data' });
    expect(of('VOLUME')[0].args).toContain('/data');
    expect(healthcheck.join(' ')).toContain('/readyz');
    expect(command).toEqual(['node', 'dist/main.js', 'serve']);
  });

  it('copies only files that exist, and .dockerignore keeps the local state out', () => {
    for (const stage of stages) {
      for (const copy of stage.instructions.filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='))) {
        const sources = copy.args
          .replace(/--\S+\s+/g, '')
          .split(/\s+/)
          .slice(0, -1);
        for (const source of sources) expect(fs.existsSync(path.join(ROOT, source)), source).toBe(true);
      }
    }
    const ignored = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['node_modules', 'dist', 'data', '.git']) expect(ignored).toContain(entry);
  });
});

describe('compose.yaml', () => {
  const compose = parse(fs.readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'));

  it('starts pbs on PostgreSQL once the database is healthy, with the data on volumes', () => {
    const { pbs, postgres } = compose.services;
    expect(pbs.build).toBe('.');
    expect(pbs.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    const database = new URL(pbs.environment.DATABASE_URL);
    expect(database.hostname).toBe('postgres');
    expect(decodeURIComponent(database.username)).toBe(postgres.environment.POSTGRES_USER);
    expect(decodeURIComponent(database.password)).toBe(postgres.environment.POSTGRES_PASSWORD);
    expect(database.pathname).toBe(`/${postgres.environment.POSTGRES_DB}`);
    expect(pbs.ports).toEqual(['8080:8080']);
    expect(pbs.volumes).toEqual(['pbsdata:/data']);
    expect(postgres.volumes).toEqual(['pgdata:/var/lib/postgresql/data']);
    expect(Object.keys(compose.volumes).sort()).toEqual(['pbsdata', 'pgdata']);
    expect(postgres.healthcheck.test.join(' ')).toContain('pg_isready');
    expect(pbs.healthcheck.test.join(' ')).toContain('/readyz');
    expect(pbs.environment.PBS_PUBLIC_URL).toBe('http://localhost:8080');
  });
});

/**
 * What the image would run, run here without Docker (no engine on this machine): the runtime
 * stage's files — dist/, package.json, bin/ and production dependencies only — started with the
 * image's environment and command, answering the image's healthcheck.
 */
describe("the runtime stage's files, started as the image starts them", () => {
  let dir: string;
  let child: ReturnType<typeof spawn> | undefined;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-image-'));
    for (const entry of ['dist', 'bin', 'package.json', 'package-lock.json', 'packages/sdk/package.json']) {
      fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
    }
    // Production dependencies only, from the lock file, as `npm prune --omit=dev` leaves them.
    await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir });
    // The native module as `npm rebuild better-sqlite3` builds it (here: the one already built).
    fs.cpSync(path.join(ROOT, 'node_modules/better-sqlite3/build'), path.join(dir, 'node_modules/better-sqlite3/build'), {
      recursive: true,
    });
  }, 180_000);
  afterAll(() => {
    child?.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('holds no dev dependency, starts, migrates, and passes the healthcheck', async () => {
    for (const dev of ['typescript', 'vitest', 'tsx', 'autocannon'])
      expect(fs.existsSync(path.join(dir, 'node_modules', dev)), dev).toBe(false);
    const port = String(await freePort());
    const data = path.join(dir, 'data');
    fs.mkdirSync(data);
    const imageEnv = { ...process.env, ...env, PBS_DATA_DIR: data, PORT: port, HOST: '127.0.0.1', PBS_LOG_LEVEL: 'warn' };
    child = track(
      spawn(command[0] === 'node' ? process.execPath : command[0], command.slice(1), {
        cwd: dir,
        env: imageEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`did not start: ${out}`)), TEST_DEADLINE_MS);
      child!.stdout!.on('data', () => /listening on/.test(out) && (clearTimeout(timer), resolve()));
      child!.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    expect(out).toContain('demo data: 60 restaurants');
    // The image's own healthcheck command, with the image's environment.
    const [program, ...args] = healthcheck;
    await expect(run(program === 'node' ? process.execPath : program, args, { env: imageEnv })).resolves.toBeTruthy();
    // The CLI the README runs in the container (`pbs …`) works from the image's files too.
    const cli = await run(process.execPath, [path.join(dir, 'bin/pbs.js'), 'business', 'list', '--limit', '1'], {
      cwd: dir,
      env: imageEnv,
    });
    expect(JSON.parse(cli.stdout).total).toBe(60);
  });
});
