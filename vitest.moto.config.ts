/**
 * `npm run test:moto`: the integration tests of the admin, upload, presigned-upload, search, event and
 * delete routes against moto, a second AWS emulator independent of the runtime's own (started and stopped by
 * test/support/moto.ts): the runtimes get AWS_ENDPOINT_URL, start no emulators, and provision their tables,
 * queues, buckets and bucket notifications there, as against LocalStack or AWS.
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config';

export default defineConfig({
  test: {
    ...base.test,
    include: [
      'test/runtime.integration.test.ts',
      'test/admin-validation.integration.test.ts',
      'test/ingestion.integration.test.ts',
      'test/search.integration.test.ts',
      'test/events.integration.test.ts',
      // Not test/events-outage.integration.test.ts: it ends the store by stopping the runtime that holds
      // the emulators, and moto outlives every runtime.
    ],
    globalSetup: ['test/support/moto.ts'],
  },
});
