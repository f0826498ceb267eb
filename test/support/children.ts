import type { ChildProcess } from 'node:child_process';

/**
 * Processes the tests started and that have not exited: stopped after every test file (the
 * setup file's afterAll), and when the test worker itself exits, so a test that fails or times
 * out half-way leaves no server running.
 */
const running = new Set<ChildProcess>();

export function track<T extends ChildProcess>(child: T): T {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Stops every tracked process that is still running (SIGKILL: the test is over). */
export async function stopStrayProcesses(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
