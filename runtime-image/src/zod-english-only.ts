// What the runtime bundle puts where zod imports all its locales (build.mjs): English alone,
// the one zod sets by default and the only one the runtime's messages use. The other ~50
// are a third of zod in the bundle, parsed at every start and kept in memory for nothing.
export { default as en } from 'zod/v4/locales/en.js';
