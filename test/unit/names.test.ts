// Per-agent names and the IAM patterns over them stay inside their fleet: no fleet's
// pattern matches a name another valid fleet can make, whatever its agents are called.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load.ts';
import {
  agentDlqName,
  agentIdFromOutbox,
  agentQueueName,
  agentStackName,
  controlPlaneStackName,
  fleetNameProblem,
  namePatterns,
  outboxDlqName,
  outboxQueueName,
} from '../../shared/config/names.ts';
import { ConfigError } from '../../shared/errors.ts';

const EXAMPLE_CONFIG = JSON.parse(readFileSync(new URL('../../clawfleet.json', import.meta.url), 'utf8'));

/** IAM's wildcard matching: `*` any run of characters, `?` exactly one, the rest literal. */
const iamMatches = (pattern: string, name: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  ).test(name);

/** Names an attacker would pick to reach into a neighbour: the words, prefixes of them, hyphen games. */
const FLEETS = ['demo', 'demo-x', 'demo-agents', 'demo-outboxes', 'de', 'demo--x', 'demo-', 'd', 'prod', 'x-demo'];
const AGENT_IDS = ['fran', 'x', 'agent', 'outbox', 'agent-x', 'x-agent-y', 'outbox-jerry', 'agent-agent', 'fran-dl', 'a-', 'demo'];

const namesOf = (fleet: string, agentId: string) => [
  agentQueueName(fleet, agentId),
  agentDlqName(fleet, agentId),
  outboxQueueName(fleet, agentId),
  outboxDlqName(fleet, agentId),
  agentStackName(fleet, agentId),
  controlPlaneStackName(fleet),
];

describe('fleet names', () => {
  it('refuse "agent" and "outbox" as words between hyphens, and allow them inside words', () => {
    for (const bad of ['demo-agent-x', 'agent', 'agent-x', 'x-agent', 'my-outbox', 'outbox-prod'])
      expect(fleetNameProblem(bad), bad).toMatch(/must not contain the word/);
    for (const ok of FLEETS) expect(fleetNameProblem(ok), ok).toBeUndefined();
  });

  it('are refused by the config parser with their path', () => {
    expect(() => parseConfig({ ...EXAMPLE_CONFIG, fleet: 'team-agent-fleet' })).toThrow(ConfigError);
    try {
      parseConfig({ ...EXAMPLE_CONFIG, fleet: 'team-agent-fleet' });
    } catch (err) {
      expect((err as ConfigError).issues).toEqual([{ path: 'fleet', message: expect.stringMatching(/the word "agent"/) }]);
    }
  });
});

describe('a fleet’s name patterns', () => {
  it('match every per-agent name of their own fleet', () => {
    for (const fleet of FLEETS) {
      const p = namePatterns(fleet);
      for (const id of AGENT_IDS) {
        expect(iamMatches(p.agentQueues, agentQueueName(fleet, id))).toBe(true);
        expect(iamMatches(p.agentDlqs, agentDlqName(fleet, id))).toBe(true);
        expect(iamMatches(p.outboxes, outboxQueueName(fleet, id))).toBe(true);
        expect(iamMatches(p.outboxDlqs, outboxDlqName(fleet, id))).toBe(true);
        expect(iamMatches(p.agentStacks, agentStackName(fleet, id))).toBe(true);
      }
    }
  });

  it('match no name of any other valid fleet, whatever its agents are called', () => {
    const leaks: string[] = [];
    for (const mine of FLEETS) {
      for (const other of FLEETS.filter((f) => f !== mine)) {
        for (const id of AGENT_IDS) {
          for (const name of namesOf(other, id)) {
            for (const [kind, pattern] of Object.entries(namePatterns(mine)))
              if (iamMatches(pattern, name)) leaks.push(`${mine}.${kind} matches ${name} of fleet ${other}`);
          }
        }
      }
    }
    expect(leaks).toEqual([]);
  });

  it('would leak without the fleet-name rule: "demo" reaches a fleet named "demo-agent-x"', () => {
    // The case the rule exists for; fleetNameProblem refuses the second fleet's name.
    expect(iamMatches(namePatterns('demo').agentQueues, agentQueueName('demo-agent-x', 'jerry'))).toBe(true);
    expect(fleetNameProblem('demo-agent-x')).toBeDefined();
  });
});

describe('agentIdFromOutbox', () => {
  it('reads the agent from its outbox’s URL or ARN, ids with the words in them included', () => {
    expect(agentIdFromOutbox('demo', 'https://sqs.us-east-1.amazonaws.com/111122223333/demo-outbox-fran.fifo')).toBe('fran');
    expect(agentIdFromOutbox('demo', 'arn:aws:sqs:us-east-1:111122223333:demo-outbox-x-outbox-y.fifo')).toBe('x-outbox-y');
    expect(agentIdFromOutbox('demo', 'arn:aws:sqs:us-east-1:111122223333:demo-outbox-agent.fifo')).toBe('agent');
  });

  it('refuses another fleet’s outbox, a DLQ, a standard queue and names no agent id can have', () => {
    for (const queue of [
      'demo-x-outbox-fran.fifo',
      'prod-outbox-fran.fifo',
      'demo-outbox-fran-dlq.fifo',
      'demo-outbox-fran',
      'demo-outbox-.fifo',
      'demo-outbox-Fran.fifo',
      'demo-outbox-1fran.fifo',
      'demo-agent-fran.fifo',
    ]) {
      expect(agentIdFromOutbox('demo', `arn:aws:sqs:us-east-1:111122223333:${queue}`), queue).toBeUndefined();
    }
  });
});
