/**
 * A key's or an identity's named limits and credits (docs/limits.md): what
 * they are and what remains, edited in place (the limits as a JSON list, the
 * credits as a balance and a refill), and credits added as a grant with a
 * reason. Shared by the key page and the identity page.
 */
import { useState } from 'preact/hooks';
import type { ApiClient, ApiKey } from '../../client';
import { ErrorMessage, Field, problemOf, type Problem } from './components';

type Limits = NonNullable<ApiKey['limits']>;
type Credits = NonNullable<ApiKey['credits']>;

/** Whose limits and credits: the key's or the identity's, and how a change of them is saved. */
export interface MeterOwner {
  kind: 'key' | 'identity';
  id: string;
  limits?: Limits;
  credits?: Credits;
  /** Saves `{limits?, credits?}` through the owner's update route; a problem in words, or undefined when saved. */
  save(change: { limits?: Limits; credits?: { remaining: number; refill: Credits['refill'] } | null }): Promise<Problem | undefined>;
}

/**
 * A key's or an identity's limits and credits, saved through its update
 * route with the ETag read: a change made elsewhere since (412) is said, not
 * overwritten.
 */
export function meterOwnerOf(
  api: ApiClient,
  kind: MeterOwner['kind'],
  resource: { id: string; limits?: Limits; credits?: Credits },
  entityTag: string | undefined,
): MeterOwner {
  const header = entityTag ? { 'If-Match': entityTag } : {};
  return {
    kind,
    id: resource.id,
    limits: resource.limits,
    credits: resource.credits,
    save: async (change) => {
      const { error, response } =
        kind === 'key'
          ? await api.PATCH('/functions/v1/update-api-key', { params: { header }, body: { key_id: resource.id, ...change } })
          : await api.PATCH('/functions/v1/update-identity', { params: { header }, body: { identity_id: resource.id, ...change } });
      if (response.status === 412) return `Not saved: the ${kind} was changed elsewhere after this page loaded. Reload the page to see it.`;
      return error ? problemOf(error, response) : undefined;
    },
  };
}

const windowWords = (seconds: number) =>
  seconds % 86_400 === 0
    ? `${seconds / 86_400} d`
    : seconds % 3_600 === 0
      ? `${seconds / 3_600} h`
      : seconds % 60 === 0
        ? `${seconds / 60} min`
        : `${seconds} s`;

export function MeterSection({ api, owner, onChanged }: { api: ApiClient; owner: MeterOwner; onChanged: () => Promise<void> }) {
  const prefix = `${owner.kind}-meter`;
  return (
    <section aria-labelledby={`${prefix}-title`}>
      <h2 id={`${prefix}-title`}>Limits and credits</h2>
      {owner.limits?.length ? (
        <table>
          <caption>Named limits</caption>
          <thead>
            <tr>
              <th scope="col">name</th>
              <th scope="col">limit</th>
              <th scope="col">counts</th>
            </tr>
          </thead>
          <tbody>
            {owner.limits.map((limit) => (
              <tr key={limit.name}>
                <td>{limit.name}</td>
                <td>
                  {limit.limit} per {windowWords(limit.window_seconds)}
                </td>
                <td>{limit.scope ? <code>{limit.scope}</code> : 'every verification'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>No named limits.</p>
      )}
      <p>
        {owner.credits
          ? `Credits: ${owner.credits.remaining} remaining${owner.credits.refill ? `, refilled to ${owner.credits.refill.amount} ${owner.credits.refill.interval}` : ''}.`
          : 'Credits: unlimited.'}
      </p>
      <EditMeter owner={owner} onChanged={onChanged} prefix={prefix} />
      {owner.credits ? <AddCredits api={api} owner={owner} onChanged={onChanged} prefix={prefix} /> : null}
    </section>
  );
}

/** The limits (a JSON list) and the credits (unlimited, or a balance with an optional refill), saved together. */
function EditMeter({ owner, onChanged, prefix }: { owner: MeterOwner; onChanged: () => Promise<void>; prefix: string }) {
  const [limitsJson, setLimitsJson] = useState(JSON.stringify(owner.limits ?? [], null, 2));
  const [unlimited, setUnlimited] = useState(!owner.credits);
  const [remaining, setRemaining] = useState(String(owner.credits?.remaining ?? 0));
  const [interval, setInterval] = useState<'none' | 'daily' | 'monthly'>(owner.credits?.refill?.interval ?? 'none');
  const [amount, setAmount] = useState(String(owner.credits?.refill?.amount ?? 1000));
  const [problem, setProblem] = useState<Problem>();
  const [saved, setSaved] = useState(false);

  const save = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    setSaved(false);
    let limits: Limits;
    try {
      limits = JSON.parse(limitsJson) as Limits;
    } catch {
      return setProblem('Limits must be a JSON list, e.g. [{"name": "burst", "limit": 20, "window_seconds": 1}].');
    }
    const credits = unlimited ? null : { remaining: Number(remaining), refill: interval === 'none' ? null : { interval, amount: Number(amount) } };
    try {
      const failed = await owner.save({ limits, credits });
      if (failed) return setProblem(failed);
      await onChanged();
      setSaved(true);
    } catch (failure) {
      setProblem(problemOf(failure));
    }
  };

  return (
    <form onSubmit={save} class="narrow">
      <Field id={`${prefix}-limits`} label="Named limits (JSON)" hint="name, limit, window_seconds (1 s to 30 days) and an optional scope; [] for none">
        <textarea
          id={`${prefix}-limits`}
          rows={4}
          aria-describedby={`${prefix}-limits-hint`}
          value={limitsJson}
          onInput={(e) => setLimitsJson(e.currentTarget.value)}
        />
      </Field>
      <label class="check">
        <input type="checkbox" checked={unlimited} onChange={() => setUnlimited(!unlimited)} /> Unlimited credits
      </label>
      {unlimited ? null : (
        <>
          <Field id={`${prefix}-remaining`} label="Credits remaining (sets the balance)">
            <input id={`${prefix}-remaining`} type="number" min="0" value={remaining} onInput={(e) => setRemaining(e.currentTarget.value)} />
          </Field>
          <Field id={`${prefix}-refill`} label="Refill">
            <select id={`${prefix}-refill`} value={interval} onChange={(e) => setInterval(e.currentTarget.value as 'none' | 'daily' | 'monthly')}>
              <option value="none">none</option>
              <option value="daily">daily</option>
              <option value="monthly">monthly (on the 1st)</option>
            </select>
          </Field>
          {interval === 'none' ? null : (
            <Field id={`${prefix}-amount`} label="Refilled to">
              <input id={`${prefix}-amount`} type="number" min="1" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} />
            </Field>
          )}
        </>
      )}
      <div class="actions">
        <button type="submit">Save limits and credits</button>
      </div>
      {saved ? <p role="status">Saved.</p> : null}
      <ErrorMessage problem={problem} />
    </form>
  );
}

/** A grant of credits with its reason (adjust-credits): spent after the refill allowance, never wiped by a refill. */
function AddCredits({ api, owner, onChanged, prefix }: { api: ApiClient; owner: MeterOwner; onChanged: () => Promise<void>; prefix: string }) {
  const [add, setAdd] = useState('100');
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<Problem>();
  const [done, setDone] = useState<string>();

  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    setDone(undefined);
    try {
      const whose = owner.kind === 'key' ? { key_id: owner.id } : { identity_id: owner.id };
      const { data, error, response } = await api.POST('/functions/v1/adjust-credits', { body: { ...whose, add: Number(add), reason } });
      if (error || !data) return setProblem(problemOf(error, response));
      await onChanged();
      setDone(`Added ${add}: ${data.data.credits?.remaining ?? '?'} remaining.`);
    } catch (failure) {
      setProblem(problemOf(failure));
    }
  };

  return (
    <form onSubmit={submit} class="narrow">
      <Field id={`${prefix}-add`} label="Add credits (a grant no refill wipes)">
        <input id={`${prefix}-add`} type="number" min="1" value={add} onInput={(e) => setAdd(e.currentTarget.value)} />
      </Field>
      <Field id={`${prefix}-reason`} label="Reason (kept in the audit trail)">
        <input id={`${prefix}-reason`} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      </Field>
      <div class="actions">
        <button type="submit">Add credits</button>
      </div>
      {done ? <p role="status">{done}</p> : null}
      <ErrorMessage problem={problem} />
    </form>
  );
}
