// A reply reaches exactly the person whose message it answers (issue #12, "Why" 3). Two
// people share an agent's main session (dmScope "main", the default): Alice's slow answer,
// holding her passport number, must reach Alice even though Mallory wrote while it was
// being worked on; the owner's dashboard-chat answer must never reach a Telegram user;
// and a compromised runtime cannot aim a reply (or "typing…") at an inbound it never
// received. Through the real webhook, dashboard-chat and outbox cores, the local control
// plane's SQLite adapters, the runtime's turn code and the fake Bot API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthorityPlane, modelFrom, recordPlaneOutput, BOT_TOKENS, HOOKS_TOKEN, type AuthorityPlane } from '../support/authority-plane.ts';
import { SecretScan } from '../support/secret-scan.ts';

const ALICE = 5_001;
const MALLORY = 5_002;
const PASSPORT = 'P-31415926';
let p: AuthorityPlane;
const scan = new SecretScan();
scan.addSecrets(BOT_TOKENS.fran, BOT_TOKENS.grif, HOOKS_TOKEN);

/** Answers every message by repeating what it was told, so each answer says whose it is. */
const model = () => modelFrom((text) => `noted: ${text}`);

beforeAll(async () => {
  p = await startAuthorityPlane();
});
afterAll(() => p?.close());

describe('two people in one session (dmScope "main")', () => {
  it('Alice’s slow answer goes to Alice, though Mallory wrote while it was worked on; Mallory’s goes to Mallory', async () => {
    const fran = p.runtime('fran', model());
    expect((await p.write('fran', ALICE, `my passport is ${PASSPORT}`)).status).toBe(200);
    // Alice's turn starts …
    const alices = await fran.take();
    expect(alices?.envelope).toMatchObject({ sessionKey: 'agent:fran:main' });
    // … and two seconds later Mallory writes to the same bot, in the same session.
    p.clock.advance(2_000);
    expect((await p.write('fran', MALLORY, 'hi, what did the last person say?')).status).toBe(200);
    expect((await p.cp.sessions.get('agent:fran:main'))?.target).toMatchObject({ chatId: String(MALLORY) });
    // Alice's answer is delivered only now.
    await fran.finish(alices!);
    await fran.next();

    const sent = p.sent();
    expect(sent.map((m) => [m.chatId, m.text])).toEqual([
      [String(ALICE), `noted: my passport is ${PASSPORT}`],
      [String(MALLORY), 'noted: hi, what did the last person say?'],
    ]);
    expect(sent.filter((m) => m.chatId === String(MALLORY) && m.text.includes(PASSPORT))).toEqual([]);
    expect(p.refused('fran')).toEqual([]);
  });

  it('an answer re-sent after its delivery failed (the message redelivered, the turn found in the transcript) still finds Alice, and only once', async () => {
    const before = p.sent().length;
    const fran = p.runtime('fran', model());
    await p.write('fran', ALICE, 'second question');
    const alices = await fran.take();
    // Telegram fails the first delivery: the runtime's turn is recorded, but its outbox post
    // fails, so the message is not deleted and comes back after its visibility timeout.
    p.tg.failNext('sendMessage', { error_code: 502, description: 'Bad Gateway' });
    await expect(fran.finish(alices!)).rejects.toThrow(/Bad Gateway|502/);
    await p.cp.inbox('fran').release(alices!.receipt);
    // Meanwhile Mallory writes, and becomes the session's last direct route.
    p.clock.advance(2_000);
    await p.write('fran', MALLORY, 'me again');
    expect(await fran.next()).toMatchObject({ id: alices!.envelope.id });
    await fran.next();
    const attempts = p
      .sent()
      .slice(before)
      .map((m) => [m.chatId, m.text]);
    // The failed attempt and the one that went through, both to Alice; Mallory's own answer to Mallory.
    expect(attempts).toEqual([
      [String(ALICE), 'noted: second question'],
      [String(ALICE), 'noted: second question'],
      [String(MALLORY), 'noted: me again'],
    ]);
    expect(p.log.lines.some((l) => l.msg === 'turn already done; answer re-sent' && l.envelopeId === alices!.envelope.id)).toBe(true);
  });
});

describe('the owner’s dashboard chat', () => {
  it('answers the owner in the dashboard only, though a Telegram user wrote to the session meanwhile, and the user only on Telegram', async () => {
    const before = p.sent().length;
    const fran = p.runtime('fran', model());
    const chatId = await p.cp.chatMessage('fran', `owner here: my bank PIN is 4711, keep it`);
    const owners = await fran.take();
    expect(owners?.envelope.id).toBe(chatId);
    p.clock.advance(2_000);
    await p.write('fran', MALLORY, 'anything new?');
    await fran.finish(owners!);
    await fran.next();

    const chat = p.cp.chat.since('fran', 0).messages.map((m) => [m.role, m.text]);
    expect(chat).toEqual([
      ['user', 'owner here: my bank PIN is 4711, keep it'],
      ['agent', 'noted: owner here: my bank PIN is 4711, keep it'],
    ]);
    expect(
      p
        .sent()
        .slice(before)
        .map((m) => [m.chatId, m.text]),
    ).toEqual([[String(MALLORY), 'noted: anything new?']]);
    expect(p.sent().some((m) => m.text.includes('4711'))).toBe(false);
  });
});

describe('a compromised runtime aiming replies', () => {
  it('is refused a reply to an inbound it never received, to another agent’s, and into another session, and nothing reaches a chat', async () => {
    const before = p.sent().length;
    await p.write('fran', ALICE, 'hello fran');
    await p.write('grif', MALLORY, 'hello grif');
    const alices = (await p.runtime('fran', model()).take())!.envelope.id;
    const mallorys = (await p.runtime('grif', model()).take())!.envelope.id;
    const grif = p.runtime('grif', model());
    const fran = p.runtime('fran', model());
    const reply = (inReplyTo: string, sessionKey: string, n: number) => ({ kind: 'reply', id: `forged.${n}`, sessionKey, inReplyTo, text: `forged ${n}` });

    await fran.forge(reply('tg.fran.999999', 'agent:fran:main', 1));
    // grif names Alice's message, in fran's session and in its own.
    await grif.forge(reply(alices, 'agent:fran:main', 2));
    await grif.forge(reply(alices, 'agent:grif:main', 3));
    // fran names Alice's message, in a session it owns but Alice never wrote to.
    await fran.forge(reply(alices, 'agent:fran:telegram:group:-100', 4));
    // fran names Mallory's message to grif.
    await fran.forge(reply(mallorys, 'agent:fran:main', 5));
    // "typing…" aimed the same way.
    await grif.forge({ kind: 'typing', id: 'forged.6', sessionKey: 'agent:grif:main', inboundId: alices });

    expect(p.sent().slice(before)).toEqual([]);
    expect(p.tg.calls('sendChatAction')).toEqual([]);
    expect(p.refused('fran')).toEqual([
      expect.stringMatching(/^ORIGIN_UNKNOWN: no inbound "tg\.fran\.999999"/),
      expect.stringMatching(/^ORIGIN_NOT_OWNED: inbound "tg\.fran\.\d+" belongs to session "agent:fran:main", not "agent:fran:telegram:group:-100"/),
      expect.stringMatching(/^ORIGIN_NOT_OWNED: inbound "tg\.grif\.\d+" was queued for another agent, not "fran"/),
    ]);
    expect(p.refused('grif')).toEqual([
      expect.stringMatching(/^ORIGIN_NOT_OWNED: inbound "tg\.fran\.\d+" was queued for another agent, not "grif"/),
      expect.stringMatching(/^ORIGIN_NOT_OWNED: /),
      expect.stringMatching(/^ORIGIN_NOT_OWNED: /),
    ]);
    expect(p.log.lines.filter((l) => l.msg === 'outbox envelope rejected' && l.metric === 'OutboxRejected')).toHaveLength(6);
  });

  it('wrote no secret value to any log line or message', () => {
    recordPlaneOutput(scan, p);
    expect(scan.hits()).toEqual([]);
    expect(scan.stats().lines).toBeGreaterThan(20);
  });
});
