import { isOperatorRole, type OperatorRole } from '../platform/auth/operator.js';
import type { AccountRow, TokenRow } from './team-store.js';

/** An account as the API and the console show it (never a hash or a secret). */
export interface AccountView {
  id: string;
  email: string;
  name: string;
  role: OperatorRole;
  /** `invited` until the person set a password and a second factor (or signed in through SSO). */
  state: 'invited' | 'active' | 'disabled';
  sign_in: { password: boolean; totp: boolean; sso: boolean };
  created_at: string;
  last_sign_in_at: string | null;
}

export interface TokenView {
  id: string;
  account_id: string;
  name: string;
  role: OperatorRole;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

export function roleOf(value: string): OperatorRole {
  return isOperatorRole(value) ? value : 'viewer';
}

export function accountView(row: AccountRow): AccountView {
  const setUp = (row.password_hash !== null && row.setup_token_hash === null) || row.sso_subject !== null;
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: roleOf(row.role),
    state: row.disabled_at !== null ? 'disabled' : setUp ? 'active' : 'invited',
    sign_in: {
      password: row.password_hash !== null && row.setup_token_hash === null,
      totp: row.totp_secret !== null && row.setup_token_hash === null,
      sso: row.sso_subject !== null,
    },
    created_at: new Date(Number(row.created_at)).toISOString(),
    last_sign_in_at: iso(row.last_sign_in_at),
  };
}

export function tokenView(row: TokenRow): TokenView {
  return {
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    role: roleOf(row.role),
    created_at: new Date(Number(row.created_at)).toISOString(),
    expires_at: new Date(Number(row.expires_at)).toISOString(),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
  };
}
