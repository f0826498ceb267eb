import fs from 'node:fs';
import type { BusinessService } from '../businesses/business-service.js';
import type { ReservationOperator } from '../reservations/reservation-operator.js';
import { need, optionalInt, PAGE_OPTIONS, UsageError } from './args.js';
import type { CommandGroupSpec } from './command-line.js';
import { importProgress } from './progress.js';

/** `pbs business …`: the catalogue and its reservation settings, imports streamed from files with progress. */
export async function businessCommand(
  services: { businesses: BusinessService; reservations: ReservationOperator },
  args: string[],
  flags: Record<string, string>,
): Promise<unknown> {
  const { businesses, reservations } = services;
  const [sub, a] = args;
  switch (sub) {
    case 'upsert':
      return (await businesses.upsert(JSON.parse(fs.readFileSync(need(a, 'JSON file'), 'utf8')))).business;
    case 'import': {
      const file = need(a, 'JSON lines or CSV file');
      if (flags.format !== undefined && flags.format !== 'csv' && flags.format !== 'jsonl')
        throw new UsageError('--format is csv or jsonl (by default the file name says: .csv is CSV)');
      const csv = (flags.format ?? (/\.csv$/i.test(file) ? 'csv' : 'jsonl')) === 'csv';
      const source = fs.createReadStream(file);
      const outcome = csv
        ? await businesses.importCsv(source, importProgress('businesses', file))
        : await businesses.importJsonLines(source, importProgress('businesses', file));
      // Said where a person reads, beside the progress lines, not only in the JSON answer.
      if (outcome.notice) process.stderr.write(`note: ${outcome.notice}\n`);
      return outcome;
    }
    case 'list':
      return businesses.list({
        city: flags.city,
        limit: optionalInt(flags.limit, '--limit') ?? 50,
        offset: optionalInt(flags.offset, '--offset') ?? 0,
      });
    case 'show':
      return businesses.get(need(a, 'business id'));
    case 'reservation-settings': {
      const file = args[2];
      if (!file) return reservations.getSettings(need(a, 'business id'));
      return reservations.setSettings(need(a, 'business id'), JSON.parse(fs.readFileSync(file, 'utf8')));
    }
    case 'import-reservation-settings': {
      const file = need(a, 'JSON lines file');
      return reservations.importSettings(fs.createReadStream(file), importProgress('reservation settings', file));
    }
    default:
      throw new UsageError(`unknown business command ${sub ?? ''}`);
  }
}

export const businessCommands: CommandGroupSpec = {
  name: 'business',
  summary: 'the catalogue and restaurants’ reservation settings',
  commands: [
    { use: 'upsert <file.json>', summary: 'create or change one business from a JSON file' },
    {
      use: 'import <file>',
      summary: 'many businesses from JSON lines or a CSV with a header row, streamed, with progress',
      options: [['--format <format>', 'csv or jsonl (default: a .csv name is CSV)']],
    },
    { use: 'list', summary: 'businesses, 50 at a time', options: [['--city <city>', 'only this city'], ...PAGE_OPTIONS] },
    { use: 'show <business-id>', summary: 'one business (id or alias)' },
    { use: 'reservation-settings <business-id> [file.json]', summary: 'a restaurant’s inventory: shown, or set from a file' },
    { use: 'import-reservation-settings <file.jsonl>', summary: 'many restaurants’ settings: {"business_id", "settings"} per line' },
  ],
};
