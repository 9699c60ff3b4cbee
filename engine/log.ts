import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * The root logger: JSON lines, or pretty output when stderr is a terminal.
 * Logs go to stderr so that stdout stays free for command output (`mds keys create`).
 */
export function createLogger(level: string, options: { pretty?: boolean } = {}): Logger {
  const pretty = options.pretty ?? process.stderr.isTTY === true;
  if (pretty) {
    return pino({
      level,
      transport: { target: 'pino-pretty', options: { destination: 2, colorize: true, translateTime: 'SYS:HH:MM:ss.l' } },
    });
  }
  return pino({ level, base: { name: 'mds' } }, pino.destination({ dest: 2, sync: false }));
}

/** A logger that drops everything, for tests and embedded use without logs. */
export const silentLogger = (): Logger => pino({ level: 'silent' });
