/**
 * Synchronous LevelDB reads for dynalite. It reads LevelDB on every request (the table's description, then
 * the item), each read sent to libuv's thread pool and back through a promise: under load these hops took
 * about a quarter of the runtime's CPU, for lookups LevelDB answers in microseconds from its memtable and
 * cache. Callbacks still come on a later turn of the event loop, as dynalite's item locks expect.
 */
import { createRequire } from 'node:module';

type Callback = (error: unknown, value?: unknown) => void;

interface Level {
  status: string;
  get(key: string, callback?: Callback): unknown;
  getSync(key: string): unknown;
}

interface DynaliteDb {
  create(options: unknown): { db: Level };
  readsSynchronously?: boolean;
}

function readSynchronously(level: Level): void {
  const get = level.get;
  level.get = (key, callback) => {
    if (typeof callback !== 'function' || level.status !== 'open') return get.call(level, key, callback);
    let value: unknown;
    try {
      value = level.getSync(key);
    } catch (error) {
      setImmediate(callback, error);
      return;
    }
    setImmediate(callback, null, value);
  };
}

/** Makes the dynalite servers this process creates from now on read LevelDB synchronously. */
export function readDynaliteSynchronously(): void {
  const db = createRequire(import.meta.url)('dynalite/db') as DynaliteDb;
  if (db.readsSynchronously) return;
  db.readsSynchronously = true;
  const create = db.create;
  db.create = (options) => {
    const store = create(options);
    readSynchronously(store.db);
    return store;
  };
}
