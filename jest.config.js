/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // @middy/* 6.x ships ESM only; let swc turn it into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  // Log lines and the SDK's Node version notice off in every test process (test/support/quiet-output.ts).
  // Each worker's test files use a DynamoDB Local the worker starts (test/support/worker-store.ts).
  setupFiles: ['<rootDir>/test/support/quiet-output.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Two files run at a time on two cores: a test that takes 25 s alone may take twice that in the run.
  testTimeout: 60000,
  // Two test files at a time, each worker with a DynamoDB Local of its own: on a 2-core machine many tests wait
  // (on time-outs, leases, restarts) while others compute; 28 integration files took 145 s instead of 206 s.
  maxWorkers: 2,
  // A worker is replaced once it holds more than this after a file: every file loads its own copy of the AWS
  // SDK and the handlers, and one process that kept them all grew by ~13 MB a file, measured, while late suites
  // ran up to 14 times slower than alone.
  workerIdleMemoryLimit: '512MB',
};
