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

export const TelemetryHealth = z
  .object({
    status: z.enum(['configured', 'not_configured']),
    collector_url: z.string().nullable(),
    message: z.string(),
  })
  .meta({
    id: 'TelemetryHealth',
    description:
      'The deployment’s trace collector (system configuration `telemetry_url`, else `TESSERA_TELEMETRY_URL`); a tenant’s own `collector_url` is not shown. Not part of `status`.',
  });
export type TelemetryHealth = z.infer<typeof TelemetryHealth>;

export const HealthReport = z
  .object({
    status: z.enum(['ok', 'degraded']),
    telemetry: TelemetryHealth,
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
