/**
 * The request log's cost (issue 26; a scenario of `npm run bench`, run by bench/run.ts): openings
 * on two servers alike but for PBS_REQUEST_LOG, measured in turns, each beside raw node:http; and
 * in each turn a control, the log-off server beside a busy loop that may only use idle CPU, which
 * shows what the machine charges the server for anything running on its other core.
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { type Figure, loadMetro, measure, medianBy, PAIRS, besideRaw, startPbs, stop } from '../harness.js';
import { openingsOptions } from './bookings.js';

export interface RequestLogFigures {
  database: string;
  on: Figure;
  off: Figure;
  /** Median over the turns of (log on ÷ log off) req/s. */
  ratio: number;
  each: number[];
  /**
   * The control: the log-off server beside a busy loop at the lowest scheduling class
   * (SCHED_IDLE, in a process of its own), ÷ the log-off server alone, median over the turns:
   * what any work on the machine's other core costs the server, whatever that work is.
   * Absent where `chrt` is not.
   */
  control?: number;
  /**
   * The control's main-thread CPU per request ÷ the log-off server's, − 1 (median over the
   * turns): what a thread doing nothing of pbs's on the other core costs the event loop (two
   * vCPUs can be one core's two hyperthreads), to read the log's own cost against.
   */
  controlMainThreadCost?: number;
}

/** A process spinning at SCHED_IDLE, or undefined where the policy cannot be had (no chrt). */
function idleBusyLoop(): (() => void) | undefined {
  if (spawnSync('chrt', ['--idle', '0', 'true']).status !== 0) return undefined;
  const child = spawn('chrt', ['--idle', '0', process.execPath, '-e', 'let x = 0; for (;;) x = (x * 31 + 7) | 0;'], { stdio: 'ignore' });
  return () => child.kill('SIGKILL');
}

export async function requestLogScenario(
  dataDir: string,
  dates: string[],
  database: string,
  env: { on: Record<string, string>; off: Record<string, string> } = { on: {}, off: {} },
  /** What is switched: the request log itself, or (the log on in both) the readiness it keeps (docs/readiness.md). */
  switched: 'log' | 'readiness' = 'log',
): Promise<RequestLogFigures> {
  const [onSwitch, offSwitch] =
    switched === 'log'
      ? [{ PBS_REQUEST_LOG: '1' }, { PBS_REQUEST_LOG: '0' }]
      : [
          { PBS_REQUEST_LOG: '1', PBS_READINESS: '1' },
          { PBS_REQUEST_LOG: '1', PBS_READINESS: '0' },
        ];
  const on = await startPbs(path.join(dataDir, `${switched}-on-${database}`), { ...env.on, ...onSwitch });
  const off = await startPbs(path.join(dataDir, `${switched}-off-${database}`), { ...env.off, ...offSwitch });
  try {
    const [metroOn, metroOff] = [await loadMetro(on.url, 1_000), await loadMetro(off.url, 1_000)];
    const turns: Array<{ on: Figure; off: Figure; control?: Figure }> = [];
    const control = async (): Promise<Figure | undefined> => {
      const stopLoop = idleBusyLoop();
      if (!stopLoop) return undefined;
      try {
        return await measure(
          `openings, request log off, an idle-class busy loop beside (${database})`,
          openingsOptions(off.url, metroOff.key, metroOff.ids, dates),
        );
      } finally {
        stopLoop();
      }
    };
    for (let i = 0; i < PAIRS; i++) {
      // Alternating which goes first, so a drift of the machine's speed favours neither.
      const measureOn = () =>
        besideRaw(() => measure(`openings, ${switched} on (${database})`, openingsOptions(on.url, metroOn.key, metroOn.ids, dates)));
      const measureOff = () =>
        besideRaw(() => measure(`openings, ${switched} off (${database})`, openingsOptions(off.url, metroOff.key, metroOff.ids, dates)));
      if (i % 2 === 0) {
        const a = await measureOn();
        turns.push({ on: a, off: await measureOff(), control: await control() });
      } else {
        const c = await control();
        const b = await measureOff();
        turns.push({ on: await measureOn(), off: b, control: c });
      }
    }
    const each = turns.map((t) => t.on.reqPerSec / t.off.reqPerSec);
    // The median turn by the main thread's cost when it was read (/proc), else by req/s.
    const mainThreadRatio = (t: { on: Figure; off: Figure }) =>
      (t.on.mainThreadCpuMicrosPerRequest ?? NaN) / (t.off.mainThreadCpuMicrosPerRequest ?? NaN);
    const median = turns.every((t) => Number.isFinite(mainThreadRatio(t)))
      ? medianBy(turns, mainThreadRatio)
      : medianBy(turns, (t) => t.on.reqPerSec / t.off.reqPerSec);
    const ratio = median.on.reqPerSec / median.off.reqPerSec;
    const controlled = turns.filter((t) => t.control !== undefined);
    const controlRatio = controlled.length > 0 ? medianBy(controlled, (t) => t.control!.reqPerSec / t.off.reqPerSec) : undefined;
    return {
      database,
      on: median.on,
      off: median.off,
      ratio,
      each,
      control: controlRatio ? controlRatio.control!.reqPerSec / controlRatio.off.reqPerSec : undefined,
      controlMainThreadCost: controlMainThread(controlled),
    };
  } finally {
    await stop(on);
    await stop(off);
  }
}

/** The median over the turns of the control's main-thread CPU per request ÷ the log-off server's, − 1. */
function controlMainThread(turns: Array<{ off: Figure; control?: Figure }>): number | undefined {
  const ratios = turns
    .map((t) => (t.control?.mainThreadCpuMicrosPerRequest ?? NaN) / (t.off.mainThreadCpuMicrosPerRequest ?? NaN))
    .filter(Number.isFinite);
  return ratios.length === 0 ? undefined : medianBy(ratios, (x) => x) - 1;
}

const micros = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(1));

/** The main thread's extra CPU per request with the log on, as a share of the log-off server's (target ≤ 10 %). */
export function mainThreadCost(r: RequestLogFigures): number | undefined {
  const on = r.on.mainThreadCpuMicrosPerRequest;
  const off = r.off.mainThreadCpuMicrosPerRequest;
  return on === undefined || !off ? undefined : on / off - 1;
}

export function requestLogLines(results: RequestLogFigures[]): string[] {
  return [
    '| openings, 1,000 restaurants | main-thread CPU µs a request, on / off | on − off (target ≤ +10 %) | control: main-thread CPU, off beside an idle-class busy loop − off | whole process CPU µs, on / off | req/s on / off | on ÷ off req/s (each turn) | control req/s ÷ off |',
    '|---|---:|---:|---:|---:|---:|---|---:|',
    ...results.map((r) => {
      const cost = mainThreadCost(r);
      const verdict = cost === undefined ? '–' : `**${cost >= 0 ? '+' : ''}${(cost * 100).toFixed(1)} %**${cost <= 0.1 ? '' : ' (over)'}`;
      const controlCost =
        r.controlMainThreadCost === undefined
          ? '–'
          : `${r.controlMainThreadCost >= 0 ? '+' : ''}${(r.controlMainThreadCost * 100).toFixed(1)} %`;
      return `| ${r.database} | ${micros(r.on.mainThreadCpuMicrosPerRequest)} / ${micros(r.off.mainThreadCpuMicrosPerRequest)} | ${verdict} | ${controlCost} | ${micros(r.on.cpuMicrosPerRequest)} / ${micros(r.off.cpuMicrosPerRequest)} | ${Math.round(r.on.reqPerSec)} / ${Math.round(r.off.reqPerSec)} | ${(r.ratio * 100).toFixed(1)} % (${r.each.map((x) => `${(x * 100).toFixed(1)} %`).join(', ')}) | ${r.control === undefined ? '–' : `${(r.control * 100).toFixed(1)} %`} |`;
    }),
  ];
}
