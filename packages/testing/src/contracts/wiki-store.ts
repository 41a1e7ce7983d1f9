/** The contract of a wiki store: reads of absent schemas, writes under the page lock, search, bulk loads. */
import type { StoredPage, WikiStore } from '@tessera/wiki';
import { describe, expect, it } from 'vitest';
import { unique } from './support';

export interface WikiStoreSubject {
  store: WikiStore;
  /** Deploys the wiki schema `name`. */
  deploy(name: string): Promise<void>;
  /** Another store over the same data, as another process would hold (its own locks and caches). */
  other?: () => WikiStore;
}

export const wikiPage = (slug: string, patch: Partial<StoredPage> = {}): StoredPage => ({
  slug,
  title: slug.replaceAll('_', ' '),
  kind: 'topic',
  content: `# ${slug}\n\nA page about ${slug}.\n`,
  entities: [slug],
  agent_name: null,
  query: null,
  sources: [],
  cross_refs: [],
  created_at: 1_700_000_000_000,
  updated_at: 1_700_000_000_000,
  version: 1,
  ...patch,
});

export function wikiStoreContract(name: string, subject: () => WikiStoreSubject) {
  describe(`WikiStore contract: ${name}`, () => {
    it('answers nothing of a schema that is not deployed', async () => {
      const { store } = subject();
      const schema = unique('wiki_absent');
      expect(await store.get(schema, 'x')).toBeUndefined();
      expect(await store.list(schema)).toEqual([]);
      expect(await store.search(schema, 'anything', 5)).toEqual([]);
      expect(await store.remove(schema, 'x')).toBe(false);
    });

    it('writes a page through update, reads it back, and writes nothing when the change answers nothing', async () => {
      const { store, deploy } = subject();
      const schema = unique('wiki_pages');
      await deploy(schema);
      const page = wikiPage('marie_curie', {
        sources: ['doc-1'],
        cross_refs: ['pierre_curie'],
        agent_name: 'a',
      });
      expect(await store.update(schema, page.slug, () => page)).toEqual(page);
      expect(await store.get(schema, page.slug)).toEqual(page);
      expect(await store.update(schema, page.slug, () => undefined)).toEqual(page);
      const seen: (StoredPage | undefined)[] = [];
      await store.update(schema, 'nobody', (current) => {
        seen.push(current);
        return undefined;
      });
      expect(seen).toEqual([undefined]);
      expect((await store.list(schema)).map((p) => p.slug)).toEqual(['marie_curie']);
    });

    it('writes several pages in one updateMany: changes in order, a slug named twice sees its first change', async () => {
      const { store, deploy } = subject();
      const schema = unique('wiki_many');
      await deploy(schema);
      await store.update(schema, 'argon', () => wikiPage('argon', { version: 1 }));
      const seen: (number | undefined)[] = [];
      const pages = await store.updateMany(schema, [
        { slug: 'neon', change: () => wikiPage('neon', { cross_refs: ['argon'] }) },
        {
          slug: 'argon',
          change: (current) => {
            seen.push(current?.version);
            return wikiPage('argon', { version: current!.version + 1 });
          },
        },
        {
          slug: 'argon',
          change: (current) => {
            seen.push(current?.version);
            return wikiPage('argon', { version: current!.version + 1, content: '# Argon\n\nNoble.\n' });
          },
        },
        { slug: 'xenon', change: () => undefined },
      ]);
      expect(seen).toEqual([1, 2]);
      expect(pages.get('argon')).toMatchObject({ version: 3, content: '# Argon\n\nNoble.\n' });
      expect(pages.get('neon')).toMatchObject({ cross_refs: ['argon'] });
      expect(pages.has('xenon')).toBe(true);
      expect(pages.get('xenon')).toBeUndefined();
      expect((await store.list(schema)).map((p) => p.slug).sort()).toEqual(['argon', 'neon']);
      expect(await store.get(schema, 'argon')).toEqual(pages.get('argon'));
      expect((await store.search(schema, 'noble', 5)).map((h) => h.page.slug)).toEqual(['argon']);
      // Nothing changed: nothing written.
      const unchanged = await store.updateMany(schema, [{ slug: 'neon', change: () => undefined }]);
      expect(unchanged.get('neon')).toEqual(pages.get('neon'));
    });

    it('loses nothing and waits on nothing when updateMany writers of overlapping pages race, from two stores', async () => {
      const { store, deploy, other } = subject();
      const schema = unique('wiki_many_race');
      await deploy(schema);
      const second = other?.() ?? store;
      const add = (slug: string, ref: string) => (current: StoredPage | undefined) =>
        wikiPage(slug, {
          cross_refs: [...(current?.cross_refs ?? []), ref],
          version: (current?.version ?? 0) + 1,
        });
      await Promise.all(
        Array.from({ length: 12 }, (_, i) => {
          const slugs = i % 2 === 0 ? ['alpha', 'beta'] : ['beta', 'alpha'];
          return (i % 3 === 0 ? second : store).updateMany(
            schema,
            slugs.map((slug) => ({ slug, change: add(slug, `w${i}`) })),
          );
        }),
      );
      for (const slug of ['alpha', 'beta']) {
        const page = (await store.get(schema, slug))!;
        expect(page.version).toBe(12);
        expect([...page.cross_refs].sort()).toEqual(Array.from({ length: 12 }, (_, i) => `w${i}`).sort());
      }
    }, 120_000);

    it('searches titles and contents, best first, and forgets removed pages', async () => {
      const { store, deploy } = subject();
      const schema = unique('wiki_search');
      await deploy(schema);
      await store.update(schema, 'radium', () =>
        wikiPage('radium', { content: '# Radium\n\nRadium glows; radium was found by the Curies.' }),
      );
      await store.update(schema, 'polonium', () =>
        wikiPage('polonium', { content: '# Polonium\n\nNamed after Poland; radium is mentioned once.' }),
      );
      await store.update(schema, 'lead', () => wikiPage('lead', { content: '# Lead\n\nHeavy and grey.' }));
      const hits = await store.search(schema, 'radium', 5);
      expect(hits.map((h) => h.page.slug)).toEqual(['radium', 'polonium']);
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      expect(await store.remove(schema, 'radium')).toBe(true);
      expect(await store.remove(schema, 'radium')).toBe(false);
      expect((await store.search(schema, 'radium', 5)).map((h) => h.page.slug)).toEqual(['polonium']);
      expect(await store.get(schema, 'radium')).toBeUndefined();
    });

    it('loses none of many concurrent updates of one page, from two stores at once', async () => {
      const { store, deploy, other } = subject();
      const schema = unique('wiki_race');
      await deploy(schema);
      const second = other?.() ?? store;
      const writers = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? store : second));
      await Promise.all(
        writers.map((writer, i) =>
          writer.update(schema, 'hot', (current) =>
            wikiPage('hot', {
              cross_refs: [...(current?.cross_refs ?? []), `session_${i}`],
              version: (current?.version ?? 0) + 1,
            }),
          ),
        ),
      );
      const page = (await store.get(schema, 'hot'))!;
      expect(page.version).toBe(24);
      expect([...page.cross_refs].sort()).toEqual(writers.map((_, i) => `session_${i}`).sort());

      // Each store's search follows what the other wrote: new pages, changed ones and removed ones.
      expect((await store.search(schema, 'cobalt', 5)).map((h) => h.page.slug)).toEqual([]);
      await second.update(schema, 'cobalt', () =>
        wikiPage('cobalt', { content: '# Cobalt\n\nCobalt is blue.' }),
      );
      expect((await store.search(schema, 'cobalt', 5)).map((h) => h.page.slug)).toEqual(['cobalt']);
      await second.update(schema, 'cobalt', (current) =>
        wikiPage('cobalt', {
          title: 'Nickel',
          content: '# Nickel\n\nNow about nickel.',
          version: current!.version + 1,
        }),
      );
      expect((await store.search(schema, 'cobalt', 5)).map((h) => h.page.slug)).toEqual([]);
      expect((await store.search(schema, 'nickel', 5)).map((h) => h.page.slug)).toEqual(['cobalt']);
      await second.remove(schema, 'cobalt');
      expect(await store.search(schema, 'nickel', 5)).toEqual([]);
    }, 120_000);

    it('bulk-loads pages that search then finds', async () => {
      const { store, deploy } = subject();
      const schema = unique('wiki_load');
      await deploy(schema);
      const pages = Array.from({ length: 300 }, (_, i) =>
        wikiPage(`topic_${i}`, { content: `# Topic ${i}\n\nword${i} shared text` }),
      );
      await store.load(schema, pages);
      expect((await store.list(schema)).length).toBe(300);
      expect((await store.search(schema, 'word123', 3)).map((h) => h.page.slug)).toEqual(['topic_123']);
    });
  });
}
