import { initialTransition, setup, transition, type SnapshotFrom } from 'xstate';

/**
 * The lifecycle of one WebSocket connection (SERVICE.md 3.2; ARCHITECTURE.md "Actors"):
 *
 *   unauthenticated ──authenticate──► authenticated ──slow──► closing ──close──► closed
 *          └──────────────────────────────┴──────────────close──────────────────┘
 *
 * `closing` is a slow consumer whose streams have stopped (4008 pending): it waits for
 * its socket to drain so the close frame can follow the last frame it got, or for the
 * stall grace to end (then it is cut without a close frame).
 *
 * Only lifecycle changes go through the machine, a handful per connection; frames,
 * subscriptions and counters live in the connection's plain state (transport/ws).
 * The machine has no context, so its snapshots are equal for every connection in the
 * same state: `step` interns them and a connection costs no lifecycle memory.
 */
export const connectionMachine = setup({
  types: {
    events: {} as
      | { type: 'connection.authenticate' }
      | { type: 'connection.slow' }
      | { type: 'connection.close' },
  },
}).createMachine({
  id: 'connection',
  initial: 'unauthenticated',
  states: {
    unauthenticated: {
      on: { 'connection.authenticate': 'authenticated', 'connection.close': 'closed' },
    },
    authenticated: {
      on: { 'connection.slow': 'closing', 'connection.close': 'closed' },
    },
    closing: {
      on: { 'connection.close': 'closed' },
    },
    closed: { type: 'final' },
  },
});

export type ConnectionSnapshot = SnapshotFrom<typeof connectionMachine>;
export type ConnectionEvent = Parameters<typeof transition<typeof connectionMachine>>[2];
export type ConnectionState = 'unauthenticated' | 'authenticated' | 'closing' | 'closed';

/** One shared snapshot per state value (snapshots are immutable and context-free). */
const interned = new Map<string, ConnectionSnapshot>();

function intern(snapshot: ConnectionSnapshot): ConnectionSnapshot {
  const value = snapshot.value as string;
  const known = interned.get(value);
  if (known) return known;
  interned.set(value, snapshot);
  return snapshot;
}

/** The snapshot every new connection starts from. */
export const initialConnection: ConnectionSnapshot = intern(initialTransition(connectionMachine)[0]);

/** The next lifecycle snapshot (pure): unchanged when the event does not apply in that state. */
export function step(snapshot: ConnectionSnapshot, event: ConnectionEvent): ConnectionSnapshot {
  const [next] = transition(connectionMachine, snapshot, event);
  return next.value === snapshot.value ? snapshot : intern(next);
}

export const stateOf = (snapshot: ConnectionSnapshot): ConnectionState => snapshot.value as ConnectionState;
