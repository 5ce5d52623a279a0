// The one decision the runtime and `clawfleet skills list` share on what an agent's tools let
// its skills count on: skills need read; a requires.env is met only through an offered exec.
import { describe, expect, it } from 'vitest';
import { skillAccess } from '../../shared/config/skill-tools.ts';

describe("what an agent's tools let its skills count on", () => {
  it('offers skills with read, and counts tools.exec.env only while exec is offered', () => {
    expect(skillAccess({ read: true, exec: true, execEnv: { TODOIST_API_KEY: 'TODOIST_KEY', A: 'B' } })).toEqual({
      offered: true,
      env: ['A', 'TODOIST_API_KEY'],
    });
    // exec denied or off: its env reaches no script, so a skill needing it must be left out.
    expect(skillAccess({ read: true, exec: false, execEnv: { TODOIST_API_KEY: 'TODOIST_KEY' } })).toEqual({ offered: true, env: [] });
    expect(skillAccess({ read: true, exec: true, execEnv: undefined })).toEqual({ offered: true, env: [] });
  });

  it('offers no skill without read, whatever exec has, and says why', () => {
    const access = skillAccess({ read: false, exec: true, execEnv: { TODOIST_API_KEY: 'TODOIST_KEY' } });
    expect(access).toEqual({ offered: false, why: expect.stringMatching(/read tool is not offered/) });
  });
});
