// autocannon with engagement-like requests (long query strings, 500 distinct) against the raw server: the client's own ceiling.
import autocannon from 'autocannon';
const url = process.argv[2]; const bytes = process.argv[3];
const ids = Array.from({ length: 1000 }, (_, i) => `Abcdefghijklmnopqrstu${i % 10}`);
const pick = (l) => l[Math.floor(Math.random() * l.length)];
const request = () => ({ method: 'GET', path: `${bytes ? `/bytes/${bytes}` : '/'}?business_ids=${Array.from({ length: 20 }, () => pick(ids)).join(',')}${Math.random() < 0.5 ? '' : '&date_range_start=2031-04-07&date_range_end=2031-04-28'}` });
const opts = { url, headers: { authorization: 'Bearer xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' }, connections: 50, requests: [request()], setupClient: (c) => c.setRequests(Array.from({ length: 500 }, request)) };
await autocannon({ ...opts, duration: 2 });
const r = await autocannon({ ...opts, duration: 5 });
console.log(bytes ?? 15, 'bytes:', Math.round(r.requests.average), 'req/s');
const plain = await autocannon({ url, connections: 50, duration: 5 });
console.log('plain fixed request:', Math.round(plain.requests.average), 'req/s');
