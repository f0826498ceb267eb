import autocannon from 'autocannon';
const url = process.argv[2];
await autocannon({ url, connections: 50, duration: 2 });
const r = await autocannon({ url, connections: 50, duration: 5 });
console.log(Math.round(r.requests.average), 'req/s', Math.round(r.throughput.average / 1e6), 'MB/s p99', r.latency.p99);
