// What `clawfleet cost` estimates for a fleet (cost.ts computes it): compute per agent, the
// control plane's services, media and streaming, and the total, in dollars a month. Read by
// the estimate's table and by `--actual`, which sets the bill beside it.
import type { CpuArchitecture } from '../shared/config/architecture.ts';
import type { RuntimeKind } from '../shared/config/runtime-kinds.ts';

export interface CostEstimate {
  agents: {
    id: string;
    kind: RuntimeKind;
    cpus: number;
    memoryGb: number;
    /** tools.browser: counted at least BROWSER_MIN_SIZE. */
    browser: boolean;
    architecture: CpuArchitecture;
    hibernates: boolean;
    spot: boolean;
    onDemandAlwaysOn: number;
    spotAlwaysOn: number;
    configured: number;
  }[];
  lambda: number;
  sqs: number;
  dynamo: number;
  secrets: number;
  logs: number;
  /** The media bucket (#16): storage at steady state, and requests. */
  media: { storage: number; requests: number; storedGb: number };
  /** Public IPv4 addresses of the running tasks. */
  ipv4: number;
  computeConfigured: number;
  total: number;
  /** The single VM the fleet replaces. */
  vm: number;
  /** What streamed replies add per turn, and a month of them (included in lambda, sqs and dynamo). */
  streaming: StreamingCost;
}

export interface StreamingCost {
  /** Draft envelopes per streamed turn in a private chat (one a second) and in a group (one per 3 s). */
  draftsPerTurn: { direct: number; group: number };
  /** Per draft: one outbox envelope, one λ outbox record, SQS send + receive + delete, one origin read. */
  perDraft: { envelopes: 1; lambdaRecords: 1; sqsRequests: 3; dynamoReads: 1 };
  month: number;
  /** Some account streams in blocks: each block is a message of its own, said per block (its count depends on the answer's length). */
  blocks: boolean;
}
