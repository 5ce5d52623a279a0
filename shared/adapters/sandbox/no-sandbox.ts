// No sandbox: the command runs as the runtime itself, in a process group of its own that
// is killed after the call. Only for `tools.exec.sandbox: "off"`, which the runtime
// reports as a warning: a `setsid` child escapes the group, and the command sees all the
// runtime's user can.
import type { Sandbox, SandboxLease, SandboxRequest } from './sandbox-port.ts';
import { SANDBOX_PATH, withNodeOnPath } from './sandbox-port.ts';

export class Unsandboxed implements Sandbox {
  readonly kind = 'none' as const;
  readonly description = 'none: commands run as the runtime itself';
  readonly isolatesNetwork = false;
  readonly path = withNodeOnPath(SANDBOX_PATH);

  constructor(private readonly workspace: string) {}

  async lease(request: SandboxRequest): Promise<SandboxLease> {
    const [file, ...args] = request.argv;
    return { launch: { file: file!, args, env: request.env, cwd: this.workspace }, release: async () => {} };
  }
}
