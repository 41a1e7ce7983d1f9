import { normalizePredicate, PREDICATE_ALIASES, PREDICATES } from '@tessera/extractors';
import { describe, expect, it } from 'vitest';

const PREFIXES = ['was_', 'is_', 'were_', 'are_', 'has_been_', 'have_been_'];

describe('normalizePredicate', () => {
  it('holds exactly the 16 locked predicates', () => {
    expect([...PREDICATES].sort()).toEqual(
      [
        'born_in',
        'discovered',
        'discovered_in',
        'located_at',
        'won',
        'worked_at',
        'wrote',
        'invented',
        'studied',
        'contains',
        'occurred_at',
        'part_of',
        'preceded_by',
        'followed_by',
        'caused_by',
        'contradicts',
      ].sort(),
    );
  });

  it('answers each vocabulary entry as itself', () => {
    for (const predicate of PREDICATES) expect(normalizePredicate(predicate)).toBe(predicate);
  });

  it('maps every alias of the clarifications', () => {
    expect(PREDICATE_ALIASES).toEqual({
      was_born_in: 'born_in',
      is_born_in: 'born_in',
      born_at: 'born_in',
      located_in: 'located_at',
      is_at: 'located_at',
      caused: 'caused_by',
      contained_in: 'part_of',
      is_part_of: 'part_of',
      containing: 'contains',
      took_place_in: 'occurred_at',
    });
    for (const [alias, predicate] of Object.entries(PREDICATE_ALIASES)) {
      expect(normalizePredicate(alias)).toBe(predicate);
    }
  });

  it('lower-cases and turns spaces and hyphens into underscores', () => {
    expect(normalizePredicate('Born In')).toBe('born_in');
    expect(normalizePredicate('WORKED-AT')).toBe('worked_at');
    expect(normalizePredicate('Was Born In')).toBe('born_in');
    expect(normalizePredicate('took place in')).toBe('occurred_at');
    expect(normalizePredicate('part-of')).toBe('part_of');
    expect(normalizePredicate('  located in ')).toBe('located_at');
  });

  it('strips each leading copula or perfect prefix and looks again, in the vocabulary and the aliases', () => {
    for (const prefix of PREFIXES) {
      for (const predicate of PREDICATES) expect(normalizePredicate(`${prefix}${predicate}`)).toBe(predicate);
      expect(normalizePredicate(`${prefix}located_in`)).toBe('located_at');
      expect(normalizePredicate(`${prefix}born_at`)).toBe('born_in');
      expect(normalizePredicate(`${prefix}took_place_in`)).toBe('occurred_at');
    }
    expect(normalizePredicate('Was Discovered In')).toBe('discovered_in');
    expect(normalizePredicate('has been invented')).toBe('invented');
    expect(normalizePredicate('Have-Been-Studied')).toBe('studied');
  });

  it('strips only one prefix', () => {
    expect(normalizePredicate('was_was_won')).toBeUndefined();
    expect(normalizePredicate('is_has_been_won')).toBeUndefined();
    // one strip leaves an alias, which the second look finds
    expect(normalizePredicate('was_is_at')).toBe('located_at');
  });

  it('drops anything outside the vocabulary', () => {
    for (const other of [
      '',
      ' ',
      'married',
      'same_as',
      'born',
      'was_',
      'is',
      'bornin',
      'born__in',
      'born_in_',
      'did_win',
      'was_married_to',
      'located',
      'calls',
      'discovers',
      'not_born_in',
    ]) {
      expect(normalizePredicate(other)).toBeUndefined();
    }
  });

  it('does not read inherited object keys as aliases', () => {
    expect(normalizePredicate('constructor')).toBeUndefined();
    expect(normalizePredicate('__proto__')).toBeUndefined();
    expect(normalizePredicate('to_string')).toBeUndefined();
  });
});
