/** Small pieces every view uses: errors in words, the once-shown value, labelled fields. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { errorText } from '../../client';

/** The outcome of an API call a view shows: nothing yet, or the error in words. */
export type Problem = string | undefined;

/** An error answer (or a network failure) as words for `ErrorMessage`. */
export function problemOf(error: unknown, response?: Response): string {
  if (error instanceof Error) return `The request failed: ${error.message}`;
  return errorText(error, response?.status);
}

export function ErrorMessage({ problem }: { problem: Problem }) {
  if (!problem) return null;
  return (
    <div class="error" role="alert">
      {problem.split('\n').map((line, i) =>
        i === 0 ? (
          <p key={i}>{line}</p>
        ) : (
          <p key={i} class="detail">
            {line}
          </p>
        ),
      )}
    </div>
  );
}

/** A key value shown once: the value, a copy button, and the warning that it will not be shown again. */
export function ValueOnce({
  value,
  label,
  keptAs = 'The service keeps only a hash of it, so it cannot be shown again.',
}: {
  value: string;
  label: string;
  /** How the service keeps it, and so why it cannot show it again. */
  keptAs?: string;
}) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <section class="value-once" aria-labelledby="value-once-title">
      <h3 id="value-once-title">{label}</h3>
      <p class="warning" role="note">
        Copy it now: this is the only time the value is shown. {keptAs}
      </p>
      <div class="value-row">
        <code data-testid="issued-value">{value}</code>
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p aria-live="polite" class="hint">
        {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'The browser refused the clipboard: select the value and copy it by hand.' : ''}
      </p>
    </section>
  );
}

/** A labelled control: `label` names the control whose id is `id` (the hint describes it). */
export function Field({ id, label, hint, children }: { id: string; label: string; hint?: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint ? (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
    </div>
  );
}

/** A labelled text input (or textarea), described by its hint. */
export function TextField(props: {
  id: string;
  label: string;
  hint?: string;
  value: string;
  onInput: (event: Event) => void;
  multiline?: boolean;
  type?: 'text' | 'datetime-local';
  inputMode?: 'numeric' | 'text';
  required?: boolean;
  maxLength?: number;
}) {
  const { id, label, hint, multiline, value, onInput } = props;
  const describedBy = hint ? `${id}-hint` : undefined;
  return (
    <Field id={id} label={label} hint={hint}>
      {multiline ? (
        <textarea id={id} rows={2} aria-describedby={describedBy} value={value} onInput={(event) => onInput(event)} />
      ) : (
        <input
          id={id}
          aria-describedby={describedBy}
          // Preact types inputs by `type`; both kinds take these attributes.
          type={(props.type ?? 'text') as 'text'}
          inputMode={props.inputMode}
          required={props.required}
          maxLength={props.maxLength}
          value={value}
          onInput={(event) => onInput(event)}
        />
      )}
    </Field>
  );
}

/** A labelled select of `[value, words]` options, described by its hint. */
export function SelectField(props: {
  id: string;
  label: string;
  hint?: string;
  value: string;
  onChange: (event: Event) => void;
  options: ReadonlyArray<readonly [string, string]>;
  disabled?: boolean;
}) {
  const { id, label, hint, options, ...control } = props;
  return (
    <Field id={id} label={label} hint={hint}>
      <select id={id} {...(hint ? { 'aria-describedby': `${id}-hint` } : {})} {...control}>
        {options.map(([value, words]) => (
          <option key={value} value={value}>
            {words}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The settings a create sets and an edit changes, as text: the same fields, labelled with the API's names. */
export interface EditableText {
  name: string;
  description: string;
  scopes: string;
  rate_limit: string;
  domains: string;
  ip_whitelist: string;
  /** A `datetime-local` value read as UTC (format.ts); empty: never. */
  expires_at: string;
  /** `disable` or `notify`; empty (create only): the type's default. */
  on_leak: string;
}

/** The choices of `on_leak`, as the create and edit forms offer them. */
const ON_LEAK_CHOICES: Array<[string, string]> = [
  ['disable', 'disable: a reported leak stops the key at once'],
  ['notify', 'notify: a reported leak is audited and sent as an event; the key keeps working'],
];

/** `afterName`: the create form's own fields (type, environment), in their place. */
export function EditableFields({
  prefix,
  form,
  set,
  isPublic,
  rateLimitHint,
  afterName,
}: {
  prefix: string;
  form: EditableText;
  set: (name: keyof EditableText) => (event: Event) => void;
  isPublic: boolean;
  rateLimitHint: string;
  afterName?: ComponentChildren;
}) {
  const onLeakChoices: Array<[string, string]> =
    form.on_leak === '' ? [['', `the type’s default (${isPublic ? 'notify' : 'disable'})`], ...ON_LEAK_CHOICES] : ON_LEAK_CHOICES;
  return (
    <>
      <TextField id={`${prefix}-name`} label="name" required maxLength={100} value={form.name} onInput={set('name')} />
      {afterName}
      <TextField id={`${prefix}-description`} label="description" multiline value={form.description} onInput={set('description')} />
      <TextField
        id={`${prefix}-scopes`}
        label="scopes"
        hint="Comma-separated, e.g. enc.tiles:read, enc.*:read, keys.manage"
        value={form.scopes}
        onInput={set('scopes')}
      />
      <TextField id={`${prefix}-rate-limit`} label="rate_limit" hint={rateLimitHint} inputMode="numeric" value={form.rate_limit} onInput={set('rate_limit')} />
      <TextField
        id={`${prefix}-expires-at`}
        label="expires_at"
        hint="UTC; empty: never"
        type="datetime-local"
        value={form.expires_at}
        onInput={set('expires_at')}
      />
      {isPublic ? (
        <TextField
          id={`${prefix}-domains`}
          label="domains"
          hint="Comma-separated origins, e.g. https://app.example.com, https://*.example.com"
          value={form.domains}
          onInput={set('domains')}
        />
      ) : null}
      <TextField
        id={`${prefix}-ip-whitelist`}
        label="ip_whitelist"
        hint="Comma-separated addresses or CIDR blocks; empty: any"
        value={form.ip_whitelist}
        onInput={set('ip_whitelist')}
      />
      <SelectField
        id={`${prefix}-on-leak`}
        label="on_leak"
        hint="What a report of the value as leaked (GitHub secret scanning, or your team) does"
        value={form.on_leak}
        onChange={set('on_leak')}
        options={onLeakChoices}
      />
    </>
  );
}

/** A thing's page before it is read: the way back, and the problem or `Loading…`. */
export function NotReadYet({ back, backTo, problem }: { back: string; backTo: string; problem: Problem }) {
  return (
    <main>
      <p>
        <a href={backTo}>← {back}</a>
      </p>
      <ErrorMessage problem={problem} />
      {problem ? null : <p aria-live="polite">Loading…</p>}
    </main>
  );
}
