import fs from 'node:fs';
import type { BusinessService } from '../businesses/business-service.js';
import type { ReservationOperator } from '../reservations/reservation-operator.js';
import { importProgress, need, optionalInt, UsageError } from './args.js';

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
        ? await businesses.importCsv(source, importProgress('businesses'))
        : await businesses.importJsonLines(source, importProgress('businesses'));
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
    case 'import-reservation-settings':
      return reservations.importSettings(fs.createReadStream(need(a, 'JSON lines file')), importProgress('reservation settings'));
    default:
      throw new UsageError(`unknown business command ${sub ?? ''}`);
  }
}
