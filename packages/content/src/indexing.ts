/** Feeding a tenant's documents into a profile's schema: encode, then replace the source's documents. */
import { BadRequestError } from '@tessera/core';
import type { DocumentRow, Profile } from '@tessera/search';
import { ensureTenantSchema, requireTenant } from '@tessera/tenancy';
import type { ContentDeps } from './deps';

export interface DocumentInput {
  /** Stable id; re-feeding the same id replaces the document. Default `<source_doc_id>:<position>`. */
  document_id?: string;
  /** Schema fields (text fields, metadata, …); vectors are computed here. */
  fields: Record<string, unknown>;
}

export interface IndexRequest {
  tenantId: string;
  profile: string;
  sourceDocId: string;
  documents: DocumentInput[];
}

/** Encoding batch: bounds memory however many documents a source has. */
const BATCH = 256;

export function resolveProfile(deps: ContentDeps, name: string): Profile {
  const profile = deps.profiles.get(name);
  if (!profile) {
    throw new BadRequestError(
      `Unknown profile '${name}'; available: ${deps.profiles
        .list()
        .map((p) => p.profile_name)
        .join(', ')}`,
    );
  }
  return profile;
}

/** The text a document's vectors are computed from: its profile's text fields, joined. */
export function embeddingText(profile: Profile, fields: Record<string, unknown>): string {
  return profile.text_fields
    .map((name) => fields[name])
    .filter((value): value is string => typeof value === 'string' && value.trim() !== '')
    .join('\n');
}

/**
 * Indexes every document of one source (a file, a page) for a tenant, replacing what the source had before,
 * so re-indexing never duplicates. Deploys the profile's schema on the tenant's first write to it.
 * A source of one batch is replaced in one commit; a larger one is written batch by batch (memory stays
 * flat however large it is) and its previous documents are removed after the last batch.
 */
export async function indexDocuments(
  deps: ContentDeps,
  request: IndexRequest,
): Promise<{ schema: string; documents: number }> {
  const profile = resolveProfile(deps, request.profile);
  const { tenant } = await requireTenant(deps.tenancy, request.tenantId);
  const schema = await ensureTenantSchema(deps.tenancy, tenant.full, profile.schema_name);
  const template = deps.tenancy.catalog.get(profile.schema_name)!;
  await deps.index.ensureIndexes(schema, template);
  const encoder = deps.encoderFor(profile);
  const generation = Date.now();

  const encodeBatch = async (start: number): Promise<DocumentRow[]> => {
    const batch = request.documents.slice(start, start + BATCH);
    const vectors = await encoder.encode(
      batch.map((doc) => embeddingText(profile, doc.fields)),
      'document',
    );
    return batch.map((doc, i) => ({
      ...doc.fields,
      document_id: doc.document_id ?? `${request.sourceDocId}:${start + i}`,
      source_doc_id: request.sourceDocId,
      ingested_at: generation,
      embedding: { tokens: vectors[i]!.tokens, values: vectors[i]!.vectors },
      embedding_binary: { tokens: vectors[i]!.tokens, values: vectors[i]!.binary },
    }));
  };

  if (request.documents.length <= BATCH) {
    await deps.index.replaceSource(schema, template, request.sourceDocId, await encodeBatch(0));
  } else {
    for (let start = 0; start < request.documents.length; start += BATCH) {
      await deps.index.upsert(schema, template, await encodeBatch(start));
    }
    await deps.index.deleteOlderGeneration(schema, request.sourceDocId, generation);
  }
  await deps.index.maintain(schema);
  return { schema, documents: request.documents.length };
}
