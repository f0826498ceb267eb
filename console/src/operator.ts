import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Answer } from './client';

/** Who is signed in to the console, and with which role (GET /admin/v1/session). */
export type SignedInOperator = Answer<'/admin/v1/session', 'get'>['operator'];
export type Role = SignedInOperator['role'];
/** Who may act: an operator's least role, or `partner` (the portal: the partner on its own data). */
export type Need = Role | 'partner';

export const OperatorContext = createContext<SignedInOperator | undefined>(undefined);

/** The signed-in operator (undefined while unknown). */
export function useOperator(): SignedInOperator | undefined {
  return useContext(OperatorContext);
}

/** The roles in order: each holds what the ones before it hold. */
export const roleRank: Record<Role, number> = { viewer: 0, support: 1, partner_manager: 2, admin: 3 };

/** Whether the signed-in operator's role reaches `need`: the console hides what it does not (pbs refuses it regardless). */
export function useMayAct(need: Need): boolean {
  const operator = useOperator();
  // The portal's pages: the partner acts on its own data, and the server decides the rest.
  if (need === 'partner' || operator === undefined) return true;
  return roleRank[operator.role] >= roleRank[need];
}
