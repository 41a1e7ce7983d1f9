import { extractCode } from '@tessera/extractors';
import { describe, expect, it } from 'vitest';
import { descriptions, edge, edgeList, node } from './support';

const SOURCE = `import express, { Router as R, json } from 'express';
import * as path from 'node:path';
import './side-effect.js';
const fs = require('node:fs');
const { join, resolve: res } = require('node:path');

/**
 * Starts the HTTP server.
 * @param {number} port
 */
export function start(port) {
  const app = express();
  app.use(json());
  app.listen(port, () => log(\`listening on \${port}\`));
  return new Server(app);
}

/** Handles one request. */
export const handle = async (request) => {
  const body = await request.json();
  return respond(body);
};

const helpers = {
  format(value) {
    return String(value);
  },
};

class Server extends Base {
  #socket = open();

  constructor(app) {
    super(app);
    this.app = app;
  }

  /** Stops accepting connections. */
  async stop() {
    await this.#close();
    this.app?.emit('stop');
  }

  #close() {
    return new Promise((done) => setTimeout(done, 10));
  }
}

export default function () {
  anonymous();
}

start(8080);
`;

describe('JavaScript extraction', () => {
  it('emits functions, arrow functions assigned to a variable, classes and methods, and imported names', async () => {
    const result = await extractCode('src/server.mjs', SOURCE);
    expect(result.language).toBe('javascript');
    expect(descriptions(result)).toEqual({
      server: 'Module server (javascript)',
      express: 'Imported symbol: express',
      R: 'Imported symbol: R',
      json: 'Imported symbol: json',
      path: 'Imported symbol: path',
      fs: 'Imported symbol: fs',
      join: 'Imported symbol: join',
      res: 'Imported symbol: res',
      start: 'Starts the HTTP server. @param {number} port',
      handle: 'Handles one request.',
      Server: 'class definition: Server',
      constructor: 'method definition: constructor',
      stop: 'Stops accepting connections.',
      '#close': 'method definition: #close',
    });
  });

  it('links definitions, imports and calls; `new` is a call; object-literal methods are not definitions', async () => {
    const result = await extractCode('src/server.mjs', SOURCE);
    expect(edgeList(result)).toEqual(
      [
        'server imports express',
        'server imports R',
        'server imports json',
        'server imports path',
        'server imports fs',
        'server imports join',
        'server imports res',
        'server defines start',
        'server defines handle',
        'server defines Server',
        'Server defines constructor',
        'Server defines stop',
        'Server defines #close',
        'server calls require',
        'server calls String',
        'server calls open',
        'server calls anonymous',
        'server calls start',
        'start calls express',
        'start calls use',
        'start calls json',
        'start calls listen',
        'start calls log',
        'start calls Server',
        'handle calls json',
        'handle calls respond',
        'stop calls #close',
        'stop calls emit',
        '#close calls Promise',
        '#close calls setTimeout',
      ].sort(),
    );
    expect(edge(result, 'start', 'calls', 'Server')?.evidence_span).toBe('new Server(app)');
    expect(edge(result, 'start', 'calls', 'use')?.evidence_span).toBe('app.use(json())');
    expect(edge(result, 'start', 'calls', 'log')?.segment_id).toBe('function:start');
    expect(edge(result, 'Server', 'defines', 'stop')?.segment_id).toBe('method:stop');
    expect(node(result, 'json')?.mentions[0]?.evidence_span).toBe(
      "import express, { Router as R, json } from 'express';",
    );
  });

  it('parses JSX in .jsx files', async () => {
    const result = await extractCode(
      'ui/list-view.jsx',
      'export function App({ items }) {\n  return <List>{items.map((item) => <Item key={item.id} {...item} />)}</List>;\n}\n',
    );
    expect(edgeList(result)).toEqual(['App calls map', 'list-view defines App']);
  });
});
