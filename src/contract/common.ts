// Pieces every resource of the HTTP contract uses: `$ref`s to registered schemas, ids, the
// problem+json body, and the text block.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import './formats.js';

/** A `$ref` to a registered schema that keeps the referenced schema's static type. */
export function ref<T extends TSchema>(schema: T, description?: string) {
  if (schema.$id === undefined) throw new Error('ref() needs a schema with an $id');
  return Type.Unsafe<Static<T>>({ $ref: `${schema.$id}#`, ...(description ? { description } : {}) });
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

export const ImageBlockSchema = Type.Object(
  {
    type: Type.Literal('image'),
    source: Type.Object({
      type: Type.Literal('base64'),
      media_type: Type.Union(IMAGE_MEDIA_TYPES.map((t) => Type.Literal(t))),
      data: Type.String({ description: 'Base64 of the image bytes' }),
    }),
  },
  { $id: 'ImageBlock', description: 'An image a tool returned (an MCP tool\'s image content); never capped, at most 5 MiB of base64' },
);
export type ImageBlock = Static<typeof ImageBlockSchema>;

/** A block of a tool result: text (capped) or an image. */
export type ResultBlock = TextBlock | ImageBlock;
