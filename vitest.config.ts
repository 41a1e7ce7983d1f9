import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'packages/*/test/**/*.test.ts',
      'bench/test/**/*.test.ts',
      'functions/test/**/*.test.ts',
      'stacks/test/**/*.test.ts',
      'containers/*/test/**/*.test.ts',
      'test/**/*.test.ts',
      'web/test/**/*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Integration tests start runtimes with their own emulators; two at a time suits a 2-core machine.
    maxWorkers: 2,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
