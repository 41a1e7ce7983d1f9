import { extractCode } from '@tessera/extractors';
import { describe, expect, it } from 'vitest';
import { descriptions, edge, edgeList, node } from './support';

const SOURCE = `// Package cache keeps recent values.
package cache

import "fmt"
import (
	"encoding/json"
	m "math"
	_ "embed"
	. "strings"
)

// Store keeps values by key.
// It is safe for concurrent use.
type Store[V any] struct {
	items map[string]V
}

// Loader loads one value.
type Loader interface {
	Load(key string) (any, error)
}

type (
	Key   = string
	Count int
)

//go:generate stringer -type=Count
// New builds an empty store.
func New[V any]() *Store[V] {
	return &Store[V]{items: make(map[string]V)}
}

func (s *Store[V]) Put(key string, value V) error {
	data, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	s.items[key] = value
	_ = m.Max(1, float64(len(data)))
	return s.flush()
}

func (s Store[V]) flush() error { return nil }

func (c Count) String() string { return fmt.Sprint(int(c)) }

var initial = fmt.Sprintf("%d", 1)
`;

describe('Go extraction', () => {
  it('emits structs, interfaces, types, functions and methods with their comment lines', async () => {
    const result = await extractCode('pkg/cache/store.go', SOURCE);
    expect(result.language).toBe('go');
    expect(descriptions(result)).toEqual({
      store: 'Module store (go)',
      fmt: 'Imported symbol: fmt',
      json: 'Imported symbol: json',
      m: 'Imported symbol: m',
      Store: 'Store keeps values by key. It is safe for concurrent use.',
      Loader: 'Loader loads one value.',
      Key: 'type definition: Key',
      Count: 'type definition: Count',
      New: 'New builds an empty store.',
      Put: 'method definition: Put',
      flush: 'method definition: flush',
      String: 'method definition: String',
    });
    expect(node(result, 'Store')?.mentions[0]?.segment_id).toBe('class:Store');
    expect(node(result, 'Put')?.mentions[0]?.segment_id).toBe('method:Put');
  });

  it('lets the receiver type define its methods and names selector calls by their last segment', async () => {
    const result = await extractCode('pkg/cache/store.go', SOURCE);
    expect(edgeList(result)).toEqual(
      [
        'store imports fmt',
        'store imports json',
        'store imports m',
        'store defines Store',
        'store defines Loader',
        'store defines Key',
        'store defines Count',
        'store defines New',
        'Store defines Put',
        'Store defines flush',
        'Count defines String',
        'New calls make',
        'Put calls Marshal',
        'Put calls Errorf',
        'Put calls Max',
        'Put calls float64',
        'Put calls len',
        'Put calls flush',
        'String calls Sprint',
        'String calls int',
        'store calls Sprintf',
      ].sort(),
    );
    expect(edge(result, 'Put', 'calls', 'Marshal')?.evidence_span).toBe('json.Marshal(value)');
    expect(edge(result, 'store', 'imports', 'm')?.evidence_span).toBe('m "math"');
  });

  it("names an import by its alias, else by goimports' assumed name (clarifications: imported names)", async () => {
    const source = `package main

import (
	"github.com/go-playground/validator/v10"
	"github.com/mattn/go-isatty"
	"gopkg.in/yaml.v3"
	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5/pgxpool"
	"example.com/go-kit.v2"
	"example.com/v3"
	"v2"
	"example.com/api/v2beta"
	js "encoding/json"
	_ "embed"
	. "strings"
)
`;
    const result = await extractCode('main.go', source);
    expect(edgeList(result, 'imports')).toEqual(
      [
        'main imports validator',
        'main imports isatty',
        'main imports yaml',
        'main imports gin',
        'main imports pgxpool',
        'main imports kit',
        'main imports example',
        'main imports v2',
        'main imports v2beta',
        'main imports js',
      ].sort(),
    );
    expect(node(result, 'validator')?.mentions[0]).toMatchObject({
      segment_id: 'import:validator',
      evidence_span: '"github.com/go-playground/validator/v10"',
    });
  });

  it('reads a call with explicit type arguments as a call of the generic function', async () => {
    const source = `package cache

func getTyped[T any](c *Context, key string) (res T) { return res }

func Use(c *Context) {
	s := getTyped[string](c, "key")
	v := Map[int](values)
	w := slices.Index[[]int, int](xs, 3)
	x := pkg.Convert[A, B](s)
	y := lo.Must[*T](load())
	z := Zero[int]()
	New[V]().Put(x)
	_ = Pair[List[int], string](a, b)
}
`;
    const result = await extractCode('cache.go', source);
    expect(edgeList(result, 'calls')).toEqual(
      [
        'Use calls getTyped',
        'Use calls Map',
        'Use calls Index',
        'Use calls Convert',
        'Use calls Must',
        'Use calls load',
        'Use calls Zero',
        'Use calls New',
        'Use calls Put',
        'Use calls Pair',
      ].sort(),
    );
    expect(edge(result, 'Use', 'calls', 'getTyped')?.evidence_span).toBe('getTyped[string](c, "key")');
    expect(edge(result, 'Use', 'calls', 'Map')?.evidence_span).toBe('Map[int](values)');
    expect(edge(result, 'Use', 'calls', 'Convert')?.evidence_span).toBe('pkg.Convert[A, B](s)');
  });

  it('does not read an index holding a value as type arguments', async () => {
    const source = `package p

func run() {
	fns[0](x)
	fns[i+1](x, y)
	table["k"](x, y)
	(F[T])(x)
}
`;
    const result = await extractCode('p.go', source);
    expect(edgeList(result, 'calls')).toEqual([]);
  });
});
