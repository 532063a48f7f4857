// The glue that makes metarhia's `web-locks` (npm) the global's navigator.locks, for the Node
// runner's --preload (with --hide-locks). The package installs nothing itself: its users call
// the exported `locks`, and a main thread must attach() every worker so that the threads hear of
// each other's locks (it relays their messages).
import { createRequire } from 'node:module';

const { locks } = createRequire(import.meta.url)('web-locks');

if (!navigator.locks) Object.defineProperty(navigator, 'locks', { value: locks, configurable: true });

export function attachWorker(worker) {
  locks.attach(worker);
}
