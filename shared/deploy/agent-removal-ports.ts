// What removing an agent from the deployed fleet (`clawfleet agents remove|prune --aws`) asks
// of the account, as ports: its stack, the counts of its queues, the schedules it made, the
// records naming it, its service and one-off archive task, and the archive's log. On AWS they
// are shared/adapters/aws/ (grouped in cli-agent-removal-ports.ts); the order and the wording are the CLI's.

/** A stack as the removal reads it; undefined for none. */
export interface RemovalStack {
  status: string;
  description: string;
  outputs: Record<string, string>;
}

export interface RemovalStacks {
  get(name: string): Promise<RemovalStack | undefined>;
  /** Names of the stacks not deleted that start with `prefix`. */
  names(prefix: string): Promise<string[]>;
  /** Asks for the delete; `get` says when it is done. */
  delete(name: string): Promise<void>;
  /** Why a delete failed, resource by resource. */
  failedResources(name: string): Promise<string>;
}

export interface RemovalQueues {
  /** A queue's counts; undefined when there is no such queue. */
  counts(queueName: string): Promise<{ visible: number; inFlight: number } | undefined>;
}

export interface RemovalSchedules {
  /** Names in the fleet's group that start with `prefix`; none when the group is gone. */
  names(prefix: string): Promise<string[]>;
  /** Whose a schedule is, by its trigger; undefined when it says not. */
  agentOf(name: string): Promise<string | undefined>;
  /** The schedules the agent made itself. */
  ownedBy(agentId: string): Promise<string[]>;
  /** False when it was gone already. */
  delete(name: string): Promise<boolean>;
}

export interface RemovalRecords {
  /** Ids with an item in the agent registry. */
  registeredAgents(): Promise<string[]>;
  /** Asleep in the registry, where it has an item (the health tick leaves a sleeping agent without work alone). */
  markAsleep(agentId: string, now: number): Promise<boolean>;
  /** Deletes every record naming the agent; how many of each kind. */
  delete(agentId: string): Promise<{ registry: number; sessions: number; origins: number }>;
}

/** Where a task of the agent runs: its service's subnets and security groups. */
export interface AgentNetwork {
  subnets: string[];
  securityGroups: string[] | undefined;
  assignPublicIp: 'ENABLED' | 'DISABLED';
}

/** What the archive needs of the agent's service: whether it may start again, and where its tasks run. */
export interface AgentServiceView {
  desiredCount: number;
  /** Undefined when the service has no subnets (not deployed as the stack makes it). */
  network: AgentNetwork | undefined;
}

/** A one-off task as it was last seen: its status and, once STOPPED, how it ended. */
export interface OneOffTask {
  status: string;
  exitCode: number | undefined;
  reason: string | undefined;
}

export interface RemovalCompute {
  /** Sets the agent's service's desired count to 0. */
  stopService(agentId: string): Promise<void>;
  /** The agent's runtime tasks not stopped yet (running, starting, or still draining its turn). */
  alive(agentId: string): Promise<number>;
  /** The agent's service; undefined when there is none. */
  service(agentId: string): Promise<AgentServiceView | undefined>;
  /** Runs the agent's archive task in its network; the task's id, or undefined if none was started. */
  startArchive(agentId: string, network: AgentNetwork, startedBy: string): Promise<string | undefined>;
  /** The task as last seen; undefined when it is unknown. */
  task(taskId: string): Promise<OneOffTask | undefined>;
}

export interface RemovalLogs {
  /** The messages of one log stream that match a filter pattern. */
  matching(logGroup: string, logStream: string, filterPattern: string): Promise<string[]>;
}

export interface AgentRemovalPorts {
  stacks: RemovalStacks;
  queues: RemovalQueues;
  schedules: RemovalSchedules;
  records: RemovalRecords;
  compute: RemovalCompute;
  logs: RemovalLogs;
}
