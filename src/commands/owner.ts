import fs from 'node:fs';
import type { BusinessUserService } from '../owners/owner-service.js';
import type { BusinessUserAuthorization } from '../owners/authorization-service.js';
import { list } from '../platform/query.js';
import { need, optionalInt, UsageError } from './args.js';

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
      return owners.importJsonLines(fs.readFileSync(need(a, 'file of JSON lines'), 'utf8'));
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
