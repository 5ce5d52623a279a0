// The example fleet with fran on Bedrock's Converse API at a fake endpoint, and no exec: for the
// tests of how a runtime reaches Bedrock (its credentials, its HTTP versions, a proxy between).
import { readFileSync } from 'node:fs';
import { parseConfig } from '../../shared/config/load.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';

/** clawfleet.json as fleet `fleet`, fran's model `bedrock/anthropic.claude-test-v1:0` served at `baseUrl`. */
export function franOnBedrock(fleet: string, baseUrl: string): FleetConfig {
  const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  example.fleet = fleet;
  example.models.providers.bedrock = { api: 'bedrock-converse', baseUrl };
  const fran = example.agents.list.find((a: { id: string }) => a.id === 'fran');
  fran.model = 'bedrock/anthropic.claude-test-v1:0';
  fran.tools = { deny: ['exec'] };
  return parseConfig(example);
}
