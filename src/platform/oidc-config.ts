import { ConfigError } from './config-error.js';

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The claim holding the person's groups (or roles). */
  roleClaim: string;
  /** Group → role; a person in several groups gets the highest role. */
  roleMap: Record<string, string>;
  /** What the console's button says ("Sign in with …"). */
  name: string;
}

/**
 * PBS_OIDC_ISSUER, PBS_OIDC_CLIENT_ID, PBS_OIDC_CLIENT_SECRET, PBS_OIDC_ROLE_CLAIM (groups) and
 * PBS_OIDC_ROLES (`group=role,…`); an issuer over plain HTTP only on this machine (a test provider).
 */
export function oidcConfig(env: Record<string, string | undefined>): OidcConfig | undefined {
  const issuer = env.PBS_OIDC_ISSUER;
  if (!issuer) return undefined;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ConfigError(`PBS_OIDC_ISSUER must be a URL, got "${issuer}"`);
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new ConfigError('PBS_OIDC_ISSUER must be https:// (plain http only for a provider on this machine)');
  if (!env.PBS_OIDC_CLIENT_ID || !env.PBS_OIDC_CLIENT_SECRET)
    throw new ConfigError('PBS_OIDC_ISSUER needs PBS_OIDC_CLIENT_ID and PBS_OIDC_CLIENT_SECRET');
  const roleMap: Record<string, string> = {};
  for (const pair of (env.PBS_OIDC_ROLES ?? '').split(',').filter((p) => p.trim() !== '')) {
    const [group, role] = pair.split('=').map((part) => part.trim());
    if (!group || !['viewer', 'support', 'partner_manager', 'admin'].includes(role ?? ''))
      throw new ConfigError(`PBS_OIDC_ROLES takes group=role pairs (roles: viewer, support, partner_manager, admin), got "${pair}"`);
    roleMap[group] = role;
  }
  return {
    issuer,
    clientId: env.PBS_OIDC_CLIENT_ID,
    clientSecret: env.PBS_OIDC_CLIENT_SECRET,
    roleClaim: env.PBS_OIDC_ROLE_CLAIM || 'groups',
    roleMap,
    name: env.PBS_OIDC_NAME || url.hostname,
  };
}
