// reply_buttons: the agent attaches inline buttons to the answer it is writing. The buttons are
// checked here (Telegram's limits: 64-character labels, 64-byte data, 8 per row, 10 rows) and
// again by the control plane; a press comes back as a message "[Button pressed] <data>".
import { z } from 'zod';
import type { Buttons } from '../../../shared/protocol/envelopes.ts';
import { defineTool, type AgentTool } from './tool.ts';

const Button = z.object({
  text: z.string().min(1).max(64).describe('The label the user sees'),
  data: z
    .string()
    .min(1)
    .refine((d) => Buffer.byteLength(d) <= 64, 'at most 64 bytes')
    .describe('What comes back to you when it is pressed (at most 64 bytes)'),
});

export function buttonsTool(attach: (buttons: Buttons) => void): AgentTool {
  return defineTool({
    name: 'reply_buttons',
    description:
      'Attach inline buttons under your answer to this message (call it before answering; a later call replaces the buttons). When the user presses one, you get a message "[Button pressed] <data>".',
    schema: z.object({ rows: z.array(z.array(Button).min(1).max(8)).min(1).max(10).describe('Rows of buttons, top to bottom') }),
    async run({ rows }) {
      attach(rows);
      return `${rows.flat().length} button(s) will be shown under your answer.`;
    },
  });
}
