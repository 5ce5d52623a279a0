// zod's issues as config problems a person can fix: what is allowed (the values, the range,
// the type) and what was written, "did you mean" for a near miss, one problem per unknown
// key. It reads the schema itself for what is allowed, so a key added to the schema gets the
// same words with no change here. Messages a schema words itself are kept as written.
import en from 'zod/v4/locales/en.js';
import type * as z from '../zod.ts';
import { didYouMean } from '../did-you-mean.ts';
import { formatPath, type ConfigIssue } from '../errors.ts';
import { looksSecret } from '../secrets/looks-secret.ts';

type Issue = z.core.$ZodIssue;
type Schema = z.core.$ZodType;
type Path = readonly PropertyKey[];

/** The schema's definition, loosely: only the fields this file reads. */
interface Def {
  type: string;
  innerType?: Schema;
  in?: Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  valueType?: Schema;
  options?: Schema[];
  discriminator?: string;
  values?: unknown[];
  entries?: Record<string, unknown>;
  checks?: { _zod: { def: { check: string; value?: number; inclusive?: boolean; format?: string } } }[];
  format?: string;
  getter?: () => Schema;
}

const defOf = (s: Schema): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'nonoptional', 'readonly', 'catch', 'pipe', 'lazy']);

/** The schema with its optional/default/pipe wrappers taken off. */
function unwrap(s: Schema): Schema {
  for (let d = defOf(s); WRAPPERS.has(d.type); d = defOf(s)) s = d.type === 'lazy' ? d.getter!() : d.type === 'pipe' ? d.in! : d.innerType!;
  return s;
}

/** The value at `path` under `value`, or undefined. */
function valueAt(value: unknown, path: Path): unknown {
  let v = value;
  for (const p of path) v = typeof v === 'object' && v !== null ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}

/** A union's option that fits `value`: by its discriminator, else the first object option holding `key`. */
function optionFor(d: Def, value: unknown, key?: PropertyKey): Schema | undefined {
  const objects = d.options!.map(unwrap).filter((o) => defOf(o).type === 'object');
  if (d.discriminator && typeof value === 'object' && value !== null) {
    const tag = (value as Record<string, unknown>)[d.discriminator];
    const match = objects.find((o) => literalValues(defOf(o).shape![d.discriminator!]!)?.includes(tag));
    if (match) return match;
  }
  return key === undefined ? undefined : objects.find((o) => typeof key === 'string' && key in defOf(o).shape!);
}

/** The schema that checks the value at `path` of `root`, or undefined where it cannot be told. */
function schemaAt(schema: Schema, path: Path, root: unknown): Schema | undefined {
  let s: Schema | undefined = unwrap(schema);
  for (const [i, key] of path.entries()) {
    const d = defOf(s);
    if (d.type === 'union') s = optionFor(d, valueAt(root, path.slice(0, i)), key);
    if (!s) return undefined;
    const od = defOf(s);
    s = od.type === 'object' ? od.shape![String(key)] : od.type === 'array' ? od.element : od.type === 'record' ? od.valueType : undefined;
    if (!s) return undefined;
    s = unwrap(s);
  }
  return s;
}

/** The values a literal or enum schema (or a union of them) allows; undefined for anything else. */
function literalValues(schema: Schema): unknown[] | undefined {
  const d = defOf(unwrap(schema));
  if (d.type === 'literal') return d.values;
  if (d.type === 'enum') return Object.values(d.entries!);
  if (d.type !== 'union') return undefined;
  const all = d.options!.map(literalValues);
  return all.every((v) => v !== undefined) ? all.flat() : undefined;
}

/** The keys an object schema (or the union option that fits `value` best) allows. */
function keysAt(schema: Schema | undefined, value: unknown): string[] {
  if (!schema) return [];
  const d = defOf(schema);
  if (d.type === 'object') return Object.keys(d.shape!);
  if (d.type !== 'union') return [];
  const written = typeof value === 'object' && value !== null ? Object.keys(value) : [];
  const options = d.options!.map((o) => keysAt(unwrap(o), value)).filter((k) => k.length);
  const fit = (keys: string[]) => written.filter((k) => keys.includes(k)).length;
  return options.sort((a, b) => fit(b) - fit(a))[0] ?? [];
}

/** A value as it would be written in the config: 3, "two", true, null (a string that may be a credential is not repeated). */
function shown(v: unknown): string {
  if (typeof v === 'string') return looksSecret(v) || v.length > 60 ? `a string of ${v.length} characters` : JSON.stringify(v);
  if (typeof v === 'object' && v !== null) return Array.isArray(v) ? 'a list' : 'an object';
  return String(v);
}

/** What was written, for "expected …, got …". */
function got(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return shown(v).startsWith('"') ? `the string ${shown(v)}` : shown(v);
  if (typeof v === 'number') return `the number ${v}`;
  return shown(v);
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'a list',
  tuple: 'a list',
  null: 'null',
};

const typeOfValue = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** `"a"`, or `one of "a", "b", "c"`. */
const oneOf = (values: unknown[]): string => (values.length === 1 ? shown(values[0]) : `one of ${values.map(shown).join(', ')}`);

/** The range a number schema's checks allow, as words: "from 512 to 122880", "at least 1". */
function range(d: Def): string {
  let min: string | undefined;
  let max: string | undefined;
  for (const c of d.checks ?? []) {
    const cd = c._zod.def;
    if (cd.check === 'greater_than') min = cd.inclusive ? `${cd.value}` : `over ${cd.value}`;
    if (cd.check === 'less_than') max = cd.inclusive ? `${cd.value}` : `under ${cd.value}`;
  }
  if (min !== undefined && max !== undefined && !min.startsWith('over') && !max.startsWith('under')) return ` from ${min} to ${max}`;
  return [min && (min.startsWith('over') ? ` ${min}` : ` of at least ${min}`), max && (max.startsWith('under') ? ` ${max}` : ` of at most ${max}`)]
    .filter(Boolean)
    .join(' and');
}

const isInteger = (d: Def) =>
  d.format?.includes('int') || (d.checks ?? []).some((c) => c._zod.def.check === 'number_format' && c._zod.def.format?.includes('int'));

/** What a schema allows, in words: `one of "a", "b"`, `a whole number from 512 to 122880`, `a string or an object`. */
export function allowed(schema: Schema): string {
  const s = unwrap(schema);
  const d = defOf(s);
  const values = literalValues(s);
  if (values) {
    const types = [...new Set(values.map(typeOfValue))];
    return types.length === 1 && values.length > 1 ? `${TYPE_NAMES[types[0]!] ?? types[0]} (${oneOf(values)})` : oneOf(values);
  }
  if (d.type === 'number') return `${isInteger(d) ? 'a whole number' : 'a number'}${range(d)}`;
  if (d.type === 'union') return [...new Set(d.options!.map(allowed))].join(' or ');
  return TYPE_NAMES[d.type] ?? d.type;
}

/** zod's own English for an issue: a message equal to it was not worded by our schema, so ours may replace it. */
const zodEnglish = en().localeError;
function isZodDefault(issue: Issue): boolean {
  const own = zodEnglish(issue as unknown as Parameters<typeof zodEnglish>[0]);
  return (typeof own === 'string' ? own : own?.message) === issue.message;
}

/** Config problems for zod's issues about `input`, checked by `schema`: each with its path and a message that says what is allowed. */
export function configIssues(issues: readonly Issue[], schema: Schema, input: unknown): ConfigIssue[] {
  return issues.flatMap((issue) => describe(issue, [], schema, input));
}

function describe(issue: Issue, base: Path, schema: Schema, root: unknown): ConfigIssue[] {
  const path = [...base, ...issue.path];
  const at = formatPath(path);
  const node = schemaAt(schema, path, root);
  const value = 'input' in issue ? issue.input : valueAt(root, path);
  const one = (message: string): ConfigIssue[] => [{ path: at, message }];
  const own = !isZodDefault(issue);

  switch (issue.code) {
    case 'unrecognized_keys': {
      const keys = keysAt(node, value);
      return issue.keys.map((key) => {
        const guess = didYouMean(key, keys);
        return {
          path: formatPath([...path, key]),
          message: `unknown key${guess || (keys.length ? `; the keys here are ${keys.join(', ')}` : '')}`,
        };
      });
    }
    case 'invalid_union': {
      if (issue.discriminator && 'options' in issue && issue.options?.length) {
        const tag = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[issue.discriminator] : undefined;
        const options = issue.options as unknown[];
        return one(
          tag === undefined
            ? `missing; expected ${oneOf(options)}`
            : `${shown(tag)} is not ${oneOf(options)}${typeof tag === 'string' ? didYouMean(tag, options.map(String)) : ''}`,
        );
      }
      if (issue.inclusive === false || !issue.errors.length) return one(issue.message);
      const rootFailures = issue.errors.filter((branch) =>
        branch.some((i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value')),
      );
      // Every option refused the value's type or value outright: say what the options allow.
      if (rootFailures.length === issue.errors.length) return node ? one(notAllowed(node, value)) : one(issue.message);
      // Otherwise the value has the shape of an option that did not refuse it: that option's problems are the ones to fix.
      const fits = issue.errors.filter((b) => !rootFailures.includes(b)).sort((a, b) => a.length - b.length)[0]!;
      return fits.flatMap((i) => describe(i, path, schema, root));
    }
    case 'invalid_key':
      return issue.issues.flatMap((i) => describe(i, path, schema, root)).map((i) => ({ path: at, message: `the key ${shown(value)}: ${i.message}` }));
    case 'invalid_element':
      return issue.issues.flatMap((i) => describe(i, path, schema, root));
    case 'invalid_type':
      if (own) return one(issue.message);
      if (value === undefined) return one(`missing; expected ${node ? allowed(node) : (TYPE_NAMES[issue.expected] ?? issue.expected)}`);
      return one(`expected ${node ? allowed(node) : (TYPE_NAMES[issue.expected] ?? issue.expected)}, got ${got(value)}`);
    case 'invalid_value':
      if (own) return one(`${issue.message}${typeof value === 'string' ? didYouMean(value, issue.values.map(String)) : ''}`);
      return one(node ? notAllowed(node, value) : `${shown(value)} is not ${oneOf(issue.values)}`);
    case 'too_small':
    case 'too_big': {
      if (own) return one(`${issue.message}${scalar(value) ? ` (got ${shown(value)})` : ''}`);
      const small = issue.code === 'too_small';
      const limit = Number(small ? issue.minimum : issue.maximum);
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint')
        return one(
          `${shown(value)} is too ${small ? 'small' : 'big'}; expected ${node ? allowed(node) : `a number ${small ? 'of at least' : 'of at most'} ${limit}`}`,
        );
      const count = issue.origin === 'string' ? (value as string).length : Array.isArray(value) ? value.length : undefined;
      const unit = issue.origin === 'string' ? 'character' : 'item';
      if (small && limit === 1) return one(`must not be empty`);
      return one(`has ${count ?? '?'} ${unit}s; expected ${small ? 'at least' : 'at most'} ${limit} ${unit}${limit === 1 ? '' : 's'}`);
    }
    case 'invalid_format': {
      if (own) return one(`${issue.message}${scalar(value) ? ` (got ${shown(value)})` : ''}`);
      const what: Record<string, string> = {
        url: 'a URL (like "https://example.com")',
        datetime: 'an ISO date and time with its offset (like "2026-01-31T09:00:00+01:00")',
        email: 'an email address',
      };
      return one(
        issue.format === 'regex'
          ? `${shown(value)} does not match ${issue.pattern}`
          : `${shown(value)} is not ${what[issue.format] ?? `a valid ${issue.format}`}`,
      );
    }
    case 'not_multiple_of':
      return one(own ? issue.message : `${shown(value)} is not a multiple of ${issue.divisor}`);
    default:
      return one(issue.message);
  }
}

const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** A value a literal/enum schema refused: the wrong type, or a value not in the set (with a guess for a near miss). */
function notAllowed(node: Schema, value: unknown): string {
  const values = literalValues(node);
  if (value === undefined) return `missing; expected ${allowed(node)}`;
  if (!values || !values.some((v) => typeOfValue(v) === typeOfValue(value))) return `expected ${allowed(node)}, got ${got(value)}`;
  return `${shown(value)} is not ${oneOf(values)}${typeof value === 'string' ? didYouMean(value, values.map(String)) : ''}`;
}
