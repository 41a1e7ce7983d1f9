/**
 * The runtime routes the browser may reach through `/ui-api/runtime/*` (clarifications, "Web client"):
 * exactly these, everything else answers 404 without reaching the runtime.
 */

interface Rule {
  methods: readonly string[];
  /** Matched against the path's segments after `/ui-api/runtime`. */
  pattern: RegExp;
}

const SEGMENT = '[^/]+';

const RULES: readonly Rule[] = [
  { methods: ['GET'], pattern: /^\/health$/ },
  { methods: ['GET'], pattern: /^\/admin\/organizations$/ },
  { methods: ['GET'], pattern: new RegExp(`^/admin/organizations/${SEGMENT}/tenants$`) },
  { methods: ['GET'], pattern: new RegExp(`^/admin/tenants/${SEGMENT}$`) },
  { methods: ['GET'], pattern: /^\/search\/profiles$/ },
  // The runtime answers the search at `/search` and `/search/` alike.
  { methods: ['POST'], pattern: /^\/search\/?$/ },
  { methods: ['GET'], pattern: new RegExp(`^/graph(/${SEGMENT})+$`) },
  { methods: ['POST'], pattern: /^\/ingestion\/uploads?$/ },
  { methods: ['GET'], pattern: new RegExp(`^/ingestion/${SEGMENT}/events$`) },
  { methods: ['GET'], pattern: new RegExp(`^/events(/${SEGMENT})+$`) },
  { methods: ['POST'], pattern: new RegExp(`^/events(/${SEGMENT})+/cancel$`) },
  { methods: ['GET', 'POST'], pattern: new RegExp(`^/wiki(/${SEGMENT})+$`) },
  { methods: ['GET'], pattern: new RegExp(`^/conversations(/${SEGMENT})*$`) },
];

/**
 * Whether `method path` (the part after `/ui-api/runtime`, still percent-encoded) may be forwarded. A path
 * with an empty, `.` or `..` segment, or one whose segment decodes to a slash or backslash, is refused, so
 * no spelling of a path reaches a route outside the list.
 */
export function isForwarded(method: string, path: string): boolean {
  if (!path.startsWith('/')) return false;
  const segments = path.slice(1).split('/');
  for (const segment of segments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return false;
    }
    if (decoded === '.' || decoded === '..' || /[/\\]/.test(decoded)) return false;
  }
  // `/search/` is the one path with a trailing empty segment.
  if (segments.some((segment, index) => segment === '' && !(path === '/search/' && index === 1)))
    return false;
  return RULES.some((rule) => rule.methods.includes(method) && rule.pattern.test(path));
}
