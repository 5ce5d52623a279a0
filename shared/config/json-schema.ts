// The JSON Schema of clawfleet.json, generated from the zod schema so editors can
// complete and check the file; docs/clawfleet.schema.json is its committed copy.
import * as z from '../zod.ts';
import { ConfigSchema } from './schema.ts';

export function configJsonSchema(): string {
  const schema = z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any' });
  return `${JSON.stringify({ ...schema, title: 'clawfleet.json', description: 'A clawfleet fleet: agents, models, channels and bindings. See docs/configuration.md.' }, null, 2)}\n`;
}
