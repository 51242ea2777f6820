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
      {problem.split('\n').map((line, i) => (i === 0 ? <p key={i}>{line}</p> : <p key={i} class="detail">{line}</p>))}
    </div>
  );
}

/** A key value shown once: the value, a copy button, and the warning that it will not be shown again. */
export function ValueOnce({ value, label }: { value: string; label: string }) {
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
        Copy it now: this is the only time the value is shown. The service keeps only a hash of it, so it cannot be shown again.
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
