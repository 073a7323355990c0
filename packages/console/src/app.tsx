/**
 * The console's shell: sign-in until a session exists, then the navigation and the page of the
 * current path (docs/console.md lists the pages).
 */
import { AppShell, Button, Group, NavLink, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { ClientContext, createClient } from './client-context.js';
import { DefinitionsPage } from './pages/definitions-page.js';
import { InstancePage } from './pages/instance-page.js';
import { InstancesPage } from './pages/instances-page.js';
import { QueuesPage } from './pages/queues-page.js';
import { SignInPage } from './pages/sign-in-page.js';
import { StepPage } from './pages/step-page.js';
import { StreamsPage } from './pages/streams-page.js';
import { matchPath, navigate, usePath } from './router.js';
import { clearSession, readSession, saveSession } from './session.js';
import type { Session } from './session.js';

const SECTIONS = [
  { path: '/instances', label: 'Instances' },
  { path: '/definitions', label: 'Definitions' },
  { path: '/queues', label: 'Queues' },
  { path: '/streams', label: 'Streams' },
] as const;

export function App() {
  const [session, setSession] = useState<Session | undefined>(readSession);
  const client = useMemo(
    () => (session === undefined ? undefined : createClient(session)),
    [session],
  );
  const path = usePath();
  if (session === undefined || client === undefined) {
    return (
      <SignInPage
        onSignIn={(s) => {
          saveSession(s);
          setSession(s);
        }}
      />
    );
  }
  const signOut = () => {
    clearSession();
    setSession(undefined);
    navigate('/');
  };
  return (
    <ClientContext.Provider value={client}>
      <AppShell header={{ height: 52 }} navbar={{ width: 180, breakpoint: 0 }} padding="md">
        <AppShell.Header>
          <Group h="100%" px="md" justify="space-between">
            <Title order={4}>Weave</Title>
            <Group>
              <Text size="sm" c="dimmed" data-testid="session-namespace">
                namespace {session.namespace}
              </Text>
              <Button size="xs" variant="default" onClick={signOut} data-testid="sign-out">
                Sign out
              </Button>
            </Group>
          </Group>
        </AppShell.Header>
        <AppShell.Navbar p="xs">
          {SECTIONS.map((s) => (
            <NavLink
              key={s.path}
              label={s.label}
              active={path.startsWith(s.path)}
              href={`/console${s.path}`}
              onClick={(e) => {
                e.preventDefault();
                navigate(s.path);
              }}
            />
          ))}
        </AppShell.Navbar>
        <AppShell.Main>
          <Page path={path} />
        </AppShell.Main>
      </AppShell>
    </ClientContext.Provider>
  );
}

function Page({ path }: { readonly path: string }) {
  const step = matchPath('/instances/:id/steps/:step', path);
  if (step !== undefined) {
    return <StepPage instanceId={step['id'] ?? ''} stepId={step['step'] ?? ''} />;
  }
  const instance = matchPath('/instances/:id', path);
  if (instance !== undefined) {
    return <InstancePage id={instance['id'] ?? ''} />;
  }
  if (path.startsWith('/definitions')) {
    return <DefinitionsPage path={path} />;
  }
  if (path.startsWith('/queues')) {
    return <QueuesPage />;
  }
  if (path.startsWith('/streams')) {
    return <StreamsPage />;
  }
  // Keyed by the path: `/instances?workflow=x` and `/instances` start from their own filter.
  return <InstancesPage key={path} path={path} />;
}
