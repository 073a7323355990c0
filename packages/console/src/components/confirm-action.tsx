/**
 * A button that opens a confirmation: optionally a JSON field (retry input, resolve output,
 * signal payload; parsed with @weave/json so numbers stay exact) and a reason, then runs the
 * action and shows the API's error plainly, or closes and calls `onDone`.
 */
import { Button, Group, Modal, Stack, Text, TextInput, Textarea } from '@mantine/core';
import type { JsonValue } from '@weave/json';
import { useState } from 'react';
import type { ReactNode } from 'react';
import { parseJsonText } from '../exact-json.js';
import { ErrorAlert } from './error-alert.js';

export interface ActionInput {
  readonly json: JsonValue | undefined;
  readonly reason: string;
  readonly extra: string;
}

export interface ConfirmActionProps {
  readonly label: string;
  readonly title: string;
  readonly description?: ReactNode;
  readonly color?: string;
  /** Label and initial text of a JSON field; absent: no JSON field. */
  readonly json?: { readonly label: string; readonly initial: string };
  /** A one-line text field (a signal name) before the JSON. */
  readonly extra?: { readonly label: string; readonly initial: string };
  readonly reason?: boolean;
  /** The button waits (a loading button is disabled) while what the dialog shows still loads. */
  readonly pending?: boolean;
  /** Called as the dialog opens: what the operator sees then is what the action acts on. */
  readonly onOpen?: () => void;
  readonly run: (input: ActionInput) => Promise<unknown>;
  readonly onDone?: () => void;
}

export function ConfirmAction(props: ConfirmActionProps) {
  const [open, setOpen] = useState(false);
  const [jsonText, setJsonText] = useState(props.json?.initial ?? '');
  const [reason, setReason] = useState('');
  const [extra, setExtra] = useState(props.extra?.initial ?? '');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const show = () => {
    setJsonText(props.json?.initial ?? '');
    setExtra(props.extra?.initial ?? '');
    setReason('');
    setError(undefined);
    props.onOpen?.();
    setOpen(true);
  };
  const confirm = async () => {
    let json: JsonValue | undefined;
    if (props.json !== undefined) {
      const parsed = parseJsonText(jsonText);
      if (!parsed.ok) {
        setError(new Error(`${props.json.label} is not valid JSON: ${parsed.message}`));
        return;
      }
      json = parsed.value;
    }
    setBusy(true);
    setError(undefined);
    try {
      await props.run({ json, reason, extra });
      setOpen(false);
      props.onDone?.();
    } catch (e: unknown) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const slug = props.label.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return (
    <>
      <Button
        size="xs"
        variant="light"
        color={props.color ?? 'blue'}
        onClick={show}
        loading={props.pending === true}
        data-testid={`action-${slug}`}
      >
        {props.label}
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={props.title} size="lg">
        <Stack>
          {props.description !== undefined && <Text size="sm">{props.description}</Text>}
          {props.extra !== undefined && (
            <TextInput
              label={props.extra.label}
              value={extra}
              onChange={(e) => setExtra(e.currentTarget.value)}
              data-testid="confirm-extra"
            />
          )}
          {props.json !== undefined && (
            <Textarea
              label={props.json.label}
              value={jsonText}
              onChange={(e) => setJsonText(e.currentTarget.value)}
              autosize
              minRows={4}
              styles={{ input: { fontFamily: 'monospace' } }}
              data-testid="confirm-json"
            />
          )}
          {props.reason !== false && (
            <TextInput
              label="Reason (recorded in the history)"
              value={reason}
              onChange={(e) => setReason(e.currentTarget.value)}
              data-testid="confirm-reason"
            />
          )}
          <ErrorAlert error={error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button
              color={props.color ?? 'blue'}
              loading={busy}
              onClick={() => void confirm()}
              data-testid="confirm-submit"
            >
              {props.label}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
