/**
 * The compromise NLP library (a lexicon and rule tagger that ships with its npm package: no download), loaded on
 * first use so that code-only callers never pay for it, and its terms read with their character offsets.
 */

export interface TaggedTerm {
  /** The word without surrounding punctuation. */
  text: string;
  pre: string;
  post: string;
  tags: string[];
  /** UTF-16 offsets into the tagged text. */
  start: number;
  end: number;
}

interface JsonTerm {
  text: string;
  pre: string;
  post: string;
  tags: string[];
  offset: { start: number; length: number };
}

/** A text tagged once, read many ways. */
export interface TaggedText {
  /** The terms of each match of the selection (people, places, organizations, a match pattern). */
  select(selection: Selection): TaggedTerm[][];
  /** Every term of the text. */
  terms(): TaggedTerm[];
}

export interface Tagger {
  tag(text: string): TaggedText;
}

export type Selection = 'people' | 'places' | 'organizations' | { pattern: string };

// biome-ignore lint/suspicious/noExplicitAny: compromise's views are typed loosely; only json() output is read.
type View = any;

let loading: Promise<Tagger> | undefined;

function termsOf(json: { terms: JsonTerm[] }[]): TaggedTerm[][] {
  return json.map((match) =>
    match.terms.map((term) => ({
      text: term.text,
      pre: term.pre,
      post: term.post,
      tags: term.tags,
      start: term.offset.start,
      end: term.offset.start + term.offset.length,
    })),
  );
}

async function load(): Promise<Tagger> {
  const nlp = (await import('compromise')).default as unknown as (text: string) => View;
  const json = (view: View) => termsOf(view.json({ offset: true, terms: { offset: true } }));
  return {
    tag(text) {
      const doc = nlp(text);
      return {
        select(selection) {
          if (selection === 'people') return json(doc.people());
          if (selection === 'places') return json(doc.places());
          if (selection === 'organizations') return json(doc.organizations());
          return json(doc.match(selection.pattern));
        },
        terms: () => json(doc).flat(),
      };
    },
  };
}

/** The tagger; a failed load is retried on the next call. */
export function compromiseTagger(): Promise<Tagger> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
