// A log group's events in CloudWatch Logs since a time, every page of them, oldest first
// (`clawfleet logs --aws`); and the lines of one stream that match a pattern (what the archive
// task of `clawfleet agents remove --aws` said it did). The SDK's errors reach the caller as they are, for it to say what
// it was reading.
import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import type { AwsClientConfig } from './clients.ts';

export interface LogEvent {
  /** CloudWatch's event id (its time and text where it gives none): the same event read twice has the same id. */
  id: string;
  ts: number;
  message: string;
}

export class CloudWatchLogEvents {
  constructor(private readonly logs: CloudWatchLogsClient) {}

  static for(config: AwsClientConfig): CloudWatchLogEvents {
    return new CloudWatchLogEvents(new CloudWatchLogsClient(config));
  }

  async since(logGroupName: string, startTime: number): Promise<LogEvent[]> {
    const events: LogEvent[] = [];
    let nextToken: string | undefined;
    do {
      const out = await this.logs.send(new FilterLogEventsCommand({ logGroupName, startTime, nextToken }));
      for (const e of out.events ?? [])
        events.push({ id: e.eventId ?? `${e.timestamp}-${e.message}`, ts: e.timestamp ?? 0, message: (e.message ?? '').trimEnd() });
      nextToken = out.nextToken;
    } while (nextToken);
    return events.sort((a, b) => a.ts - b.ts);
  }

  /** The messages of one stream that match a CloudWatch filter pattern, in the order CloudWatch gives them. */
  async matching(logGroupName: string, logStreamName: string, filterPattern: string): Promise<string[]> {
    const messages: string[] = [];
    let nextToken: string | undefined;
    do {
      const out = await this.logs.send(new FilterLogEventsCommand({ logGroupName, logStreamNames: [logStreamName], filterPattern, nextToken }));
      messages.push(...(out.events ?? []).map((e) => e.message ?? ''));
      nextToken = out.nextToken;
    } while (nextToken);
    return messages;
  }
}
