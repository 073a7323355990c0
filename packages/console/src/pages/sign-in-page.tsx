/**
 * Sign in with an API key and a namespace. The key is checked with one read (the instance list)
 * before it is kept, so a wrong key shows the API's `unauthenticated` at once.
 */
import { Button, Container, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { createClient } from '../client-context.js';
import { ErrorAlert } from '../components/error-alert.js';
import type { Session } from '../session.js';

export function SignInPage({ onSignIn }: { readonly onSignIn: (session: Session) => void }) {
  const [namespace, setNamespace] = useState('dev');
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    const session = { namespace: namespace.trim(), apiKey: apiKey.trim() };
    setBusy(true);
    setError(undefined);
    try {
      await createClient(session).instances.list({ page_size: 1 });
      onSignIn(session);
    } catch (e: unknown) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Container size={420} mt={80}>
      <Title order={2} mb="md">
        Weave console
      </Title>
      <Paper withBorder p="lg">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <Stack>
            <TextInput
              label="Namespace"
              value={namespace}
              onChange={(e) => setNamespace(e.currentTarget.value)}
              data-testid="sign-in-namespace"
            />
            <PasswordInput
              label="API key"
              description="Kept in this tab's session storage only"
              value={apiKey}
              onChange={(e) => setApiKey(e.currentTarget.value)}
              data-testid="sign-in-key"
            />
            <ErrorAlert error={error} />
            <Button type="submit" loading={busy} data-testid="sign-in-submit">
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Container>
  );
}
