// Pieces every resource of the HTTP contract uses: `$ref`s to registered schemas, ids, the
// problem+json body, and the text block.
import { Kind, Type, TypeRegistry, type SchemaOptions, type Static, type TSchema, type TUnion } from '@sinclair/typebox';
import './formats.js';

/** A `$ref` to a registered schema that keeps the referenced schema's static type. */
export function ref<T extends TSchema>(schema: T, description?: string) {
  if (schema.$id === undefined) throw new Error('ref() needs a schema with an $id');
  return Type.Unsafe<Static<T>>({ $ref: `${schema.$id}#`, ...(description ? { description } : {}) });
}

/** A closed set of strings, published as `{"type": "string", "enum": [...]}`. */
export interface TStringEnum<T extends string = string> extends TSchema {
  [Kind]: 'StringEnum';
  static: T;
  type: 'string';
  enum: T[];
}

// TypeBox's own checks (Value.Check, used on operator files) know the kind too.
if (!TypeRegistry.Has('StringEnum')) {
  TypeRegistry.Set<TStringEnum>('StringEnum', (schema, value) => typeof value === 'string' && schema.enum.includes(value));
}

/**
 * A closed set of strings. TypeBox's union of literals becomes `anyOf` of `const`s, which
 * generators type loosely and which validates into one "must be equal to constant" per value;
 * an `enum` is typed as a union and its violation names the allowed values once.
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TStringEnum<T[number]> {
  return { ...options, [Kind]: 'StringEnum', type: 'string', enum: [...values] } as unknown as TStringEnum<T[number]>;
}

/**
 * Exactly one of the schemas (`oneOf`). With `discriminator`, every alternative has that
 * property as a constant: validation picks the alternative by it (one error set, not one per
 * alternative) and generators type the union as discriminated.
 */
export function OneOf<T extends TSchema[]>(schemas: [...T], options: SchemaOptions & { discriminator?: string } = {}) {
  const { discriminator, ...rest } = options;
  return Type.Unsafe<Static<TUnion<T>>>({ ...rest, oneOf: schemas, ...(discriminator ? { type: 'object', discriminator: { propertyName: discriminator } } : {}) });
}

export const ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
export const Id = (description: string) => Type.String({ pattern: ID_PATTERN, description });

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI reference identifying the problem type' }),
    title: Type.String(),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.String({ description: 'What went wrong, precisely enough to fix the request' }),
    instance: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          location: Type.Optional(Type.String({ description: 'body, query, params or headers' })),
          path: Type.String({ description: 'JSON pointer to the offending value' }),
          message: Type.String(),
        }),
      ),
    ),
    conflicts: Type.Optional(
      Type.Array(Type.Object({ path: Type.String(), reason: Type.String() }), {
        description: 'A rewind refused (409): the paths something other than the session changed since its last checkpoint',
      }),
    ),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' },
);
export type Problem = Static<typeof ProblemSchema>;

export const TextBlockSchema = Type.Object(
  { type: Type.Literal('text'), text: Type.String() },
  { $id: 'TextBlock' },
);
export type TextBlock = Static<typeof TextBlockSchema>;

/** Image types a tool result may carry (the ones model APIs take). */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

export const ImageBlockSchema = Type.Object(
  {
    type: Type.Literal('image'),
    source: Type.Object({
      type: Type.Literal('base64'),
      media_type: StringEnum(IMAGE_MEDIA_TYPES),
      data: Type.String({ description: 'Base64 of the image bytes' }),
    }),
  },
  { $id: 'ImageBlock', description: 'An image a tool returned (an MCP tool\'s image content); never capped, at most 5 MiB of base64' },
);
export type ImageBlock = Static<typeof ImageBlockSchema>;

/** A block of a tool result: text (capped) or an image. */
export type ResultBlock = TextBlock | ImageBlock;
