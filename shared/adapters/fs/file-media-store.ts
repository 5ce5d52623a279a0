// The media store as a directory (local mode): each key a file under the root, its MIME type
// in a sidecar file beside it. Keys are checked (shared/media/media-ref.ts) before they touch
// the file system, so no key reaches outside the root; writes go to a temp name and are renamed.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { ClawfleetError } from '../../errors.ts';
import { MediaKeySchema } from '../../media/media-ref.ts';
import type { MediaStore } from '../../ports.ts';

export class FileMediaStore implements MediaStore {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    if (!MediaKeySchema.safeParse(key).success) throw new ClawfleetError('MEDIA_KEY_INVALID', `"${key.slice(0, 200)}" is not a media key`);
    return join(this.root, ...key.split('/'));
  }

  async put(key: string, bytes: Uint8Array, mimeType: string): Promise<void> {
    const path = this.pathOf(key);
    await fs.mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}~${randomBytes(6).toString('hex')}~tmp`;
    await fs.writeFile(`${tmp}~type`, mimeType, { flag: 'wx', mode: 0o600 });
    await fs.writeFile(tmp, bytes, { flag: 'wx', mode: 0o600 });
    await fs.rename(`${tmp}~type`, `${path}~type`);
    await fs.rename(tmp, path);
  }

  /**
   * Deletes what was written before `cutoffMs` (local mode's stand-in for the bucket's
   * lifecycle rule, media.expireDays): files by their modification time, then folders left
   * empty. Returns how many files went. Never follows a link.
   */
  async deleteOlderThan(cutoffMs: number): Promise<number> {
    let deleted = 0;
    const sweep = async (dir: string): Promise<boolean> => {
      let entries;
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
        throw err;
      }
      let left = entries.length;
      for (const e of entries) {
        const path = join(dir, e.name);
        if (e.isDirectory()) {
          if (await sweep(path)) {
            await fs.rmdir(path).catch(() => {});
            left--;
          }
        } else if ((await fs.lstat(path)).mtimeMs < cutoffMs) {
          await fs.rm(path, { force: true });
          if (!e.name.endsWith('~type')) deleted++;
          left--;
        }
      }
      return left === 0;
    };
    await sweep(join(this.root, 'agents'));
    return deleted;
  }

  async get(key: string): Promise<{ bytes: Uint8Array; mimeType: string } | undefined> {
    const path = this.pathOf(key);
    try {
      const [bytes, mimeType] = await Promise.all([fs.readFile(path), fs.readFile(`${path}~type`, 'utf8')]);
      return { bytes, mimeType };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }
}
