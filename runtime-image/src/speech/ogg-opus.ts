// What a speech provider answered, checked to be what Telegram plays as a voice message: an
// Ogg stream whose first packet is an Opus header (RFC 7845), and how long it plays. Read from
// the bytes, not from the Content-Type a server claims, so an HTML error page, an MP3 or a
// WAV answered as "audio/ogg" never goes out as a voice message.
import { ClawfleetError } from '../../../shared/errors.ts';

const CAPTURE = Buffer.from('OggS');
const OPUS_HEAD = Buffer.from('OpusHead');
/** Opus granule positions count samples at 48 kHz, whatever the input's rate. */
const OPUS_RATE = 48_000;

/** The voice message's length in whole seconds (at least 1), or throws SPEECH_FAILED when the bytes are not Ogg Opus. */
export function oggOpusSeconds(bytes: Uint8Array): number {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // A page header is 27 bytes and its segment table; the first page holds the 19-byte OpusHead alone.
  if (b.length < 47 || !b.subarray(0, 4).equals(CAPTURE) || b[4] !== 0) throw notOpus('it is not an Ogg stream');
  const segments = b[26]!;
  const head = 27 + segments;
  if (b.length < head + 19 || !b.subarray(head, head + 8).equals(OPUS_HEAD)) throw notOpus('its first packet is not an Opus header');
  const preSkip = b.readUInt16LE(head + 10);
  const last = b.lastIndexOf(CAPTURE);
  if (last < head || last + 27 > b.length) throw notOpus('it has no audio page after the header');
  const granule = b.readBigInt64LE(last + 6);
  // -1: a page on which no packet ends; the stream is then cut short.
  if (granule < 0n) throw notOpus('its last page ends no packet (the stream is cut short)');
  const samples = Number(granule) - preSkip;
  return Math.max(1, Math.round(samples / OPUS_RATE));
}

const notOpus = (why: string) => new ClawfleetError('SPEECH_FAILED', `the speech provider's answer is not Ogg Opus: ${why}`);
