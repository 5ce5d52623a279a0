import { describe, expect, it } from 'vitest';
import { InMemoryAgentQueues } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryDeadLetters, InMemoryDeliveryLedger, InMemoryRelayLog, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import { processOutboxRecord, type OutboxDeps } from '../../shared/control/outbox.ts';
import { memoryLogger } from '../../shared/log.ts';

function setup(allow: { from: string; to: string }[] = [{ from: 'fran', to: 'grif' }], maxHops = 3) {
  const config = loadConfigFile('clawfleet.json');
  config.agentToAgent = { allow, maxHops };
  const queues = new InMemoryAgentQueues();
  const dlq = new InMemoryDeadLetters();
  const deps: OutboxDeps = {
    config,
    sessions: new InMemorySessionRegistry(),
    ledger: new InMemoryDeliveryLedger(),
    deadLetters: () => dlq,
    channel: async () => { throw new Error('no delivery in these tests'); },
    relay: { queues, relays: new InMemoryRelayLog() },
    clock: { now: () => 9 },
    log: memoryLogger(),
  };
  const send = (from: string, body: Record<string, unknown>) =>
    processOutboxRecord({ source: `demo-outbox-${from}.fifo`, body: JSON.stringify({ v: 1, kind: 'agent_send', agentId: from, ts: 3, ...body }), messageId: 'm' }, deps);
  const inbox = (agent: string) => queues.queue(agent).bodies().map((b) => JSON.parse(b));
  return { deps, send, inbox, dlq };
}

describe('agent-to-agent relay', () => {
  it('relays a permitted message to the target, who may answer into the asker’s session', async () => {
    const { send, inbox, dlq } = setup();
    await send('fran', { id: 'q1', sessionKey: 'agent:fran:main', toAgentId: 'grif', text: 'what is on my calendar?' });
    const [asked] = inbox('grif');
    expect(asked).toMatchObject({ kind: 'agent_message', id: 'am.q1', agentId: 'grif', fromAgentId: 'fran', replyTo: { sessionKey: 'agent:fran:main' }, hops: 1 });

    await send('grif', { id: 'a1', sessionKey: 'agent:fran:main', toAgentId: 'fran', text: 'two meetings', inReplyTo: 'am.q1' });
    expect(inbox('fran')).toEqual([expect.objectContaining({ kind: 'agent_message', sessionKey: 'agent:fran:main', fromAgentId: 'grif', inReplyTo: 'am.q1', hops: 2, text: 'two meetings' })]);
    expect(dlq.letters).toEqual([]);
  });

  it('refuses a pair that agentToAgent.allow does not permit', async () => {
    const { send, inbox, dlq } = setup();
    await send('grif', { id: 'q2', sessionKey: 'agent:grif:main', toAgentId: 'fran', text: 'hi' });
    expect(inbox('fran')).toEqual([]);
    expect(dlq.letters[0]?.reason).toMatch(/^RELAY_NOT_ALLOWED/);
  });

  it('refuses an answer from an agent that was not asked, or into another session', async () => {
    const { send, inbox, dlq } = setup([{ from: 'fran', to: 'grif' }]);
    await send('fran', { id: 'q3', sessionKey: 'agent:fran:main', toAgentId: 'grif', text: 'hi' });
    await send('ray', { id: 'a3', sessionKey: 'agent:fran:main', toAgentId: 'fran', text: 'me!', inReplyTo: 'am.q3' });
    await send('grif', { id: 'a4', sessionKey: 'agent:fran:telegram:group:1', toAgentId: 'fran', text: 'sneaky', inReplyTo: 'am.q3' });
    expect(inbox('fran')).toEqual([]);
    expect(dlq.letters.map((l) => l.reason.split(':')[0])).toEqual(['RELAY_NOT_OWNED', 'SESSION_NOT_OWNED']);
  });

  it('refuses a message sent from a session the sender does not own', async () => {
    const { send, dlq } = setup();
    await send('fran', { id: 'q5', sessionKey: 'agent:grif:main', toAgentId: 'grif', text: 'hi' });
    expect(dlq.letters[0]?.reason).toMatch(/^SESSION_NOT_OWNED/);
  });

  it('bounds an exchange by maxHops', async () => {
    const { send, inbox, dlq } = setup([{ from: 'fran', to: 'grif' }], 1);
    await send('fran', { id: 'q6', sessionKey: 'agent:fran:main', toAgentId: 'grif', text: 'hi' });
    await send('grif', { id: 'a6', sessionKey: 'agent:fran:main', toAgentId: 'fran', text: 'hello', inReplyTo: 'am.q6' });
    expect(inbox('fran')).toEqual([]);
    expect(dlq.letters[0]?.reason).toMatch(/^RELAY_TOO_DEEP/);
  });

  it('relays a redelivered request once', async () => {
    const { send, inbox } = setup();
    await send('fran', { id: 'q7', sessionKey: 'agent:fran:main', toAgentId: 'grif', text: 'hi' });
    await send('fran', { id: 'q7', sessionKey: 'agent:fran:main', toAgentId: 'grif', text: 'hi' });
    expect(inbox('grif')).toHaveLength(1);
  });
});
