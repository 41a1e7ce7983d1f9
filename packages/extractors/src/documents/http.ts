/** Error texts of HTTP answers, shortened for one-line messages. */
export function shorten(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
