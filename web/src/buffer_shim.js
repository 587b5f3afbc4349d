// @a2a-js/sdk's 0.3 compatibility layer calls Node's `Buffer` (`Buffer.isBuffer` on every
// DataPart); esbuild injects this import wherever the bundle names `Buffer`.
export { Buffer } from 'buffer';
