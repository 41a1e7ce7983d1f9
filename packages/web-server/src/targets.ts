/**
 * Where a runtime route is answered: the runtime's base URL, or for a route served apart (in AWS a response-
 * streaming route is a function URL of its own, since the HTTP API buffers answers) that route's base URL.
 * Routes are named as the runtime's route table names them, `METHOD /path/{param}`.
 */

export type RuntimeTarget = (method: string, pathAndQuery: string) => string;

export function runtimeTarget(runtimeUrl: string, streamUrls: Record<string, string> = {}): RuntimeTarget {
  const base = runtimeUrl.replace(/\/+$/, '');
  const routes = Object.entries(streamUrls).map(([route, url]) => {
    const [method, template] = route.split(' ') as [string, string];
    const pattern = template
      .split('/')
      .map((segment) =>
        /^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    return { method, pattern: new RegExp(`^${pattern}/?$`), url: url.replace(/\/+$/, '') };
  });
  return (method, pathAndQuery) => {
    const path = pathAndQuery.split('?')[0]!;
    const route = routes.find((r) => r.method === method && r.pattern.test(path));
    return route ? route.url : base;
  };
}
