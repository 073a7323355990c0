/** The API's error shown plainly: code, message and details, as the server wrote them. */
import { Alert, Code } from '@mantine/core';
import { isWeaveApiError } from '@weave/sdk';
import { toJsonText } from '../exact-json.js';

export function ErrorAlert({ error }: { readonly error: unknown }) {
  if (error === undefined || error === null) {
    return null;
  }
  if (isWeaveApiError(error)) {
    const hasDetails = Object.keys(error.details).length > 0;
    return (
      <Alert color="red" title={`${error.code} (${error.status})`} data-testid="api-error">
        {error.message}
        {hasDetails && (
          <Code block mt="xs">
            {toJsonText(error.details)}
          </Code>
        )}
      </Alert>
    );
  }
  return (
    <Alert color="red" title="error" data-testid="api-error">
      {error instanceof Error ? error.message : toJsonText(error)}
    </Alert>
  );
}
