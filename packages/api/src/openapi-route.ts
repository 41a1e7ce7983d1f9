/** `GET /openapi.json`: the OpenAPI 3.1 document of every route, built from these contracts. */
import { z } from 'zod';
import { route } from './contract';

export const OpenApiDocument = z
  .object({
    openapi: z.string(),
    info: z.unknown(),
    paths: z.unknown().optional(),
    components: z.unknown().optional(),
  })
  .meta({
    description: 'An OpenAPI 3.1 document (this one).',
    override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
      delete jsonSchema.additionalProperties;
    },
  });

export const openapi = route({
  id: 'openapi',
  group: 'openapi',
  method: 'GET',
  route: '/openapi.json',
  summary: 'This API described as OpenAPI 3.1',
  responses: {
    200: { description: 'The document; `docs/openapi.json` holds the same.', schema: OpenApiDocument },
  },
  errors: {},
});
