/** Code files, cut along function and class boundaries from the syntax tree. */
import { chunkCode } from '@tessera/extractors';
import { ContentError } from '../errors';
import { decodeText } from './documents';
import type { BytesPipeline } from './types';

export const codePipeline: BytesPipeline = {
  kind: 'code',
  reads: 'bytes',
  async run({ bytes, name }) {
    const source = decodeText(bytes, name);
    if (source.trim() === '') throw new ContentError('EmptyDocument', `${name} holds no code to index`);
    const chunks = await chunkCode(name, source);
    return {
      documents: chunks.map((chunk) => ({
        fields: {
          path: name,
          language: chunk.language,
          symbol: chunk.symbol,
          kind: chunk.kind,
          start_line: chunk.start_line,
          end_line: chunk.end_line,
          docstring: chunk.docstring,
          text: chunk.text,
        },
      })),
      // The code graph comes from the syntax tree on the client (`tessera index`), not from this pass.
      segments: [],
    };
  },
};
