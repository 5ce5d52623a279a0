// The secret token Telegram echoes in X-Telegram-Bot-Api-Secret-Token. It is derived from
// the bot token (HMAC), so each bot has one value to store, and knowing the webhook
// secret reveals nothing about the token.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function webhookSecretFor(botToken: string): string {
  return createHmac('sha256', botToken).update('clawfleet telegram webhook v1').digest('hex');
}

/** Constant-time comparison; a missing header never matches. */
export function secretTokenMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  // timingSafeEqual needs equal lengths; compare against itself to keep the time flat.
  return a.length === b.length ? timingSafeEqual(a, b) : (timingSafeEqual(a, a), false);
}
