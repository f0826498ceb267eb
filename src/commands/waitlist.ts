import fs from 'node:fs';
import type { WaitlistRestaurantSide } from '../waitlist/waitlist-restaurant.js';
import { need, optionalInt, UsageError } from './args.js';
import { isRecord } from '../platform/values.js';

/** `pbs waitlist …`: a restaurant's waitlist, as its host runs it. */
export async function waitlistCommand(waitlist: WaitlistRestaurantSide, args: string[], flags: Record<string, string>): Promise<unknown> {
  const [sub, a, b] = args;
  switch (sub) {
    case 'show':
      return waitlist.config(need(a, 'business id'));
    case 'configure':
      return waitlist.setConfig(need(a, 'business id'), jsonObjectFile(need(b, 'JSON file')));
    case 'open':
      return waitlist.setOpen(need(a, 'business id'), true);
    case 'close':
      return waitlist.setOpen(need(a, 'business id'), false, flags.reason);
    case 'walk-in':
      return waitlist.addWalkIn(need(a, 'business id'), {
        party_size: optionalInt(need(flags['party-size'], '--party-size'), '--party-size'),
        name: flags.name,
        phone: flags.phone,
      });
    case 'queue':
      return waitlist.queue(need(a, 'business id'));
    case 'notify':
    case 'seat':
    case 'no-show':
    case 'arrive':
      return waitlist.act(need(a, 'visit id'), sub);
    default:
      throw new UsageError(`unknown waitlist command ${sub ?? ''}`);
  }
}

function jsonObjectFile(file: string): Record<string, unknown> {
  const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!isRecord(value)) throw new UsageError(`${file} must hold a JSON object`);
  return value;
}
