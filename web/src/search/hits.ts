/** What a search hit shows: its text with the query's words marked, and a video frame's time and picture. */
import type { Search } from '@tessera/api';

/** Splits `text` into plain and marked runs, marking every word of `query` of two characters or more. */
export function highlight(text: string, query: string): { text: string; marked: boolean }[] {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? [])];
  if (words.length === 0) return [{ text, marked: false }];
  const escaped = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(`(${escaped.join('|')})`, 'giu');
  return text
    .split(pattern)
    .filter((part) => part !== '')
    .map((part) => ({ text: part, marked: words.includes(part.toLowerCase()) }));
}

/** `83.5` → `1:23`, `3723` → `1:02:03`. */
export function formatTime(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

export interface FrameInfo {
  start: number;
  end?: number;
  frameIndex?: number;
  /** An image URL the result carries, if any (http(s) or a data: image). */
  imageUrl?: string;
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const IMAGE_FIELDS = ['thumbnail_url', 'image_url', 'frame_url', 'thumbnail'];

/** The frame a hit is, when it is a video frame (a `frame_index` or a time span on a video profile). */
export function frameOf(hit: Search.SearchResult): FrameInfo | undefined {
  const fields = hit.fields;
  const frameIndex = num(fields.frame_index);
  const start = num(fields.ts_start) ?? num(fields.start_time) ?? num(fields.timestamp);
  const isVideo = frameIndex !== undefined || /video|frame/i.test(hit.profile);
  if (!isVideo || start === undefined) return undefined;
  const image = IMAGE_FIELDS.map((name) => fields[name]).find(
    (value): value is string => typeof value === 'string' && /^(https?:|data:image\/)/.test(value),
  );
  return { start, end: num(fields.ts_end) ?? num(fields.end_time), frameIndex, imageUrl: image };
}

/** The hit's stored columns worth showing: scalars and short lists, no vectors. */
export function visibleFields(hit: Search.SearchResult): [string, string][] {
  return Object.entries(hit.fields)
    .filter(([name, value]) => !/embedding|vector/i.test(name) && value !== null && value !== undefined)
    .map(([name, value]): [string, string] => {
      if (typeof value === 'string') return [name, value];
      if (typeof value === 'number' || typeof value === 'boolean') return [name, String(value)];
      const text = JSON.stringify(value);
      return [name, text.length > 300 ? `${text.slice(0, 300)}…` : text];
    })
    .filter(([, text]) => text !== '' && text !== '[]' && text !== '{}');
}
