import type { Storage } from '../../storage/index.ts';
import { STALE_EPOCHS_RESERVED } from '../bounds.ts';

/** Meta key: the highest stale epoch any run of the engine may have used (reserved ahead). */
const EPOCH_KEY = 'engine:epoch';

/**
 * Stale epochs: a count that only grows over every run of the engine on a data
 * directory and every rebuild within a run, for the numbers an actor hands out and
 * promises never to repeat (a pool's candle seqs). A snapshot records the epoch it was
 * written in; an actor loaded from a stale snapshot moves such numbers on by as many
 * gaps as epochs have passed since (at least one), and one built again without a
 * snapshot starts them at the current epoch's gap. So two loads of the same snapshot
 * (a restart, then a crash before the actor was snapshotted again, then another
 * restart; or two rebuilds) never start from the same number, which a fixed single gap
 * did (the engine simulation test, seed 24).
 *
 * Each start takes the next epoch and reserves STALE_EPOCHS_RESERVED after it in one synchronous
 * write, before any event is applied; a rebuild takes the next reserved one in memory,
 * so a crash can never hand a later run an epoch this run used.
 */
export class StaleEpochs {
  private epoch: number;
  private reserved: number;

  constructor(private readonly storage: Storage) {
    const stored = (storage.meta.get(EPOCH_KEY) as number | undefined) ?? 0;
    this.epoch = stored + 1;
    this.reserved = this.epoch + STALE_EPOCHS_RESERVED;
    storage.meta.putSync(EPOCH_KEY, this.reserved);
  }

  /** This run's epoch as of now (snapshots written now record it). */
  get current(): number {
    return this.epoch;
  }

  /** A new epoch for one rebuild. */
  advance(): number {
    if (++this.epoch > this.reserved) {
      this.reserved = this.epoch + STALE_EPOCHS_RESERVED;
      this.storage.meta.putSync(EPOCH_KEY, this.reserved);
    }
    return this.epoch;
  }
}
