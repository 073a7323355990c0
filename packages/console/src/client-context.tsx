/** The SDK client of the signed-in session, for every page (same origin as the console). */
import { WeaveClient } from '@weave/sdk';
import { createContext, useContext } from 'react';
import type { Session } from './session.js';

export const ClientContext = createContext<WeaveClient | undefined>(undefined);

export function createClient(session: Session): WeaveClient {
  return new WeaveClient({
    url: window.location.origin,
    namespace: session.namespace,
    apiKey: session.apiKey,
  });
}

export function useClient(): WeaveClient {
  const client = useContext(ClientContext);
  if (client === undefined) {
    throw new Error('useClient outside a signed-in session');
  }
  return client;
}
