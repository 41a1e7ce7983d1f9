import { edgeId } from '@tessera/graph/ids';
import { describe, expect, it } from 'vitest';
import {
  type CrossModalMention,
  isGenericPersonMention,
  leadingPerson,
  linkCrossModal,
  mentionsInWindow,
  nameTokens,
  sharedToken,
  videoSubject,
} from '../src/index';

const DOC = 'lecture.mp4';

/** A transcript Person mention of `name` spoken from `start` to `end`. */
function said(name: string, start: number, end = start + 1, label = 'Person'): CrossModalMention {
  const node_id = name.toLowerCase().replace(/[^a-z0-9]+/g, '_');
  return {
    node_id,
    name,
    label,
    modality: 'video',
    source: 'transcript',
    segment_id: `transcript_${Math.floor(start)}`,
    ts_start: start,
    ts_end: end,
    text: `${name} spoke here.`,
  };
}

/** A caption (or OCR) mention on the keyframe at `at`. */
function shown(
  name: string,
  at: number,
  options: { label?: string; source?: 'caption' | 'ocr'; text?: string; segment?: string } = {},
): CrossModalMention {
  return {
    node_id: name.toLowerCase().replace(/[^a-z0-9]+/g, '_'),
    name,
    label: options.label ?? 'Concept',
    modality: 'video',
    source: options.source ?? 'caption',
    segment_id: options.segment ?? `frame_${at}`,
    ts_start: at,
    ts_end: at,
    text: options.text ?? name,
  };
}

const times = (count: number, name: string, from: number) =>
  Array.from({ length: count }, (_, i) => said(name, from + i * 2));

describe('nameTokens and sharedToken', () => {
  it('keeps [A-Za-z0-9]+ runs of three or more characters, lower-cased, without stop words', () => {
    expect([...nameTokens('Dr. Marie Curie')]).toEqual(['marie', 'curie']);
    expect([...nameTokens('The Office of R2D2 and X-Ray 3000')]).toEqual(['office', 'r2d2', 'ray', '3000']);
    expect([...nameTokens('Li Wu')]).toEqual([]);
  });

  it('answers the first shared token in alphabetical order', () => {
    expect(sharedToken('Marie Curie Laboratory', 'Curie Marie')).toBe('curie');
    expect(sharedToken('Marie Curie', 'Pierre Curie')).toBe('curie');
    expect(sharedToken('The Lab', 'The Office')).toBeUndefined();
    expect(sharedToken('Li Na', 'Li Wei')).toBeUndefined();
  });
});

describe('linkCrossModal: shared-name-token coreference', () => {
  it('links an OCR mention to the transcript mention it shares a name token with, as INFERRED', () => {
    const ocr = shown('Curie Institute', 42, {
      label: 'Organization',
      source: 'ocr',
      segment: 'frame_3_ocr',
    });
    const edges = linkCrossModal({ sourceDocId: DOC, mentions: [said('Marie Curie', 10), ocr] });
    expect(edges).toEqual([
      {
        edge_id: edgeId('curie_institute', 'same_as', 'marie_curie', 'frame_3_ocr', 42, 42),
        source: 'Curie Institute',
        target: 'Marie Curie',
        source_node_id: 'curie_institute',
        target_node_id: 'marie_curie',
        relation: 'same_as',
        evidence_span: 'shared_token:curie',
        segment_id: 'frame_3_ocr',
        ts_start: 42,
        ts_end: 42,
        modality: 'video',
        provenance: 'INFERRED',
        source_doc_id: DOC,
        confidence: 1,
      },
    ]);
  });

  it('names the alphabetically first shared token and makes one edge per pair and segment', () => {
    const edges = linkCrossModal({
      sourceDocId: DOC,
      mentions: [said('Marie Curie', 1), said('Marie Curie', 5), shown('Curie Marie portrait', 7)],
    });
    expect(edges.map((e) => [e.source_node_id, e.target_node_id, e.evidence_span])).toEqual([
      ['curie_marie_portrait', 'marie_curie', 'shared_token:curie'],
    ]);
  });

  it('links an OCR mention to a caption mention (OCR the source), but never two mentions of one channel', () => {
    const edges = linkCrossModal({
      sourceDocId: DOC,
      mentions: [
        shown('Polonium sample', 3),
        shown('Polonium', 3, { source: 'ocr', label: 'Substance' }),
        said('Radium Institute', 1, 2, 'Organization'),
        said('Radium', 4, 5, 'Substance'),
        shown('Lab', 9, { source: 'ocr' }),
        shown('Lab bench', 9, { source: 'ocr' }),
      ],
    });
    expect(edges.map((e) => `${e.source_node_id}→${e.target_node_id}`)).toEqual(['polonium→polonium_sample']);
  });

  it('ignores stop words and tokens shorter than three characters', () => {
    const edges = linkCrossModal({
      sourceDocId: DOC,
      mentions: [
        said('Li Wei', 1),
        shown('Li Na', 2),
        said('The Office', 3, 4, 'Organization'),
        shown('The Lab', 4),
      ],
    });
    expect(edges).toEqual([]);
  });
});

describe('linkCrossModal: video-subject inference', () => {
  it('links a generic caption to the Person holding 60% of transcript Person mentions (the spec check value)', () => {
    const mentions = [
      ...times(3, 'Marie Curie', 0),
      ...times(2, 'Pierre Curie', 100),
      shown('woman in lab coat', 14, { segment: 'frame_14_0' }),
    ];
    expect(videoSubject(mentions)).toEqual({ node_id: 'marie_curie', count: 3, total: 5, share: 0.6 });
    const subjectEdges = linkCrossModal({ sourceDocId: DOC, mentions }).filter(
      (e) => e.provenance === 'video_subject_inference',
    );
    expect(subjectEdges).toEqual([
      expect.objectContaining({
        edge_id: '4e8964983adbfd30',
        source_node_id: 'woman_in_lab_coat',
        target_node_id: 'marie_curie',
        segment_id: 'frame_14_0',
        ts_start: 14,
        ts_end: 14,
        confidence: 0.6,
        evidence_span: 'video_subject:3/5',
      }),
    ]);
  });

  it('finds no subject at 59% and one at 60%', () => {
    const at59 = [...times(59, 'Marie Curie', 0), ...times(41, 'Pierre Curie', 0)];
    const at60 = [...times(60, 'Marie Curie', 0), ...times(40, 'Pierre Curie', 0)];
    expect(leadingPerson(at59)).toMatchObject({ node_id: 'marie_curie', count: 59, total: 100 });
    expect(videoSubject(at59)).toBeUndefined();
    expect(videoSubject(at60)).toMatchObject({ node_id: 'marie_curie', share: 0.6 });

    // The caption lies far outside every mention's window, so only a document subject can reach it.
    const caption = shown('a scientist', 5000);
    expect(linkCrossModal({ sourceDocId: DOC, mentions: [...at59, caption] })).toEqual([]);
    expect(linkCrossModal({ sourceDocId: DOC, mentions: [...at60, caption] })).toEqual([
      expect.objectContaining({ target_node_id: 'marie_curie', confidence: 0.6 }),
    ]);
  });

  it('counts every transcript mention (a sum, not the last value) and rounds the share to 4 places', () => {
    const mentions = [...times(5, 'Marie Curie', 0), said('Pierre Curie', 50), said('Paul Langevin', 60)];
    expect(videoSubject(mentions)).toMatchObject({ count: 5, total: 7 });
    const [edge] = linkCrossModal({ sourceDocId: DOC, mentions: [...mentions, shown('a speaker', 999)] });
    expect(edge?.confidence).toBe(0.7143);
  });

  it('counts only transcript Person mentions', () => {
    const mentions = [
      said('Marie Curie', 0),
      said('Sorbonne', 2, 3, 'Organization'),
      said('Sorbonne', 4, 5, 'Organization'),
      shown('Pierre Curie', 6, { label: 'Person' }),
      shown('Pierre Curie', 8, { label: 'Person', source: 'ocr' }),
    ];
    expect(videoSubject(mentions)).toEqual({ node_id: 'marie_curie', count: 1, total: 1, share: 1 });
    expect(videoSubject([shown('Pierre Curie', 1, { label: 'Person' })])).toBeUndefined();
  });

  it('links only captions and OCR that hold a person word and are not Person nodes already', () => {
    const subject = times(4, 'Marie Curie', 0);
    const edges = linkCrossModal({
      sourceDocId: DOC,
      mentions: [
        ...subject,
        shown('lab coat', 20, { text: 'a woman in a lab coat' }),
        shown('lab bench', 21, { text: 'an empty lab bench' }),
        shown('Irene Joliot', 22, { label: 'Person', text: 'a woman at a desk' }),
        shown('Guest lecture', 23, { source: 'ocr', label: 'Event' }),
      ],
    });
    expect(edges.map((e) => e.source_node_id)).toEqual(['lab_coat', 'guest_lecture']);
    expect(isGenericPersonMention(shown('lab coat', 1, { text: 'a woman in a lab coat' }))).toBe(true);
    expect(isGenericPersonMention(shown('Irene Joliot', 1, { label: 'Person', text: 'a woman' }))).toBe(
      false,
    );
    expect(isGenericPersonMention(said('a woman', 1, 2, 'Concept'))).toBe(false);
  });

  it('adds no subject edge when the transcript names no Person', () => {
    expect(
      linkCrossModal({
        sourceDocId: DOC,
        mentions: [said('Polonium', 1, 2, 'Substance'), shown('a scientist', 2)],
      }),
    ).toEqual([]);
  });

  it('keeps one edge when a shared token and the subject rule link the same pair on one segment', () => {
    const edges = linkCrossModal({
      sourceDocId: DOC,
      mentions: [...times(3, 'Marie Curie', 0), shown('Marie the scientist', 9)],
    });
    expect(edges).toHaveLength(1);
    expect(edges[0]).toMatchObject({ provenance: 'INFERRED', evidence_span: 'shared_token:marie' });
  });
});

describe('linkCrossModal: per-window subject inference', () => {
  // Globally no one dominates (three Persons named three times each, far from the caption at 100 s), and the
  // few mentions each test adds keep every share under 60%.
  const background = [
    ...times(3, 'Marie Curie', 400),
    ...times(3, 'Pierre Curie', 500),
    ...times(3, 'Paul Langevin', 600),
  ];
  const caption = shown('a researcher', 100);

  it('includes a transcript mention that starts exactly window_s after the caption', () => {
    const inside = said('Pierre Curie', 115, 116);
    const outside = said('Pierre Curie', 115.001, 116);
    expect(mentionsInWindow([inside, outside], 100)).toEqual([inside]);
    const edges = linkCrossModal({ sourceDocId: DOC, mentions: [...background, inside, caption] });
    expect(edges).toEqual([
      expect.objectContaining({
        source_node_id: 'a_researcher',
        target_node_id: 'pierre_curie',
        provenance: 'video_subject_inference',
        confidence: 1,
        evidence_span: 'window_subject:1/1',
        segment_id: 'frame_100',
      }),
    ]);
    expect(linkCrossModal({ sourceDocId: DOC, mentions: [...background, outside, caption] })).toEqual([]);
  });

  it('includes a transcript mention that ends exactly window_s before the caption', () => {
    const inside = said('Marie Curie', 84, 85);
    const outside = said('Marie Curie', 84, 84.999);
    expect(mentionsInWindow([inside, outside], 100)).toEqual([inside]);
    expect(linkCrossModal({ sourceDocId: DOC, mentions: [...background, inside, caption] })).toEqual([
      expect.objectContaining({ target_node_id: 'marie_curie', confidence: 1 }),
    ]);
    expect(linkCrossModal({ sourceDocId: DOC, mentions: [...background, outside, caption] })).toEqual([]);
  });

  it("gives the window's leading Person with its share inside the window as confidence", () => {
    const window = [said('Marie Curie', 90), said('Marie Curie', 95), said('Pierre Curie', 110)];
    const [edge] = linkCrossModal({
      sourceDocId: DOC,
      mentions: [...background, ...window, caption],
    });
    expect(edge).toMatchObject({
      target_node_id: 'marie_curie',
      confidence: 0.6667,
      evidence_span: 'window_subject:2/3',
    });
  });

  it('links nothing when two Persons lead the window with the same count', () => {
    const window = [said('Marie Curie', 90), said('Pierre Curie', 110)];
    expect(linkCrossModal({ sourceDocId: DOC, mentions: [...background, ...window, caption] })).toEqual([]);
  });

  it('honours another window_s', () => {
    const mentions = [...background, said('Pierre Curie', 104, 105), caption];
    expect(linkCrossModal({ sourceDocId: DOC, mentions, windowS: 5 })).toHaveLength(1);
    expect(linkCrossModal({ sourceDocId: DOC, mentions, windowS: 3.9 })).toEqual([]);
  });

  it('is not used when the document has a subject', () => {
    const mentions = [...times(3, 'Marie Curie', 300), said('Pierre Curie', 99), caption];
    const edges = linkCrossModal({ sourceDocId: DOC, mentions });
    expect(edges).toEqual([expect.objectContaining({ target_node_id: 'marie_curie', confidence: 0.75 })]);
  });
});
