// Which file a Telegram message carries (#16), read leniently from the raw message: the largest
// photo size, an animation before the document Telegram adds beside it for old clients, a
// sticker's real type, and nothing for a message without a file or with one that is malformed.
import { describe, expect, it } from 'vitest';
import { attachmentOf } from '../../shared/telegram/attachment.ts';

describe('the attachment of a message', () => {
  it('takes the largest size of a photo', () => {
    expect(
      attachmentOf({
        photo: [
          { file_id: 's', width: 90, height: 60, file_size: 900 },
          { file_id: 'l', width: 1280, height: 960, file_size: 90_000 },
          { file_id: 'm', width: 320, height: 240 },
        ],
      }),
    ).toEqual({
      kind: 'photo',
      fileId: 'l',
      size: 90_000,
      mimeType: 'image/jpeg',
      fileName: 'photo.jpg',
      width: 1280,
      height: 960,
    });
  });

  it('takes an animation rather than the document beside it', () => {
    const gif = { file_id: 'a', file_unique_id: 'u', mime_type: 'video/mp4', file_name: 'funny.mp4', duration: 3, width: 320, height: 240 };
    expect(attachmentOf({ animation: gif, document: { ...gif, file_id: 'd' } })).toMatchObject({
      kind: 'animation',
      fileId: 'a',
      fileName: 'funny.mp4',
      durationSeconds: 3,
    });
  });

  it('gives a sticker the type it really has, and a voice message Telegram’s default type', () => {
    expect(attachmentOf({ sticker: { file_id: 's', is_animated: false, is_video: false, width: 512, height: 512 } })).toMatchObject({
      kind: 'sticker',
      mimeType: 'image/webp',
    });
    expect(attachmentOf({ sticker: { file_id: 's', is_animated: true, width: 512, height: 512 } })).toMatchObject({ mimeType: 'application/x-tgsticker' });
    expect(attachmentOf({ sticker: { file_id: 's', is_video: true } })).toMatchObject({ mimeType: 'video/webm' });
    expect(attachmentOf({ voice: { file_id: 'v', duration: 4 } })).toMatchObject({
      kind: 'voice',
      mimeType: 'audio/ogg',
      fileName: 'voice.ogg',
      durationSeconds: 4,
    });
  });

  it('names a sticker’s file after its real type, and keeps its emoji (what it says, for a model that cannot see it)', () => {
    expect(attachmentOf({ sticker: { file_id: 's', emoji: '👍', width: 512, height: 512 } })).toMatchObject({ fileName: 'sticker.webp', emoji: '👍' });
    expect(attachmentOf({ sticker: { file_id: 's', is_animated: true, emoji: '😂' } })).toMatchObject({ fileName: 'sticker.tgs', emoji: '😂' });
    expect(attachmentOf({ sticker: { file_id: 's', is_video: true } })).toMatchObject({ fileName: 'sticker.webm' });
    expect(attachmentOf({ sticker: { file_id: 's', is_video: true } })).not.toHaveProperty('emoji');
    // Only a sticker's: a document has no emoji to say.
    expect(attachmentOf({ document: { file_id: 'd', emoji: '👍' } })).not.toHaveProperty('emoji');
  });

  it('keeps a document’s own name and type, and leaves out what is odd rather than failing', () => {
    expect(attachmentOf({ document: { file_id: 'd', file_name: 'Q3.pdf', mime_type: 'application/pdf', file_size: 'big' } })).toEqual({
      kind: 'document',
      fileId: 'd',
      size: undefined,
      mimeType: 'application/pdf',
      fileName: 'Q3.pdf',
    });
    expect(attachmentOf({ document: { file_id: 'd', file_name: 'x'.repeat(300) } })).toMatchObject({ fileName: 'file', mimeType: 'application/octet-stream' });
  });

  it('finds nothing in text, a location, a file without an id, or no message at all', () => {
    expect(attachmentOf({ text: 'hi' })).toBeUndefined();
    expect(attachmentOf({ location: { latitude: 1, longitude: 2 } })).toBeUndefined();
    expect(attachmentOf({ document: { file_name: 'no-id.pdf' } })).toBeUndefined();
    expect(attachmentOf({ photo: 'nonsense' })).toBeUndefined();
    expect(attachmentOf(null)).toBeUndefined();
  });
});
