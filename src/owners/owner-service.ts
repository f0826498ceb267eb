import type { BusinessDirectory } from '../businesses/business-service.js';
import { toIsoOffset, type Clock } from '../platform/clock.js';
import { isUniqueViolation, type Database, type DbOrTx } from '../platform/db/database.js';
import { apiError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { IMPORT_PROGRESS_EVERY, jsonLines } from '../platform/json-lines.js';
import { hashPassword, PASSWORD_LENGTH, passwordMatches } from '../platform/passwords.js';
import type { Page } from '../platform/paging.js';
import { OwnerStore, type BusinessUser } from './owner-store.js';

/** Most businesses one business user may be given in one request (a chain's locations fit). */
export const MAX_BUSINESSES_PER_USER_REQUEST = 1000;
/** Most business users one import takes; more go in batches. */
export const MAX_IMPORT_USERS = 10_000;
/** A plain e-mail address: something, @, a dotted domain; no spaces. */
export const EMAIL_PATTERN = '^[^\\s@]{1,64}@[^\\s@]+\\.[^\\s@]+$';
const EMAIL = new RegExp(EMAIL_PATTERN);

export interface BusinessUserInput {
  id?: string;
  name: string;
  email: string;
  business_ids?: string[];
}

/**
 * Business users (docs/owners.md): the people who manage businesses, and which ones. A partner
 * acting for a business user (the Leads API) reaches only the businesses that user manages.
 */
export class BusinessUserService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly businesses: BusinessDirectory,
  ) {}

  private store(db: DbOrTx = this.database.db) {
    return new OwnerStore(db);
  }

  async create(input: BusinessUserInput) {
    const businessIds = await this.resolve(input.business_ids ?? []);
    const now = this.clock.now();
    const user: BusinessUser = {
      id: input.id ?? newId(),
      name: input.name.trim(),
      email: normalEmail(input.email),
      created_at: now,
      password_hash: null,
    };
    await this.database
      .transact(async (trx) => {
        await this.store(trx).insertUser(user);
        await this.store(trx).link(user.id, businessIds, now);
      })
      .catch(conflictOn(user));
    return this.get(user.id);
  }

  async get(id: string) {
    const user = await this.store().user(id);
    if (!user) throw apiError('NOT_FOUND', `Business user ${id} not found`);
    return view(user, (await this.store().businessesOf([user.id])).get(user.id) ?? []);
  }

  async list(page: Page, businessIdOrAlias?: string) {
    const businessId = businessIdOrAlias === undefined ? undefined : (await this.businesses.requireRef(businessIdOrAlias)).id;
    const [users, total] = await Promise.all([this.store().users(page.limit, page.offset, businessId), this.store().count(businessId)]);
    const managed = await this.store().businessesOf(users.map((u) => u.id));
    return { total, limit: page.limit, offset: page.offset, business_users: users.map((u) => view(u, managed.get(u.id) ?? [])) };
  }

  async update(id: string, change: { name?: string; email?: string }) {
    const user = await this.store().user(id);
    if (!user) throw apiError('NOT_FOUND', `Business user ${id} not found`);
    const next = {
      ...(change.name !== undefined ? { name: change.name.trim() } : {}),
      ...(change.email !== undefined ? { email: normalEmail(change.email) } : {}),
    };
    await this.database.transact((trx) => this.store(trx).updateUser(id, next)).catch(conflictOn({ ...user, ...next }));
    return this.get(id);
  }

  async remove(id: string): Promise<void> {
    const user = await this.store().user(id);
    if (!user) throw apiError('NOT_FOUND', `Business user ${id} not found`);
    await this.database.transact((trx) => this.store(trx).deleteUser(id));
  }

  /**
   * Sets the password a business user signs in with to authorize a partner in production
   * (docs/owners.md); `null` removes it (they cannot sign in until one is set again).
   */
  async setPassword(id: string, password: string | null): Promise<void> {
    const user = await this.store().user(id);
    if (!user) throw apiError('NOT_FOUND', `Business user ${id} not found`);
    if (password !== null && (password.length < PASSWORD_LENGTH.min || password.length > PASSWORD_LENGTH.max))
      throw apiError('VALIDATION_ERROR', `A password has ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters`, {
        field: 'password',
      });
    const hashed = password === null ? null : await hashPassword(password);
    await this.database.transact((trx) => this.store(trx).updateUser(id, { password_hash: hashed }));
  }

  /** The business user of this address and password; undefined otherwise (the same time either way). */
  async signIn(email: string, password: string): Promise<BusinessUser | undefined> {
    const user = await this.store().userByEmail(normalEmail(email));
    return (await passwordMatches(user?.password_hash, password)) ? user : undefined;
  }

  async link(id: string, businessIdOrAlias: string) {
    const business = await this.businesses.requireRef(businessIdOrAlias);
    const user = await this.store().user(id);
    if (!user) throw apiError('NOT_FOUND', `Business user ${id} not found`);
    await this.database.transact((trx) => this.store(trx).link(id, [business.id], this.clock.now()));
    return this.get(id);
  }

  async unlink(id: string, businessIdOrAlias: string): Promise<void> {
    const business = await this.businesses.requireRef(businessIdOrAlias);
    const removed = await this.database.transact((trx) => this.store(trx).unlink(id, business.id));
    if (!removed) throw apiError('NOT_FOUND', `Business user ${id} does not manage business ${business.id}`);
  }

  /** The businesses a business user manages (what their token reaches); empty for an unknown user. */
  async managedBusinesses(id: string): Promise<string[]> {
    return (await this.store().businessesOf([id])).get(id) ?? [];
  }

  /** The business users who manage a business, read on `db` (the webhook fan-out's transaction). */
  managersOf(db: DbOrTx, businessId: string): Promise<string[]> {
    return this.store(db).managersOf(businessId);
  }

  /**
   * Business users from JSON lines (`{"name", "email", "business_ids", "id"?}`), all or nothing:
   * a line whose e-mail is already a user's renames that user and adds the businesses to theirs.
   */
  /** `onProgress(done, total)`: the lines written so far, inside the import's one transaction (the CLI's bar). */
  async importJsonLines(text: string, onProgress?: (done: number, total: number) => void) {
    const lines = [...jsonLines(text, MAX_IMPORT_USERS)].map(({ value, where }) => ({ input: importLine(value, where), where }));
    // One lookup of every business the import names (chunked by the directory), not one per line.
    const known = await this.businesses.resolveIds([...new Set(lines.flatMap(({ input }) => input.business_ids ?? []))]);
    const resolved = await Promise.all(
      lines.map(async ({ input, where }) => ({ input, businessIds: await this.resolve(input.business_ids ?? [], where, known) })),
    );
    const now = this.clock.now();
    let created = 0;
    let updated = 0;
    await this.database.transact(async (trx) => {
      const store = this.store(trx);
      for (const { input, businessIds } of resolved) {
        const email = normalEmail(input.email);
        const existing = await store.userByEmail(email);
        const id = existing?.id ?? input.id ?? newId();
        if (existing) {
          await store.updateUser(id, { name: input.name.trim() });
          updated++;
        } else {
          await store.insertUser({ id, name: input.name.trim(), email, created_at: now }).catch(conflictOn({ id, email }));
          created++;
        }
        await store.link(id, businessIds, now);
        if ((created + updated) % IMPORT_PROGRESS_EVERY === 0 || created + updated === resolved.length)
          onProgress?.(created + updated, resolved.length);
      }
    });
    return { created, updated };
  }

  /** Business ids or aliases → ids (looked up, or from `resolved`), or 404 BUSINESS_NOT_FOUND naming the unknown ones. */
  private async resolve(idsOrAliases: string[], where?: string, resolved?: Map<string, string>): Promise<string[]> {
    if (idsOrAliases.length > MAX_BUSINESSES_PER_USER_REQUEST)
      throw apiError('VALIDATION_ERROR', `At most ${MAX_BUSINESSES_PER_USER_REQUEST} businesses per request`, { field: 'business_ids' });
    const known = resolved ?? (await this.businesses.resolveIds(idsOrAliases));
    const unknown = idsOrAliases.filter((id) => !known.has(id));
    if (unknown.length > 0)
      throw apiError('BUSINESS_NOT_FOUND', `${where ? `${where}: ` : ''}no such business: ${unknown.slice(0, 5).join(', ')}`, {
        field: 'business_ids',
      });
    return [...new Set(idsOrAliases.flatMap((id) => known.get(id) ?? []))];
  }
}

function view(user: BusinessUser, businessIds: string[]) {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    business_ids: businessIds,
    created_at: toIsoOffset(Number(user.created_at)),
    has_password: user.password_hash !== null,
  };
}

/** E-mail addresses are compared lower-cased: one account per address, however it is typed. */
function normalEmail(email: string, where?: string): string {
  const trimmed = email.trim().toLowerCase();
  if (!EMAIL.test(trimmed) || trimmed.length > 254)
    throw apiError('VALIDATION_ERROR', `${where ? `${where}: ` : ''}email must be an e-mail address`, { field: 'email' });
  return trimmed;
}

/** A taken id or e-mail address is 409 CONFLICT, saying which. */
function conflictOn(user: Pick<BusinessUser, 'id' | 'email'>) {
  return (error: unknown): never => {
    if (isUniqueViolation(error)) throw apiError('CONFLICT', `A business user with id ${user.id} or e-mail ${user.email} already exists`);
    throw error;
  };
}

/** One import line's business user, or 400 VALIDATION_ERROR saying where. */
function importLine(value: Record<string, unknown>, where: string): BusinessUserInput {
  const { id, name, email, business_ids: businessIds } = value;
  const text = (v: unknown, max: number) => typeof v === 'string' && v.trim() !== '' && v.length <= max;
  if (!text(name, 200)) throw apiError('VALIDATION_ERROR', `${where}: name is required (text, at most 200 characters)`, { field: 'name' });
  if (!text(email, 254)) throw apiError('VALIDATION_ERROR', `${where}: email is required`, { field: 'email' });
  if (id !== undefined && !(typeof id === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(id)))
    throw apiError('VALIDATION_ERROR', `${where}: id must be 1 to 64 letters, digits, _ or -`, { field: 'id' });
  if (businessIds !== undefined && !(Array.isArray(businessIds) && businessIds.every((b) => typeof b === 'string' && b.length <= 200)))
    throw apiError('VALIDATION_ERROR', `${where}: business_ids must be a list of business ids`, { field: 'business_ids' });
  return {
    ...(typeof id === 'string' ? { id } : {}),
    name: String(name),
    email: normalEmail(String(email), where),
    ...(Array.isArray(businessIds) ? { business_ids: businessIds.map(String) } : {}),
  };
}
