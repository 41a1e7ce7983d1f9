/**
 * V8 tuning for Tessera's processes. Their work comes in short jobs (an upload of a few seconds, one CLI run)
 * over a lot of code that runs only briefly before the job ends, much of it the entity tagger's rule code.
 * TurboFan's inlining costs more compile time there than the faster code gives back: without it the first
 * 1 MB Markdown upload after start takes about a fifth less CPU and a warm one a little less, and
 * `tessera index` is no slower (`npm run bench -- ingest`, `npm run bench -- events`).
 */
import { setFlagsFromString } from 'node:v8';

/** Turns TurboFan's inlining off for this process (its threads included); call it first thing at start. */
export function tuneV8ForShortJobs(): void {
  setFlagsFromString('--no-turbo-inlining');
}
