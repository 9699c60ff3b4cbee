import { spawnSync } from 'node:child_process';
import { constants, openSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A named pipe (mkfifo) in `dir`, opened at both ends: the pipe a decoder writes in
 * `decoder | mds serve --source ndjson:-`, for the benchmarks that feed mds as such a
 * pipeline does (bench/pipe.ts, bench/fanout-server.ts). The read end is opened
 * non-blocking, so that neither open waits for the other side; whoever reads it (a
 * child's stdin, or a net.Socket) reads it as Node reads a piped stdin. Linux and
 * macOS (mkfifo).
 */
export function openFifo(dir: string, name = 'events.fifo'): { path: string; readFd: number; writeFd: number } {
  const path = join(dir, name);
  const made = spawnSync('mkfifo', [path], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`mkfifo ${path}: ${made.error?.message ?? made.stderr}`);
  const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeFd = openSync(path, constants.O_WRONLY);
  return { path, readFd, writeFd };
}
