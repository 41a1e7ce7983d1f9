/** Types of `compromise-tagging.mjs`. */

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

export type SelectionName = 'people' | 'places' | 'organizations' | 'dates';

/** A text tagged once: the terms of each match of every selection, and every term. */
export interface TaggedText {
  selections: Record<SelectionName, TaggedTerm[][]>;
  terms: TaggedTerm[];
}

export interface TagOptions {
  /** Tag only what the selections need; `terms` then holds the terms of the selections' matches only. */
  selectionsOnly?: boolean;
}

export declare function tagText(text: string, options?: TagOptions): TaggedText;

export declare function referenceTagText(text: string): TaggedText;
