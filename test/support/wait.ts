/**
 * Waiting in tests, one way: for a condition, with one generous deadline for the whole suite
 * (PBS_TEST_DEADLINE_MS, default two minutes), never for a fixed time. CI machines are shared and
 * may be slow by a factor of ten; a deadline only says when to give up.
 */
export const TEST_DEADLINE_MS = Number(process.env.PBS_TEST_DEADLINE_MS) || 120_000;

/** Reads until `done` holds: what processes do in the background shows up a moment later. */
export async function eventually<T>(
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  what: string,
  intervalMs = 50,
  /** A slow external step's own deadline (a container's start), in place of the suite's. */
  deadlineMs = TEST_DEADLINE_MS,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Runs `check` (assertions) until it passes; past the deadline its last failure is the test's. */
export async function eventuallyPasses(check: () => unknown, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + TEST_DEADLINE_MS;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
