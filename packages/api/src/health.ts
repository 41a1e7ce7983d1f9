/** `GET /health`: liveness and the state of each backing service. */
import { z } from 'zod';
import { route } from './contract';

export const ServiceHealth = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    latency_ms: z.number(),
    error: z.string().optional(),
  })
  .meta({ id: 'ServiceHealth' });
export type ServiceHealth = z.infer<typeof ServiceHealth>;

export const HealthReport = z
  .object({
    status: z.enum(['ok', 'degraded']),
    services: z.object({
      dynamodb: ServiceHealth,
      s3: ServiceHealth,
      sqs: ServiceHealth,
      search_backend: ServiceHealth,
    }),
  })
  .meta({ id: 'HealthReport' });
export type HealthReport = z.infer<typeof HealthReport>;

export const health = route({
  id: 'health',
  group: 'health',
  method: 'GET',
  route: '/health',
  summary: 'Liveness and the state of each backing service',
  description: '`degraded` when any service did not answer its probe within 2 s; the answer is still 200.',
  responses: { 200: { description: 'Each service with its probe latency.', schema: HealthReport } },
  errors: {},
});
