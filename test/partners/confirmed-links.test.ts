import { describe, expect, it } from 'vitest';
import { ConfirmedLinks } from '../../src/partners/confirmed-links.js';

describe('links confirmed lately, and lists kept by their text', () => {
  it('keeps a list under its text only while every one of its links holds', () => {
    const links = new ConfirmedLinks();
    links.confirm('p1', 'a', 'biz-a', 1_000);
    links.confirm('p1', 'alias-b', 'biz-b', 2_000);
    const text = 'a,alias-b,a';
    expect(links.businessIdsOfList('p1', text, 0)).toBeUndefined();
    expect(links.businessIdsOf('p1', ['a', 'alias-b', 'a'], 0, text)).toEqual(['biz-a', 'biz-b', 'biz-a']);
    // Distinct ids, how many the text named, for the partner that sent it only.
    expect(links.businessIdsOfList('p1', text, 999)).toMatchObject({ businessIds: ['biz-a', 'biz-b'], given: 3 });
    expect(links.businessIdsOfList('p2', text, 0)).toBeUndefined();
    // The first of its links to expire takes the list with it.
    expect(links.businessIdsOfList('p1', text, 1_000)).toBeUndefined();
  });

  it('keeps nothing when a link is unknown, and forgets every list with the links', () => {
    const links = new ConfirmedLinks();
    links.confirm('p1', 'a', 'biz-a', 1_000);
    expect(links.businessIdsOf('p1', ['a', 'b'], 0, 'a,b')).toBeUndefined();
    expect(links.businessIdsOfList('p1', 'a,b', 0)).toBeUndefined();
    links.businessIdsOf('p1', ['a'], 0, 'a');
    expect(links.businessIdsOfList('p1', 'a', 0)?.businessIds).toEqual(['biz-a']);
    links.forget();
    expect(links.businessIdsOfList('p1', 'a', 0)).toBeUndefined();
  });
});
