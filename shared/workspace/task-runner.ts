// The one-off workspace task as a port (ECS RunTask on AWS: shared/adapters/aws/
// ecs-workspace-tasks.ts), and the agent's runtime tasks, which must all be gone before
// the workspace task starts: one writer per workspace.
import type { TaskAction } from './staging.ts';

export interface WorkspaceTaskRun {
  action: TaskAction;
  transfer: string;
  force: boolean;
}

export type TaskState = { done: false; status: string } | { done: true; exitCode: number | undefined; reason: string };

export interface WorkspaceTaskRunner {
  /** Starts the agent's workspace task; resolves with its id. */
  start(agentId: string, run: WorkspaceTaskRun): Promise<string>;
  state(taskId: string): Promise<TaskState>;
  stop(taskId: string, reason: string): Promise<void>;
}

export interface AgentTasks {
  /** The agent's runtime tasks that are not stopped yet (running, starting or still stopping). */
  alive(agentId: string): Promise<number>;
}
