// The last push or pull of each agent's workspace, for the dashboard's agent page: when,
// which way, how much moved, and the workspace's size then. Written by `clawfleet workspace`
// after a transfer it verified; the registry table holds it on AWS (item workspace:<id>), a
// small file in the state directory locally.
import * as z from '../zod.ts';

export const WorkspaceSyncSchema = z.object({
  direction: z.enum(['push', 'pull']),
  at: z.number(),
  /** Files and bytes the transfer carried. */
  files: z.number().check(z.int(), z.gte(0)),
  bytes: z.number().check(z.int(), z.gte(0)),
  /** The whole workspace right after it (on AWS the only measure of its size the dashboard has). */
  workspaceFiles: z.number().check(z.int(), z.gte(0)),
  workspaceBytes: z.number().check(z.int(), z.gte(0)),
  /** Where the other end was (a folder or "AWS"), for the page's tooltip. */
  where: z.optional(z.string().check(z.maxLength(200))),
});
export type WorkspaceSync = z.infer<typeof WorkspaceSyncSchema>;

export interface WorkspaceSyncLog {
  record(agentId: string, sync: WorkspaceSync): Promise<void>;
  last(agentId: string): Promise<WorkspaceSync | undefined>;
}
