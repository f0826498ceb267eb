import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Processes the tests started and that have not exited: stopped after every test file (the
 * setup file's afterAll), and when the test worker itself exits, so a test that fails or times
 * out half-way leaves no server running.
 */
const running = new Set<ChildProcess>();
/** Of those, the ones started as leaders of a process group: stopped with everything they started. */
const groups = new WeakSet<ChildProcess>();

export function track<T extends ChildProcess>(child: T): T {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Kills a tracked process, and its whole group when it leads one (what a build tool started goes too). */
function kill(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (groups.has(child) && child.pid !== undefined) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // gone already
  }
}

export interface Finished {
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end in a process group of its own, within `timeoutMs`: past it, or when
 * the test file ends first (the setup file stops every tracked process), the whole group is
 * killed, so nothing it started (a container build's helpers) is left running. Rejects on a
 * non-zero exit or the timeout, with the command's stderr in the message.
 */
export function runToEnd(
  command: string,
  args: string[],
  options: {
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    timeoutMs: number;
    /** Kill the group once the command ends too (what it started in the background: a script's listener). */
    endGroup?: boolean;
  },
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = track(spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }));
    groups.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      kill(child, 'SIGKILL');
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (options.endGroup) kill(child, 'SIGKILL');
      if (code === 0) return resolve({ stdout, stderr });
      const why = timedOut ? `timed out after ${options.timeoutMs} ms` : `exited ${signal ?? code}`;
      reject(
        Object.assign(new Error(`${command} ${args.join(' ')} ${why}: ${stderr.trim().split('\n').slice(-5).join(' ')}`), {
          stdout,
          stderr,
        }),
      );
    });
  });
}

/** Stops every tracked process that is still running (SIGKILL: the test is over). */
export async function stopStrayProcesses(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          kill(child, 'SIGKILL');
        }),
    ),
  );
}

process.once('exit', () => {
  for (const child of running) kill(child, 'SIGKILL');
});
