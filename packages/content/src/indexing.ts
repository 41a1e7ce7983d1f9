/** Feeding a tenant's documents into a profile's schema: encode, then replace the source's documents. */
import { BadRequestError } from '@tessera/core';
import type { MultiVectorEncoder } from '@tessera/encoders';
import type { DocumentRow, Profile } from '@tessera/search';
import { ensureTenantSchema, type GuardedTenant, guardTenant, type TenantRef } from '@tessera/tenancy';
import type { ContentDeps } from './deps';
import { requireEncoder } from './encoders';

export interface DocumentInput {
  /** Stable id; re-feeding the same id replaces the document. Default `<source_doc_id>:<position>`. */
  document_id?: string;
  /** Schema fields (text fields, metadata, …); vectors are computed here. */
  fields: Record<string, unknown>;
}

export interface IndexRequest {
  /** The tenant, guarded by the caller once per request or job (or a raw id, guarded here). */
  tenant: TenantRef;
  profile: string;
  sourceDocId: string;
  documents: DocumentInput[];
}

/** Encoding batch: bounds memory however many documents a source has. */
const BATCH = 256;

/**
 * A profile the tenant can use, by name: its own, else the shipped one. A name missing from the cached view
 * is looked up once more, so a profile just created through another process is found.
 */
export async function resolveProfile(
  deps: ContentDeps,
  tenantFullId: string,
  name: string,
): Promise<Profile> {
  let profiles = await deps.profilesFor(tenantFullId);
  if (!profiles.get(name)) profiles = await deps.profilesFor(tenantFullId, { fresh: true });
  const profile = profiles.get(name);
  if (!profile) {
    throw new BadRequestError(
      `Unknown profile '${name}'; available: ${profiles
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

/** A document's id: its own, or `<source_doc_id>:<position>`. */
const documentIdOf = (source: string, doc: DocumentInput, position: number) =>
  doc.document_id ?? `${source}:${position}`;

interface Entry {
  source: string;
  doc: DocumentInput;
  /** Position among its source's documents: the default id is `<source>:<position>`. */
  position: number;
}

/** Encodes one batch of documents and shapes their rows. */
async function encodeRows(
  profile: Profile,
  encoder: MultiVectorEncoder,
  entries: Entry[],
  generation: number,
): Promise<DocumentRow[]> {
  const vectors = await encoder.encode(
    entries.map((entry) => embeddingText(profile, entry.doc.fields)),
    'document',
  );
  return entries.map((entry, i) => ({
    ...entry.doc.fields,
    document_id: documentIdOf(entry.source, entry.doc, entry.position),
    source_doc_id: entry.source,
    ingested_at: generation,
    embedding: { tokens: vectors[i]!.tokens, values: vectors[i]!.vectors },
    embedding_binary: { tokens: vectors[i]!.tokens, values: vectors[i]!.binary },
  }));
}

/**
 * Where a tenant's documents of a profile go: the profile, the tenant's schema for it (deployed on the
 * tenant's first write) and the schema's template.
 */
async function target(deps: ContentDeps, tenant: TenantRef, profileName: string) {
  const guarded = await guardTenant(deps.tenancy, tenant);
  const profile = await resolveProfile(deps, guarded.tenant.full, profileName);
  const schema = await ensureTenantSchema(deps.tenancy, guarded, profile.schema_name);
  return { profile, schema, template: deps.tenancy.catalog.get(profile.schema_name)! };
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
  const { profile, schema, template } = await target(deps, request.tenant, request.profile);
  await deps.index.ensureIndexes(schema, template);
  const encoder = deps.encoderFor(profile);
  await requireEncoder(deps, schema, profile, encoder, 'write');
  const generation = Date.now();

  const encodeBatch = (start: number) =>
    encodeRows(
      profile,
      encoder,
      request.documents
        .slice(start, start + BATCH)
        .map((doc, i) => ({ source: request.sourceDocId, doc, position: start + i })),
      generation,
    );

  if (request.documents.length <= BATCH) {
    await deps.index.replaceSources(schema, template, [request.sourceDocId], await encodeBatch(0));
  } else {
    for (let start = 0; start < request.documents.length; start += BATCH) {
      await deps.index.upsert(schema, template, await encodeBatch(start));
    }
    await deps.index.deleteOlderGeneration(schema, request.sourceDocId, generation);
  }
  await deps.index.maintain(schema);
  return { schema, documents: request.documents.length };
}

/** Documents of several sources that one commit replaces at most. */
const SOURCES_BATCH_DOCUMENTS = 2048;

/**
 * Indexes several sources of one profile at once (the files of an upload): their documents are encoded in
 * batches and replace what those sources held in one commit. Sources with more documents than one commit
 * takes are indexed one by one.
 */
export async function indexSources(
  deps: ContentDeps,
  request: {
    tenant: TenantRef;
    profile: string;
    sources: { sourceDocId: string; documents: DocumentInput[] }[];
  },
): Promise<{ schema: string; documents: number }> {
  // Guarded once for every group of sources.
  const tenant: GuardedTenant = await guardTenant(deps.tenancy, request.tenant);
  await resolveProfile(deps, tenant.tenant.full, request.profile);
  const total = request.sources.reduce((sum, source) => sum + source.documents.length, 0);
  // Groups of sources whose documents one commit takes; a source larger than that goes alone.
  const groups: (typeof request.sources)[] = [];
  let group: typeof request.sources = [];
  let size = 0;
  for (const source of request.sources) {
    if (group.length > 0 && size + source.documents.length > SOURCES_BATCH_DOCUMENTS) {
      groups.push(group);
      group = [];
      size = 0;
    }
    group.push(source);
    size += source.documents.length;
  }
  if (group.length > 0) groups.push(group);

  let schema = '';
  for (const sources of groups) {
    if (sources.length === 1) {
      ({ schema } = await indexDocuments(deps, {
        tenant,
        profile: request.profile,
        ...sources[0]!,
      }));
      continue;
    }
    const { profile, template, schema: groupSchema } = await target(deps, tenant, request.profile);
    schema = groupSchema;
    await deps.index.ensureIndexes(schema, template);
    const encoder = deps.encoderFor(profile);
    await requireEncoder(deps, schema, profile, encoder, 'write');
    const generation = Date.now();
    const entries = sources.flatMap((source) =>
      source.documents.map((doc, position) => ({ source: source.sourceDocId, doc, position })),
    );
    const rows: DocumentRow[] = [];
    for (let start = 0; start < entries.length; start += BATCH) {
      rows.push(...(await encodeRows(profile, encoder, entries.slice(start, start + BATCH), generation)));
    }
    await deps.index.replaceSources(
      schema,
      template,
      sources.map((source) => source.sourceDocId),
      rows,
    );
    await deps.index.maintain(schema);
  }
  return { schema, documents: total };
}

/**
 * Sets fields of documents already indexed (the back-references of the graph pass), for several sources of
 * one profile in one commit and without encoding anything again; each source's `documents` are as fed, in
 * order, holding the fields to set.
 */
export async function patchDocuments(
  deps: ContentDeps,
  request: {
    tenant: TenantRef;
    profile: string;
    fields: string[];
    sources: { sourceDocId: string; documents: DocumentInput[] }[];
  },
): Promise<void> {
  const { profile, schema, template } = await target(deps, request.tenant, request.profile);
  const known = new Set(template.document.fields.map((field) => field.name));
  const unknown = request.fields.filter((field) => !known.has(field));
  if (unknown.length > 0) {
    throw new BadRequestError(`Schema ${profile.schema_name} has no field ${unknown.join(', ')}`);
  }
  await deps.index.patch(
    schema,
    template,
    request.fields,
    request.sources.flatMap((source) =>
      source.documents.map((doc, position) => ({
        ...doc.fields,
        document_id: documentIdOf(source.sourceDocId, doc, position),
      })),
    ),
  );
}
