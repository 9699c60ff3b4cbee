import { topics } from './names.ts';
import { fanOut, type TopicSink } from './sink.ts';

/**
 * social_posts (DECISIONS.md payload {token_address?, author?}; an empty payload: every
 * post): a post goes to `social_posts`, to `social_posts:<token>:*` for each token it
 * names, to `social_posts:*:<author>` and to `social_posts:<token>:<author>`, each only
 * when somebody listens; the frame is built once per post and the same bytes go to
 * every topic. Posts have no deletion event (INGEST.md), so the stream never withdraws one.
 */

/** A social_posts frame around a post's JSON (engine/query postJson). */
export const socialPostsFrame = (data: string): string => `{"stream":"social_posts","data":${data}}`;

export function publishPost(sink: TopicSink, post: { author: string; token_addresses: readonly string[] }, json: string): void {
  const send = fanOut(sink, () => socialPostsFrame(json));
  send(topics.socialPosts());
  send(topics.socialPosts(undefined, post.author));
  for (const token of new Set(post.token_addresses)) {
    send(topics.socialPosts(token));
    send(topics.socialPosts(token, post.author));
  }
}
