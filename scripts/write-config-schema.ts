// `npm run schema`: regenerates docs/clawfleet.schema.json from the zod schema.
import { writeFileSync } from 'node:fs';
import { configJsonSchema } from '../shared/config/json-schema.ts';

writeFileSync(new URL('../docs/clawfleet.schema.json', import.meta.url), configJsonSchema());
console.log('wrote docs/clawfleet.schema.json');
