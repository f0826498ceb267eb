// The baseline: the least a Node.js JSON endpoint can do (node:http, one JSON.stringify).
import http from 'node:http';

const port = Number(process.env.PORT ?? 0);
const server = http.createServer((req, res) => {
  const body = JSON.stringify({ status: 'ok' });
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
