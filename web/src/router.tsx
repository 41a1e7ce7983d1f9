/** A small History API router: the page is the path, its state (tenant, query) lives in the query string. */
import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';

const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

if (typeof window !== 'undefined') window.addEventListener('popstate', notify);

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** `location.pathname + location.search`, re-rendering on every navigation. */
export function useLocation(): URL {
  const href = useSyncExternalStore(subscribe, () => window.location.href);
  return new URL(href);
}

/** Goes to `to` (a path with an optional query); `replace` edits the current history entry instead. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  notify();
}

/** Replaces query parameters of the current page (`undefined` or '' removes one), keeping the others. */
export function setParams(
  params: Record<string, string | undefined>,
  options: { replace?: boolean } = {},
): void {
  const url = new URL(window.location.href);
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === '') url.searchParams.delete(name);
    else url.searchParams.set(name, value);
  }
  navigate(url.pathname + url.search, options);
}

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={follow} {...rest} />;
}
