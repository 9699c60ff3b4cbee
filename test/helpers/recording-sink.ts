import type { TopicSink } from '../../engine/topics/index.ts';

/** A topic sink for tests: listens on the topics it is told to (counted: a topic is listened on until each listen has left), and keeps every frame published to them, in order. */
export class RecordingSink implements TopicSink {
  private readonly listened = new Map<string, number>();
  /** Every frame published to a listened topic, in publish order. */
  readonly frames: Array<{ topic: string; frame: string }> = [];

  listen(topic: string): void {
    this.listened.set(topic, (this.listened.get(topic) ?? 0) + 1);
  }

  leave(topic: string): void {
    const count = (this.listened.get(topic) ?? 0) - 1;
    if (count > 0) this.listened.set(topic, count);
    else this.listened.delete(topic);
  }

  has(topic: string): boolean {
    return this.listened.has(topic);
  }

  publish(topic: string, frame: string): void {
    if (this.listened.has(topic)) this.frames.push({ topic, frame });
  }

  /** The frames published to `topic`, in order. */
  framesOf(topic: string): string[] {
    return this.frames.filter((f) => f.topic === topic).map((f) => f.frame);
  }
}
