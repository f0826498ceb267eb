import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
const child = spawn(process.execPath, ['--max-semi-space-size=64', '/work/main/dist/main.js', 'serve'], {
  env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PBS_DATA_DIR: `/tmp/prof/h-${Date.now()}`, PBS_LOG_LEVEL: 'warn', PBS_LOG_REQUESTS: '0', PBS_SEED_DEMO: '0', PBS_ADMIN_TOKEN: 'bench-admin-token' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url: string = await new Promise((resolve) => { let out = ''; child.stdout.on('data', (d) => { out += d; const m = /listening on (http:\/\/\S+)/.exec(out); if (m) resolve(m[1].replace('localhost', '127.0.0.1')); }); });
await autocannon({ url: url + '/healthz', connections: 50, duration: 2 });
const fs = await import('node:fs');
const cpu = () => { const f = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) / 100; };
const sys = () => Number(fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ')[12]) / 100;
const y0 = sys();
const c0 = cpu(); const w0 = Date.now();
const r = await autocannon({ url: url + '/healthz', connections: 50, duration: 8 });
console.log('server cpu', ((cpu() - c0) / ((Date.now() - w0) / 1000) * 100).toFixed(0), '% of a core, system', ((sys() - y0) / ((Date.now() - w0) / 1000) * 100).toFixed(0), '%');
console.log('healthz', Math.round(r.requests.average));
child.kill('SIGINT'); await new Promise((res) => child.on('exit', res));
