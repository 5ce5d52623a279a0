// The zod every shared schema is written in: zod/mini, whose functions esbuild leaves out
// when unused (so a Lambda carries only the schema kinds it parses with), with zod's English
// messages, the ones classic zod sets, so a config or envelope error reads the same in the
// CLI, the runtime and every Lambda. Import it as `import * as z from '../zod.ts'`.
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';
