/** Paragraph-aware blocks of about 2,000 characters: the unit that entity extraction reads. */

export const TEXT_CHUNK_CHARS = 2000;

/** `text` cut into pieces of at most `max` UTF-16 units, never between the halves of a surrogate pair. */
export function cutInto(text: string, max: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + max, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && end - start > 1 && last >= 0xd800 && last <= 0xdbff) end--;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/**
 * Splits on blank lines (lines holding only whitespace count), trims each paragraph and drops empty ones, then
 * joins consecutive paragraphs with one blank line while the chunk stays within 2,000 characters. A paragraph
 * longer than 2,000 characters is cut into 2,000-character pieces, each a chunk of its own.
 */
export function chunkText(text: string): string[] {
  const paragraphs = text
    .split(/\r?\n[^\S\r\n]*\r?\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '');
  const chunks: string[] = [];
  let current = '';
  for (const paragraph of paragraphs) {
    if (paragraph.length > TEXT_CHUNK_CHARS) {
      if (current) chunks.push(current);
      current = '';
      chunks.push(...cutInto(paragraph, TEXT_CHUNK_CHARS));
    } else if (current && current.length + 2 + paragraph.length <= TEXT_CHUNK_CHARS) {
      current += `\n\n${paragraph}`;
    } else {
      if (current) chunks.push(current);
      current = paragraph;
    }
  }
  if (current) chunks.push(current);
  return chunks;
}
