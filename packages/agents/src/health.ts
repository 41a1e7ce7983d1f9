/**
 * Health of the registered agent endpoints (document 3: `health_status`, cached): a GET of `<url>/health`
 * with a short timeout, `healthy` on a 2xx answer and `unhealthy` otherwise; each url is probed once per
 * cache period however many agents share it (in the unified runtime every agent's url is the runtime's own,
 * which is healthy when it answers). Probes run concurrently and a probe under way is shared.
 */
import type { Agents } from '@tessera/api';
import { agentsEnv } from './env';
import type { RegisteredAgent } from './registry';

export interface HealthProbeOptions {
  timeoutMs?: number;
  ttlMs?: number;
  now?: () => number;
}

export class HealthProbe {
  private readonly cache = new Map<string, { status: Agents.HealthStatus; at: number }>();
  private readonly running = new Map<string, Promise<Agents.HealthStatus>>();
  private readonly timeoutMs: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: HealthProbeOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? agentsEnv.agentHealthTimeoutMs;
    this.ttlMs = options.ttlMs ?? agentsEnv.agentHealthTtlSeconds * 1000;
    this.now = options.now ?? Date.now;
  }

  /** The status of `url`'s health endpoint, from the cache while it is fresh. */
  status(url: string): Promise<Agents.HealthStatus> {
    const cached = this.cache.get(url);
    if (cached && this.now() - cached.at < this.ttlMs) return Promise.resolve(cached.status);
    let probe = this.running.get(url);
    if (!probe) {
      probe = this.probe(url).then((status) => {
        this.cache.set(url, { status, at: this.now() });
        this.running.delete(url);
        return status;
      });
      this.running.set(url, probe);
    }
    return probe;
  }

  private async probe(url: string): Promise<Agents.HealthStatus> {
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(this.timeoutMs) });
      await response.body?.cancel();
      return response.ok ? 'healthy' : 'unhealthy';
    } catch {
      return 'unhealthy';
    }
  }

  /** The agents with the health status of their endpoints. */
  async annotate(agents: RegisteredAgent[]): Promise<RegisteredAgent[]> {
    const urls = [...new Set(agents.map((agent) => agent.url))];
    const statuses = new Map(
      await Promise.all(urls.map(async (url) => [url, await this.status(url)] as const)),
    );
    return agents.map((agent) => ({ ...agent, health_status: statuses.get(agent.url) ?? 'unknown' }));
  }
}
