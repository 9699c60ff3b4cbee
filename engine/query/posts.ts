import type { SocialPostEvent } from '../ingest/index.ts';
import type { Storage } from '../../storage/index.ts';

/**
 * Tracked social posts (INGEST.md `social_post`): route 18 (GET /v1/tokens/posts) and the
 * social_posts stream. A post is stored once by `post_id` (a repeated put writes the same
 * bytes: start-up replay after a crash puts again what it had put) in `posts`, as the
 * JSON text both serve, and indexed by time in `postsIndex`:
 *   [0, at, post_id]            every post
 *   [1, token, at, post_id]     per token it names
 *   [2, author, at, post_id]    per author
 * Lists are newest first (at, then post_id, both descending).
 */

/** A post as route 18 and the social_posts stream serve it: the INGEST.md fields, times in `at` (SERVICE.md 2.1). */
export interface PostItem {
  post_id: string;
  platform: string;
  author: string;
  author_wallet_address: string | null;
  text: string;
  url: string | null;
  token_addresses: string[];
  at: number;
}

/** Where a page of posts stopped: the last post's time and id. */
export interface PostPosition {
  at: number;
  post_id: string;
}

export interface PostFilters {
  token_address?: string;
  author?: string;
  /** Posts at or after (Unix ms). */
  start_time?: number;
}

const ALL = 0;
const BY_TOKEN = 1;
const BY_AUTHOR = 2;
/** Above any time: the top of a reverse range. */
const TOP = Number.MAX_SAFE_INTEGER;

/** The JSON text of a post (field order fixed: the same bytes on every run). */
export function postJson(e: SocialPostEvent): string {
  const item: PostItem = {
    post_id: e.post_id,
    platform: e.platform,
    author: e.author,
    author_wallet_address: e.author_wallet_address ?? null,
    text: e.text,
    url: e.url ?? null,
    token_addresses: e.token_addresses,
    at: e.at,
  };
  return JSON.stringify(item);
}

export class PostsStore {
  constructor(private readonly storage: Pick<Storage, 'posts' | 'postsIndex'>) {}

  /** Stores a post and its index keys (idempotent by post_id). Returns its JSON text. */
  put(e: SocialPostEvent): string {
    const json = postJson(e);
    const { posts, postsIndex } = this.storage;
    void posts.put(e.post_id, json);
    void postsIndex.put([ALL, e.at, e.post_id], null);
    void postsIndex.put([BY_AUTHOR, e.author, e.at, e.post_id], null);
    for (const token of new Set(e.token_addresses)) void postsIndex.put([BY_TOKEN, token, e.at, e.post_id], null);
    return json;
  }

  /** A page of posts, newest first, after `after`; `next` is the last item's position when more follow. */
  list(filters: PostFilters, limit: number, after: PostPosition | undefined): { items: PostItem[]; next: PostPosition | null } {
    const { posts, postsIndex } = this.storage;
    // The narrowest index: the token's, else the author's, else every post.
    const prefix: Array<string | number> = filters.token_address !== undefined ? [BY_TOKEN, filters.token_address] : filters.author !== undefined ? [BY_AUTHOR, filters.author] : [ALL];
    const start = after ? [...prefix, after.at, after.post_id] : [...prefix, TOP];
    const end = [...prefix, filters.start_time ?? 0];
    const items: PostItem[] = [];
    let more = false;
    for (const key of postsIndex.getKeys({ start, end, reverse: true })) {
      const k = key as Array<string | number>;
      const at = k[k.length - 2] as number;
      const id = k[k.length - 1] as string;
      if (after && at === after.at && id === after.post_id) continue;
      const json = posts.get(id) as string | undefined;
      if (json === undefined) continue;
      const post = JSON.parse(json) as PostItem;
      if (filters.author !== undefined && post.author !== filters.author) continue;
      if (items.length === limit) {
        more = true;
        break;
      }
      items.push(post);
    }
    const last = items[items.length - 1];
    return { items, next: more && last ? { at: last.at, post_id: last.post_id } : null };
  }
}
