// The OpenClaw release and Gateway protocol a user reads in README.md and docs/runtime.md's
// "Compatibility" are the ones the code pins (shared/config/openclaw-release.ts) and speaks
// (runtime-image/src/openclaw/gateway-client.ts): a new pin that leaves the docs behind fails here.
// docs/benchmarks.md is left out: its figures name the release they were measured on.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENCLAW_VERSION } from '../../shared/config/openclaw-release.ts';
import { GATEWAY_PROTOCOL } from '../../runtime-image/src/openclaw/gateway-client.ts';

const read = (path: string) => readFileSync(path, 'utf8').replace(/\s+/g, ' ');

describe('the stated OpenClaw compatibility', () => {
  it('README.md names the pinned release and the protocol the bridge speaks', () => {
    const m = /a pinned OpenClaw (\S+), Gateway protocol (\d+)/.exec(read('README.md'));
    expect(m, 'README.md says "a pinned OpenClaw <version>, Gateway protocol <n>"').not.toBeNull();
    expect({ version: m![1], protocol: Number(m![2]) }).toEqual({ version: OPENCLAW_VERSION, protocol: GATEWAY_PROTOCOL });
  });

  it('docs/runtime.md’s Compatibility says the same', () => {
    const m = /### Compatibility OpenClaw \*\*(\S+)\*\*, Gateway protocol \*\*(\d+)\*\*/.exec(read('docs/runtime.md'));
    expect(m, 'docs/runtime.md opens "Compatibility" with "OpenClaw **<version>**, Gateway protocol **<n>**"').not.toBeNull();
    expect({ version: m![1], protocol: Number(m![2]) }).toEqual({ version: OPENCLAW_VERSION, protocol: GATEWAY_PROTOCOL });
  });

  it('no other OpenClaw release or protocol is named in README.md, docs/runtime.md or docs/cli.md', () => {
    for (const path of ['README.md', 'docs/runtime.md', 'docs/cli.md']) {
      const text = read(path);
      const versions = [...text.matchAll(/OpenClaw \**(20\d\d\.\d+\.\d+)/g)].map((v) => v[1]);
      const protocols = [...text.matchAll(/(?:Gateway )?protocol \**(\d+)\b/gi)].map((p) => Number(p[1]));
      expect(new Set(versions), path).toEqual(new Set(versions.length ? [OPENCLAW_VERSION] : []));
      expect(new Set(protocols), path).toEqual(new Set(protocols.length ? [GATEWAY_PROTOCOL] : []));
    }
  });
});
