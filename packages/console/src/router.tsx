/**
 * A small client-side router for the console's few pages: paths below `/console/`, moved with
 * the History API (the server answers index.html for any such path: docs/console.md).
 */
import { useSyncExternalStore } from 'react';
import type { MouseEvent, ReactNode } from 'react';

export const BASE = '/console';
const CHANGE = 'weave-console-navigate';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(CHANGE, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(CHANGE, onChange);
  };
}

function currentPath(): string {
  const path = window.location.pathname;
  const below = path.startsWith(BASE) ? path.slice(BASE.length) : path;
  return `${below === '' ? '/' : below}${window.location.search}`;
}

/** The path below `/console` with its query (`/instances?status=FAILED`). */
export function usePath(): string {
  return useSyncExternalStore(subscribe, currentPath);
}

export function navigate(path: string): void {
  window.history.pushState(null, '', `${BASE}${path}`);
  window.dispatchEvent(new Event(CHANGE));
}

export function Link({ to, children }: { readonly to: string; readonly children: ReactNode }) {
  const onClick = (e: MouseEvent) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) {
      return;
    }
    e.preventDefault();
    navigate(to);
  };
  return (
    <a href={`${BASE}${to}`} onClick={onClick}>
      {children}
    </a>
  );
}

/** `/instances/42/steps/charge` against `/instances/:id/steps/:step` → `{id, step}`. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = (path.split('?')[0] ?? '').split('/');
  if (want.length !== got.length) {
    return undefined;
  }
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] ?? '';
    const g = got[i] ?? '';
    if (w.startsWith(':')) {
      params[w.slice(1)] = decodeURIComponent(g);
    } else if (w !== g) {
      return undefined;
    }
  }
  return params;
}
