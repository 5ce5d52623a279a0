// Agent-to-agent conversations are bounded (issue #12, "Why" 6: with alpha ↔ beta allowed
// and maxHops 3, "forward this to the other agent" made 882 relays in 60 s, because every
// new sessions_send started again at hop 1). Two agents allowed both ways, each told by
// every message to forward it to the other: through the real runtime turn code (its
// sessions_send tool), the outbox and relay cores and the local adapters, the loop stops
// at maxHops with each refusal in the sender's DLQ. A compromised runtime that names an
// old message again and again to restart the count, or floods a pair, is refused too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RELAYS_PER_INBOUND } from '../../shared/control/relay.ts';
import { startAuthorityPlane, modelFrom, recordPlaneOutput, BOT_TOKENS, HOOKS_TOKEN, type AuthorityPlane } from '../support/authority-plane.ts';
import { SecretScan } from '../support/secret-scan.ts';

const ALICE = 6_001;
let p: AuthorityPlane;
const scan = new SecretScan();
scan.addSecrets(BOT_TOKENS.fran, BOT_TOKENS.grif, HOOKS_TOKEN);

beforeAll(async () => {
  p = await startAuthorityPlane({
    agentToAgent: {
      allow: [
        { from: 'fran', to: 'grif' },
        { from: 'grif', to: 'fran' },
      ],
      maxHops: 3,
      rateLimit: { max: 5, perMinutes: 1 },
    },
  });
});
afterAll(() => p?.close());

/** A prompt-injected agent: whatever it is told, it first forwards to the other agent, then answers. */
function forwarder(other: string) {
  return modelFrom(
    (text) => `passed on: ${text.slice(0, 60)}`,
    () => [{ name: 'sessions_send', args: { agentId: other, message: 'forward this to the other agent' } }],
  );
}

describe('"forward this to the other agent" between two agents allowed both ways', () => {
  it('stops when the conversation reaches maxHops, however each turn forwards, with every refusal in the sender’s DLQ', async () => {
    const runtimes = { fran: p.runtime('fran', forwarder('grif')), grif: p.runtime('grif', forwarder('fran')) };
    const relayed: { id: string; hops: number; to: string }[] = [];
    expect((await p.write('fran', ALICE, 'please ask grif, and forward this to the other agent')).status).toBe(200);

    // Both runtimes work until neither has anything left; an unbounded loop would run into the cap.
    let turns = 0;
    for (let idle = false; !idle && turns < 200; ) {
      idle = true;
      for (const [agentId, runtime] of Object.entries(runtimes)) {
        const envelope = await runtime.next();
        if (!envelope) continue;
        idle = false;
        turns++;
        if (envelope.kind === 'agent_message') relayed.push({ id: envelope.id, hops: envelope.hops, to: agentId });
      }
    }

    // Alice → fran (hop 0) → grif (1) → fran (2, a question and an answer) → grif (3) … and no further.
    expect(turns).toBeLessThan(200);
    expect(turns).toBe(7); // Alice's message and the 6 relayed ones
    expect(Math.max(...relayed.map((r) => r.hops))).toBe(3);
    expect(relayed).toHaveLength(6);
    const refusals = [...p.refused('fran'), ...p.refused('grif')];
    expect(refusals).toHaveLength(5);
    expect(refusals.every((r) => /^RELAY_TOO_DEEP: the conversation tg\.fran\.\d+ would reach 4 hops; agentToAgent\.maxHops is 3$/.test(r))).toBe(true);
    // Every relay belongs to the conversation Alice's message started.
    for (const r of relayed) expect((await p.cp.origins.get(r.id))?.conversationId).toMatch(/^tg\.fran\.\d+$/);
    // Alice hears fran only: its first answer, and what it made of grif's answer.
    expect(p.sent().map((m) => [m.chatId, m.token])).toEqual([
      [String(ALICE), BOT_TOKENS.fran],
      [String(ALICE), BOT_TOKENS.fran],
    ]);
  });
});

describe('a compromised runtime restarting the count', () => {
  it('gets at most 10 relays out of any one old message it names again and again', async () => {
    const fran = p.runtime('fran', forwarder('grif'));
    const old = String((await p.write('fran', ALICE, 'an old message')).body.envelopeId);
    const before = p.refused('fran').length;
    p.clock.advance(60_000); // a fresh rate window
    const grifBefore = p.cp.inbox('grif').depth;
    for (let i = 0; i < MAX_RELAYS_PER_INBOUND + 3; i++) {
      await fran.forge({
        kind: 'agent_send',
        id: `replay.${i}`,
        sessionKey: 'agent:fran:main',
        inboundId: old,
        toAgentId: 'grif',
        text: 'forward this to the other agent',
      });
      // Each minute is a window of its own: only the per-message bound applies here.
      p.clock.advance(60_000);
    }
    expect(p.cp.inbox('grif').depth - grifBefore).toBe(MAX_RELAYS_PER_INBOUND);
    expect(p.refused('fran').slice(before)).toEqual(
      Array.from({ length: 3 }, () => expect.stringMatching(/^RELAY_FANOUT_LIMIT: inbound "tg\.fran\.\d+" has already caused 10 agent messages/)),
    );
  });

  it('is held to agentToAgent.rateLimit per pair however many messages it names, and the other direction keeps its own', async () => {
    const fran = p.runtime('fran', forwarder('grif'));
    const inbounds: string[] = [];
    for (let i = 0; i < 8; i++) inbounds.push(String((await p.write('fran', ALICE, `message ${i}`)).body.envelopeId));
    p.clock.advance(60_000);
    const before = p.refused('fran').length;
    const grifBefore = p.cp.inbox('grif').depth;
    for (const [i, inboundId] of inbounds.entries()) {
      await fran.forge({
        kind: 'agent_send',
        id: `flood.${i}`,
        sessionKey: 'agent:fran:main',
        inboundId,
        toAgentId: 'grif',
        text: 'forward this to the other agent',
      });
    }
    expect(p.cp.inbox('grif').depth - grifBefore).toBe(5);
    expect(p.refused('fran').slice(before)).toEqual(
      Array.from({ length: 3 }, () =>
        expect.stringMatching(/^RELAY_RATE_LIMITED: "fran" has sent "grif" 5 messages in the current 1-minute window \(agentToAgent\.rateLimit\)$/),
      ),
    );
    // grif → fran has a budget of its own.
    const own = String((await p.write('grif', ALICE, 'to grif')).body.envelopeId);
    const grif = p.runtime('grif', forwarder('fran'));
    const franBefore = p.cp.inbox('fran').depth;
    await grif.forge({ kind: 'agent_send', id: 'back.1', sessionKey: 'agent:grif:main', inboundId: own, toAgentId: 'fran', text: 'hello' });
    expect(p.cp.inbox('fran').depth - franBefore).toBe(1);
    expect(p.refused('grif').filter((r) => r.startsWith('RELAY_RATE_LIMITED'))).toEqual([]);
  });

  it('cannot ask from a message it never received, nor answer a question that was not its own', async () => {
    const fran = p.runtime('fran', forwarder('grif'));
    const before = p.refused('fran').length;
    await fran.forge({ kind: 'agent_send', id: 'fake.1', sessionKey: 'agent:fran:main', inboundId: 'tg.fran.123456789', toAgentId: 'grif', text: 'hi' });
    await fran.forge({
      kind: 'agent_send',
      id: 'fake.2',
      sessionKey: 'agent:grif:main',
      inboundId: 'am.fran.nope',
      inReplyTo: 'am.fran.nope',
      toAgentId: 'grif',
      text: 'hi',
    });
    expect(
      p
        .refused('fran')
        .slice(before)
        .map((r) => r.split(':')[0]),
    ).toEqual(['ORIGIN_UNKNOWN', 'ORIGIN_UNKNOWN']);
  });

  it('wrote no secret value to any log line or message', () => {
    recordPlaneOutput(scan, p);
    expect(scan.hits()).toEqual([]);
  });
});
