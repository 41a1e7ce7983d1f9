/**
 * A generated corpus of bad requests for every route of the OpenAPI document @tessera/api builds: each case
 * is a valid request of its route (a baseline the test sets up) with one thing made hostile: a field missing,
 * of the wrong type, over its bounds or unknown; an id that looks like another tenant's, climbs the path,
 * holds control characters or is 3,000 characters long; numbers huge, negative or NaN-like; bodies deep,
 * truncated, of garbage or of the wrong content type. Each one must be refused, or answered without change.
 */
import { openApiDocument } from '@tessera/api/openapi';

export interface BadRequest {
  /** `METHOD /route` of the contract the case is derived from. */
  route: string;
  /** What was made hostile. */
  kind: string;
  method: string;
  /** Path and query, percent-encoded. */
  target: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** A valid request of one route, which every case of the route alters in one way. */
export interface Baseline {
  path?: Record<string, string>;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
  form?: { fields: Record<string, string>; files: { name: string; content: string }[] };
  /** The route writes when the baseline is sent: every case of it must be refused. */
  writes: boolean;
  /**
   * Values a writing route rightly accepts for a field (a new organization's id may well be `ACME`): hostile
   * values they match are not bad input there, so they are left out.
   */
  accepts?: Record<string, (value: string) => boolean>;
  /**
   * The route drops fields it does not declare, as its spec says (a profile update): a body with unknown
   * keys is a valid request there, so those cases are left out.
   */
  dropsUnknownFields?: boolean;
  /**
   * The route runs an agent, and a completed run stores its memory (document 3): an accepted case may add
   * rows to the tenant's agent memories table and nothing else.
   */
  remembers?: boolean;
  /** Headers every case of the route carries (a harness key): its cases vary the request, not them. */
  headers?: Record<string, string>;
}

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema objects of the OpenAPI document
type Schema = any;

const doc = openApiDocument() as Schema;

function resolve(schema: Schema): Schema {
  if (schema?.$ref) return resolve(doc.components.schemas[schema.$ref.split('/').pop()]);
  return schema ?? {};
}

/** The JSON type a schema takes (the first of a union). */
function typeOf(schema: Schema): string | undefined {
  const s = resolve(schema);
  if (s.type) return Array.isArray(s.type) ? s.type[0] : s.type;
  const first = s.anyOf?.[0] ?? s.oneOf?.[0] ?? s.allOf?.[0];
  if (first) return typeOf(first);
  if (s.enum) return typeof s.enum[0];
  return undefined;
}

/** Fields whose values are identifiers: hostile ids go there. */
const ID_FIELD =
  /(^|_)(id|ids|node|source|target|profile|profiles|filename|prefix|keys|tier|base_schemas|content_type)$/;

const OTHER_TENANT = 'acme:other';

/** Ids built to be refused or to address nothing, never the baseline's own resource. */
export function hostileIds(base: string): string[] {
  const swapped = base.replace(/a/, '\u0430'); // Cyrillic a
  return [
    '',
    ' ',
    `${base} `,
    ` ${base}`,
    `${base}\u0000`,
    `${base}\r\nx-injected: 1`,
    `${base}\n`,
    `${base}\t`,
    `../${base}`,
    '../../../../etc/passwd',
    '..',
    '.',
    '/',
    `${base}/..`,
    `${base}/../${OTHER_TENANT}`,
    `${base}\\..\\x`,
    `${base}'; DROP TABLE tenants; --`,
    `${base}" OR "1"="1`,
    '{"$ne":null}',
    '*',
    `${base}*`,
    '%',
    '%00',
    '%2e%2e%2f',
    'x'.repeat(3000),
    `${base}${'x'.repeat(3000)}`,
    base.toUpperCase() === base ? `${base}X` : base.toUpperCase(),
    swapped === base ? `${base}\u0430` : swapped,
    `${base}\u200b`,
    `\u202e${base}`,
    `${base}\u{1F600}`,
    '\uFF41\uFF43\uFF4D\uFF45', // fullwidth "acme"
    `${base}\uD800`, // a lone surrogate
    `${base}:extra`,
    `:${base}`,
    `${base}:`,
    `${base}::x`,
    `${base},${OTHER_TENANT}`,
    '__system__',
    '__system__:__system__',
    '__proto__',
    'constructor',
    'null',
    '-1',
  ];
}

const wrongTypeValues: [string, unknown][] = [
  ['number', 12345],
  ['boolean', true],
  ['string', 'not the right type'],
  ['array', ['x']],
  ['object', { x: 1 }],
  ['null', null],
];

/** Whether a schema takes null (`type: [..., 'null']`, or a `null` branch of anyOf/oneOf). */
function allowsNull(schema: Schema): boolean {
  const s = resolve(schema);
  if (Array.isArray(s.type)) return s.type.includes('null');
  if (s.type === 'null' || s.nullable === true) return true;
  return [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some(allowsNull);
}

function wrongTypes(schema: Schema): [string, unknown][] {
  const type = typeOf(schema);
  const enumValues = resolve(schema).enum;
  return wrongTypeValues.filter(([name]) => {
    if (name === 'null') return !allowsNull(schema);
    if (name === 'number') return type !== 'number' && type !== 'integer';
    if (name === 'string') return type !== 'string' || enumValues !== undefined;
    return name !== type;
  });
}

/** Values beyond a field's bounds, and NaN-like, huge and negative numbers. */
function outOfBounds(schema: Schema, baseValue: unknown): [string, unknown][] {
  const s = resolve(schema);
  const type = typeOf(s);
  const cases: [string, unknown][] = [];
  if (type === 'string') {
    cases.push(['over its length', 'x'.repeat(s.maxLength !== undefined ? s.maxLength + 1 : 2_000_000)]);
    if (s.minLength) cases.push(['under its length', '']);
  } else if (type === 'integer' || type === 'number') {
    const max = s.maximum ?? s.exclusiveMaximum;
    const min = s.minimum ?? s.exclusiveMinimum;
    if (max !== undefined && max < Number.MAX_SAFE_INTEGER) cases.push(['over its maximum', max + 1]);
    if (min !== undefined) cases.push(['under its minimum', min - 1]);
    cases.push(['negative', -1], ['huge', 1e308], ['huge negative', -1e308], ['beyond 2^53', 2 ** 53 + 2]);
    if (type === 'integer') cases.push(['fractional', 1.5]);
    for (const text of ['NaN', 'Infinity', '-Infinity', '1e999', '0x10', '', ' 1 ']) {
      cases.push([`the string '${text}'`, text]);
    }
  } else if (type === 'array') {
    const item = Array.isArray(baseValue) && baseValue.length > 0 ? baseValue[0] : 'x';
    cases.push(['over its items', Array(s.maxItems !== undefined ? s.maxItems + 1 : 200_000).fill(item)]);
    if (s.minItems) cases.push(['empty', []]);
    cases.push(['of wrong items', [12345, null, {}]]);
  }
  return cases;
}

const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** Raw JSON texts for a field: what JSON.stringify cannot write. */
function rawFieldTexts(schema: Schema): [string, string][] {
  const type = typeOf(schema);
  const texts: [string, string][] = [
    ['nested 5,000 deep', deep(5000)],
    ['nested 30 deep', deep(30)],
  ];
  if (type === 'integer' || type === 'number') {
    texts.push(['1e999 (Infinity)', '1e999'], ['a 400-digit number', '9'.repeat(400)]);
  }
  return texts;
}

const json = { 'content-type': 'application/json' };

/** Percent-encodes a value; a lone surrogate becomes the bytes of its (invalid) UTF-8 form. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...value]
      .map((char) => (/[\uD800-\uDFFF]/.test(char) ? '%ED%A0%80' : encodeURIComponent(char)))
      .join('');
  }
}

function targetOf(route: string, path: Record<string, string>, query: Record<string, string>): string {
  const pathname = route.replace(/\{(\w+)\}/g, (_, name: string) => encode(path[name] ?? ''));
  const search = new URLSearchParams(query).toString();
  return search ? `${pathname}?${search}` : pathname;
}

/** The body of a baseline with `field` set to the raw JSON `text`. */
function withRawField(body: Record<string, unknown>, field: string, text: string): string {
  const placeholder = '"__corpus_placeholder__"';
  return JSON.stringify({ ...body, [field]: '__corpus_placeholder__' }).replace(placeholder, text);
}

function multipart(
  fields: [string, string][],
  files: { field?: string; name: string; content: string | Buffer }[],
  boundary = 'corpusboundary7MA4YWxkTrZu0gW',
): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  for (const file of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name}"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
      Buffer.isBuffer(file.content) ? file.content : Buffer.from(file.content),
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}

const formType = (boundary = 'corpusboundary7MA4YWxkTrZu0gW') => ({
  'content-type': `multipart/form-data; boundary=${boundary}`,
});

/** Every case of one route. */
export function casesOf(
  method: string,
  route: string,
  baseline: Baseline,
  maxFileBytes: number,
): BadRequest[] {
  const operation = doc.paths[route]?.[method.toLowerCase()];
  if (!operation) throw new Error(`The OpenAPI document has no ${method} ${route}`);
  const name = `${method} ${route}`;
  const cases: BadRequest[] = [];
  const path = baseline.path ?? {};
  const query = baseline.query ?? {};
  const add = (
    kind: string,
    target: string,
    headers: Record<string, string> = {},
    body?: string | Buffer,
    as = method,
  ) =>
    cases.push({ route: name, kind, method: as, target, headers: { ...baseline.headers, ...headers }, body });
  const hostile = (field: string, base: string) =>
    hostileIds(base).filter((id) => !baseline.accepts?.[field]?.(id));
  const bodyText = baseline.body ? JSON.stringify(baseline.body) : undefined;
  const baseHeaders = baseline.body ? json : {};
  const sendWith = (kind: string, p: Record<string, string>, q: Record<string, string>) =>
    add(kind, targetOf(route, p, q), baseHeaders, bodyText ?? formBody());
  const formBody = () =>
    baseline.form ? multipart(Object.entries(baseline.form.fields), baseline.form.files) : undefined;
  const formHeaders = baseline.form ? formType() : {};

  for (const parameter of (operation.parameters ?? []) as Schema[]) {
    const where = parameter.in as 'path' | 'query';
    const values = where === 'path' ? path : query;
    const base = values[parameter.name] ?? '';
    const vary = (kind: string, value: string | undefined) => {
      const changed = { ...values };
      if (value === undefined) delete changed[parameter.name];
      else changed[parameter.name] = value;
      add(
        `${where} ${parameter.name} ${kind}`,
        targetOf(route, where === 'path' ? changed : path, where === 'query' ? changed : query),
        baseline.form ? formHeaders : baseHeaders,
        bodyText ?? formBody(),
      );
    };
    if (where === 'query' && parameter.required) vary('missing', undefined);
    const type = typeOf(parameter.schema);
    if (ID_FIELD.test(parameter.name) || where === 'path') {
      for (const id of hostile(parameter.name, base))
        vary(`hostile id ${JSON.stringify(id.slice(0, 40))}`, id);
    } else if (type === 'integer' || type === 'number') {
      for (const [kind, value] of outOfBounds(parameter.schema, base))
        vary(kind, String(value).slice(0, 5000));
      vary('a 400-digit number', '9'.repeat(400));
    } else if (type === 'boolean' || resolve(parameter.schema).enum) {
      for (const value of ['maybe', 'TRUE!', '', '1.0', 'null']) vary(`'${value}'`, value);
    } else {
      vary('over its length', 'q'.repeat(5000));
    }
    if (where === 'query') {
      // A parameter given twice: which one counts must not be left to chance. API Gateway joins the two
      // with a comma: a free-text parameter that takes the joined value rightly accepts it.
      const other = base === '' ? 'x' : `${base}x`;
      if (!baseline.accepts?.[parameter.name]?.(`${base},${other}`))
        add(
          `query ${parameter.name} given twice`,
          `${targetOf(route, path, query)}${Object.keys(query).length ? '&' : '?'}${encode(parameter.name)}=${encode(other)}`,
          baseline.form ? formHeaders : baseHeaders,
          bodyText ?? formBody(),
        );
    }
  }

  if (baseline.body) {
    const schema = resolve(operation.requestBody.content['application/json'].schema);
    const target = targetOf(route, path, query);
    const send = (kind: string, body: unknown) => add(kind, target, json, JSON.stringify(body));
    const required = new Set<string>(schema.required ?? []);
    for (const [field, fieldSchema] of Object.entries(schema.properties ?? {}) as [string, Schema][]) {
      const value = baseline.body[field];
      const without = { ...baseline.body };
      delete without[field];
      if (required.has(field)) send(`body ${field} missing`, without);
      for (const [type, wrong] of wrongTypes(fieldSchema))
        send(`body ${field} as ${type}`, { ...baseline.body, [field]: wrong });
      for (const [kind, bad] of outOfBounds(fieldSchema, value))
        send(`body ${field} ${kind}`, { ...baseline.body, [field]: bad });
      for (const [kind, text] of rawFieldTexts(fieldSchema))
        add(`body ${field} ${kind}`, target, json, withRawField(baseline.body, field, text));
      if (ID_FIELD.test(field)) {
        const base = typeof value === 'string' ? value : Array.isArray(value) ? String(value[0] ?? '') : '';
        for (const id of hostile(field, base)) {
          send(`body ${field} hostile id ${JSON.stringify(id.slice(0, 40))}`, {
            ...baseline.body,
            [field]: typeOf(fieldSchema) === 'array' ? [id] : id,
          });
        }
      }
      // One level into arrays of objects (graph nodes and edges): each field of the first item.
      const itemSchema = resolve(resolve(fieldSchema).items);
      if (Array.isArray(value) && value.length > 0 && itemSchema.properties) {
        const item = value[0] as Record<string, unknown>;
        for (const [inner, innerSchema] of Object.entries(itemSchema.properties) as [string, Schema][]) {
          const variants: [string, unknown][] = [
            ...wrongTypes(innerSchema),
            ...outOfBounds(innerSchema, item[inner]).filter(([kind]) => !kind.startsWith('the string')),
          ];
          if ((itemSchema.required ?? []).includes(inner)) {
            const rest = { ...item };
            delete rest[inner];
            send(`body ${field}[0].${inner} missing`, {
              ...baseline.body,
              [field]: [rest, ...value.slice(1)],
            });
          }
          for (const [kind, bad] of variants) {
            send(`body ${field}[0].${inner} ${kind}`, {
              ...baseline.body,
              [field]: [{ ...item, [inner]: bad }, ...value.slice(1)],
            });
          }
        }
      }
    }
    // Unknown and hostile keys (a route that drops undeclared fields takes them: not bad input there).
    if (!baseline.dropsUnknownFields) {
      send('body with an unknown field', { ...baseline.body, unknown_field: 1 });
      add('body with a __proto__ key', target, json, `{"__proto__":{"polluted":true},${bodyText!.slice(1)}`);
      add(
        'body with constructor.prototype',
        target,
        json,
        `{"constructor":{"prototype":{"polluted":true}},${bodyText!.slice(1)}`,
      );
      send('body with a 10,000-character key', { ...baseline.body, ['k'.repeat(10_000)]: 1 });
      send('body with 50,000 keys', {
        ...baseline.body,
        ...Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i])),
      });
    }
    const idKey = Object.keys(baseline.body).find((key) => ID_FIELD.test(key));
    if (idKey)
      add(
        `body with ${idKey} given twice, the second hostile`,
        target,
        json,
        `${bodyText!.slice(0, -1)},${JSON.stringify(idKey)}:"../../x\\u0000"}`,
      );
    // Whole bodies.
    const wholes: [string, string | Buffer, Record<string, string>][] = [
      // A route whose body is optional (a cancel's reason) takes an empty one.
      ...(operation.requestBody.required === false
        ? []
        : [['an empty body', '', json] as [string, string, Record<string, string>]]),
      ['null', 'null', json],
      ['an array', '[]', json],
      ['a string', '"text"', json],
      ['a number', '1', json],
      ['truncated JSON', bodyText!.slice(0, Math.floor(bodyText!.length / 2)), json],
      ['JSON with a trailing comma', `${bodyText!.slice(0, -1)},}`, json],
      ['JSON with comments', `/* c */${bodyText}`, json],
      ['single-quoted JSON', bodyText!.replace(/"/g, "'"), json],
      ['garbage bytes', Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80, 0x9f, 0x7b]), json],
      [
        'invalid UTF-8 inside a string',
        Buffer.concat([Buffer.from('{"tenant_id":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]),
        json,
      ],
      ['a BOM before JSON', `\ufeff${bodyText}`, json],
      ['nested 5,000 deep', deep(5000), json],
      ['objects nested 5,000 deep', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, json],
      ['a 10 MB string', `{"x":"${'x'.repeat(10 * 1024 * 1024)}"}`, json],
      ['no content type', bodyText!, {}],
      ['text/plain', bodyText!, { 'content-type': 'text/plain' }],
      [
        'a form-encoded body',
        'tenant_id=acme%3Aprod',
        { 'content-type': 'application/x-www-form-urlencoded' },
      ],
      ['XML', '<tenant_id>acme:prod</tenant_id>', { 'content-type': 'application/xml' }],
      ['a multipart body', multipart([['tenant_id', 'acme:prod']], []), formType()],
      ['application/jsonx', bodyText!, { 'content-type': 'application/jsonx' }],
      [
        'a JSON type with a junk parameter',
        bodyText!,
        { 'content-type': 'application/json; charset=utf-16; x="\u0000"' },
      ],
    ];
    for (const [kind, body, headers] of wholes) add(`whole body: ${kind}`, target, headers, body);
  }

  if (baseline.form) {
    const target = targetOf(route, path, query);
    const fields = Object.entries(baseline.form.fields);
    const files = baseline.form.files;
    const send = (kind: string, f: [string, string][], fl: typeof files, boundary?: string) =>
      add(kind, target, formType(boundary), multipart(f, fl, boundary));
    const formSchema = resolve(operation.requestBody.content['multipart/form-data'].schema);
    for (const [field, value] of fields) {
      if ((formSchema.required ?? []).includes(field)) {
        send(
          `form ${field} missing`,
          fields.filter(([n]) => n !== field),
          files,
        );
      }
      send(`form ${field} given twice`, [...fields, [field, `${value}x`]], files);
      send(
        `form ${field} over 1 MB`,
        fields.map(([n, v]) => [n, n === field ? 'x'.repeat(1024 * 1024 + 1) : v]),
        files,
      );
      if (ID_FIELD.test(field)) {
        for (const id of hostile(field, value)) {
          if (/[\r\n]/.test(id)) continue; // not expressible inside a form part; the header cases cover it
          send(
            `form ${field} hostile id ${JSON.stringify(id.slice(0, 40))}`,
            fields.map(([n, v]) => [n, n === field ? id : v]),
            files,
          );
        }
      }
    }
    send('form with an unknown field', [...fields, ['unknown_field', '1']], files);
    send(
      'form with 51 fields',
      [...fields, ...Array.from({ length: 51 }, (_, i): [string, string] => [`f${i}`, 'x'])],
      files,
    );
    send('form with a 300-byte field name', [...fields, ['n'.repeat(300), 'x']], files);
    send('form without its file', fields, []);
    send('form with an empty file', fields, [{ name: 'empty.md', content: '' }]);
    send('form with a file over the limit', fields, [
      { name: 'big.md', content: 'x'.repeat(maxFileBytes + 1) },
    ]);
    send(
      'form with 1,001 files',
      fields,
      Array.from({ length: 1001 }, (_, i) => ({ name: `f${i}.md`, content: 'x' })),
    );
    send('form with one file name twice', fields, [...files, ...files]);
    send(
      'form with a file of another field only',
      fields,
      files.map((f) => ({ ...f, field: 'other' })),
    );
    for (const bad of [
      '',
      '.',
      '..',
      '/',
      '../../../../etc/passwd',
      'a/../../b.md',
      'x\u0000.md',
      'x\u0007.md',
      `${'d/'.repeat(600)}a.md`,
      'a.unknownext',
    ].filter((n) => !baseline.accepts?.filename?.(n))) {
      send(`form with the file name ${JSON.stringify(bad.slice(0, 40))}`, fields, [
        { name: bad, content: '# x' },
      ]);
    }
    const whole = multipart(fields, files);
    const cut = (n: number) => whole.subarray(0, n);
    const at = whole.indexOf('# ');
    const wholes: [string, Buffer, Record<string, string>][] = [
      ['cut inside the file part', cut(at + 3), formType()],
      ['cut after the file part', cut(whole.length - 8), formType()],
      ['cut inside a part header', cut(whole.indexOf('filename=') + 4), formType()],
      ['cut after the first boundary', cut(40), formType()],
      ['an empty body', Buffer.alloc(0), formType()],
      ['garbage', Buffer.from([0x00, 0xff, 0x10, 0x80, 0x2d, 0x2d]), formType()],
      ['no boundary parameter', whole, { 'content-type': 'multipart/form-data' }],
      ['another boundary', whole, formType('someotherboundary')],
      ['a 5,000-character boundary', whole, formType('b'.repeat(5000))],
      ['a JSON content type', whole, json],
      ['no content type', whole, {}],
      [
        'parts with no blank line',
        Buffer.from(whole.toString('latin1').replace(/\r\n\r\n/g, '\r\n'), 'latin1'),
        formType(),
      ],
      [
        'a part without a name',
        Buffer.from(whole.toString('latin1').replace(/ name="[^"]*"/g, ''), 'latin1'),
        formType(),
      ],
      ['nested multipart', multipart([['tenant_id', whole.toString('latin1')]], files), formType()],
    ];
    for (const [kind, body, headers] of wholes) add(`whole form: ${kind}`, target, headers, body);
  }

  // Methods the route does not take, and paths beside it.
  const allowed = Object.keys(doc.paths[route]).map((m) => m.toUpperCase());
  for (const other of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].filter((m) => !allowed.includes(m))) {
    add(
      `method ${other}`,
      targetOf(route, path, query),
      baseHeaders,
      other === 'GET' ? undefined : bodyText,
      other,
    );
  }
  add(
    'a path with junk after it',
    `${targetOf(route, path, {})}/junk/..%2f..%2f`,
    baseHeaders,
    bodyText ?? formBody(),
  );
  add(
    'a doubled slash',
    targetOf(route, path, query).replace('/', '//'),
    baseHeaders,
    bodyText ?? formBody(),
  );
  // A body or parameters the route does not read are ignored: only routes that write nothing get them.
  if (!baseline.body && !baseline.form && !baseline.writes) {
    add('an unexpected body', targetOf(route, path, query), json, '{"x":');
    sendWith('unknown query parameters', path, { ...query, junk: '1', '': 'x', '\u0000': 'y' });
  }
  return cases;
}
