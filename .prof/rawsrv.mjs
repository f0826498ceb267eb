import http from 'node:http';
const size = Number(process.env.SIZE ?? 15);
const body = Buffer.from(JSON.stringify({ status: 'x'.repeat(Math.max(0, size - 14)) }));
const server = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length }); res.end(body); });
server.listen(Number(process.env.PORT), '127.0.0.1');
