// Fields of a configuration that its schema does not know. zod drops them without a word, so a typo
// ("netwrok", "cookiefile", "litecion") used to start a service on defaults. They are found here by
// walking the schema beside the input, and named with the nearest known field, or with where a
// field of that name belongs ("index" beside "backend" is a backend setting). Members whose name
// starts with "//" are comments (deploy/config.example.json) and are never refused.
import { z } from 'zod';
import { COIN_NAMES } from '../shared/coins/coin-table.ts';
import { nearestWord } from '../shared/api/words.ts';

export interface UnknownField {
  /** Where the field is, its own name last: ["coins", "litecoin", "netwrok"]. */
  path: string[];
  message: string;
}

type Schema = z.core.$ZodType;

/** The members an object-like schema knows, for this value; null where it takes any name (or none). */
interface Known {
  fields: Map<string, Schema>;
  /** What its members are called in a message: "field", or "coin" for a per-coin map. */
  noun: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const COINS: ReadonlySet<string> = new Set(COIN_NAMES);

/** A per-coin map's members are coins ("unknown coin"), every other object's are fields. */
function named(entries: Array<[string, Schema]>): Known {
  return { fields: new Map(entries), noun: entries.length > 0 && entries.every(([n]) => COINS.has(n)) ? 'coin' : 'field' };
}

function knownOf(schema: Schema, value: unknown): Known | null {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault || schema instanceof z.ZodReadonly) {
    return knownOf(schema.def.innerType, value);
  }
  if (schema instanceof z.ZodPipe) return knownOf(schema.def.in, value);
  if (schema instanceof z.ZodObject) return named(Object.entries(schema.shape as Record<string, Schema>));
  if (schema instanceof z.ZodRecord) {
    const keys = schema.keyType;
    if (!(keys instanceof z.ZodEnum)) return null;
    return named(keys.options.map((n) => [String(n), schema.valueType as Schema]));
  }
  if (schema instanceof z.ZodIntersection) {
    const left = knownOf(schema.def.left, value);
    const right = knownOf(schema.def.right, value);
    if (!left || !right) return left ?? right;
    return named([...left.fields, ...right.fields]);
  }
  if (schema instanceof z.ZodDiscriminatedUnion) {
    // The option the discriminator picks; none (a wrong or missing type) is zod's to say.
    const tag = isRecord(value) ? value[schema.def.discriminator] : undefined;
    const picks = (o: Schema) => {
      const field = knownOf(o, value)?.fields.get(schema.def.discriminator);
      return field instanceof z.ZodLiteral && field.values.has(tag as never);
    };
    const option = (schema.def.options as Schema[]).find(picks);
    return option ? knownOf(option, value) : null;
  }
  if (schema instanceof z.ZodUnion) {
    // The option zod takes (the first that parses), else every option's fields for the suggestion.
    const options = schema.def.options as Schema[];
    const taken = options.find((o) => z.safeParse(o, value).success);
    if (taken) return knownOf(taken, value);
    const all = options.map((o) => knownOf(o, value)).filter((k) => k !== null);
    return all.length === 0 ? null : named(all.flatMap((k) => [...k.fields]));
  }
  return null;
}

function describe(key: string, known: Known, value: Record<string, unknown>, at: readonly string[]): string {
  const near = nearestWord(key, known.fields.keys());
  if (near !== null) return `unknown ${known.noun}; did you mean ${near}?`;
  // A field of a member's own object, written one level too high ("index" beside "backend").
  for (const [name, schema] of known.fields) {
    const inner = knownOf(schema, value[name]);
    if (inner?.fields.has(key)) return `unknown ${known.noun}; ${key} is set in ${[...at, name, key].join('.')}`;
  }
  return `unknown ${known.noun}; known: ${[...known.fields.keys()].join(', ')}`;
}

/** Every member of `input` that `schema` does not know, at any depth, in the input's order. */
export function unknownFields(schema: Schema, input: unknown, at: readonly string[] = []): UnknownField[] {
  if (!isRecord(input)) return [];
  const known = knownOf(schema, input);
  if (!known) return [];
  const found: UnknownField[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (key.startsWith('//')) continue;
    const child = known.fields.get(key);
    if (child === undefined) found.push({ path: [...at, key], message: describe(key, known, input, at) });
    else found.push(...unknownFields(child, value, [...at, key]));
  }
  return found;
}
