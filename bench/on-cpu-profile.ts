/**
 * BENCH_PERF=DIR: an on-CPU profile of pbs during each measurement, recorded by Linux `perf`
 * (`perf record -e cpu-clock -g`) into DIR/<scenario>.data, with the JavaScript frames named
 * (see PROFILED_NODE_FLAGS). Read one with bench/on-cpu-summary.ts, or with
 * `perf report -i DIR/<scenario>.data --children --sort sym` for every frame.
 *
 * Why not only BENCH_CPU_PROFILE's V8 profile: V8 samples on a wall clock, so a sample taken while
 * the server waits inside a system call (its `writev` woke the load generator, which then ran on
 * the core) counts as that call's time. On these 2-core machines that made `writev` look like
 * 44–64 % of a busy read path, where perf, which samples only while the process runs, puts it at
 * 18–26 % (docs/benchmarks.md "Where a read path's CPU goes").
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const DIR = process.env.BENCH_PERF ? path.resolve(process.env.BENCH_PERF) : undefined;
if (DIR) fs.mkdirSync(DIR, { recursive: true });

/**
 * What pbs servers are started with when profiling: V8 writes each compiled function to a jitdump
 * file (jit-<pid>.dump, in the working directory, hence DIR), which `perf inject --jit` turns into
 * names. Not `--perf-basic-prof`: its map never forgets code, so a sample in code space that V8
 * freed and reused was named after whatever first lived there (an openings profile showed 6 % in
 * the business import that had run minutes before).
 */
export const PROFILED_NODE_FLAGS: string[] = DIR ? ['--perf-prof'] : [];
export const PROFILED_CWD = DIR;

let warned = false;

/**
 * Records `pid` on-CPU for `seconds` (the measurement's length) when BENCH_PERF is set; resolves
 * when the recording is written. Without perf on the machine it says so once and records nothing.
 */
export function profileOnCpu(pid: number, scenario: string, seconds: number): Promise<void> | undefined {
  if (!DIR) return undefined;
  const file = path.join(DIR, `${scenario.replace(/[^\w]+/g, '-').replace(/^-|-$/g, '')}.data`);
  const raw = `${file}.raw`;
  // -k mono: timestamps jitdump's records can be matched against.
  const args = [
    'record',
    '-k',
    'mono',
    '-e',
    'cpu-clock',
    '-F',
    '2000',
    '-g',
    '-p',
    String(pid),
    '-o',
    raw,
    '--',
    'sleep',
    String(seconds),
  ];
  return new Promise((resolve) => {
    const perf = spawn('perf', args, { stdio: 'ignore' });
    perf.on('error', () => {
      if (!warned) process.stderr.write('BENCH_PERF: perf is not installed (apt-get install linux-perf); no on-CPU profiles\n');
      warned = true;
      resolve();
    });
    perf.on('exit', () => {
      const inject = spawn('perf', ['inject', '--jit', '-i', raw, '-o', file], { stdio: 'ignore' });
      inject.on('error', () => resolve());
      inject.on('exit', () => {
        fs.rmSync(raw, { force: true });
        resolve();
      });
    });
  });
}
