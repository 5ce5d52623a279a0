// `clawfleet sandbox install`: finds (or installs) bubblewrap and proves it runs a command
// here; a bwrap that cannot make its namespaces is a failure that says so, not a success.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { findBwrap } from '../../shared/adapters/sandbox/bwrap-sandbox.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

afterEach(() => vi.unstubAllEnvs());

describe('clawfleet sandbox install', () => {
  it('reports the bubblewrap local runtimes will use, after running a command in it', async () => {
    const io = captureIO();
    expect(await runCli(['sandbox', 'install'], io), io.errText()).toBe(0);
    expect(io.outText()).toContain(`bubblewrap at ${findBwrap(undefined)} works here`);
  });

  it('fails, saying why, when the bubblewrap found cannot run a command here', async () => {
    const dir = tempDir('fake-bwrap-');
    writeFileSync(join(dir, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n');
    chmodSync(join(dir, 'bwrap'), 0o755);
    vi.stubEnv('PATH', `${dir}:${process.env.PATH}`);
    const io = captureIO();
    expect(await runCli(['sandbox', 'install'], io)).toBe(1);
    expect(io.errText()).toMatch(
      /bubblewrap at .*fake-bwrap-.*\/bwrap does not work here \(exit 1: bwrap: No permissions to create new namespace\): exec stays off/,
    );
  });

  it('refuses an unknown subcommand with the help', async () => {
    const io = captureIO();
    expect(await runCli(['sandbox', 'remove'], io)).toBe(2);
    expect(io.errText()).toContain('unknown subcommand "remove"');
  });
});
