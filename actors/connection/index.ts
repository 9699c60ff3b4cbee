/** The entry point of actors/connection/: what other folders may import from it (STYLE.md 3). */
export { initialConnection, stateOf, step, type ConnectionEvent, type ConnectionSnapshot } from './connection.machine.ts';
