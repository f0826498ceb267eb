import fs from 'node:fs';
import type { WaitlistRestaurantSide } from '../waitlist/waitlist-restaurant.js';
import { need, optionalInt, UsageError } from './args.js';
import type { CommandGroupSpec } from './command-line.js';
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

export const waitlistCommands: CommandGroupSpec = {
  name: 'waitlist',
  summary: 'the restaurant’s side of its waitlist',
  commands: [
    { use: 'show <business-id>', summary: 'the waitlist’s settings' },
    { use: 'configure <business-id> <file.json>', summary: 'set the waitlist’s settings from a file' },
    { use: 'open <business-id>', summary: 'open the line' },
    { use: 'close <business-id>', summary: 'close the line', options: [['--reason <reason>', 'e.g. special_event']] },
    {
      use: 'walk-in <business-id>',
      summary: 'a guest joins at the door',
      options: [
        ['--party-size <n>', 'how many (required)'],
        ['--name <name>', 'the guest’s name'],
        ['--phone <number>', 'the guest’s phone, e.g. +14155550123'],
      ],
    },
    { use: 'queue <business-id>', summary: 'the live line' },
    { use: 'notify <visit-id>', summary: 'tell the guest their table is ready' },
    { use: 'seat <visit-id>', summary: 'the guest is seated' },
    { use: 'no-show <visit-id>', summary: 'the guest did not come' },
    { use: 'arrive <visit-id>', summary: 'the guest is at the door' },
  ],
};
