// `clawfleet cost --actual`: the bill per agent beside the estimate, read through the
// CostReports port — word for word over a bill in memory, with what it says when the tags are
// not active, when Cost Explorer is off, and when the bill is empty — and the Cost Explorer
// adapter at its boundary (the emulator has no Cost Explorer): the requests it sends and how it
// reads AWS's answers and refusals, from a fake speaking Cost Explorer's JSON protocol with
// response shapes recorded from AWS's API reference.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../../cli/command.ts';
import { runCost } from '../../cli/cost.ts';
import { CostExplorerReports, costExplorerClient } from '../../shared/adapters/aws/cost-explorer-reports.ts';
import { InMemoryCostReports } from '../../shared/adapters/memory/in-memory-cost-reports.ts';
import { ACTIVATE_TAGS_COMMAND, costSpan } from '../../shared/cost/actual-cost.ts';
import { CostReportsUnavailable, type CostReports } from '../../shared/ports.ts';
import { startFakeAwsJson, type AwsJsonAnswer, type AwsJsonCall, type FakeAwsJson } from '../support/fake-aws-json.ts';
import { captureIO } from './cli-io.ts';

const ACTIVE = { 'clawfleet:fleet': 'active', 'clawfleet:agent': 'active' } as const;
const REPO = new URL('../../', import.meta.url).pathname;

async function actual(reports: CostReports, today = '2026-12-03') {
  const io = captureIO({ cwd: REPO });
  // As cli/main.ts prints a command's failure.
  const code = await runCost(['--actual'], io, { reports: () => reports, today: () => today }).catch((err: unknown) => {
    if (!(err instanceof CliError)) throw err;
    io.err(err.message);
    return err.exitCode;
  });
  return { code, out: io.outText(), err: io.errText() };
}

describe('the span asked of the bill', () => {
  it('runs from the first of last month to today, across a year', () => {
    expect(costSpan('2026-12-03')).toEqual({ start: '2026-11-01', end: '2026-12-03', lastMonth: '2026-11', thisMonth: '2026-12' });
    expect(costSpan('2027-01-15')).toEqual({ start: '2026-12-01', end: '2027-01-15', lastMonth: '2026-12', thisMonth: '2027-01' });
  });
});

describe('clawfleet cost --actual', () => {
  it('prints each agent’s bill beside its estimate, an agent since removed, and the untagged share', async () => {
    const bill = new InMemoryCostReports({
      tags: ACTIVE,
      periods: [
        { start: '2026-11-01', end: '2026-12-01', estimated: false, byTag: { jerry: 55.1, fran: 0.81, '': 0.2, 'control plane': 4, old: 1.2 } },
        { start: '2026-12-01', end: '2026-12-03', estimated: true, byTag: { jerry: 3.7, '': 0.3 } },
      ],
    });
    const r = await actual(bill);
    expect(r.code, r.err).toBe(0);
    expect(bill.asked).toEqual([{ start: '2026-11-01', end: '2026-12-03', filter: { key: 'clawfleet:fleet', value: 'demo' }, groupBy: 'clawfleet:agent' }]);
    // The example fleet: jerry always on (2 vCPU, 4 GB), three hibernating agents at 2 h a day. The control plane's
    // resources (tagged "control plane") and any untagged ones make the shared row.
    expect(r.out.split('\n\nThe estimate')[0]).toBe(
      [
        'Actual cost of fleet "demo" from the bill (Cost Explorer, unblended, USD): resources tagged clawfleet:fleet=demo, by clawfleet:agent',
        '',
        'AGENT                    ESTIMATE/MONTH  2026-11  2026-12 so far (not final)',
        'jerry                    $57.67          $55.10   $3.70',
        'fran                     $0.60           $0.81    $0.00',
        'grif                     $0.60           $0.00    $0.00',
        'ray                      $0.60           $0.00    $0.00',
        'old (not in the config)  —               $1.20    $0.00',
        'control plane, shared    $7.77           $4.20    $0.30',
        'total                    $67.24          $61.31   $4.00',
      ].join('\n'),
    );
    expect(r.out).not.toContain('shows nothing');
  });

  it('on the first of a month asks for last month alone and says this month has no full day yet', async () => {
    const bill = new InMemoryCostReports({ tags: ACTIVE, periods: [{ start: '2026-11-01', end: '2026-12-01', estimated: true, byTag: { jerry: 50 } }] });
    const r = await actual(bill, '2026-12-01');
    expect(r.code, r.err).toBe(0);
    expect(bill.asked[0]).toMatchObject({ start: '2026-11-01', end: '2026-12-01' });
    expect(r.out).toContain('AGENT                  ESTIMATE/MONTH  2026-11 (not final)  2026-12 (no full day yet)');
    expect(r.out).toMatch(/^jerry {18}\$57\.67 {10}\$50\.00 {15}—$/m);
  });

  it('says how to activate the tags when billing does not group by them, and asks the bill nothing', async () => {
    const bill = new InMemoryCostReports({ tags: { 'clawfleet:fleet': 'active', 'clawfleet:agent': 'inactive' } });
    const r = await actual(bill);
    expect(r.code).toBe(1);
    expect(bill.asked).toEqual([]);
    expect(r.err).toContain('the cost allocation tag clawfleet:agent is not activated');
    expect(r.err).toContain(`  ${ACTIVATE_TAGS_COMMAND}`);
    expect(ACTIVATE_TAGS_COMMAND).toBe(
      'aws ce update-cost-allocation-tags-status --cost-allocation-tags-status TagKey=clawfleet:fleet,Status=Active TagKey=clawfleet:agent,Status=Active',
    );
    expect(r.err).toContain('aws ce start-cost-allocation-tag-backfill --backfill-from');
  });

  it('says to deploy and wait when billing has not seen the tags on any resource yet', async () => {
    const r = await actual(new InMemoryCostReports({ tags: {} }));
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      'billing has not seen the tags clawfleet:fleet and clawfleet:agent on any resource yet: deploy the fleet with this version (every resource is tagged), wait up to 24 hours, then activate them:',
    );
  });

  it.each([
    ['not-enabled', 'Cost Explorer is not enabled for this account: enable it once in the Billing and Cost Management console'],
    ['no-data', 'Cost Explorer has no data for this period yet'],
    ['denied', 'these credentials may not read the bill: they need ce:GetCostAndUsage and ce:ListCostAllocationTags'],
  ] as const)('when Cost Explorer refuses (%s), says what to do and fails', async (reason, said) => {
    const r = await actual(new InMemoryCostReports({ tags: ACTIVE, refuse: new CostReportsUnavailable(reason, 'as AWS said it') }));
    expect(r.code).toBe(1);
    expect(r.err).toContain(said);
    expect(r.err).toContain('(as AWS said it)');
  });

  it('says why an empty bill may be empty', async () => {
    const r = await actual(new InMemoryCostReports({ tags: ACTIVE, periods: [{ start: '2026-11-01', end: '2026-12-01', estimated: false, byTag: {} }] }));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('The bill shows nothing tagged clawfleet:fleet=demo from 2026-11-01: a tag counts only from its activation');
  });
});

describe('the Cost Explorer adapter, at its boundary', () => {
  let fake: FakeAwsJson;
  let answer: (call: AwsJsonCall) => AwsJsonAnswer;
  beforeAll(async () => {
    fake = await startFakeAwsJson((call) => answer(call));
  });
  afterAll(() => fake?.close());
  const reports = () =>
    new CostExplorerReports(costExplorerClient({ endpoint: fake.url, region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' } }));

  it('reads tag states (all pages) and names a tag billing never saw "unseen"', async () => {
    fake.calls.length = 0;
    answer = (call) =>
      call.body.NextToken
        ? { body: { CostAllocationTags: [{ TagKey: 'clawfleet:agent', Type: 'UserDefined', Status: 'Inactive', LastUpdatedDate: '2026-11-02T10:00:00Z' }] } }
        : {
            body: {
              CostAllocationTags: [
                {
                  TagKey: 'clawfleet:fleet',
                  Type: 'UserDefined',
                  Status: 'Active',
                  LastUpdatedDate: '2026-11-02T10:00:00Z',
                  LastUsedDate: '2026-12-02T00:00:00Z',
                },
              ],
              NextToken: 'page-2',
            },
          };
    expect(await reports().tagStatus(['clawfleet:fleet', 'clawfleet:agent', 'clawfleet:other'])).toEqual({
      'clawfleet:fleet': 'active',
      'clawfleet:agent': 'inactive',
      'clawfleet:other': 'unseen',
    });
    expect(fake.calls.map((c) => c.operation)).toEqual(['ListCostAllocationTags', 'ListCostAllocationTags']);
    expect(fake.calls[0]!.body).toEqual({ TagKeys: ['clawfleet:fleet', 'clawfleet:agent', 'clawfleet:other'], Type: 'UserDefined' });
  });

  it('asks for the unblended cost per month of the fleet’s resources by agent tag, and adds up the pages', async () => {
    fake.calls.length = 0;
    const group = (key: string, amount: string) => ({ Keys: [key], Metrics: { UnblendedCost: { Amount: amount, Unit: 'USD' } } });
    answer = (call) => ({
      body: {
        GroupDefinitions: [{ Type: 'TAG', Key: 'clawfleet:agent' }],
        ResultsByTime: call.body.NextPageToken
          ? [{ TimePeriod: { Start: '2026-12-01', End: '2026-12-03' }, Total: {}, Groups: [group('clawfleet:agent$fran', '0.0412')], Estimated: true }]
          : [
              {
                TimePeriod: { Start: '2026-11-01', End: '2026-12-01' },
                Total: {},
                Groups: [group('clawfleet:agent$', '4.1999999'), group('clawfleet:agent$jerry', '55.1023')],
                Estimated: false,
              },
              { TimePeriod: { Start: '2026-12-01', End: '2026-12-03' }, Total: {}, Groups: [group('clawfleet:agent$jerry', '3.7')], Estimated: true },
            ],
        DimensionValueAttributes: [],
        ...(call.body.NextPageToken ? {} : { NextPageToken: 'next' }),
      },
    });
    const got = await reports().monthlyCostsByTag({
      start: '2026-11-01',
      end: '2026-12-03',
      filter: { key: 'clawfleet:fleet', value: 'demo' },
      groupBy: 'clawfleet:agent',
    });
    expect(fake.calls[0]).toEqual({
      operation: 'GetCostAndUsage',
      body: {
        TimePeriod: { Start: '2026-11-01', End: '2026-12-03' },
        Granularity: 'MONTHLY',
        Metrics: ['UnblendedCost'],
        Filter: { Tags: { Key: 'clawfleet:fleet', Values: ['demo'], MatchOptions: ['EQUALS'] } },
        GroupBy: [{ Type: 'TAG', Key: 'clawfleet:agent' }],
      },
    });
    expect(fake.calls[1]!.body.NextPageToken).toBe('next');
    expect(got).toEqual({
      currency: 'USD',
      periods: [
        { start: '2026-11-01', end: '2026-12-01', estimated: false, byTag: { '': 4.1999999, jerry: 55.1023 } },
        { start: '2026-12-01', end: '2026-12-03', estimated: true, byTag: { jerry: 3.7, fran: 0.0412 } },
      ],
    });
  });

  it.each([
    ['AccessDeniedException', 'User not enabled for cost explorer access', 'not-enabled'],
    ['AccessDeniedException', 'User: arn:aws:iam::123456789012:user/ops is not authorized to perform: ce:GetCostAndUsage', 'denied'],
    ['DataUnavailableException', 'Data is not available. Please try to adjust the time period.', 'no-data'],
  ])('turns %s (%s) into the reason "%s"', async (error, message, reason) => {
    answer = () => ({ error, message });
    await expect(
      reports().monthlyCostsByTag({ start: '2026-11-01', end: '2026-12-03', filter: { key: 'clawfleet:fleet', value: 'demo' }, groupBy: 'clawfleet:agent' }),
    ).rejects.toMatchObject({ name: 'CostReportsUnavailable', reason, message });
  });

  it('lets any other failure through as it is', async () => {
    answer = () => ({ error: 'BillExpirationException', message: 'The requested report expired. Update the date interval and try again.' });
    await expect(reports().tagStatus(['clawfleet:fleet'])).rejects.toMatchObject({ name: 'BillExpirationException' });
  });
});
