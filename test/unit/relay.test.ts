// Agent-to-agent relay through the outbox core: who may ask whom, who may answer, how a
// conversation carries its hop count and its asker's origin from inbound to inbound, and
// the per-inbound and per-pair budgets.
import { describe, expect, it } from 'vitest';
import { InMemoryAgentQueues } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryInboundOrigins, InMemoryRelayRates } from '../../shared/adapters/memory/in-memory-state.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { processOutboxRecord } from '../../shared/control/outbox.ts';
import { MAX_RELAYS_PER_INBOUND, relayedId } from '../../shared/control/relay.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { memoryOutboxDeps } from '../support/outbox-deps.ts';

const ANN = { channel: 'telegram' as const, accountId: 'fran', chatId: '4242' };

function setup(a2a: Partial<NonNullable<FleetConfig['agentToAgent']>> = {}) {
  const config = loadConfigFile('clawfleet.json');
  config.agentToAgent = { allow: [{ from: 'fran', to: 'grif' }], maxHops: 3, ...a2a };
  const queues = new InMemoryAgentQueues();
  let now = 9;
  const origins = new InMemoryInboundOrigins(() => now);
  const rates = new InMemoryRelayRates();
  const { deps, dlq } = memoryOutboxDeps({
    config,
    origins,
    channel: async () => {
      throw new Error('no delivery in these tests');
    },
    relay: { queues, rates },
    clock: { now: () => now },
  });
  // Ann's message to fran (tg.fran.7) and Bo's to grif (tg.grif.8), as the webhook records them.
  void origins.put({ id: 'tg.fran.7', agentId: 'fran', sessionKey: 'agent:fran:main', target: ANN, createdAt: 1, expiresAt: 10_000_000 });
  void origins.put({
    id: 'tg.grif.8',
    agentId: 'grif',
    sessionKey: 'agent:grif:main',
    target: { channel: 'telegram', accountId: 'grif', chatId: '5151' },
    createdAt: 1,
    expiresAt: 10_000_000,
  });
  const send = (from: string, body: Record<string, unknown>) =>
    processOutboxRecord(
      {
        source: `demo-outbox-${from}.fifo`,
        body: JSON.stringify({ v: PROTOCOL_VERSION, kind: 'agent_send', agentId: from, sessionKey: `agent:${from}:main`, ts: 3, ...body }),
        messageId: 'm',
      },
      deps,
    );
  const inbox = (agent: string) =>
    queues
      .queue(agent)
      .bodies()
      .map((b) => JSON.parse(b));
  const codes = () => dlq.letters.map((l) => l.reason.split(':')[0]);
  return { deps, send, inbox, dlq, codes, origins, rates, advance: (ms: number) => void (now += ms) };
}

describe('agent-to-agent relay', () => {
  it('relays a permitted question; the target’s answer comes back into the asker’s session, for the person who started it', async () => {
    const { send, inbox, dlq, origins } = setup();
    await send('fran', { id: 'q1', inboundId: 'tg.fran.7', toAgentId: 'grif', text: 'what is on my calendar?' });
    const [asked] = inbox('grif');
    expect(asked).toMatchObject({
      kind: 'agent_message',
      id: 'am.fran.q1',
      agentId: 'grif',
      sessionKey: 'agent:grif:main',
      fromAgentId: 'fran',
      replyTo: { sessionKey: 'agent:fran:main' },
      hops: 1,
    });
    // Nobody hears grif's turn but fran: a reply to it reaches no one.
    expect(await origins.get('am.fran.q1')).toMatchObject({
      agentId: 'grif',
      target: { channel: 'none' },
      hops: 1,
      conversationId: 'tg.fran.7',
      askedBy: { agentId: 'fran', sessionKey: 'agent:fran:main', target: ANN },
    });

    // As the runtime answers: into the asker's session, naming the question it is on.
    await send('grif', { id: 'a1', inboundId: 'am.fran.q1', inReplyTo: 'am.fran.q1', sessionKey: 'agent:fran:main', toAgentId: 'fran', text: 'two meetings' });
    expect(inbox('fran')).toEqual([
      expect.objectContaining({
        kind: 'agent_message',
        id: 'am.grif.a1',
        sessionKey: 'agent:fran:main',
        fromAgentId: 'grif',
        inReplyTo: 'am.fran.q1',
        hops: 2,
        text: 'two meetings',
      }),
    ]);
    // fran's reply about the answer goes to Ann, whose message started the exchange.
    expect(await origins.get('am.grif.a1')).toMatchObject({
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      target: ANN,
      hops: 2,
      conversationId: 'tg.fran.7',
    });
    expect(dlq.letters).toEqual([]);
  });

  it('refuses a pair that agentToAgent.allow does not permit', async () => {
    const { send, inbox, codes } = setup();
    await send('grif', { id: 'q2', inboundId: 'tg.grif.8', toAgentId: 'fran', text: 'hi' });
    expect(inbox('fran')).toEqual([]);
    expect(codes()).toEqual(['RELAY_NOT_ALLOWED']);
  });

  it('refuses a request naming an inbound the sender never received, or another agent’s, or from another session', async () => {
    const { send, inbox, codes } = setup();
    await send('fran', { id: 'q3', inboundId: 'tg.fran.999', toAgentId: 'grif', text: 'hi' });
    await send('fran', { id: 'q4', inboundId: 'tg.grif.8', toAgentId: 'grif', text: 'hi' });
    await send('fran', { id: 'q5', inboundId: 'tg.fran.7', sessionKey: 'agent:fran:telegram:group:1', toAgentId: 'grif', text: 'hi' });
    await send('fran', { id: 'q6', inboundId: 'tg.fran.7', sessionKey: 'agent:grif:main', toAgentId: 'grif', text: 'hi' });
    expect(inbox('grif')).toEqual([]);
    expect(codes()).toEqual(['ORIGIN_UNKNOWN', 'ORIGIN_NOT_OWNED', 'ORIGIN_NOT_OWNED', 'ORIGIN_NOT_OWNED']);
  });

  it('lets only the asked agent answer, only the question its turn is on, only into the asker’s session, and never an answer', async () => {
    const { send, inbox, codes } = setup({
      allow: [
        { from: 'fran', to: 'grif' },
        { from: 'ray', to: 'fran' },
      ],
    });
    await send('fran', { id: 'q7', inboundId: 'tg.fran.7', toAgentId: 'grif', text: 'hi' });
    // ray was not asked: the question's origin is grif's.
    await send('ray', { id: 'a2', inboundId: 'am.fran.q7', inReplyTo: 'am.fran.q7', sessionKey: 'agent:fran:main', toAgentId: 'fran', text: 'me!' });
    // grif answers, but into a session fran did not ask from.
    await send('grif', {
      id: 'a3',
      inboundId: 'am.fran.q7',
      inReplyTo: 'am.fran.q7',
      sessionKey: 'agent:fran:telegram:group:1',
      toAgentId: 'fran',
      text: 'sneaky',
    });
    // grif answers a question from its turn on Bo's message.
    await send('grif', { id: 'a4', inboundId: 'tg.grif.8', inReplyTo: 'am.fran.q7', sessionKey: 'agent:fran:main', toAgentId: 'fran', text: 'crossed' });
    // grif "answers" Bo's message, which is no question from an agent.
    await send('grif', { id: 'a5', inboundId: 'tg.grif.8', inReplyTo: 'tg.grif.8', sessionKey: 'agent:fran:main', toAgentId: 'fran', text: 'hi' });
    // grif answers, to ray, who did not ask.
    await send('grif', { id: 'a6', inboundId: 'am.fran.q7', inReplyTo: 'am.fran.q7', sessionKey: 'agent:fran:main', toAgentId: 'ray', text: 'hi' });
    expect(inbox('fran')).toEqual([]);
    expect(codes()).toEqual(['ORIGIN_NOT_OWNED', 'SESSION_NOT_OWNED', 'RELAY_NOT_OWNED', 'RELAY_UNKNOWN', 'RELAY_NOT_OWNED']);

    await send('grif', { id: 'a7', inboundId: 'am.fran.q7', inReplyTo: 'am.fran.q7', sessionKey: 'agent:fran:main', toAgentId: 'fran', text: 'answer' });
    expect(inbox('fran')).toHaveLength(1);
    // And fran cannot answer the answer: it was no question.
    await send('fran', { id: 'a8', inboundId: 'am.grif.a7', inReplyTo: 'am.grif.a7', sessionKey: 'agent:grif:main', toAgentId: 'grif', text: 'thanks!' });
    expect(codes().at(-1)).toBe('RELAY_UNKNOWN');
  });

  it('bounds the whole conversation by maxHops: a question asked from a relayed turn carries the hop count on', async () => {
    const { send, inbox, codes, origins } = setup({
      allow: [
        { from: 'fran', to: 'grif' },
        { from: 'grif', to: 'fran' },
      ],
      maxHops: 3,
    });
    await send('fran', { id: 'q8', inboundId: 'tg.fran.7', toAgentId: 'grif', text: 'forward this to fran' });
    await send('grif', { id: 'q9', inboundId: 'am.fran.q8', toAgentId: 'fran', text: 'forward this to grif' });
    await send('fran', { id: 'q10', inboundId: 'am.grif.q9', toAgentId: 'grif', text: 'forward this to fran' });
    await send('grif', { id: 'q11', inboundId: 'am.fran.q10', toAgentId: 'fran', text: 'forward this to grif' });
    expect([...inbox('grif'), ...inbox('fran')].map((m) => [m.id, m.hops])).toEqual([
      ['am.fran.q8', 1],
      ['am.fran.q10', 3],
      ['am.grif.q9', 2],
    ]);
    expect(codes()).toEqual(['RELAY_TOO_DEEP']);
    expect(await origins.get('am.fran.q10')).toMatchObject({ conversationId: 'tg.fran.7', hops: 3 });
  });

  it('relays a redelivered request once, counting it once', async () => {
    const { send, inbox, origins } = setup();
    await send('fran', { id: 'q12', inboundId: 'tg.fran.7', toAgentId: 'grif', text: 'hi' });
    await send('fran', { id: 'q12', inboundId: 'tg.fran.7', toAgentId: 'grif', text: 'hi' });
    expect(inbox('grif')).toHaveLength(1);
    expect(origins.records.get('tg.fran.7')?.relays).toBe(1);
  });

  it('refuses a request id used again for another target', async () => {
    const { send, codes } = setup({
      allow: [
        { from: 'fran', to: 'grif' },
        { from: 'fran', to: 'ray' },
      ],
    });
    await send('fran', { id: 'q13', inboundId: 'tg.fran.7', toAgentId: 'grif', text: 'hi' });
    await send('fran', { id: 'q13', inboundId: 'tg.fran.7', toAgentId: 'ray', text: 'hi' });
    expect(codes()).toEqual(['RELAY_ID_REUSED']);
  });

  it('keeps one agent’s request ids from landing on another agent’s relays', () => {
    expect(relayedId('fran', 'x')).not.toBe(relayedId('grif', 'x'));
    expect(relayedId('fran', 'y'.repeat(200))).toMatch(/^am\.fran\.[0-9a-f]{40}$/);
  });

  it('lets one inbound cause only so many relays', async () => {
    const { send, inbox, codes, dlq } = setup();
    for (let i = 0; i < MAX_RELAYS_PER_INBOUND + 2; i++) await send('fran', { id: `f${i}`, inboundId: 'tg.fran.7', toAgentId: 'grif', text: `n${i}` });
    expect(inbox('grif')).toHaveLength(MAX_RELAYS_PER_INBOUND);
    expect(codes()).toEqual(['RELAY_FANOUT_LIMIT', 'RELAY_FANOUT_LIMIT']);
    expect(dlq.letters[0]?.reason).toMatch(/inbound "tg\.fran\.7" has already caused 10 agent messages/);
  });

  it('limits each ordered pair to agentToAgent.rateLimit per window, and lets it go on in the next window', async () => {
    const { send, inbox, codes, origins, advance } = setup({ rateLimit: { max: 3, perMinutes: 1 } });
    for (let i = 0; i < 5; i++) {
      await origins.put({ id: `tg.fran.${100 + i}`, agentId: 'fran', sessionKey: 'agent:fran:main', target: ANN, createdAt: 1, expiresAt: 10_000_000 });
      await send('fran', { id: `r${i}`, inboundId: `tg.fran.${100 + i}`, toAgentId: 'grif', text: 'hi' });
    }
    expect(inbox('grif')).toHaveLength(3);
    expect(codes()).toEqual(['RELAY_RATE_LIMITED', 'RELAY_RATE_LIMITED']);
    advance(60_000);
    await send('fran', { id: 'r5', inboundId: 'tg.fran.104', toAgentId: 'grif', text: 'hi' });
    expect(inbox('grif')).toHaveLength(4);
  });
});
