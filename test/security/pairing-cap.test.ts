// Pending pairing requests are capped per bot account (issue #12, "Why" 10: they were
// uncapped, so a stranger writing from many accounts could bury the owner's approval list
// and make the bot answer each of them). With dmPolicy "pairing", through the local control
// plane's webhook core and the fake Bot API: 40 strangers write, 3 get a code, the rest are
// ignored with a log line and no message; a seat frees when a request is approved or lapses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PENDING_PAIRINGS } from '../../shared/control/access.ts';
import { startAuthorityPlane, recordPlaneOutput, BOT_TOKENS, HOOKS_TOKEN, type AuthorityPlane } from '../support/authority-plane.ts';
import { SecretScan } from '../support/secret-scan.ts';

let p: AuthorityPlane;
const scan = new SecretScan();
scan.addSecrets(BOT_TOKENS.fran, BOT_TOKENS.grif, HOOKS_TOKEN);
const STRANGERS = Array.from({ length: 40 }, (_, i) => 8_100 + i);

beforeAll(async () => {
  p = await startAuthorityPlane({}, { dmPolicy: 'pairing' });
});
afterAll(() => p?.close());

describe('a flood of strangers asking to pair with one bot', () => {
  it('gives codes to the first 3 and ignores the rest without a word, queueing nothing', async () => {
    for (const peer of STRANGERS) {
      const res = await p.write('fran', peer, 'let me in');
      expect(res.status).toBe(200);
    }
    expect(MAX_PENDING_PAIRINGS).toBe(3);
    expect(p.sent().map((m) => m.chatId)).toEqual(STRANGERS.slice(0, 3).map(String));
    expect((await p.cp.pairings.listPending(p.clock.now())).map((r) => r.peerId).sort()).toEqual(STRANGERS.slice(0, 3).map(String));
    const ignored = p.log.lines.filter((l) => l.msg === 'update ignored' && /at their cap \(3 pending\)/.test(String(l.reason)));
    expect(ignored).toHaveLength(37);
    expect(p.cp.inbox('fran').depth).toBe(0);
  });

  it('does not touch another bot’s seats', async () => {
    expect((await p.write('grif', 9_001, 'hello grif')).status).toBe(200);
    expect(p.sent().at(-1)).toMatchObject({ chatId: '9001', token: BOT_TOKENS.grif, text: expect.stringContaining('Your pairing code:') });
  });

  it('seats the next stranger once the owner approves one, and more once the codes lapse', async () => {
    const [first] = await p.cp.pairings.listPending(p.clock.now());
    expect(await p.cp.pairings.approve(first!.code, p.clock.now())).toMatchObject({ status: 'approved' });
    const before = p.sent().length;
    await p.write('fran', STRANGERS[10]!, 'let me in');
    await p.write('fran', STRANGERS[11]!, 'let me in');
    expect(
      p
        .sent()
        .slice(before)
        .map((m) => m.chatId),
    ).toEqual([String(STRANGERS[10])]);
    // An hour on, every pending code has lapsed: three new seats.
    p.clock.advance(3_600_001);
    for (const peer of STRANGERS.slice(20, 25)) await p.write('fran', peer, 'let me in');
    expect(
      p
        .sent()
        .slice(before + 1)
        .map((m) => m.chatId),
    ).toEqual(STRANGERS.slice(20, 23).map(String));
  });

  it('wrote no secret value to any log line or message', () => {
    recordPlaneOutput(scan, p);
    expect(scan.hits()).toEqual([]);
  });
});
