// The baseline: the least a Node.js JSON endpoint can do (node:http, one JSON.stringify). GET
// /bytes/N answers a JSON body of N bytes instead (prepared once), the ceiling for an answer
// that size: the search scenarios measure against it too. GET /bytes/N?spin=U first spins U µs
// of pure CPU: given raw's own CPU a request, a server doing exactly twice raw's work.
import http from 'node:http';

const port = Number(process.env.PORT ?? 0);
const sized = new Map();
const server = http.createServer((req, res) => {
  // `?spin=µs`: that much pure CPU work before answering (the "twice raw's work" control).
  const spin = /[?&]spin=(\d{1,6}(?:\.\d+)?)$/.exec(req.url ?? '');
  if (spin) {
    const until = performance.now() + Number(spin[1]) / 1000;
    while (performance.now() < until);
  }
  const match = /^\/bytes\/(\d{1,8})(?:\?|$)/.exec(req.url ?? '');
  let body;
  if (match) {
    const size = Number(match[1]);
    body = sized.get(size);
    if (!body) sized.set(size, (body = Buffer.from(JSON.stringify({ status: 'x'.repeat(Math.max(0, size - 14)) }))));
  } else body = JSON.stringify({ status: 'ok' });
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
