// The pinned OpenClaw and Node 24 the benches compare against and run on: the product's
// installer (local/openclaw-install.ts), re-exported where the benches have always found it.
export * from '../local/openclaw-install.ts';
