/**
 * HTTP/1.1 over a plain socket, byte for byte as given: fetch and node:http refuse (or repair) the
 * malformed targets, headers and bodies the bad-input tests need to send.
 */
import { connect } from 'node:net';

export interface RawAnswer {
  /** 0 when the server closed the connection without an answer. */
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The connection timed out before the answer ended. */
  timedOut?: boolean;
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parse(raw: Buffer): Omit<RawAnswer, 'timedOut'> {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd < 0) return { status: 0, headers: {}, body: raw };
  const [statusLine = '', ...lines] = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(headEnd + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, body };
}

/** Whether a raw answer is whole: its Content-Length read, or its last chunk. */
function complete(raw: Buffer): boolean {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd < 0) return false;
  const head = raw.subarray(0, headEnd).toString('latin1');
  const length = /^content-length:\s*(\d+)/im.exec(head)?.[1];
  if (length !== undefined) return raw.length - headEnd - 4 >= Number(length);
  return /^transfer-encoding:\s*chunked/im.test(head) && raw.subarray(-5).toString('latin1') === '0\r\n\r\n';
}

/** Sends one request on its own connection (`Connection: close`) and reads the answer to its end. */
export function rawRequest(
  url: string,
  request: { method: string; target: string; headers?: Record<string, string>; body?: string | Buffer },
  timeoutMs = 15_000,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const body =
    request.body === undefined
      ? undefined
      : Buffer.isBuffer(request.body)
        ? request.body
        : Buffer.from(request.body, 'utf8');
  const headers: Record<string, string> = {
    host: `${hostname}:${port}`,
    connection: 'close',
    ...(body ? { 'content-length': String(body.length) } : {}),
    ...request.headers,
  };
  const head =
    `${request.method} ${request.target} HTTP/1.1\r\n` +
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    '\r\n';
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (complete(Buffer.concat(chunks))) socket.end();
    });
    // A server that refuses a request may close before it read all of it: the answer still counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ ...parse(Buffer.concat(chunks)), ...(timedOut ? { timedOut } : {}) });
    });
    socket.write(Buffer.from(head, 'latin1'));
    if (body) socket.write(body);
  });
}
