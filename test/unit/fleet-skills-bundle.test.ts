// The bundle that carries an agent's fleet skills to AWS (#19): the same skills make the same
// bytes; unpacked, files keep their executable bit; and a bundle naming a path outside its
// folder, or over a limit, or not a bundle at all, is refused before anything is written.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeFleetSkillsBundle, encodeFleetSkillsBundle, FLEET_SKILLS_BUNDLE_FORMAT, FLEET_SKILLS_LIMITS } from '../../shared/config/fleet-skills-bundle.ts';
import { unpackFleetSkills } from '../../runtime-image/src/skills/fleet-skills.ts';
import { tempDir } from '../support/temp-dirs.ts';

const text = (s: string) => new TextEncoder().encode(s);
const files = [
  { path: 'weather/SKILL.md', executable: false, data: text('---\nname: weather\ndescription: W\n---\n') },
  { path: 'weather/scripts/get.sh', executable: true, data: text('#!/bin/sh\necho sunny\n') },
];
/** A bundle as a hostile or broken deployment could write it, past the encoder's checks. */
const forged = (paths: string[], data = 'eA==') =>
  gzipSync(JSON.stringify({ format: FLEET_SKILLS_BUNDLE_FORMAT, files: paths.map((path) => ({ path, executable: false, data })) }));

describe('a fleet skills bundle', () => {
  it('is the same bytes for the same skills, in any order, and gives them back', () => {
    const a = encodeFleetSkillsBundle(files);
    expect(Buffer.from(encodeFleetSkillsBundle([...files].reverse())).equals(Buffer.from(a))).toBe(true);
    expect(decodeFleetSkillsBundle(a).map((f) => [f.path, f.executable, new TextDecoder().decode(f.data)])).toEqual(
      files.map((f) => [f.path, f.executable, new TextDecoder().decode(f.data)]),
    );
  });

  it('is unpacked into a folder replaced whole, scripts executable, nothing else', () => {
    const into = join(tempDir('cf-bundle-'), 'fleet-skills');
    unpackFleetSkills(encodeFleetSkillsBundle([{ path: 'old/SKILL.md', executable: false, data: text('x') }]), into);
    expect(unpackFleetSkills(encodeFleetSkillsBundle(files), into)).toEqual({ files: 2 });
    expect(existsSync(join(into, 'old'))).toBe(false);
    expect(readFileSync(join(into, 'weather', 'scripts', 'get.sh'), 'utf8')).toContain('sunny');
    expect(statSync(join(into, 'weather', 'scripts', 'get.sh')).mode & 0o777).toBe(0o755);
    expect(statSync(join(into, 'weather', 'SKILL.md')).mode & 0o777).toBe(0o644);
  });

  it.each([
    ['a parent step', '../escaped/SKILL.md', /not a relative path of plain names \("\.\." is not a file name\)/],
    ['a parent step inside', 'weather/../../x', /"\.\." is not a file name/],
    ['an absolute path', '/etc/cron.d/x', /"" is not a file name/],
    ['a backslash', 'weather\\..\\x/SKILL.md', /holds a path separator/],
    ['a control character', 'weather/a\nb', /holds a control character/],
    ['a file beside the skill folders', 'README.md', /is not inside a skill's folder/],
  ])('naming %s is refused and nothing is written', (_, path, reason) => {
    const into = join(tempDir('cf-bundle-bad-'), 'fleet-skills');
    expect(() => unpackFleetSkills(forged([path]), into)).toThrow(reason);
    expect(existsSync(into)).toBe(false);
  });

  it('that names one path twice, a file that is also a folder, or holds too much, is refused', () => {
    expect(() => decodeFleetSkillsBundle(forged(['a/x', 'a/x']))).toThrow(/"a\/x" is there twice/);
    expect(() => decodeFleetSkillsBundle(forged(['a/x', 'a/x/y']))).toThrow(/"a\/x" is both a file and a folder/);
    const big = Buffer.alloc(FLEET_SKILLS_LIMITS.fileBytes + 1).toString('base64');
    expect(() => decodeFleetSkillsBundle(forged(['a/big'], big))).toThrow(/"a\/big" is larger than 1 MB/);
    expect(() => encodeFleetSkillsBundle([{ path: 'a/big', executable: false, data: new Uint8Array(FLEET_SKILLS_LIMITS.fileBytes + 1) }])).toThrow(
      /larger than 1 MB/,
    );
  });

  it('that unpacks to more than any bundle could hold is refused without being unpacked whole', () => {
    const bomb = gzipSync(Buffer.alloc(40 << 20), { level: 1 });
    expect(bomb.byteLength).toBeLessThan(1 << 20);
    expect(() => decodeFleetSkillsBundle(bomb)).toThrow(/not gzip, or larger than the limit unpacked/);
  });

  it('that is not gzip, not JSON, or not this format, says so', () => {
    expect(() => decodeFleetSkillsBundle(text('plain'))).toThrow(/fleet skills bundle: not gzip/);
    expect(() => decodeFleetSkillsBundle(gzipSync('{'))).toThrow(/not JSON/);
    expect(() => decodeFleetSkillsBundle(gzipSync(JSON.stringify({ format: 'zip', files: [] })))).toThrow(/format/);
  });
});
