// How every task clawfleet runs itself (RunTask: the workspace sync, the archive) is tagged, as
// the agents' services are (infra/constructs/agent-runtime.ts): ECS's managed tags (cluster and
// service names) and the task definition's own tags — clawfleet:fleet and clawfleet:agent —
// copied onto the task, so its cost shows up under its agent in Cost Explorer.
import type { RunTaskCommandInput } from '@aws-sdk/client-ecs';

export const RUN_TASK_TAGGING = { enableECSManagedTags: true, propagateTags: 'TASK_DEFINITION' } as const satisfies Partial<RunTaskCommandInput>;
