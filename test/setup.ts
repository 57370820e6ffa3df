// Loaded by mocha before every spec file (see .mocharc.json).
import 'reflect-metadata';

process.env.LOG_LEVEL ??= 'silent';
// Services and tools that tests start provision streams sized for a test (contracts/catalog.ts STREAM_LIMITS):
// JetStream reserves each stream's max_bytes, and production sizes would let only a few test files run at once.
process.env.NATS_STREAM_LIMITS ??= 'test';
