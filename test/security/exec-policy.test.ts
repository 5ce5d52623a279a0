// tools.exec.security end to end, through the exec tool in bubblewrap: under "allowlist" a
// command that would chain, pipe, substitute or redirect is refused before anything runs
// (no side effect happens), an allowed program runs with its arguments exactly as written
// and no shell in between, and "deny" leaves no exec tool at all.
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execSetup, execTool } from '../../runtime-image/src/tools/exec-tool.ts';
import type { AgentTool } from '../../runtime-image/src/tools/tool.ts';
import { bwrapSandbox } from '../support/sandbox.ts';
import { tempDir } from '../support/temp-dirs.ts';

const ctx = { signal: new AbortController().signal, sessionKey: 'agent:fran:main', inboundId: 'i', request: async () => 'x' };
const run = async (tool: AgentTool, command: string) => tool.run({ command }, ctx);

async function allowlisted(programs: string[]) {
  const workspace = realpathSync(tempDir('cf-exec-policy-'));
  writeFileSync(join(workspace, 'a b.txt'), 'spaced\n');
  return { workspace, tool: execTool({ workspace, sandbox: await bwrapSandbox(workspace), allowlist: programs }) };
}

describe('security: "allowlist"', () => {
  it.each([
    ['ls; touch pwned', 'a second command after ";"'],
    ['ls && touch pwned', 'a second command after "&&"'],
    ['ls | tee pwned', 'a pipe'],
    ['ls $(touch pwned)', 'a command substitution'],
    ['ls `touch pwned`', 'backticks'],
    ['ls > pwned', 'a redirection'],
    ['ls\ntouch pwned', 'a second line'],
    ['touch pwned', 'a program not on the list'],
    ['./ls', 'a program in the workspace'],
  ])('refuses %j (%s) and runs nothing', async (command) => {
    const { workspace, tool } = await allowlisted(['ls', 'cat']);
    const r = await run(tool, command);
    expect(r).toMatchObject({ isError: true, text: expect.stringMatching(/^refused by the exec allowlist: /) });
    expect(existsSync(join(workspace, 'pwned'))).toBe(false);
  });

  it('runs an allowed program with its arguments as written, without a shell to expand them', async () => {
    const { tool } = await allowlisted(['ls', 'cat']);
    expect(await run(tool, `cat 'a b.txt'`)).toEqual({ text: 'exit code 0\nspaced\n', isError: false });
    // Quoted, "$(id)" is a file name like any other: nothing substitutes it.
    const literal = await run(tool, `cat '$(id)'`);
    expect(literal).toMatchObject({ isError: true, text: expect.stringContaining("cat: '$(id)': No such file or directory") });
    expect(literal.text).not.toMatch(/uid=/);
  });

  it('says which programs it may run, and that there is no shell', async () => {
    const { tool } = await allowlisted(['ls', 'cat']);
    expect(tool.description).toMatch(/^Run one program from the allowlist \(ls, cat\) with its arguments in your workspace\. No shell/);
  });
});

describe('security: "deny"', () => {
  it('leaves no exec tool, whatever the sandbox', async () => {
    const workspace = realpathSync(tempDir('cf-exec-policy-'));
    expect(execSetup({ security: 'deny' }, { sandbox: await bwrapSandbox(workspace) }, workspace)).toEqual({});
    expect(execSetup({ security: 'deny', sandbox: 'off' }, undefined, workspace)).toEqual({});
  });
});
