import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, dialects, sampleBusiness, startPbs, type Harness } from '../support/harness.js';

describe.each(dialects)('business users on %s', (dialect) => {
  let h: Harness;
  let first: { id: string; alias: string };
  let second: { id: string; alias: string };

  beforeAll(async () => {
    h = await startPbs(dialect);
    first = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Owned One' }) })).body;
    second = (await admin(h.url, 'POST', '/admin/v1/businesses', { json: sampleBusiness({ name: 'Owned Two' }) })).body;
  });
  afterAll(() => h.close());

  /** A `pbs` command group run in the server's process, as the CLI runs it. */
  const cli = (group: string, args: string[], flags: Record<string, string>) => {
    const run = h.pbs.commands.get(group);
    if (!run) throw new Error(`no command group ${group}`);
    return run(args, flags);
  };

  it('adds a business user with the businesses they manage, by id or alias, and changes who manages what', async () => {
    const created = await admin(h.url, 'POST', '/admin/v1/business-users', {
      json: { name: ' Dana Owner ', email: 'Dana@Example.COM', business_ids: [first.alias] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Dana Owner',
      email: 'dana@example.com',
      business_ids: [first.id],
      created_at: expect.stringMatching(/\+00:00$/),
      has_password: false,
    });
    const id = created.body.id;
    expect((await admin(h.url, 'PUT', `/admin/v1/business-users/${id}/businesses/${second.id}`)).body.business_ids.sort()).toEqual(
      [first.id, second.id].sort(),
    );
    // Linking again changes nothing.
    expect((await admin(h.url, 'PUT', `/admin/v1/business-users/${id}/businesses/${second.alias}`)).body.business_ids).toHaveLength(2);
    expect((await admin(h.url, 'DELETE', `/admin/v1/business-users/${id}/businesses/${first.id}`)).status).toBe(204);
    expect((await admin(h.url, 'GET', `/admin/v1/business-users/${id}`)).body.business_ids).toEqual([second.id]);
    const renamed = await admin(h.url, 'PATCH', `/admin/v1/business-users/${id}`, { json: { name: 'Dana O.' } });
    expect(renamed.body).toMatchObject({ name: 'Dana O.', email: 'dana@example.com' });

    const managing = await admin(h.url, 'GET', `/admin/v1/business-users?business_id=${second.alias}`);
    expect(managing.body.business_users.map((u: { id: string }) => u.id)).toEqual([id]);
    expect(managing.body.total).toBe(1);
    expect((await admin(h.url, 'GET', `/admin/v1/business-users?business_id=${first.id}`)).body.total).toBe(0);

    expect((await admin(h.url, 'DELETE', `/admin/v1/business-users/${id}`)).status).toBe(204);
    expect((await admin(h.url, 'GET', `/admin/v1/business-users/${id}`)).status).toBe(404);
  });

  it('refuses what it cannot keep, and writes nothing for it', async () => {
    await admin(h.url, 'POST', '/admin/v1/business-users', { json: { id: 'taken-id', name: 'Taken', email: 'taken@example.com' } });
    const cases: Array<[string, string, unknown, number, string]> = [
      ['POST', '/admin/v1/business-users', { name: 'No Mail' }, 400, 'VALIDATION_ERROR'],
      ['POST', '/admin/v1/business-users', { name: 'Bad Mail', email: 'not an address' }, 400, 'VALIDATION_ERROR'],
      ['POST', '/admin/v1/business-users', { name: '   ', email: 'blank@example.com' }, 400, 'VALIDATION_ERROR'],
      ['POST', '/admin/v1/business-users', { name: 'Same Mail', email: 'TAKEN@example.com' }, 409, 'CONFLICT'],
      ['POST', '/admin/v1/business-users', { id: 'taken-id', name: 'Same Id', email: 'other@example.com' }, 409, 'CONFLICT'],
      [
        'POST',
        '/admin/v1/business-users',
        { name: 'Ghost', email: 'ghost@example.com', business_ids: ['no-such'] },
        404,
        'BUSINESS_NOT_FOUND',
      ],
      ['POST', '/admin/v1/business-users', { name: 'Extra', email: 'extra@example.com', role: 'x' }, 400, 'VALIDATION_ERROR'],
      ['PATCH', '/admin/v1/business-users/no-such-user', { name: 'X' }, 404, 'NOT_FOUND'],
      ['PATCH', '/admin/v1/business-users/taken-id', { email: 'bad' }, 400, 'VALIDATION_ERROR'],
      ['PUT', '/admin/v1/business-users/no-such-user/businesses/' + 'x', undefined, 404, 'BUSINESS_NOT_FOUND'],
      ['DELETE', '/admin/v1/business-users/taken-id/businesses/no-such-business', undefined, 404, 'BUSINESS_NOT_FOUND'],
      ['GET', '/admin/v1/business-users?limit=0', undefined, 400, 'VALIDATION_ERROR'],
      ['GET', '/admin/v1/business-users?business_id=no-such-business', undefined, 404, 'BUSINESS_NOT_FOUND'],
    ];
    for (const [method, path, json, status, code] of cases) {
      const r = await admin(h.url, method, path, json === undefined ? {} : { json });
      expect([method, path, json, r.status, r.body.error?.code]).toEqual([method, path, json, status, code]);
    }
    expect((await admin(h.url, 'PUT', `/admin/v1/business-users/no-such-user/businesses/${first.id}`)).status).toBe(404);
    expect((await admin(h.url, 'DELETE', `/admin/v1/business-users/taken-id/businesses/${first.id}`)).status).toBe(404);
    expect((await admin(h.url, 'GET', '/admin/v1/business-users?business_id=' + first.id)).body.total).toBe(0);
    const all = (await admin(h.url, 'GET', '/admin/v1/business-users?limit=500')).body.business_users.map(
      (u: { email: string }) => u.email,
    );
    expect(all.filter((e: string) => e !== 'taken@example.com' && !e.startsWith('imp'))).toEqual([]);
  });

  it('imports business users from JSON lines, all or nothing; a known address gains businesses', async () => {
    const lines = [
      { id: 'imp-1', name: 'Imported One', email: 'imp1@example.com', business_ids: [first.id] },
      { name: 'Imported Two', email: 'imp2@example.com', business_ids: [second.alias, first.id] },
    ];
    const imported = await admin(h.url, 'POST', '/admin/v1/business-users/import', {
      body: lines.map((l) => JSON.stringify(l)).join('\n'),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(imported.body).toEqual({ created: 2, updated: 0 });
    const again = await admin(h.url, 'POST', '/admin/v1/business-users/import', {
      body: JSON.stringify({ name: 'Imported One (renamed)', email: 'IMP1@example.com', business_ids: [second.id] }),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(again.body).toEqual({ created: 0, updated: 1 });
    expect((await admin(h.url, 'GET', '/admin/v1/business-users/imp-1')).body).toMatchObject({
      name: 'Imported One (renamed)',
      business_ids: [first.id, second.id].sort(),
    });

    // A bad line anywhere: nothing of the import is written.
    const bad = await admin(h.url, 'POST', '/admin/v1/business-users/import', {
      body: [
        JSON.stringify({ name: 'Fine', email: 'fine@example.com' }),
        JSON.stringify({ name: 'No business', email: 'nb@example.com', business_ids: ['nope'] }),
      ].join('\n'),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect([bad.status, bad.body.error.code]).toEqual([404, 'BUSINESS_NOT_FOUND']);
    expect(bad.body.error.description).toContain('line 2');
    const badMail = await admin(h.url, 'POST', '/admin/v1/business-users/import', {
      body: JSON.stringify({ name: 'Bad', email: 'nope' }),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect([badMail.status, badMail.body.error.code, badMail.body.error.description]).toEqual([
      400,
      'VALIDATION_ERROR',
      'line 1: email must be an e-mail address',
    ]);
    const emails = (await admin(h.url, 'GET', '/admin/v1/business-users?limit=500')).body.business_users.map(
      (u: { email: string }) => u.email,
    );
    expect(emails).not.toContain('fine@example.com');
  });

  it('pbs owner manages business users from the command line', async () => {
    const created = (await cli('owner', ['create'], {
      name: 'CLI Owner',
      email: 'cli@example.com',
      businesses: `${first.id},${second.alias}`,
    })) as {
      id: string;
      business_ids: string[];
    };
    expect(created.business_ids.sort()).toEqual([first.id, second.id].sort());
    await cli('owner', ['unlink', created.id, second.id], {});
    expect(((await cli('owner', ['show', created.id], {})) as { business_ids: string[] }).business_ids).toEqual([first.id]);
    const listed = (await cli('owner', ['list'], { business: first.id })) as { business_users: Array<{ id: string }> };
    expect(listed.business_users.map((u) => u.id)).toContain(created.id);
    await cli('owner', ['remove', created.id], {});
    await expect(cli('owner', ['show', created.id], {})).rejects.toThrow(/not found/);
  });
});
