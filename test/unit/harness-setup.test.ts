// The test harness's own set-up (test/support/global-setup.ts): a machine without
// python3-venv is told in one line what to install, not handed a stack trace.
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureVenv, venvFailure } from '../support/global-setup.ts';
import { tempDir } from '../support/temp-dirs.ts';

/** What Debian's python3 prints when python3-venv is not installed. */
const DEBIAN_NO_ENSUREPIP = `The virtual environment was not created successfully because ensurepip is not
available.  On Debian/Ubuntu systems, you need to install the python3-venv
package using the following command.

    apt install python3.11-venv

You may need to use sudo with that command.  After installing the python3-venv
package, recreate your virtual environment.

Failing command: /tmp/x/bin/python3
`;

const PATH = process.env.PATH;
let dir: string | undefined;
afterEach(() => {
  process.env.PATH = PATH;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the emulator harness on a machine without python3-venv', () => {
  it('says in one line which package to install', async () => {
    // A python3 that is 3.11 but, like Debian's without python3-venv, cannot make a venv.
    dir = tempDir('cf-no-venv-');
    const bin = join(dir, 'bin');
    const fake = join(bin, 'python3');
    mkdirSync(bin);
    writeFileSync(join(dir, 'message'), DEBIAN_NO_ENSUREPIP);
    writeFileSync(fake, `#!/bin/sh\ncase "$*" in\n  *"-m venv"*) cat ${join(dir, 'message')}; exit 1;;\n  *) echo 3.11;;\nesac\n`);
    chmodSync(fake, 0o755);
    process.env.PATH = `${bin}:${PATH}`;

    const err = await ensureVenv(join(dir, 'cache')).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toBe(
      'Cannot start MiniStack: python3 cannot make a venv here (no ensurepip). Install it: apt-get install python3.11-venv (or set AWS_ENDPOINT_URL to a running LocalStack-compatible emulator)',
    );
    // Printed as it is: no stack frames under it.
    expect(err!.stack).toBe(`Error: ${err!.message}`);
  });

  it('keeps the tail of any other venv failure', () => {
    expect(venvFailure('Error: [Errno 28] No space left on device')).toMatch(
      /^Cannot start MiniStack: `python3 -m venv` failed .*\nError: \[Errno 28\] No space left on device$/s,
    );
  });
});
