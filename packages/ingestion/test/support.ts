/** Ingestion over fakes: the domains wired in memory, files as a client posts them, jobs run to their end. */
import type { EntityExtractor } from '@tessera/extractors';
import { createTenant } from '@tessera/tenancy';
import { type FakeDomains, fakeDomains } from '@tessera/testing/fakes';
import { beforeAll } from 'vitest';
import { runJob, submitUpload } from '../src';

export const CURIE = [
  '# Marie Curie',
  'Marie Curie was a physicist and chemist who conducted pioneering research on radioactivity.',
  'She was born in Warsaw and later worked in Paris at the University of Paris.',
  'Together with Pierre Curie she discovered polonium and radium, and she won the Nobel Prize twice.',
].join('\n\n');

export const file = (name: string, text: string) => ({ name, bytes: new TextEncoder().encode(text) });

/**
 * An entity extractor whose names are runs of capitalized words, for tests whose subject is what ingestion
 * does with entities, not finding them: the embedded tagger (tested in @tessera/extractors, and by
 * worker.test.ts here) takes half a second to start its threads and most of a 300-file run tagging.
 */
export const capitalized: EntityExtractor = {
  name: 'test:capitalized',
  labels: ['Person'],
  async extract(text) {
    return [...text.matchAll(/\b[A-Z][a-z]+(?: [A-Z][a-z]+)*/g)].map((match) => ({
      text: match[0],
      label: 'Person',
      score: 1,
      start: match.index,
      end: match.index + match[0].length,
    }));
  },
};

/** Fresh domains for the test file with tenants `acme` and `rival`; the entity tagger is warmed first. */
export function useIngestion(options: Parameters<typeof fakeDomains>[0] = {}): () => FakeDomains {
  const domains = fakeDomains(options);
  beforeAll(async () => {
    for (const tenant of ['acme', 'rival'])
      await createTenant(domains.tenancy, { tenant_id: tenant, created_by: 'test' });
    await domains.ingestion.entities.extract('Marie Curie lived in Paris.', { labels: ['Person'] } as never);
  });
  return () => domains;
}

/** Runs every job whose message is due, as the queue's worker would, until none is left. */
export async function drain(domains: FakeDomains): Promise<void> {
  for (let messages = domains.ingestion.queue.receive(); messages.length > 0; ) {
    for (const message of messages) await runJob(domains.ingestion, message.job_id);
    messages = domains.ingestion.queue.receive();
  }
}

/** Posts files for a tenant and runs the job to its end; answers the job record. */
export async function ingest(domains: FakeDomains, tenantId: string, files: ReturnType<typeof file>[]) {
  const submitted = await submitUpload(domains.ingestion, { tenant_id: tenantId, files });
  await drain(domains);
  return (await domains.ingestion.jobs.get(submitted.job_id))!;
}
