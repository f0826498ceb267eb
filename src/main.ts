import { main } from './cli.js';

main(process.argv.slice(2)).then(
  (code) => {
    // serve answers -1: the server keeps the process alive until a signal stops it.
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`pbs: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
