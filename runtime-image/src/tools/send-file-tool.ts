// send_file (#16): a file in the workspace sent to the chat the turn answers. The runtime
// puts its bytes under this agent's own out/ prefix in the media store (named by their
// digest, so a turn redone after a crash writes the same key) and sends a `file` envelope
// naming it; the control plane checks the key is the agent's and delivers it once. Offered
// only where the runtime has a media store.
import { WorkspaceDir } from '../../../shared/adapters/fs/beneath.ts';
import { PROTOCOL_VERSION } from '../../../shared/protocol/envelopes.ts';
import { extname } from 'node:path';
import { z } from 'zod';
import { OUTBOUND_FILE_KINDS, outboundMediaKey, TELEGRAM_UPLOAD_LIMIT_BYTES, type OutboundFileKind } from '../../../shared/media/media-ref.ts';
import { formatBytes } from '../../../shared/format-bytes.ts';
import type { Clock, MediaStore } from '../../../shared/ports.ts';
import { sha256Hex } from '../../../shared/lazy-crypto.ts';
import { defineTool, type AgentTool } from './tool.ts';

/** Telegram sends a photo up to 10 MB as a photo; a larger image goes as a document. */
const PHOTO_LIMIT_BYTES = 10 * 1024 * 1024;

const TYPES: Record<string, { mime: string; kind: OutboundFileKind }> = {
  '.jpg': { mime: 'image/jpeg', kind: 'photo' },
  '.jpeg': { mime: 'image/jpeg', kind: 'photo' },
  '.png': { mime: 'image/png', kind: 'photo' },
  '.webp': { mime: 'image/webp', kind: 'photo' },
  // A GIF plays as an animation (sendAnimation); as a photo Telegram would show one still frame.
  '.gif': { mime: 'image/gif', kind: 'animation' },
  '.ogg': { mime: 'audio/ogg', kind: 'voice' },
  '.oga': { mime: 'audio/ogg', kind: 'voice' },
  '.opus': { mime: 'audio/ogg', kind: 'voice' },
  '.mp3': { mime: 'audio/mpeg', kind: 'audio' },
  '.m4a': { mime: 'audio/mp4', kind: 'audio' },
  '.wav': { mime: 'audio/wav', kind: 'audio' },
  '.flac': { mime: 'audio/flac', kind: 'audio' },
  '.pdf': { mime: 'application/pdf', kind: 'document' },
  '.txt': { mime: 'text/plain', kind: 'document' },
  '.md': { mime: 'text/markdown', kind: 'document' },
  '.csv': { mime: 'text/csv', kind: 'document' },
  '.json': { mime: 'application/json', kind: 'document' },
  '.html': { mime: 'text/html', kind: 'document' },
  '.zip': { mime: 'application/zip', kind: 'document' },
  // MPEG-4 is what Telegram plays inline (sendVideo); other containers go as documents.
  '.mp4': { mime: 'video/mp4', kind: 'video' },
  '.m4v': { mime: 'video/mp4', kind: 'video' },
  '.mov': { mime: 'video/quicktime', kind: 'document' },
  '.webm': { mime: 'video/webm', kind: 'document' },
};

export function sendFileTool(agentId: string, workspace: string, store: MediaStore, clock: Clock): AgentTool {
  const ws = new WorkspaceDir(workspace);
  return defineTool({
    name: 'send_file',
    description:
      'Send a file from your workspace to the user in this chat: a photo, a document, a voice message, an audio file, a video (.mp4) or an animation (.gif, or a silent .mp4 given as animation); the kind is taken from the file name unless you give it. Up to 50 MB.',
    schema: z.strictObject({
      path: z.string().min(1).describe('Path relative to the workspace'),
      caption: z.string().max(1024).optional().describe('Text shown with the file'),
      kind: z.enum(OUTBOUND_FILE_KINDS).optional().describe('photo, document, voice, audio, video or animation; inferred from the file name when left out'),
    }),
    async run({ path, caption, kind }, ctx) {
      const { handle, stat } = await ws.open(path, 'read');
      let bytes: Buffer;
      try {
        if (stat.size > TELEGRAM_UPLOAD_LIMIT_BYTES)
          return { text: `${path} is ${stat.size} bytes, over the ${formatBytes(TELEGRAM_UPLOAD_LIMIT_BYTES)} a file sent to a chat may be`, isError: true };
        if (stat.size === 0) return { text: `${path} is empty; Telegram does not send empty files`, isError: true };
        bytes = await handle.readFile();
      } finally {
        await handle.close();
      }
      const type = TYPES[extname(path).toLowerCase()] ?? { mime: 'application/octet-stream', kind: 'document' as const };
      let fileKind = kind ?? type.kind;
      if (fileKind === 'photo' && bytes.byteLength > PHOTO_LIMIT_BYTES) fileKind = 'document';
      const fileName = path.split('/').pop()!.slice(-255);
      const digest = sha256Hex(bytes).slice(0, 32);
      const key = outboundMediaKey(agentId, digest, fileName);
      await store.put(key, bytes, type.mime);
      const id = await ctx.request((id) => ({
        v: PROTOCOL_VERSION,
        kind: 'file',
        id,
        agentId,
        sessionKey: ctx.sessionKey,
        inboundId: ctx.inboundId,
        key,
        fileKind,
        fileName,
        mimeType: type.mime,
        size: bytes.byteLength,
        ...(caption ? { caption } : {}),
        ts: clock.now(),
      }));
      return `${fileKind} ${fileName} (${bytes.byteLength} bytes) handed to the control plane to send (${id})`;
    },
  });
}
