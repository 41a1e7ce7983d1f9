/** A tagging thread: loads compromise once, then answers each `{ text, options }` with `{ tagged }` or `{ error }`. */
import { parentPort } from 'node:worker_threads';
import { tagText } from './compromise-tagging.mjs';

parentPort.on('message', ({ text, options }) => {
  try {
    parentPort.postMessage({ tagged: tagText(text, options) });
  } catch (error) {
    parentPort.postMessage({
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
});
parentPort.postMessage({ ready: true });
