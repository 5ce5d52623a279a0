// The OpenClaw device key of an external-mode agent (docs/runtime.md, "External mode"): an
// Ed25519 private key, PKCS#8 PEM, kept as a named value of the agent's own secret so every
// task of the agent is the same device to the operator's gateway, and no tool reads it (the
// workspace volume would not do: the agent's tools read it). Made by `clawfleet openclaw
// device` or `clawfleet deploy`; read by the runtime. Pure: no I/O beyond node:crypto.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';

/** The value's name in the agent's secret. */
export const OPENCLAW_DEVICE_KEY = 'OPENCLAW_DEVICE_KEY';

const PKCS8_PEM = /^\s*-----BEGIN PRIVATE KEY-----\s*\n[A-Za-z0-9+/=\s]+-----END PRIVATE KEY-----\s*$/;

/** What is wrong with a device key value, never quoting it; undefined when it is an Ed25519 PKCS#8 PEM private key. */
export function deviceKeyProblem(pem: string): string | undefined {
  return parse(pem) ? undefined : 'is not an Ed25519 private key in PKCS#8 PEM (-----BEGIN PRIVATE KEY-----)';
}

/** The key, or undefined when the value is not an Ed25519 PKCS#8 PEM private key. */
export function parseDeviceKey(pem: string): KeyObject | undefined {
  return parse(pem);
}

function parse(pem: string): KeyObject | undefined {
  if (!PKCS8_PEM.test(pem)) return undefined;
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    return key.asymmetricKeyType === 'ed25519' ? key : undefined;
  } catch {
    return undefined;
  }
}

/** A new device key, PKCS#8 PEM. */
export function newDeviceKeyPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

/** The raw 32-byte public key of an Ed25519 private key. */
export function rawPublicKey(privateKey: KeyObject): Buffer {
  return createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
}

/** The device id `openclaw devices list` shows: hex SHA-256 of the raw public key. */
export function deviceIdOf(privateKey: KeyObject): string {
  return createHash('sha256').update(rawPublicKey(privateKey)).digest('hex');
}

/**
 * What a redactor must mask for this key: the PEM as held, and each of its base64 lines —
 * a log line is JSON, where the PEM's newlines are escaped and the whole value never
 * appears verbatim, but its body line does.
 */
export function deviceKeyRedactions(pem: string): string[] {
  const lines = pem
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('-----'));
  return [pem, pem.trim(), ...lines];
}
