// Starts wallet-index.worker.ts in a worker thread: registers tsx from this package's
// own node_modules (whatever the working directory), then loads the TypeScript module.
import { register } from 'tsx/esm/api';

register();
await import('./wallet-index.worker.ts');
