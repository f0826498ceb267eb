import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runToEnd } from '../support/children.js';
import { dialects, postgresSchemaForProcesses } from '../support/harness.js';
import { freePort } from '../support/process.js';
import { eventually, TEST_DEADLINE_MS } from '../support/wait.js';

/**
 * The Dockerfile built for real by a daemonless builder (podman, from Debian's packages), the
 * image started on each database, and its own HEALTHCHECK passing (docs/container.md). Where no
 * builder works the test says why and is skipped; test/app/container.test.ts still checks the
 * Dockerfile's parts without one.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
/** The Dockerfile's base (ARG NODE_VERSION); built locally by scripts/stand-in-node-image.sh where Docker Hub is out of reach. */
const BASE = 'docker.io/library/node:20-bookworm-slim';
const IMAGE = `localhost/pbs-image-test:${process.pid}-${randomBytes(3).toString('hex')}`;
/**
 * The build stage, kept under a name from run to run: its layers (`npm ci`, compiling
 * better-sqlite3) are what later builds reuse while package-lock.json is unchanged.
 */
const BUILD_CACHE = 'localhost/pbs-image-test-cache:build';
/**
 * The slow steps' own deadline, far beyond the suite's: a base image to pull or build, and a
 * build from scratch, on a machine busy with other work (load 10 on 2 cores). Whatever podman
 * started is killed when it passes, or when the file ends first (runToEnd).
 */
const BUILD_MS = 30 * 60_000;
/** A container's start and healthcheck on such a machine. */
const RUN_MS = 10 * 60_000;

async function podman(args: string[], timeoutMs = TEST_DEADLINE_MS): Promise<string> {
  return (await runToEnd('podman', args, { cwd: ROOT, timeoutMs })).stdout.trim();
}

async function succeeds(program: string, args: string[], timeoutMs = TEST_DEADLINE_MS): Promise<boolean> {
  return runToEnd(program, args, { cwd: ROOT, timeoutMs }).then(
    () => true,
    () => false,
  );
}

function reason(error: unknown): string {
  const e = error as { stderr?: string; message?: string };
  return (e.stderr || e.message || String(error)).trim().split('\n').slice(-3).join(' ');
}

/**
 * The options every container needs on this machine, found by starting the base image: podman's
 * default limits (1,048,576 open files) are more than a process without CAP_SYS_RESOURCE may
 * set, so the container gets this process's own; crun refuses hybrid cgroup hierarchies, runc
 * does not.
 */
async function containerOptions(): Promise<string[] | string> {
  const { stdout } = await runToEnd('bash', ['-c', 'ulimit -Sn; ulimit -Su'], { timeoutMs: TEST_DEADLINE_MS });
  const [files, processes] = stdout.trim().split('\n').map(Number);
  const tasks = Math.min(Number.isFinite(processes) ? processes : Infinity, 32_768);
  const limits = [...(Number.isFinite(files) ? ['--ulimit', `nofile=${files}:${files}`] : []), '--ulimit', `nproc=${tasks}:${tasks}`];
  const candidates = [limits];
  if (await succeeds('runc', ['--version'])) candidates.push(['--runtime', 'runc', ...limits]);
  let last = '';
  for (const options of candidates) {
    try {
      await podman(['run', '--rm', '--network', 'host', ...options, BASE, 'node', '-v'], RUN_MS);
      return options;
    } catch (error) {
      last = reason(error);
    }
  }
  return `podman cannot start a container here (${last})`;
}

/** podman ready to build and run, or why not. */
async function builder(): Promise<string[] | string> {
  if (!(await succeeds('podman', ['--version']))) return 'podman is not installed (apt-get install -y podman runc mmdebstrap)';
  if (!(await succeeds('podman', ['image', 'exists', BASE])) && !(await succeeds('podman', ['pull', '--quiet', BASE], BUILD_MS))) {
    if (!(await succeeds('mmdebstrap', ['--version'])))
      return `${BASE} cannot be pulled and mmdebstrap, which builds a stand-in, is not installed`;
    try {
      await runToEnd('bash', [path.join(ROOT, 'scripts/stand-in-node-image.sh'), 'podman'], { cwd: ROOT, timeoutMs: BUILD_MS });
    } catch (error) {
      return `${BASE} cannot be pulled, and no stand-in could be built (${reason(error)})`;
    }
  }
  return containerOptions();
}

const ready = builder().catch((error: unknown) => `podman could not be prepared (${reason(error)})`);

afterAll(async () => {
  if (typeof (await ready) === 'string') return;
  await podman(['rmi', '--force', IMAGE]).catch(() => undefined);
  // What no name holds any more: this run's runtime layers, an earlier run's build stage. The
  // build stage under BUILD_CACHE stays, with the layers later builds reuse.
  await podman(['image', 'prune', '--force']).catch(() => undefined);
}, BUILD_MS);

describe('the image, built and run', () => {
  it('builds from the Dockerfile as it is', { timeout: 2 * BUILD_MS }, async (ctx) => {
    const options = await ready;
    if (typeof options === 'string') {
      console.warn(`container image test skipped: ${options}`);
      ctx.skip();
      return;
    }
    // --format docker keeps HEALTHCHECK (the OCI format has none). The build stage first, under
    // its own name, so its layers outlive this run's image; then the image, from those layers.
    const build = ['build', '--quiet', '--network', 'host', '--pull=never', '--layers', '--format', 'docker', ...options];
    await podman([...build, '--target', 'build', '-t', BUILD_CACHE, '.'], BUILD_MS);
    await podman([...build, '-t', IMAGE, '.'], BUILD_MS);
    const [config] = JSON.parse(await podman(['image', 'inspect', IMAGE])) as Array<{
      Config: { User: string; Env: string[]; Cmd: string[] };
      Healthcheck?: { Test: string[] };
    }>;
    expect(config.Config.User).toBe('node');
    expect(config.Config.Env).toEqual(expect.arrayContaining(['NODE_ENV=production', 'HOST=0.0.0.0', 'PBS_DATA_DIR=/data']));
    expect(config.Config.Cmd).toEqual(['node', 'dist/main.js', 'serve']);
    expect(config.Healthcheck?.Test.join(' ')).toContain('/readyz');
  });

  it(
    'runs as the README says with podman: published on loopback, its data in a volume, the CLI through exec',
    { timeout: 2 * RUN_MS },
    async (ctx) => {
      const options = await ready;
      if (typeof options === 'string' || !(await succeeds('podman', ['image', 'exists', IMAGE]))) {
        ctx.skip();
        return;
      }
      const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
      const block = [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]).find((b) => b.includes('podman run'));
      expect(block, 'the README’s podman block').toBeDefined();
      const name = `pbs-readme-test-${process.pid}`;
      const volume = `pbs-readme-test-${process.pid}`;
      const port = await freePort();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-readme-podman-'));
      // The README's lines as written, but for this run's image, names, port and file; the image is
      // already built (its build line is the one the test above runs); the machine's own options
      // (see containerOptions) go right after `podman run`, as the README tells such machines.
      const lines = block!
        .split('\n')
        .filter((line) => line.startsWith('podman ') && !line.startsWith('podman build'))
        .map((line) =>
          line
            .replace(/^podman run /, `podman run ${options.join(' ')} `)
            .replace('--name pbs ', `--name ${name} `)
            .replace('exec pbs ', `exec ${name} `)
            .replace('pbsdata:', `${volume}:`)
            .replace('127.0.0.1:8080:8080', `127.0.0.1:${port}:8080`)
            .replace(/ pbs$/, ` ${IMAGE}`)
            .replace('> podman-credentials.json', `> ${path.join(dir, 'credentials.json')}`),
        );
      expect(lines.map((l) => l.split(' ')[1])).toEqual(['run', 'exec']);
      try {
        await runToEnd('bash', ['-c', `set -e; ${lines[0]}`], { cwd: ROOT, timeoutMs: RUN_MS });
        await eventually(
          () =>
            fetch(`http://127.0.0.1:${port}/readyz`).then(
              (r) => r.status,
              () => 0,
            ),
          (status) => status === 200,
          'the README’s podman container, ready on its published port',
          500,
          RUN_MS,
        );
        await runToEnd('bash', ['-c', `set -e; ${lines[1]}`], { cwd: ROOT, timeoutMs: RUN_MS });
        const credentials = JSON.parse(fs.readFileSync(path.join(dir, 'credentials.json'), 'utf8'));
        const partners = await fetch(`http://127.0.0.1:${port}/admin/v1/partners`, {
          headers: { authorization: `Bearer ${credentials.admin_token}` },
        });
        expect(partners.status).toBe(200);
      } finally {
        await podman(['rm', '--force', '--time', '0', name], RUN_MS).catch(() => undefined);
        await podman(['volume', 'rm', '--force', volume], RUN_MS).catch(() => undefined);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  for (const dialect of dialects) {
    it(`starts on ${dialect}, passes its HEALTHCHECK and serves the demo dataset`, { timeout: 2 * RUN_MS }, async (ctx) => {
      const options = await ready;
      if (typeof options === 'string' || !(await succeeds('podman', ['image', 'exists', IMAGE]))) {
        ctx.skip();
        return;
      }
      const name = `pbs-image-test-${process.pid}-${dialect}`;
      const port = await freePort();
      const schema = dialect === 'postgres' ? await postgresSchemaForProcesses('image') : undefined;
      // The host's network, so the container reaches PostgreSQL on 127.0.0.1; HOST keeps pbs on loopback.
      const env = ['-e', `PORT=${port}`, '-e', 'HOST=127.0.0.1', ...(schema ? ['-e', `DATABASE_URL=${schema.databaseUrl}`] : [])];
      try {
        await podman(['run', '--detach', '--rm', '--name', name, '--network', 'host', ...options, ...env, IMAGE], RUN_MS);
        // The image's own HEALTHCHECK command, run by the engine inside the container.
        await eventually(
          () => succeeds('podman', ['healthcheck', 'run', name]),
          (healthy) => healthy,
          `the ${dialect} container's healthcheck`,
          500,
          RUN_MS,
        );
        const health = await fetch(`http://127.0.0.1:${port}/healthz`);
        expect(health.status).toBe(200);
        const listed = JSON.parse(await podman(['exec', name, 'pbs', 'business', 'list', '--limit', '1'], RUN_MS));
        expect(listed.total).toBe(60);
        const logs = await runToEnd('podman', ['logs', name], { timeoutMs: RUN_MS });
        expect(logs.stdout + logs.stderr).toContain('demo data: 60 restaurants');
      } finally {
        await podman(['rm', '--force', '--time', '0', name], RUN_MS).catch(() => undefined);
        await schema?.drop();
      }
    });
  }
});
