import type { ChildProcessWithoutNullStreams, ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

/** The port a `mds serve` child logs once it listens (its "mds serving" line); rejects if it exits first. */
export function listeningPort(server: ChildProcessWithoutNullStreams | ChildProcessByStdio<null, null, Readable>): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let err = '';
    server.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const match = /"port":(\d+)/.exec(err);
      if (match) resolve(Number(match[1]));
    });
    server.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}
