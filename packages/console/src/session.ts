/**
 * The signed-in session: API key and namespace, kept in sessionStorage only (issue 13 Deliver 3),
 * so closing the tab forgets the key and nothing reaches localStorage or cookies.
 */
const KEY = 'weave.console.session';

export interface Session {
  readonly namespace: string;
  readonly apiKey: string;
}

export function readSession(): Session | undefined {
  const text = sessionStorage.getItem(KEY);
  if (text === null) {
    return undefined;
  }
  const [namespace, apiKey] = text.split('\n');
  return namespace && apiKey ? { namespace, apiKey } : undefined;
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(KEY, `${session.namespace}\n${session.apiKey}`);
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
}
