// When the image tests have an engine: DOCKER_HOST's anywhere, their own as root; a bare
// machine without either skips them with one line saying how to run them.
import { describe, expect, it } from 'vitest';
import { engineUnavailable } from '../support/container-engine.ts';

describe('the image tests’ engine', () => {
  it('is there as root, where the harness starts Debian’s', () => {
    expect(engineUnavailable({}, 0)).toBeUndefined();
  });

  it('is the one DOCKER_HOST names, root or not', () => {
    expect(engineUnavailable({ DOCKER_HOST: 'unix:///run/user/1000/docker.sock' }, 1000)).toBeUndefined();
  });

  it('is missing for a user without root or DOCKER_HOST, saying how to get one', () => {
    expect(engineUnavailable({ DOCKER_HOST: '  ' }, 1000)).toMatch(/only as root; run them as root, or set DOCKER_HOST/);
  });
});
