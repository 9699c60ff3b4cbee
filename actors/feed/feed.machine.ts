import { setup, transition } from 'xstate';

/**
 * A pool's membership of one (feed, window) as SERVICE.md 3.4 draws it: not in feed →
 * (joins) in feed, event `enter` → (leaves) not in feed, event `exit`; a pool may join
 * again later (a curve sold back under 70 % and bought over it again).
 *
 * The machine decides lifecycle transitions only: which transitions exist and which one
 * announces `enter` or `exit`. Scores and positions, which change per trade, are plain
 * state in the feed book (feed.logic.ts). The book asks `membershipStep`, which runs
 * xstate's pure `transition()` once per (state, event) and keeps the answer: the machine
 * has no context and no guards, so the answer never changes, and the hot path costs a
 * map lookup, not a snapshot per pool.
 */
export const membershipMachine = setup({
  types: { events: {} as { type: 'feed.join' } | { type: 'feed.leave' } },
  actions: { announceEnter: () => {}, announceExit: () => {} },
}).createMachine({
  id: 'membership',
  initial: 'not_in_feed',
  states: {
    not_in_feed: { on: { 'feed.join': { target: 'in_feed', actions: 'announceEnter' } } },
    in_feed: { on: { 'feed.leave': { target: 'not_in_feed', actions: 'announceExit' } } },
  },
});

export type MembershipState = 'not_in_feed' | 'in_feed';
export type MembershipEvent = 'feed.join' | 'feed.leave';

/** The outcome of one lifecycle event: the next state and the stream event it announces. */
export interface MembershipStep {
  next: MembershipState;
  announce: 'enter' | 'exit' | null;
}

const steps = new Map<string, MembershipStep>();

/**
 * The machine's transition from `state` on `event`. Throws on a transition the machine
 * does not have (a pool leaving a feed it is not in): a bug of the book, never input.
 */
export function membershipStep(state: MembershipState, event: MembershipEvent): MembershipStep {
  const key = `${state}|${event}`;
  let step = steps.get(key);
  if (step === undefined) {
    const from = membershipMachine.resolveState({ value: state, context: {} });
    const [to, actions] = transition(membershipMachine, from, { type: event });
    if (to === from) throw new Error(`membership: no transition from ${state} on ${event}`);
    const names = actions.map((a) => a.type);
    step = {
      next: to.value as MembershipState,
      announce: names.includes('announceEnter') ? 'enter' : names.includes('announceExit') ? 'exit' : null,
    };
    steps.set(key, step);
  }
  return step;
}
