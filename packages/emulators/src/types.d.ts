declare module 'dynalite' {
  import type { Server } from 'node:http';
  export default function dynalite(options?: {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
  }): Server;
}

declare module 's3rver' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  import type { AddressInfo } from 'node:net';
  export default class S3rver {
    constructor(options: {
      port?: number;
      address?: string;
      directory: string;
      silent?: boolean;
      allowMismatchedSignatures?: boolean;
      vhostBuckets?: boolean;
      resetOnClose?: boolean;
    });
    run(): Promise<AddressInfo>;
    /** The Koa request handler, for serving without a listener of its own. */
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    close(): Promise<void>;
  }
}
