import fs from 'node:fs';
import type { CredentialService } from '../partners/credential-service.js';
import type { PartnerService } from '../partners/partner-service.js';
import { need, optionalInt, UsageError } from './args.js';

/** What the partner commands need of the portal (the workbench family's). */
export interface PortalAccess {
  issueLink(partnerId: string): Promise<{ url: string; expires_at: string }>;
  revokeAll(partnerId: string): Promise<{ revoked: number }>;
}

/** `pbs partner …`: partners, their credentials and business links, and portal links. */
export async function partnerCommand(
  services: { partners: PartnerService; credentials: CredentialService; portal: PortalAccess },
  args: string[],
  flags: Record<string, string>,
): Promise<unknown> {
  const { partners, credentials } = services;
  const [sub, a, b, c] = args;
  switch (sub) {
    case 'portal-link':
      return services.portal.issueLink(need(a, 'partner id'));
    case 'portal-revoke':
      return services.portal.revokeAll(need(a, 'partner id'));
    case 'create':
      return partners.create({
        name: need(flags.name, '--name'),
        interfaces: flags.interfaces ? flags.interfaces.split(',').map((s) => s.trim()) : [],
      });
    case 'list':
      return partners.list(optionalInt(flags.limit, '--limit') ?? 100, optionalInt(flags.offset, '--offset') ?? 0);
    case 'show':
      return partners.get(need(a, 'partner id'));
    case 'disable':
      return partners.setStatus(need(a, 'partner id'), 'disabled');
    case 'enable':
      return partners.setStatus(need(a, 'partner id'), 'active');
    case 'interface': {
      const state = need(c, 'on|off');
      if (state !== 'on' && state !== 'off') throw new UsageError('interface state must be on or off');
      return partners.setInterface(need(a, 'partner id'), need(b, 'interface'), {
        enabled: state === 'on',
        per_second: optionalInt(flags['per-second'], '--per-second'),
        per_day: optionalInt(flags['per-day'], '--per-day'),
      });
    }
    case 'credential': {
      switch (a) {
        case 'issue': {
          const kind = need(flags.kind, '--kind');
          if (kind !== 'api_key' && kind !== 'basic' && kind !== 'oauth_client')
            throw new UsageError('--kind must be api_key, basic or oauth_client');
          return credentials.issue(need(b, 'partner id'), { kind, label: flags.label, username: flags.username });
        }
        case 'list':
          return credentials.list(need(b, 'partner id'));
        case 'rotate':
          return credentials.rotate(need(b, 'credential id'), optionalInt(flags['grace-seconds'], '--grace-seconds') ?? 0);
        case 'revoke':
          return credentials.revoke(need(b, 'credential id'));
        default:
          throw new UsageError(`unknown credential command ${a ?? ''}`);
      }
    }
    case 'link':
      return partners.link(need(a, 'partner id'), need(b, 'business id'), flags.comment);
    case 'unlink':
      await partners.unlink(need(a, 'partner id'), need(b, 'business id'));
      return { unlinked: b };
    case 'links':
      return partners.listLinks(
        need(a, 'partner id'),
        optionalInt(flags.limit, '--limit') ?? 1000,
        optionalInt(flags.offset, '--offset') ?? 0,
      );
    case 'import-links':
      return partners.importLinksCsv(need(a, 'partner id'), fs.readFileSync(need(b, 'CSV file'), 'utf8'));
    default:
      throw new UsageError(`unknown partner command ${sub ?? ''}`);
  }
}
