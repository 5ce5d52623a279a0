// The variables ECS puts in a container's environment that lead to the task role's
// credentials or the task's metadata. The runtime takes them out of its own environment at
// start (runtime-image/src/connection/container-credentials.ts); the image's entry takes them out of
// PID 1's (runtime-image/src/launch.ts) and its health check out of its own
// (infra/runtime-health-check.ts), since every process keeps what it started with in
// /proc/<pid>/environ.

/** What ECS (and the SDK's container provider) read for the task role's credentials. */
export const ECS_CREDENTIAL_VARIABLES = {
  relativeUri: 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  fullUri: 'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  token: 'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  tokenFile: 'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE',
} as const;

/**
 * The task metadata endpoints. Metadata, not credentials — the task's ARN, cluster, network and
 * every container's stats — and nothing in the runtime reads them, so they are dropped with the
 * credentials rather than handed over: a tool that learnt one would learn the task's layout for
 * nothing the agent needs.
 */
export const ECS_METADATA_VARIABLES = ['ECS_CONTAINER_METADATA_URI', 'ECS_CONTAINER_METADATA_URI_V4'] as const;

/** Every one of them. */
export const ECS_CONTAINER_VARIABLES: readonly string[] = [...Object.values(ECS_CREDENTIAL_VARIABLES), ...ECS_METADATA_VARIABLES];
