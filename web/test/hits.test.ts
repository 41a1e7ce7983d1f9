import type { Search } from '@tessera/api';
import { describe, expect, it } from 'vitest';
import { formatTime, frameOf, highlight, visibleFields } from '../src/search/hits';

const hit = (profile: string, fields: Record<string, unknown>): Search.SearchResult => ({
  document_id: 'd1',
  source_doc_id: 'talk.mp4',
  score: 0.5,
  rank: 1,
  profile,
  text: 'a frame',
  fields,
});

describe('highlight', () => {
  it('marks every word of the query, whatever its case, and keeps the rest of the text', () => {
    expect(highlight('Radium and radon; RADIUM.', 'radium Radon')).toEqual([
      { text: 'Radium', marked: true },
      { text: ' and ', marked: false },
      { text: 'radon', marked: true },
      { text: '; ', marked: false },
      { text: 'RADIUM', marked: true },
      { text: '.', marked: false },
    ]);
  });

  it('treats the query as words, not a pattern', () => {
    expect(highlight('a+b (c)', 'a+b (c)')).toEqual([{ text: 'a+b (c)', marked: false }]);
    expect(highlight('price $10.5', '$10.5')).toEqual([
      { text: 'price $', marked: false },
      { text: '10', marked: true },
      { text: '.5', marked: false },
    ]);
  });
});

describe('frames', () => {
  it('formats times as m:ss and h:mm:ss', () => {
    expect(formatTime(83.5)).toBe('1:23');
    expect(formatTime(3723)).toBe('1:02:03');
    expect(formatTime(0)).toBe('0:00');
  });

  it('reads a video frame time, and an image only from a usable URL', () => {
    expect(
      frameOf(hit('video_colpali_smol500_mv_frame', { frame_index: 12, ts_start: 83, ts_end: 85 })),
    ).toEqual({
      start: 83,
      end: 85,
      frameIndex: 12,
      imageUrl: undefined,
    });
    expect(
      frameOf(hit('video_frames', { ts_start: 3, thumbnail_url: 'https://cdn.test/f.jpg' }))?.imageUrl,
    ).toBe('https://cdn.test/f.jpg');
    expect(
      frameOf(hit('video_frames', { ts_start: 3, thumbnail_url: 'javascript:alert(1)' }))?.imageUrl,
    ).toBe(undefined);
    expect(frameOf(hit('document_text_semantic', { chunk_index: 2 }))).toBeUndefined();
  });

  it('shows stored columns but no vectors', () => {
    expect(
      visibleFields(hit('p', { title: 'T', embedding: [1, 2], chunk_index: 3, tags: [], meta: { a: 1 } })),
    ).toEqual([
      ['title', 'T'],
      ['chunk_index', '3'],
      ['meta', '{"a":1}'],
    ]);
  });
});
