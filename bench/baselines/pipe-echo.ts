import { createInterface } from 'node:readline';
import { startBareUws } from '../fanout-uws.ts';

/**
 * The floor of bench/pipe.ts: a process reading the same named pipe on its stdin, line
 * by line (readline), that parses each line (JSON.parse, nothing validated, nothing
 * stored) and publishes it at once as a pool_trades frame through bare
 * uWebSockets.js (bench/fanout-uws.ts): what the pipe, one Node process's event loop,
 * loopback and the client add on this machine at that moment, with no engine. It logs
 * its port as mds serve does (`"msg":"mds serving"`), and ends on SIGTERM.
 *
 * Usage: pipe-echo.ts <key> (stdin: the pipe).
 */

const bare = await startBareUws({ host: '127.0.0.1', key: process.argv[2]! });
process.stderr.write(`${JSON.stringify({ msg: 'mds serving', port: bare.port })}\n`);
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  let event: { type?: string; pool_address?: string };
  try {
    event = JSON.parse(line);
  } catch {
    return;
  }
  if (event.type === 'swap') bare.publish(`pool_trades:${event.pool_address}`, `{"stream":"pool_trades","data":${line}}`);
});
process.on('SIGTERM', () => {
  lines.close();
  bare.close();
  process.exit(0);
});
