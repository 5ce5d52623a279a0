// The media store as a directory (local mode, #16): keys checked before they touch the disk,
// and files past media.expireDays swept as the bucket's lifecycle rule does on AWS.
import { existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileMediaStore } from '../../shared/adapters/fs/file-media-store.ts';
import { tempDir } from '../support/temp-dirs.ts';
describe('local media expiry', () => {
  it('deletes files written before the cutoff and the folders they leave empty, keeping newer ones', async () => {
    const root = tempDir('cf-media-root-');
    const store = new FileMediaStore(root);
    await store.put('agents/fran/in/tg.fran.1/old.jpg', Buffer.from('old'), 'image/jpeg');
    await store.put('agents/fran/out/abc/new.png', Buffer.from('new'), 'image/png');
    const old = new Date(Date.now() - 40 * 86_400_000);
    for (const f of ['old.jpg', 'old.jpg~type']) utimesSync(join(root, 'agents/fran/in/tg.fran.1', f), old, old);
    expect(await store.deleteOlderThan(Date.now() - 30 * 86_400_000)).toBe(1);
    expect(await store.get('agents/fran/in/tg.fran.1/old.jpg')).toBeUndefined();
    expect(existsSync(join(root, 'agents/fran/in/tg.fran.1'))).toBe(false);
    expect(await store.get('agents/fran/out/abc/new.png')).toEqual({ bytes: Buffer.from('new'), mimeType: 'image/png' });
  });

  it('refuses a key that climbs out of its root before touching the disk', async () => {
    const store = new FileMediaStore(tempDir('cf-media-root-'));
    await expect(store.put('agents/fran/in/../../../etc/x', Buffer.from('x'), 'text/plain')).rejects.toMatchObject({ code: 'MEDIA_KEY_INVALID' });
    await expect(store.get('../secrets.json')).rejects.toMatchObject({ code: 'MEDIA_KEY_INVALID' });
  });
});
