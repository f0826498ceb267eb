import { Command } from 'commander';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { commandLine, main } from '../../src/cli.js';
import { addCommandGroup } from '../../src/commands/command-line.js';
import { forPeople, printAnswer } from '../../src/commands/output.js';
import { countLines, importProgress, lineProgress } from '../../src/commands/progress.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../support/process.js';

/** A stream that keeps what is written, as a terminal (`isTTY`) or a pipe. */
function capture(isTTY: boolean, columns = 120) {
  const written: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      written.push(String(chunk));
      done();
    },
  });
  return Object.assign(stream, { isTTY, columns, text: () => written.join('') });
}

/** Every command of the CLI that runs something (no subcommands), with its words. */
function leaves(command: Command, words: string[] = []): Array<{ words: string[]; command: Command }> {
  if (command.commands.length === 0) return [{ words, command }];
  return command.commands.filter((c) => c.name() !== 'help').flatMap((c) => leaves(c, [...words, c.name()]));
}

describe('the pbs command line', () => {
  it('has a summary and help for every command and subcommand', () => {
    const all = leaves(commandLine(() => {}));
    expect(all.length).toBeGreaterThan(80);
    for (const { words, command } of all) {
      expect(command.description(), words.join(' ')).not.toBe('');
      expect(command.helpInformation()).toContain(`Usage: pbs ${words.join(' ')}`);
    }
    // Groups of subcommands say what they hold too.
    const groups = commandLine(() => {}).commands.flatMap((c) => [c, ...c.commands]);
    for (const group of groups.filter((c) => c.commands.length > 0)) expect(group.description(), group.name()).not.toBe('');
  });

  it('answers --help anywhere with exit 0, and a wrong command or option with exit 2 and a hint', async () => {
    expect(await main(['partner', 'credential', '--help'])).toBe(0);
    expect(await main(['help', 'review'])).toBe(0);
    expect(await main(['partner', 'shw'])).toBe(2);
    expect(await main(['partner', 'list', '--bogus'])).toBe(2);
    expect(await main(['partner', 'show'])).toBe(2); // a missing argument
    expect(await main([])).toBe(2);
  });

  it('hands a group the words and flags its runner reads', async () => {
    const calls: Array<[string, string[], Record<string, string>]> = [];
    const root = new Command('pbs').option('--json').exitOverride();
    addCommandGroup(
      root,
      {
        name: 'review',
        summary: 'reviews',
        subgroups: { import: 'imports' },
        commands: [
          {
            use: 'import many <file>',
            summary: 'import',
            options: [
              ['--no-notify', 'quiet'],
              ['--limit <n>', 'how many'],
            ],
          },
          { use: 'score [week]', summary: 'score' },
        ],
      },
      async (group, args, flags) => void calls.push([group, args, flags]),
    );
    await root.parseAsync(['review', 'import', 'many', 'f.jsonl', '--no-notify', '--limit=3', '--json'], { from: 'user' });
    await root.parseAsync(['review', 'score'], { from: 'user' });
    expect(calls).toEqual([
      ['review', ['import', 'many', 'f.jsonl'], { 'no-notify': 'true', limit: '3', json: 'true' }],
      ['review', ['score'], {}],
    ]);
  });

  it('prints JSON for scripts and tables for people, coloured only on a terminal without NO_COLOR', () => {
    const answer = {
      total: 2,
      partners: [
        { id: 'p1', name: 'Acme', interfaces: { reservations: { enabled: true } } },
        { id: 'p2', name: 'Beta Corp', interfaces: {} },
      ],
    };
    const pipe = capture(false);
    printAnswer(answer, { json: false, stream: pipe });
    expect(JSON.parse(pipe.text())).toEqual(answer);

    const terminal = capture(true);
    printAnswer(answer, { json: false, stream: terminal, env: {} });
    expect(terminal.text()).toContain('\u001b[1m'); // bold headings
    const plain = capture(true);
    printAnswer(answer, { json: false, stream: plain, env: { NO_COLOR: '1' } });
    expect(plain.text().split('\n')).toEqual([
      'total  2',
      '',
      'id  name       interfaces',
      'p1  Acme       {"reservations":{"enabled":true}}',
      'p2  Beta Corp  {}',
      '',
    ]);
    const json = capture(true);
    printAnswer(answer, { json: true, stream: json });
    expect(JSON.parse(json.text())).toEqual(answer);
    // A command that printed as it went (`logs tail`) has no answer: nothing more is printed.
    const none = capture(false);
    printAnswer(undefined, { json: false, stream: none });
    expect(none.text()).toBe('');
  });

  it('leaves out the columns a terminal cannot hold, and says so', () => {
    const rows = [{ id: 'a'.repeat(20), name: 'b'.repeat(30), city: 'c'.repeat(30) }];
    expect(forPeople(rows, false, 60).split('\n')).toEqual([
      `${'id'.padEnd(20)}  name`,
      `${'a'.repeat(20)}  ${'b'.repeat(30)}`,
      '(1 more column: city; --json shows all)',
    ]);
  });

  it('shows an import’s progress as lines in a pipe and as a bar with total, rate and time left on a terminal', () => {
    const pipe = capture(false);
    const lines = lineProgress('imported', 'reviews', pipe);
    lines(2, 3);
    lines(3, 3);
    expect(pipe.text()).toBe('imported 2/3 reviews\nimported 3/3 reviews\n');

    const terminal = capture(true);
    const bar = lineProgress('imported', 'reviews', terminal);
    bar(2, 3);
    bar(3, 3);
    expect(terminal.text()).toMatch(/100% \| 3\/3 reviews \| [\d,]+\/s \| 0s left/);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-progress-'));
    try {
      const file = path.join(dir, 'businesses.csv');
      fs.writeFileSync(file, 'id,name\na,A\nb,B\nc,C'); // a header, and no newline at the end
      expect(countLines(file)).toBe(4);
      const streamed = capture(true);
      const progress = importProgress('businesses', file, streamed);
      progress(2, 'staged');
      progress(3, 'done');
      expect(streamed.text()).toMatch(/3\/3 businesses/);
      const piped = capture(false);
      const quiet = importProgress('businesses', file, piped);
      quiet(3, 'staged');
      quiet(3, 'done');
      expect(piped.text()).toBe('checked 3 businesses\nimported 3 businesses\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints help for `serve --help` instead of starting a server', async () => {
    const help = await runCli(['serve', '--help'], { PBS_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-help-')) });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: pbs serve [options]');
    expect(help.stdout).not.toContain('listening');
  });
});
