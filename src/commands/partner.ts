import fs from 'node:fs';
import type { CredentialService } from '../partners/credential-service.js';
import type { PartnerService } from '../partners/partner-service.js';
import { need, optionalInt, PAGE_OPTIONS, UsageError } from './args.js';
import type { CommandGroupSpec } from './command-line.js';
import { lineProgress } from './progress.js';
import type { PortalSession } from '../platform/http/portal-session.js';

/** What the partner commands need of the portal (the workbench family's). */
export interface PortalAccess {
  issueLink(partnerId: string): Promise<{ url: string; expires_at: string }>;
  revokeAll(partnerId: string): Promise<{ revoked: number }>;
  /** Keeps a portal session going after its partner changed its own credentials there (the others end). */
  keepSession(session: PortalSession): Promise<void>;
}

/** What the partner commands need of launch readiness (the readiness family's). */
export interface ReadinessAccess {
  report(partnerId: string): Promise<unknown>;
  markdown(partnerId: string): Promise<string>;
  approve(partnerId: string, note: string): Promise<unknown>;
  drill(partnerId: string, input: { kind: string; operation?: string; duration_seconds?: number }): Promise<unknown>;
}

/** `pbs partner …`: partners, their credentials and business links, portal links, and launch readiness. */
export async function partnerCommand(
  services: { partners: PartnerService; credentials: CredentialService; portal: PortalAccess; readiness: ReadinessAccess },
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
          return credentials.issue(need(b, 'partner id'), {
            kind,
            label: flags.label,
            username: flags.username,
            override_readiness: flags['override-readiness'] !== undefined,
          });
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
      return partners.importLinksCsv(
        need(a, 'partner id'),
        fs.readFileSync(need(b, 'CSV file'), 'utf8'),
        lineProgress('linked', 'businesses'),
      );
    case 'readiness': {
      const partnerId = need(a, 'partner id');
      if (flags.markdown === undefined) return services.readiness.report(partnerId);
      process.stdout.write(await services.readiness.markdown(partnerId));
      return undefined;
    }
    case 'approve':
      return services.readiness.approve(need(a, 'partner id'), flags.note ?? '');
    case 'drill':
      return services.readiness.drill(need(a, 'partner id'), {
        kind: need(b, 'drill kind'),
        operation: flags.operation,
        duration_seconds: optionalInt(flags.duration, '--duration'),
      });
    default:
      throw new UsageError(`unknown partner command ${sub ?? ''}`);
  }
}

export const partnerCommands: CommandGroupSpec = {
  name: 'partner',
  summary: 'partners, their interfaces, credentials, business links and portal links',
  subgroups: { credential: 'its API keys, Basic credentials and OAuth clients' },
  commands: [
    {
      use: 'create',
      summary: 'create a partner',
      options: [
        ['--name <name>', 'its name (required)'],
        ['--interfaces <list>', 'interfaces to enable, comma-separated: reservations,waitlist,…'],
      ],
    },
    { use: 'list', summary: 'partners, 100 at a time', options: PAGE_OPTIONS },
    { use: 'show <partner-id>', summary: 'one partner' },
    { use: 'disable <partner-id>', summary: 'its credentials stop working at once' },
    { use: 'enable <partner-id>', summary: 'turn a disabled partner back on' },
    {
      use: 'interface <partner-id> <interface> <on|off>',
      summary: 'turn an interface on or off, with its limits',
      options: [
        ['--per-second <n>', 'requests a second'],
        ['--per-day <n>', 'requests a day (reset at midnight UTC)'],
      ],
    },
    {
      use: 'credential issue <partner-id>',
      summary: 'issue a credential (its secret is printed once)',
      options: [
        ['--kind <kind>', 'api_key, basic or oauth_client (required)'],
        ['--label <label>', 'a name to tell it by'],
        ['--username <username>', 'basic: the user name (default: generated)'],
        ['--override-readiness', 'production: issue although the partner is not approved for launch'],
      ],
    },
    { use: 'credential list <partner-id>', summary: 'its credentials, without secrets' },
    {
      use: 'credential rotate <credential-id>',
      summary: 'a new secret; the old one keeps working for the grace period',
      options: [['--grace-seconds <n>', 'how long the old secret still works (default 0)']],
    },
    { use: 'credential revoke <credential-id>', summary: 'stop a credential at once' },
    {
      use: 'link <partner-id> <business-id>',
      summary: 'let the partner act for a business',
      options: [['--comment <text>', 'why, for the records']],
    },
    { use: 'unlink <partner-id> <business-id>', summary: 'end a business link' },
    { use: 'links <partner-id>', summary: 'its linked businesses (1000 at a time)', options: PAGE_OPTIONS },
    { use: 'import-links <partner-id> <file.csv>', summary: 'link from an onboarding CSV: business id, optional comment' },
    {
      use: 'readiness <partner-id>',
      summary: 'launch readiness: milestones per interface from its own traffic (docs/readiness.md)',
      options: [['--markdown', 'the report as Markdown']],
    },
    { use: 'approve <partner-id>', summary: 'approve it for launch (recorded with who and when)', options: [['--note <text>', 'why']] },
    {
      use: 'drill <partner-id> <kind>',
      summary: 'sandbox: start a drill (retry_after, rate_limit, hold_expiry, slow_answer, webhook_duplicates)',
      options: [
        ['--operation <operation>', 'the operation its failures act on, e.g. "POST /v3/bookings/{business_id}/holds"'],
        ['--duration <seconds>', 'its time box (default 300)'],
      ],
    },
    { use: 'portal-link <partner-id>', summary: 'a single-use portal sign-in link (15 minutes)' },
    { use: 'portal-revoke <partner-id>', summary: 'end its portal sessions and unused links' },
  ],
};
