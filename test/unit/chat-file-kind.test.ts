// A file dropped into the dashboard's chat box reaches the agent as the kind Telegram's inbound
// path gives the same bytes (shared/media/file-kind.ts): a video is a video the agent is told
// it cannot watch, not a document it is sent to read with its file tools.
import { describe, expect, it } from 'vitest';
import { LocalControlPlane } from '../../local/sqlite-control-plane.ts';
import { mediaInput } from '../../runtime-image/src/media/media-input.ts';
import { InMemoryMediaStore } from '../../shared/adapters/memory/in-memory-media-store.ts';
import { InMemorySecretStore } from '../../shared/adapters/memory/in-memory-state.ts';
import { openStateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { memoryLogger } from '../../shared/log.ts';
import { attachmentKindOf } from '../../shared/media/file-kind.ts';
import type { MediaRef } from '../../shared/media/media-ref.ts';
import { systemClock } from '../../shared/ports.ts';
import { tempDir } from '../support/temp-dirs.ts';

describe('attachmentKindOf', () => {
  it.each([
    ['image/jpeg', 'photo'],
    ['image/png', 'photo'],
    ['image/gif', 'photo'],
    ['image/webp', 'photo'],
    ['audio/ogg', 'voice'],
    ['audio/mpeg', 'audio'],
    // Telegram's video and animation (and a round video) are video/mp4; a phone's clip may be QuickTime or WebM.
    ['video/mp4', 'video'],
    ['video/quicktime', 'video'],
    ['video/webm', 'video'],
    ['VIDEO/MP4', 'video'],
    ['image/svg+xml', 'document'],
    ['application/pdf', 'document'],
    ['application/octet-stream', 'document'],
  ])('%s is a %s', (type, kind) => expect(attachmentKindOf(type)).toBe(kind));
});

describe('a video dropped into the chat box', () => {
  it('is queued as a video, and the agent is told it cannot watch it rather than to read it', async () => {
    const store = new InMemoryMediaStore();
    const config = parseConfig({
      fleet: 'chat',
      agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'fran', default: true }] },
      models: { providers: { openai: { api: 'openai-completions' } } },
    });
    const cp = new LocalControlPlane(config, openStateDatabase(':memory:'), new InMemorySecretStore(), systemClock, memoryLogger(), { media: store });
    const mp4 = Buffer.from('\x00\x00\x00\x18ftypmp42 a short clip', 'latin1');
    await cp.chatFile('fran', { name: 'clip.mp4', mimeType: 'video/mp4', bytes: mp4 }, 'look');
    const [envelope] = cp.queues
      .queue('fran')
      .bodies()
      .map((b) => JSON.parse(b) as { text: string; media: MediaRef[]; ts: number });
    expect(envelope!.text).toBe('look');
    expect(envelope!.media).toEqual([
      {
        kind: 'video',
        key: expect.stringMatching(/^agents\/fran\/in\/local\.fran\.[^/]+\/clip\.mp4$/),
        mimeType: 'video/mp4',
        size: mp4.length,
        fileName: 'clip.mp4',
      },
    ]);

    const workspace = tempDir('cf-chat-video-');
    const input = await mediaInput(envelope!.media, envelope!.ts, { agentId: 'fran', workspace, store, imageInput: true, transcribe: undefined });
    expect(input.lines).toHaveLength(1);
    expect(input.lines[0]).toMatch(
      /^\[The user sent a video "clip\.mp4" \(video\/mp4, \d+ bytes\), saved at inbox\/[\d-]+\/clip\.mp4 in your workspace; you cannot watch videos/,
    );
    expect(input.lines[0]).not.toMatch(/read it with your file tools/);
    expect(input.images).toEqual([]);
  });
});
