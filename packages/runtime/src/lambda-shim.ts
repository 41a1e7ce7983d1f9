/**
 * What the Lambda Node.js runtime gives a handler that the local runtime must give too: the `awslambda`
 * global for response streaming, and the invocation context.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Context } from 'aws-lambda';

const STREAMING = Symbol.for('tessera.streamingHandler');

export interface StreamMetadata {
  statusCode?: number;
  headers?: Record<string, string>;
  cookies?: string[];
}

/** The writable a streaming handler receives; metadata set through `HttpResponseStream.from`. */
export class ResponseStream extends Writable {
  metadata: StreamMetadata = {};

  constructor(
    private readonly sink: {
      open(metadata: StreamMetadata): void;
      write(chunk: Buffer, done: (error?: Error | null) => void): void;
      end(): void;
    },
  ) {
    super();
  }

  private opened = false;

  private open(): void {
    if (this.opened) return;
    this.opened = true;
    this.sink.open(this.metadata);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.open();
    this.sink.write(chunk, done);
  }

  override _final(done: (error?: Error | null) => void): void {
    this.open();
    this.sink.end();
    done();
  }
}

type StreamingHandler = (event: unknown, stream: ResponseStream, context: Context) => Promise<unknown>;

/**
 * Adds response streaming to the `awslambda` global. Other libraries create that global too (the AWS SDK's
 * invoke store does), so the shim fills in what is missing rather than assuming it is alone.
 */
export function installAwsLambdaGlobal(): void {
  const global = globalThis as { awslambda?: Record<string, unknown> };
  const target = global.awslambda ?? {};
  target.streamifyResponse ??= (handler: StreamingHandler) => {
    Object.defineProperty(handler, STREAMING, { value: true });
    return handler;
  };
  target.HttpResponseStream ??= {
    from(stream: ResponseStream, metadata: StreamMetadata) {
      stream.metadata = metadata;
      return stream;
    },
  };
  global.awslambda = target;
}

export function isStreamingHandler(handler: unknown): handler is StreamingHandler {
  return typeof handler === 'function' && (handler as unknown as Record<symbol, unknown>)[STREAMING] === true;
}

export function lambdaContext(functionName: string, timeoutSeconds: number): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
