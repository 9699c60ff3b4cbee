import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { NODE_FLAGS, stopChild } from './child.ts';

/**
 * The fan-out benchmark's child processes: forked with an IPC channel, TypeScript
 * through tsx's loader, and spoken to by request and reply (`ask`): a reply is the
 * next message of the expected type. Messages no one waits for go to `onMessage`
 * (client progress). A child that exits or reports an error fails every wait on it,
 * so the benchmark stops instead of hanging.
 */

const TSX = createRequire(import.meta.url).resolve('tsx');

type Message = { type: string } & Record<string, unknown>;

export class Peer<Out extends { type: string }, In extends { type: string }> {
  readonly child: ChildProcess;
  private waiters = new Map<string, Array<{ resolve: (m: any) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>>();
  private failure: Error | null = null;
  onMessage: (message: In) => void = () => {};

  constructor(
    readonly name: string,
    script: string,
    arg: unknown,
    nodeFlags: string[] = [],
  ) {
    this.child = fork(script, [JSON.stringify(arg)], { execArgv: ['--import', TSX, ...NODE_FLAGS, ...nodeFlags], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (raw) => {
      const message = raw as Message;
      if (message.type === 'error') return this.fail(new Error(`${this.name}: ${String(message.message)}`));
      const queue = this.waiters.get(message.type);
      const waiter = queue?.shift();
      if (waiter) {
        clearTimeout(waiter.timer);
        waiter.resolve(message);
      } else this.onMessage(message as unknown as In);
    });
    this.child.once('exit', (code, signal) => this.fail(new Error(`${this.name} exited (${signal ?? code})`)));
    this.child.once('error', (err) => this.fail(err));
  }

  send(command: Out): void {
    if (this.child.connected) this.child.send(command);
  }

  /** The next message of `type` (sending `command` first, if given). */
  ask<T extends In['type']>(type: T, command?: Out, timeoutMs = 60_000): Promise<Extract<In, { type: T }>> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const queue = this.waiters.get(type)!;
        queue.splice(queue.findIndex((w) => w.timer === timer), 1);
        reject(new Error(`${this.name}: no ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      let queue = this.waiters.get(type);
      if (!queue) this.waiters.set(type, (queue = []));
      queue.push({ resolve, reject, timer });
      if (command) this.send(command);
    });
  }

  /** Asks it to leave (`exit` command), then SIGTERM, then SIGKILL: by its PID, never by name. */
  async stop(exitCommand: Out, graceMs = 5_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.send(exitCommand);
    const timer = setTimeout(() => void stopChild(this.child, graceMs), graceMs);
    await exited;
    clearTimeout(timer);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const queue of this.waiters.values()) {
      for (const w of queue.splice(0)) {
        clearTimeout(w.timer);
        w.reject(err);
      }
    }
  }

  /** Set once the child exited or reported an error. */
  get failed(): Error | null {
    return this.failure;
  }
}
