import type { Storage } from '../../storage/index.ts';

/** meta key: the checkpoints not yet pruned past, as [seq, latest event time] pairs, oldest first. */
const MARKS_KEY = 'log_marks';

/**
 * Deletes the ingest log batches whose every event is at or below `seq`, in the
 * caller's transaction; the newest batch always stays (the gate takes its next seq
 * from the last one logged). A batch is deleted when the next one starts at or below
 * `seq + 1`, so only keys are read. Returns how many batches were deleted.
 */
export function pruneLogThrough(storage: Storage, seq: number): number {
  let previous: number | null = null;
  let deleted = 0;
  for (const key of storage.ingestLog.getKeys({ end: seq + 2 })) {
    if (previous !== null) {
      storage.ingestLog.remove(previous);
      deleted++;
    }
    previous = key;
  }
  return deleted;
}

/**
 * What of the ingest log is kept (issue 25: the log was ~12 % of the data directory,
 * every event forever). Its readers are start-up replay, which reads after the
 * checkpoint's seq C, and an actor's rebuild, which reads after its last committed
 * snapshot's seq s: every actor changed before C was snapshotted at C or later, so an
 * actor whose snapshot is older than C had no delivery between s and C, and the events
 * there are none of its own. So once C is recorded, the batches wholly at or below it
 * are needed by nothing in mds. They are kept `ingest.logRetentionMs` more of event
 * time (the newest event's time when each checkpoint is recorded), for whoever reads
 * the log outside mds; 0 deletes them in the transaction that records C.
 */
export class LogRetention {
  private readonly marks: Array<[seq: number, at: number]>;

  constructor(
    private readonly storage: Storage,
    private readonly retentionMs: number,
  ) {
    this.marks = (storage.meta.get(MARKS_KEY) as Array<[number, number]> | undefined) ?? [];
  }

  /** A checkpoint of `seq` is being recorded at event time `at`: prunes what it and the retention allow, in the caller's transaction. Returns the batches deleted. */
  checkpointed(seq: number, at: number): number {
    const marks = this.marks;
    if (marks.length === 0 || marks[marks.length - 1]![0] < seq) marks.push([seq, at]);
    let through = -1;
    while (marks.length > 0 && marks[0]![1] <= at - this.retentionMs) through = marks.shift()![0];
    const deleted = through > 0 ? pruneLogThrough(this.storage, through) : 0;
    this.storage.meta.put(MARKS_KEY, marks);
    return deleted;
  }
}
