import { createHash, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { wallMs } from './fanout-plan.ts';

/**
 * The client end of RFC 6455 as the fan-out benchmark needs it: the upgrade request,
 * masked client frames, and a reader that counts server frames by walking their
 * headers. A data frame is only counted (its payload skipped, never copied or decoded)
 * unless it is picked as a sample; control frames (close, ping) are always read.
 *
 * Why not the `ws` package as the client: it copies and decodes every message and
 * emits an event for it (~1-2 µs each), so a few client processes on this 2-core
 * machine could not take the millions of frames per second the servers send, and
 * the benchmark would measure its clients. Counting by header costs a few
 * nanoseconds per frame plus the kernel's copy of the bytes.
 */

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OP_TEXT = 1;
const OP_BINARY = 2;
const OP_CLOSE = 8;
const OP_PING = 9;
const OP_PONG = 10;

/** The HTTP upgrade request, and the Sec-WebSocket-Accept the server must answer with. */
export function upgradeRequest(host: string, port: number, path: string, authorization: string): { request: string; accept: string } {
  const key = randomBytes(16).toString('base64');
  const accept = createHash('sha1').update(key + GUID).digest('base64');
  const request =
    `GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n` +
    (authorization ? `Authorization: ${authorization}\r\n` : '') +
    '\r\n';
  return { request, accept };
}

/** A masked client frame (clients must mask, RFC 6455 5.3). */
export function clientFrame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const headerLength = len < 126 ? 2 : len < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + 4 + len);
  frame[0] = 0x80 | opcode;
  if (len < 126) frame[1] = 0x80 | len;
  else if (len < 65536) {
    frame[1] = 0x80 | 126;
    frame.writeUInt16BE(len, 2);
  } else {
    frame[1] = 0x80 | 127;
    frame.writeUInt32BE(0, 2);
    frame.writeUInt32BE(len, 6);
  }
  const mask = randomBytes(4);
  mask.copy(frame, headerLength);
  const start = headerLength + 4;
  for (let i = 0; i < len; i++) frame[start + i] = payload[i]! ^ mask[i & 3]!;
  return frame;
}

export const textFrame = (text: string): Buffer => clientFrame(OP_TEXT, Buffer.from(text));

/** What a reader hands to its owner. */
export interface FrameSink {
  /** A data frame picked for reading (setup, or a sample), with the time its bytes arrived. */
  onText(conn: FrameReader, payload: Buffer, arrivedMs: number): void;
  onClose(conn: FrameReader, code: number): void;
}

/**
 * One connection's frame reader. `readAll` (setup: waiting for pongs) hands every data
 * frame to the sink; otherwise data frames are counted and one in `sampleEvery` (over
 * all readers of the process: `shared.counter`) is handed over.
 */
export class FrameReader {
  /** Data frames counted since counting began. */
  frames = 0;
  /** Bytes read (headers and payloads alike). */
  bytes = 0;
  /** Before counting begins (setup): every data frame is handed to the sink. */
  readAll = true;
  closeCode = 0;
  private head: Buffer | null = null;
  private remaining = 0;
  private opcode = 0;
  private parts: Buffer[] | null = null;

  constructor(
    readonly index: number,
    readonly socket: Socket,
    private readonly sink: FrameSink,
    private readonly shared: { counter: number; sampleEvery: number },
  ) {}

  /**
   * One chunk read from the socket; `arrivedMs` is stamped once per chunk by the
   * caller. The chunk's memory may be reused once this returns: what is kept is copied.
   */
  read(chunk: Buffer, arrivedMs: number): void {
    this.bytes += chunk.length;
    let buf = chunk;
    if (this.head) {
      // A header cut by the previous chunk (rare: a few bytes in tens of kilobytes).
      buf = Buffer.concat([this.head, chunk]);
      this.head = null;
    }
    const len = buf.length;
    let i = 0;
    while (i < len) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, len - i);
        if (this.parts) this.parts.push(Buffer.from(buf.subarray(i, i + take)));
        i += take;
        this.remaining -= take;
        if (this.remaining === 0) this.endFrame(arrivedMs);
        continue;
      }
      if (len - i < 2) {
        this.head = Buffer.from(buf.subarray(i));
        return;
      }
      const b1 = buf[i + 1]!;
      let payload = b1 & 127;
      let headerLength = payload === 126 ? 4 : payload === 127 ? 10 : 2;
      // Servers never mask (RFC 6455 5.1); a masked frame is skipped like any other.
      if (b1 & 128) headerLength += 4;
      if (len - i < headerLength) {
        this.head = Buffer.from(buf.subarray(i));
        return;
      }
      if (payload === 126) payload = buf.readUInt16BE(i + 2);
      else if (payload === 127) payload = buf.readUInt32BE(i + 2) * 2 ** 32 + buf.readUInt32BE(i + 6);
      this.opcode = buf[i]! & 15;
      i += headerLength;
      this.remaining = payload;
      this.startFrame();
      if (payload === 0) this.endFrame(arrivedMs);
    }
  }

  private startFrame(): void {
    const op = this.opcode;
    if (op === OP_TEXT || op === OP_BINARY) {
      if (this.readAll) {
        this.parts = [];
        return;
      }
      this.frames++;
      const shared = this.shared;
      this.parts = ++shared.counter >= shared.sampleEvery ? ((shared.counter = 0), []) : null;
      return;
    }
    // Control frames (close, ping, pong) and anything unexpected are read whole.
    this.parts = [];
  }

  private endFrame(arrivedMs: number): void {
    const parts = this.parts;
    if (!parts) return;
    this.parts = null;
    const payload = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    switch (this.opcode) {
      case OP_TEXT:
      case OP_BINARY:
        return this.sink.onText(this, payload, arrivedMs);
      case OP_CLOSE:
        this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        return this.sink.onClose(this, this.closeCode);
      case OP_PING:
        if (!this.socket.destroyed) this.socket.write(clientFrame(OP_PONG, payload));
        return;
      default:
        return;
    }
  }
}

/**
 * Where every socket of a process reads into (net's `onread`): one buffer, reused, so
 * that taking a chunk allocates nothing and goes through no stream machinery. Safe to
 * share: each read is handed to its callback, which counts it, before the loop reads
 * the next socket; a reader copies the few bytes it keeps (samples, a cut header).
 */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);

export interface OpenOptions {
  host: string;
  port: number;
  key: string;
  /** The connection's number (FrameReader.index). */
  index: number;
  sink: FrameSink;
  shared: { counter: number; sampleEvery: number };
  /** Upgraded: the caller writes its subscriptions; bytes after the upgrade response are read after it returns. */
  onOpen(reader: FrameReader): void;
  /** The open connection closed. */
  onClosed(): void;
}

/** Opens one connection to /ws with the key; resolves once upgraded (after `onOpen`), rejects when refused or closed before. */
export function openConnection(o: OpenOptions): Promise<FrameReader> {
  return new Promise((resolve, reject) => {
    const { request, accept } = upgradeRequest(o.host, o.port, '/ws', `Bearer ${o.key}`);
    let reader: FrameReader | null = null;
    let response = '';
    const onBytes = (n: number, buf: Uint8Array): boolean => {
      const chunk = Buffer.from(buf.buffer, buf.byteOffset, n);
      if (reader) {
        reader.read(chunk, wallMs());
        return true;
      }
      response += chunk.toString('latin1');
      const end = response.indexOf('\r\n\r\n');
      if (end < 0) return true;
      const head = response.slice(0, end);
      if (!head.startsWith('HTTP/1.1 101') || !head.includes(accept)) {
        socket.destroy();
        reject(new Error(`connection ${o.index}: upgrade refused: ${head.split('\r\n')[0]}`));
        return false;
      }
      reader = new FrameReader(o.index, socket, o.sink, o.shared);
      o.onOpen(reader);
      const rest = Buffer.from(response.slice(end + 4), 'latin1');
      if (rest.length) reader.read(rest, wallMs());
      resolve(reader);
      return true;
    };
    const socket: Socket = connect({ host: o.host, port: o.port, noDelay: true, onread: { buffer: READ_BUFFER, callback: onBytes } });
    socket.once('connect', () => socket.write(request));
    socket.on('error', (err) => {
      if (!reader) reject(new Error(`connection ${o.index}: ${err.message}`));
    });
    socket.on('close', () => {
      if (!reader) return reject(new Error(`connection ${o.index} closed during the upgrade: ${response.slice(0, 120)}`));
      o.onClosed();
    });
  });
}
