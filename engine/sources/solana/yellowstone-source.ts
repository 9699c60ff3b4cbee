import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { CommitmentLevel, SubscribeRequest, SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import type { IngestSink, LiveSource } from '../source.ts';
import { PROGRAMS, SolanaDecoder } from './decode.ts';
import { abortableSleep, backoffMs, deadLetterTo, submitDecoded } from './live.ts';
import { PYTH_SOL_USD_ACCOUNT, solPriceEvent } from './pyth.ts';

/**
 * `yellowstone:<endpoint>`: a Yellowstone (Geyser) gRPC endpoint. One bidirectional
 * `geyser.Geyser/Subscribe` stream, with the request messages of the published protos
 * (@triton-one/yellowstone-grpc's generated codecs; the transport is @grpc/grpc-js, not
 * that package's native client): transactions that include pump.fun or PumpSwap, no
 * votes, no failures, commitment confirmed. The stream is pinged; when it ends, errs or
 * goes quiet past two ping periods it is opened again after a backoff with jitter,
 * with `fromSlot` = the last slot it delivered, so nothing is lost and what comes twice
 * is dropped by the gate's identities. The token (x-token) comes from
 * MDS_YELLOWSTONE_TOKEN. The same subscription follows Pyth's SOL/USD account, so wSOL's
 * USD price needs no other feed (pyth.ts).
 */

export const GEYSER_SUBSCRIBE = {
  path: '/geyser.Geyser/Subscribe',
  requestStream: true,
  responseStream: true,
  requestSerialize: (m: SubscribeRequest) => Buffer.from(SubscribeRequest.encode(m).finish()),
  requestDeserialize: (b: Buffer) => SubscribeRequest.decode(b),
  responseSerialize: (m: SubscribeUpdate) => Buffer.from(SubscribeUpdate.encode(m).finish()),
  responseDeserialize: (b: Buffer) => SubscribeUpdate.decode(b),
} as const;
/** The Geyser service's Subscribe method, for clients and (in tests) servers. */
export const GEYSER_SERVICE = { subscribe: GEYSER_SUBSCRIBE } as unknown as grpc.ServiceDefinition;

export interface YellowstoneOptions {
  /** http(s)://host:port of the gRPC endpoint (https: TLS). */
  endpoint: string;
  token?: string;
  log: Logger;
  /** Ping period (default 10 s). */
  pingMs?: number;
  /** Nothing received for this long ends the stream and opens it again (default two ping periods). */
  quietMs?: number;
  backoffMinMs?: number;
  backoffMaxMs?: number;
  /** Subscribe to Pyth's SOL/USD account too, for wSOL quote_price events (default true). */
  solPrice?: boolean;
}

export interface YellowstoneState {
  connected: boolean;
  reconnects: number;
  last_slot: number | null;
  last_event_at: number | null;
  transactions: number;
  sol_price_updates: number;
}

export function yellowstoneSource(options: YellowstoneOptions): LiveSource<YellowstoneState> {
  const url = new URL(options.endpoint);
  const target = `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  const credentials = url.protocol === 'https:' ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
  const pingMs = options.pingMs ?? 10_000;
  const quietMs = options.quietMs ?? 2 * pingMs;
  const minMs = options.backoffMinMs ?? 500;
  const maxMs = options.backoffMaxMs ?? 30_000;
  const log = options.log;
  const name = `yellowstone:${options.endpoint}`;
  const state: YellowstoneState = { connected: false, reconnects: 0, last_slot: null, last_event_at: null, transactions: 0, sol_price_updates: 0 };
  const backoff = (attempt: number) => backoffMs(attempt, minMs, maxMs);
  const Client = grpc.makeGenericClientConstructor(GEYSER_SERVICE, 'Geyser');

  async function run(sink: IngestSink, signal: AbortSignal): Promise<void> {
    const client = new Client(target, credentials) as unknown as grpc.Client & { subscribe(meta: grpc.Metadata): grpc.ClientDuplexStream<SubscribeRequest, SubscribeUpdate> };
    const decoder = new SolanaDecoder();
    const deadLetter = deadLetterTo(sink, log, name);
    const sleep = abortableSleep(signal);

    /** One stream: resolves when it ends; true when it delivered anything. */
    function stream(): Promise<boolean> {
      return new Promise((resolve) => {
        const metadata = new grpc.Metadata();
        if (options.token) metadata.set('x-token', options.token);
        const call = client.subscribe(metadata);
        let delivered = false;
        let heard = Date.now();
        let pingId = 0;
        let chain = Promise.resolve();
        let ended = false;
        const end = (why: string, err?: Error) => {
          if (ended) return;
          ended = true;
          clearInterval(timer);
          signal.removeEventListener('abort', cancel);
          state.connected = false;
          if (!signal.aborted) log.warn({ source: name, err: err?.message }, `Yellowstone stream ${why}: reconnecting`);
          call.cancel();
          chain.then(() => resolve(delivered));
        };
        const cancel = () => end('stopped');
        signal.addEventListener('abort', cancel, { once: true });
        const timer = setInterval(() => {
          if (Date.now() - heard > quietMs) return end('went quiet');
          call.write(SubscribeRequest.fromPartial({ ping: { id: ++pingId } }));
        }, pingMs);
        call.write(
          SubscribeRequest.fromPartial({
            transactions: { mds: { vote: false, failed: false, accountInclude: [...PROGRAMS], accountExclude: [], accountRequired: [] } },
            // SOL/USD in the same subscription: Pyth's price feed account (pyth.ts).
            ...(options.solPrice !== false ? { accounts: { mds_sol_usd: { account: [PYTH_SOL_USD_ACCOUNT], owner: [], filters: [] } } } : {}),
            commitment: CommitmentLevel.CONFIRMED,
            // The last slot delivered, again: nothing lost; its repeats are dropped by identity.
            ...(state.last_slot !== null ? { fromSlot: String(state.last_slot) } : {}),
          }),
        );
        call.on('data', (update: SubscribeUpdate) => {
          heard = Date.now();
          state.connected = true;
          if (update.ping) {
            call.write(SubscribeRequest.fromPartial({ ping: { id: ++pingId } }));
            return;
          }
          if (update.account?.account) {
            const data = update.account.account.data;
            chain = chain.then(async () => {
              const event = solPriceEvent(data);
              if ('error' in event) return deadLetter(event.error, { account: PYTH_SOL_USD_ACCOUNT, slot: update.account!.slot });
              const wait = sink.writable();
              if (wait) await wait;
              sink.submit(event, name);
              state.sol_price_updates++;
            });
            return;
          }
          if (!update.transaction) return;
          delivered = true;
          const slot = Number(update.transaction.slot);
          // Applied in order: the stream pauses while the sink applies backpressure.
          chain = chain.then(async () => {
            const pause = (waiting: boolean) => (waiting ? call.pause() : call.resume());
            const { transactions, events } = await submitDecoded(decoder.decodeValue(update, 'yellowstone'), sink, deadLetter, name, pause);
            state.transactions += transactions;
            if (events) state.last_event_at = Date.now();
            if (state.last_slot === null || slot > state.last_slot) state.last_slot = slot;
          });
        });
        call.on('error', (err) => end('failed', err));
        call.on('end', () => end('ended'));
      });
    }

    let attempt = 0;
    while (!signal.aborted) {
      const delivered = await stream();
      if (signal.aborted) break;
      state.reconnects++;
      attempt = delivered ? 0 : attempt + 1;
      await sleep(backoff(attempt));
    }
    client.close();
  }

  return { name, finite: false, run, state: () => ({ ...state }) };
}
