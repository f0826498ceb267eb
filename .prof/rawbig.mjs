import http from 'node:http';
import autocannon from 'autocannon';
const size = Number(process.argv[2] ?? 15);
const body = JSON.stringify({ status: 'x'.repeat(Math.max(0, size - 14)) });
const server = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }); res.end(body); });
server.listen(0, '127.0.0.1', async () => {
  const url = `http://127.0.0.1:${server.address().port}/`;
  await autocannon({ url, connections: 50, duration: 2 });
  const r = await autocannon({ url, connections: 50, duration: 5 });
  console.log(size, 'bytes:', Math.round(r.requests.average), 'req/s', Math.round(r.throughput.average / 1e6), 'MB/s');
  server.close();
});
