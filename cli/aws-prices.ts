// The AWS prices `clawfleet cost` uses: us-east-1, on-demand list prices as published on
// aws.amazon.com/<service>/pricing, as of PRICES_DATE, to be verified there before relying
// on a total (the machines this was written on cannot reach those pages). Kept in this one
// module so updating them is one edit; the command prints them with their date. Spot varies
// by the hour: the figure here is a typical recent discount, not a quote.
import type { CpuArchitecture } from '../shared/config/architecture.ts';

export const PRICES_DATE = '2025-06-01';
export const PRICES_REGION = 'us-east-1';

/** Fargate per vCPU-hour and per GB-hour, by the task's CPU architecture, on demand and on Spot. */
export const FARGATE_PRICES: Record<CpuArchitecture, { vcpuHour: number; gbHour: number; spotVcpuHour: number; spotGbHour: number }> = {
  /** Linux/x86. Spot about 70% off on-demand (varies). */
  x86_64: { vcpuHour: 0.04048, gbHour: 0.004445, spotVcpuHour: 0.01244, spotGbHour: 0.00137 },
  /**
   * Linux/ARM (Graviton), 20% below x86. Spot on ARM is not in the price list this was
   * taken from: estimated with the x86 Spot discount.
   */
  arm64: { vcpuHour: 0.03238, gbHour: 0.00356, spotVcpuHour: 0.03238 * (0.01244 / 0.04048), spotGbHour: 0.00356 * (0.00137 / 0.004445) },
};

export const PRICES = {
  /** Lambda on arm64 (what the control-plane functions run on): per request and per GB-second. */
  lambdaRequest: 0.2 / 1e6,
  lambdaGbSecond: 0.0000133334,
  /** SQS FIFO, per request (64 KB chunks); the first million requests a month are free. */
  sqsFifoRequest: 0.5 / 1e6,
  sqsFreeRequests: 1_000_000,
  /** DynamoDB on-demand: per write and read request unit; storage per GB-month. */
  dynamoWrite: 0.625 / 1e6,
  dynamoRead: 0.125 / 1e6,
  /** Secrets Manager: per secret-month, per 10,000 API calls. */
  secretMonth: 0.4,
  secretPer10kCalls: 0.05,
  /** CloudWatch Logs ingestion per GB. */
  logsIngestGb: 0.5,
  /** S3 Standard (the media bucket, #16): per GB-month stored, per PUT and per GET request. */
  s3GbMonth: 0.023,
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  /** A public IPv4 address per hour: each running task has one (public subnets, no NAT). */
  publicIpv4Hour: 0.005,
  /** What the fleet replaces: one OpenClaw gateway VM, a t3.large on demand with a 30 GB gp3 disk. */
  t3LargeHour: 0.0832,
  gp3GbMonth: 0.08,
} as const;

export const HOURS_PER_MONTH = 730;
