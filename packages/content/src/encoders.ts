/**
 * Which encoder made a table's vectors. A table records its encoder's fingerprint on its first write; a
 * write or a vector search with another encoder is refused with 409 (`EncoderMismatchError`): vectors of
 * two encoders are never mixed in a table nor compared. A table made before records (holding rows, none
 * recorded) is checked once: a few of its documents are encoded again with the configured encoder and, when
 * their binary codes are the very ones stored, the configured encoder is taken to be the one that made them
 * (a write records it); otherwise it is refused like any other mismatch.
 */
import { EncoderMismatchError, type MultiVectorEncoder } from '@tessera/encoders';
import type { Profile } from '@tessera/search';
import type { ContentDeps } from './deps';
import { embeddingText } from './indexing';

/** What a table made before encoder records is called in a refusal. */
export const UNRECORDED = 'unrecorded (the table predates encoder records)';
const SAMPLE = 3;

/** Unrecorded tables this process found made by an encoder (schema → fingerprint), so searches check once. */
const matched = new Map<string, string>();

/** The stored binary codes of a row, as one byte array (LanceDB answers Arrow vectors, the fake a matrix). */
function storedCodes(value: unknown): Uint8Array | undefined {
  if (!value) return undefined;
  if (typeof value === 'object' && 'values' in value) return (value as { values: Uint8Array }).values;
  const bytes: number[] = [];
  for (const token of value as Iterable<Iterable<number>>) for (const byte of token) bytes.push(byte);
  return Uint8Array.from(bytes);
}

async function madeBy(
  deps: ContentDeps,
  schema: string,
  profile: Profile,
  encoder: MultiVectorEncoder,
): Promise<boolean> {
  const rows = await deps.index.sample(schema, SAMPLE, [...profile.text_fields, 'embedding_binary']);
  const texts = rows.map((row) => embeddingText(profile, row));
  const encoded = await encoder.encode(texts, 'document');
  return rows.every((row, i) => {
    const stored = storedCodes(row.embedding_binary);
    const fresh = encoded[i]!.binary;
    return (
      stored !== undefined && stored.length === fresh.length && stored.every((byte, b) => byte === fresh[b])
    );
  });
}

/**
 * Checks that the table's vectors are the encoder's, recording it on a table's first write; throws
 * `EncoderMismatchError` (409) when they are not.
 */
export async function requireEncoder(
  deps: ContentDeps,
  schema: string,
  profile: Profile,
  encoder: MultiVectorEncoder,
  use: 'write' | 'search',
): Promise<void> {
  const recorded = await deps.index.encoderOf(schema);
  if (recorded === encoder.fingerprint) return;
  if (recorded !== undefined) throw new EncoderMismatchError(schema, recorded, encoder.fingerprint);
  if (use === 'search' && matched.get(schema) === encoder.fingerprint) return;
  if ((await deps.index.count(schema)) > 0) {
    if (!(await madeBy(deps, schema, profile, encoder)))
      throw new EncoderMismatchError(schema, UNRECORDED, encoder.fingerprint);
    matched.set(schema, encoder.fingerprint);
  }
  if (use === 'write') await deps.index.recordEncoder(schema, encoder.fingerprint);
}
