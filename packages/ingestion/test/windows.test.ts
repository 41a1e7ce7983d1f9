/** The files of a job, a window at a time: failures that do not end a run, one graph upsert a window. */
import { describe, expect, it, vi } from 'vitest';
import { CURIE, capitalized, file, ingest, useIngestion } from './support';

const h = useIngestion({ entities: capitalized });

describe('a job of several files', () => {
  it('reports a failed file as a recoverable error and goes on with the others', async () => {
    const job = await ingest(h(), 'acme', [
      file('good.md', CURIE),
      file('clip.mp4', 'not really a video'),
      file('also.md', 'Ada Lovelace wrote notes in London.'),
    ]);
    expect(job.result).toMatchObject({ status: 'complete', files_failed: 1 });
    expect(job.result!.files.map((f) => f.status)).toEqual(['indexed', 'failed', 'indexed']);
    const errors = (await h().ingestion.events.read(job.job_id, 0)).filter((e) => e.type === 'error');
    expect(errors).toEqual([
      expect.objectContaining({ error_type: 'ContentProcessingError', recoverable: true }),
    ]);
    expect(errors[0]!.type === 'error' && errors[0]!.error_message).toMatch(/^clip\.mp4: .*video/);
  });

  it('stores a window of files graphs in one upsert, each file keeping its counts and back-references', async () => {
    // The tenant's schemas are deployed by a first upload, so the counts below are those of any later one.
    await ingest(h(), 'rival', [file('first.md', CURIE)]);
    const upsert = vi.spyOn(h().graph.store, 'upsert');
    const reads = vi.spyOn(h().tenancy.store, 'getTenant');
    const texts = Array.from({ length: 300 }, (_, i) =>
      i % 2 ? `Ada Lovelace met Charles Babbage in London, note ${i}.` : `plain words only, note ${i}.`,
    );
    try {
      const job = await ingest(
        h(),
        'rival',
        texts.map((text, i) => file(`notes/${i}.md`, text)),
      );
      expect(job.result).toMatchObject({ status: 'complete', documents_fed: 300, files_failed: 0 });
      // 300 files are two windows (256 and 44): two upserts, of the 128 and 22 files with a graph.
      expect(upsert).toHaveBeenCalledTimes(2);
      expect(upsert.mock.calls.map(([, writes]) => writes.length)).toEqual([128, 22]);
      // Guarded at submit and once a window.
      expect(reads).toHaveBeenCalledTimes(3);
      const files = job.result!.files;
      expect(files[1]).toMatchObject({ source_doc_id: 'notes/1.md', graph_nodes: 3 });
      expect(files[0]).toMatchObject({ source_doc_id: 'notes/0.md', graph_nodes: 0 });
      expect(job.result!.graph_nodes).toBe(150 * 3);
      const [withGraph, without] = await h().content.index.fetch(
        'document_text_rival_rival',
        ['notes/299.md:0', 'notes/298.md:0'],
        ['document_id', 'entity_ids'],
      );
      expect(withGraph!.entity_ids).toEqual(
        expect.arrayContaining(['ada_lovelace', 'charles_babbage', 'london']),
      );
      expect(without!.entity_ids ?? []).toEqual([]);
      const graph = await h().graph.store.graph('knowledge_graph_rival_rival');
      expect(graph.nodes.get('ada_lovelace')!.mentions).toHaveLength(150);
    } finally {
      upsert.mockRestore();
      reads.mockRestore();
    }
  });
});
