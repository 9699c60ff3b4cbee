import { metadataRecord, type TokenState } from '../../actors/index.ts';
import { topics } from './names.ts';
import type { TopicSink } from './sink.ts';

/**
 * token_metadata: every token metadata change (SERVICE.md 6), the token's metadata
 * record as its token actor has it once the change is applied.
 */
export function publishTokenMetadata(sink: TopicSink, state: TokenState): void {
  const topic = topics.tokenMetadata();
  if (sink.has(topic)) sink.publish(topic, `{"stream":"token_metadata","data":${JSON.stringify(metadataRecord(state))}}`);
}
