/**
 * The content of `npm run bench -- agents`' search figures, written into a running runtime's stores as content
 * indexing writes them: paragraphs of the README files under node_modules (real prose), in uploads of 500
 * chunks. Arguments: the tenant and the number of chunks. The runtime's data directory and emulators come in
 * `TESSERA_DATA_DIR` and `AWS_ENDPOINT_URL`. Prints how many chunks it indexed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { content, indexDocuments } from '@tessera/content';

const [tenant, count] = process.argv.slice(2) as [string, string];
const wanted = Number(count);
const root = path.resolve(import.meta.dirname, '../node_modules');

/** README paragraphs of 80 to 1,200 characters, package after package, until `wanted`. */
function paragraphs(): { source: string; text: string }[] {
  const found: { source: string; text: string }[] = [];
  const visit = (dir: string, depth: number) => {
    for (const name of readdirSync(dir).sort()) {
      if (found.length >= wanted) return;
      const file = path.join(dir, name);
      if (/^readme\.md$/i.test(name) && statSync(file).isFile()) {
        const source = path.relative(root, file);
        for (const text of readFileSync(file, 'utf8').split(/\n\s*\n/)) {
          const flat = text.replace(/\s+/g, ' ').trim();
          if (flat.length >= 80 && flat.length <= 1200 && !flat.startsWith('```'))
            found.push({ source, text: flat });
        }
      } else if (depth < 3 && !name.startsWith('.') && statSync(file).isDirectory()) visit(file, depth + 1);
    }
  };
  visit(root, 0);
  return found.slice(0, wanted);
}

const chunks = paragraphs();
const deps = content();
for (let start = 0; start < chunks.length; start += 500) {
  const batch = chunks.slice(start, start + 500);
  await indexDocuments(deps, {
    tenant,
    profile: 'document_text_semantic',
    sourceDocId: `bench-${start / 500}`,
    documents: batch.map((chunk) => ({ fields: { title: chunk.source, text: chunk.text } })),
  });
}
console.log(`indexed ${chunks.length}`);
