// Node flags the service runs with (package.json's `service` and `demo` scripts, the bench's
// indexer child). The indexer streams blocks and its live heap stays far below this; without a
// cap V8 lets garbage from large blocks pile up on a machine with much memory.
export const SERVICE_NODE_FLAGS = ['--max-old-space-size=192'] as const;
