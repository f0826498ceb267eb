import fs from 'node:fs';
import type { BusinessUserService } from '../owners/owner-service.js';
import type { BusinessUserAuthorization } from '../owners/authorization-service.js';
import { list } from '../platform/query.js';
import { need, optionalInt, PAGE_OPTIONS, UsageError } from './args.js';
import type { CommandGroupSpec } from './command-line.js';
import { lineProgress } from './progress.js';

/** `pbs owner …`: business users and the businesses they manage. */
export async function ownerCommand(owners: BusinessUserService, args: string[], flags: Record<string, string>): Promise<unknown> {
  const [sub, a, b] = args;
  switch (sub) {
    case 'create':
      return owners.create({
        ...(flags.id ? { id: flags.id } : {}),
        name: need(flags.name, '--name'),
        email: need(flags.email, '--email'),
        ...(flags.businesses ? { business_ids: list(flags.businesses) } : {}),
      });
    case 'list':
      return owners.list(
        { limit: optionalInt(flags.limit, '--limit') ?? 50, offset: optionalInt(flags.offset, '--offset') ?? 0 },
        flags.business,
      );
    case 'show':
      return owners.get(need(a, 'business user id'));
    case 'link':
      return owners.link(need(a, 'business user id'), need(b, 'business id'));
    case 'unlink':
      await owners.unlink(need(a, 'business user id'), need(b, 'business id'));
      return { unlinked: true };
    case 'remove':
      await owners.remove(need(a, 'business user id'));
      return { removed: true };
    case 'import':
      return owners.importJsonLines(fs.readFileSync(need(a, 'file of JSON lines'), 'utf8'), lineProgress('imported', 'business users'));
    case 'password': {
      // Read from a file (first line), never from a flag: a flag would show in the process list and the shell's history.
      const id = need(a, 'business user id');
      if (flags.clear !== undefined) {
        await owners.setPassword(id, null);
        return { password: 'removed' };
      }
      const [first = ''] = fs.readFileSync(need(flags['password-file'], '--password-file (or --clear)'), 'utf8').split(/\r?\n/);
      await owners.setPassword(id, first);
      return { password: 'set' };
    }
    default:
      throw new UsageError(`unknown owner command ${sub ?? ''}: create, list, show, link, unlink, remove, import or password`);
  }
}

/** `pbs oauth …`: where partners' apps receive business users' authorization codes (docs/owners.md). */
export async function oauthCommand(
  authorization: BusinessUserAuthorization,
  requirePartner: (partnerId: string) => Promise<void>,
  args: string[],
  flags: Record<string, string>,
): Promise<unknown> {
  const [sub, partnerId] = args;
  if (sub !== 'redirect-uris') throw new UsageError(`unknown oauth command ${sub ?? ''}: redirect-uris`);
  const partner = need(partnerId, 'partner id');
  await requirePartner(partner);
  if (flags.clear !== undefined) return { redirect_uris: await authorization.setRedirectUris(partner, []) };
  if (flags.set !== undefined) return { redirect_uris: await authorization.setRedirectUris(partner, list(flags.set)) };
  return { redirect_uris: await authorization.redirectUris(partner) };
}

export const ownerCommands: CommandGroupSpec = {
  name: 'owner',
  summary: 'business users: the people who own or manage businesses, and sign in to authorize partners’ apps',
  commands: [
    {
      use: 'create',
      summary: 'a business user',
      options: [
        ['--name <name>', 'their name (required)'],
        ['--email <email>', 'their e-mail address (required)'],
        ['--businesses <list>', 'business ids they manage, comma-separated'],
        ['--id <id>', 'their id (default: a new one)'],
      ],
    },
    {
      use: 'list',
      summary: 'business users, 50 at a time',
      options: [['--business <business-id>', 'only this business’s'], ...PAGE_OPTIONS],
    },
    { use: 'show <user-id>', summary: 'one business user' },
    { use: 'link <user-id> <business-id>', summary: 'they manage the business too' },
    { use: 'unlink <user-id> <business-id>', summary: 'they no longer manage the business' },
    { use: 'remove <user-id>', summary: 'remove a business user and what they authorized' },
    { use: 'import <file.jsonl>', summary: 'many business users, one JSON object per line' },
    {
      use: 'password <user-id>',
      summary: 'their sign-in password outside the sandbox: set from a file’s first line, or removed',
      options: [
        ['--password-file <file>', 'the file whose first line is the password (never a flag: it would show in the process list)'],
        ['--clear', 'remove the password'],
      ],
    },
  ],
};

export const oauthCommands: CommandGroupSpec = {
  name: 'oauth',
  summary: 'partners’ OAuth apps for business users',
  commands: [
    {
      use: 'redirect-uris <partner-id>',
      summary: 'where the partner’s app receives business users’ codes: shown, set or cleared',
      options: [
        ['--set <list>', 'the URIs, comma-separated'],
        ['--clear', 'remove them all'],
      ],
    },
  ],
};
