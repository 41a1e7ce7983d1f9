/**
 * Hostile input against a runtime child process, one defect at a time: what once ended the process or
 * answered 5xx, an empty body, or a silent half-success now answers a 4xx in the spec's shapes, and the
 * process answers on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from './support/raw-http';
import { call, type RuntimeProcess, spawnRuntime } from './support/runtime';

let rt: RuntimeProcess;
beforeAll(async () => {
  rt = await spawnRuntime();
  expect((await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme:prod' })).status).toBe(201);
});
afterAll(async () => {
  await rt?.stop();
});

const alive = async () => {
  expect(rt.child.exitCode).toBeNull();
  expect((await call(rt.url, 'GET', '/health')).status).toBe(200);
};

/** A multipart upload form with a file part, as bytes. */
function form(boundary: string, fields: [string, string][], file = '# A file\n\nIts text.'): Buffer {
  return Buffer.from(
    fields
      .map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      )
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.md"\r\n` +
      `Content-Type: text/markdown\r\n\r\n${file}\r\n--${boundary}--\r\n`,
  );
}

const upload = (body: Buffer, boundary = 'xyzBOUNDARYxyz') =>
  rawRequest(rt.url, {
    method: 'POST',
    target: '/ingestion/upload',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
  });

const jsonOf = (answer: { body: Buffer }) => JSON.parse(answer.body.toString('utf8'));

describe('hostile input against a runtime process (integration)', () => {
  it('answers truncated and corrupt multipart bodies with 400 and keeps running', async () => {
    const whole = form('xyzBOUNDARYxyz', [['tenant_id', 'acme:prod']], 'x'.repeat(5000));
    const cuts = [
      whole.indexOf('xxxx') + 1000, // inside the file part
      whole.lastIndexOf('\r\n--'), // right after the file's bytes
      whole.length - 4, // inside the closing boundary
      whole.indexOf('filename=') + 3, // inside a part's headers
    ];
    for (const cut of cuts) {
      const answer = await upload(whole.subarray(0, cut));
      expect(answer.status, `cut at ${cut}`).toBe(400);
      expect(jsonOf(answer).detail).toMatch(/^Malformed multipart body/);
      await alive();
    }
    for (const corrupt of [
      Buffer.from('--xyzBOUNDARYxyz\r\n\u0000\u0001garbage without headers'),
      Buffer.from('--xyzBOUNDARYxyz\r\nContent-Disposition: form-data; name="file"; filename="a"\r\nxyz'),
      Buffer.from([0xff, 0x00, 0x2d, 0x2d, 0x0d, 0x0a]),
    ]) {
      const answer = await upload(corrupt);
      expect(answer.status).toBe(400);
      await alive();
    }
  });

  it('refuses a form of more than 50 fields with 413 naming the limit, even with tenant_id as the 51st', async () => {
    const fields: [string, string][] = Array.from({ length: 50 }, (_, i) => [`field${i}`, 'x']);
    const answer = await upload(form('xyzBOUNDARYxyz', [...fields, ['tenant_id', 'acme:prod']]));
    expect(answer.status).toBe(413);
    expect(jsonOf(answer)).toEqual({ detail: 'The form has more than 50 fields' });
  });

  it('answers 422 for JSON nested 5,000 deep on every JSON route, with a bounded echo', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    for (const [method, path] of [
      ['POST', '/admin/tenants'],
      ['POST', '/admin/organizations'],
      ['POST', '/search'],
      ['POST', '/graph/upsert'],
      ['POST', '/ingestion/uploads'],
      ['POST', '/ingestion/start'],
      ['PUT', '/admin/tenants/acme:prod/tier'],
      ['POST', '/events/workflows/workflow_1/cancel'],
    ] as const) {
      for (const body of [deep, `{"tenant_id":${deep}}`]) {
        const answer = await call(rt.url, method, path, body);
        expect(answer.status, `${method} ${path}`).toBe(422);
        expect(answer.body.detail[0]).toMatchObject({ type: 'json_invalid', loc: ['body'] });
      }
    }
    // A refused value is echoed bounded: a 100,000-character query comes back as 200 characters.
    const long = await call(rt.url, 'POST', '/search', {
      query: 'q'.repeat(100_000),
      tenant_id: 'acme:prod',
    });
    expect(long.status).toBe(422);
    expect(long.body.detail[0].input).toBe(`${'q'.repeat(200)}…`);
    await alive();
  });

  it('answers an over-long or malformed task id with 422 on every route that takes one, not 503', async () => {
    const long = 'a'.repeat(3000);
    for (const [method, path] of [
      ['GET', `/events/queues/${long}`],
      ['GET', `/events/queues/${long}/offset`],
      ['GET', `/ingestion/${long}/events`],
      ['POST', `/events/workflows/${long}/cancel`],
      ['POST', `/events/ingestion/${long}/cancel`],
      ['GET', `/events/workflows/${long}`],
      ['GET', `/events/ingestion/${long}`],
      ['GET', '/events/queues/a%0Ab'],
      ['GET', '/events/ingestion/..%2F..%2Fx'],
    ] as const) {
      const answer = await call(rt.url, method, path, method === 'POST' ? {} : undefined);
      expect(answer.status, `${method} ${path.slice(0, 60)}`).toBe(422);
      expect(answer.body.detail[0].loc[0]).toBe('path');
    }
    // A well-formed id no task has: 404, as before.
    expect((await call(rt.url, 'GET', '/events/queues/ingest_0000000000000000')).status).toBe(404);
  });

  it('refuses a content_type holding CR/LF and creates no job', async () => {
    const before = await call(rt.url, 'GET', '/events/queues?tenant_id=acme:prod');
    for (const content_type of [
      'text/plain\r\nx-evil: 1',
      'text/plain\n',
      'text/plain\u0000',
      'no-slash',
      'a/b; c',
    ]) {
      const answer = await call(rt.url, 'POST', '/ingestion/uploads', {
        tenant_id: 'acme:prod',
        filename: 'a.md',
        size: 10,
        content_type,
      });
      expect(answer.status, JSON.stringify(content_type)).toBe(422);
      expect(answer.body.detail[0].loc).toEqual(['body', 'content_type']);
    }
    expect((await call(rt.url, 'GET', '/events/queues?tenant_id=acme:prod')).body).toEqual(before.body);
    const fine = await call(rt.url, 'POST', '/ingestion/uploads', {
      tenant_id: 'acme:prod',
      filename: 'a.md',
      size: 10,
      content_type: 'text/markdown; charset=utf-8',
    });
    expect(fine.status).toBe(201);
    expect(fine.body.upload.headers['content-type']).toBe('text/markdown; charset=utf-8');
  });

  it('answers what the HTTP layer refuses with JSON in the plain shape, not an empty body', async () => {
    const cases: [
      string,
      { method: string; target: string; headers?: Record<string, string>; body?: string },
      number,
    ][] = [
      ['an over-long URL', { method: 'GET', target: `/health?${'a'.repeat(20_000)}` }, 431],
      [
        'over-long headers',
        { method: 'GET', target: '/health', headers: { 'x-big': 'b'.repeat(20_000) } },
        431,
      ],
      [
        'bad chunked encoding',
        {
          method: 'POST',
          target: '/admin/tenants',
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
          body: 'zz\r\n{}\r\n0\r\n\r\n',
        },
        400,
      ],
      [
        'Content-Length with Transfer-Encoding',
        {
          method: 'POST',
          target: '/admin/tenants',
          headers: {
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
            'content-length': '6',
          },
          body: '2\r\n{}\r\n0\r\n\r\n',
        },
        400,
      ],
    ];
    for (const [name, request, status] of cases) {
      const answer = await rawRequest(rt.url, request);
      expect(answer.status, name).toBe(status);
      expect(answer.headers['content-type'], name).toBe('application/json');
      expect(jsonOf(answer), name).toEqual({ detail: expect.any(String) });
    }
    await alive();
  });

  it('answers 413 to a client that asks to close the connection while it still sends', async () => {
    const answer = await rawRequest(rt.url, {
      method: 'POST',
      target: '/admin/tenants',
      headers: { 'content-type': 'application/json' },
      body: `{"tenant_id":"${'a'.repeat(11 * 1024 * 1024)}"}`,
    });
    expect(answer.status).toBe(413);
    expect(jsonOf(answer).detail).toMatch(/^Request body exceeds the limit/);
  });

  it('refuses unknown fields of a body and a form with 422 naming them', async () => {
    const answer = await call(rt.url, 'POST', '/admin/tenants', { tenant_id: 'acme:new', tenantid: 'x' });
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toEqual([
      {
        type: 'extra_forbidden',
        loc: ['body', 'tenantid'],
        msg: 'Extra inputs are not permitted',
        input: 'x',
      },
    ]);
    const formAnswer = await upload(
      form('xyzBOUNDARYxyz', [
        ['tenant_id', 'acme:prod'],
        ['tenantid', 'x'],
      ]),
    );
    expect(formAnswer.status).toBe(422);
    expect(jsonOf(formAnswer).detail[0]).toMatchObject({
      type: 'extra_forbidden',
      loc: ['body', 'tenantid'],
    });
    expect((await call(rt.url, 'GET', '/admin/tenants/acme:new')).status).toBe(404);
  });

  it('lets 40 clients go that hang up on a live event stream, at once and mid-stream, and answers on', async () => {
    const queued = await call(rt.url, 'POST', '/ingestion/uploads', {
      tenant_id: 'acme:prod',
      filename: 'never.md',
      size: 10,
    });
    expect(queued.status).toBe(201);
    const streamUrl = `${rt.url}/events/ingestion/${queued.body.job_id}`;
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const controller = new AbortController();
        const response = await fetch(streamUrl, { signal: controller.signal });
        if (i % 2 === 0) await response.body!.getReader().read();
        controller.abort();
      }),
    );
    // And clients that cut the connection while sending a request.
    for (let i = 0; i < 10; i++) {
      const socket = (await import('node:net')).connect(Number(new URL(rt.url).port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        'POST /admin/tenants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"ten',
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
      socket.resetAndDestroy();
    }
    await alive();
    expect((await call(rt.url, 'GET', `/ingestion/${queued.body.job_id}/events`)).body.state).toBe('queued');
  });
});
