/**
 * A process's leases by key (domain/lease-parts.ts `LeaseMap`): bounded, and
 * what it drops to stay bounded is the least recently used lease that holds
 * nothing. A lease that holds uses or capacity is never dropped: its uses
 * would go unwritten, or its leased slots would never be given back.
 */
import { LeaseMap } from '../../lambda/domain/lease-parts';
import { DEFAULT_LEASE_SETTINGS, KeyLeases } from '../../lambda/domain/usage-lease';
import { MeterLeases } from '../../lambda/domain/meter-lease';

class Probe {
  holding = false;
  idle(): boolean {
    return !this.holding;
  }
}

class Probes extends LeaseMap<Probe, { label: string }> {
  protected make(): Probe {
    return new Probe();
  }
}

describe('LeaseMap', () => {
  it('past its capacity, drops the least recently used idle lease, never one that holds something', () => {
    const leases = new Probes({ label: 'probe' }, 2);
    leases.of('a').holding = true;
    leases.of('b');
    const c = leases.of('c'); // full: 'a' holds, so 'b' goes
    expect([leases.peek('a')?.holding, leases.peek('b'), leases.peek('c')]).toEqual([true, undefined, c]);
    expect(leases.busy()).toEqual(['a']);
  });

  it('a lease used again is the most recent; peek leaves the order alone', () => {
    const leases = new Probes({ label: 'probe' }, 2);
    const a = leases.of('a');
    leases.of('b');
    leases.peek('a'); // not a use: 'a' stays the least recent
    leases.of('c');
    expect([leases.peek('a'), leases.peek('b')?.idle()]).toEqual([undefined, true]);
    leases.of('b'); // a use: now 'c' is the least recent
    leases.of('d');
    expect([leases.peek('c'), leases.peek('b') !== undefined, a.idle()]).toEqual([undefined, true, true]);
  });

  it('when every lease holds something, grows past its capacity rather than drop one', () => {
    const leases = new Probes({ label: 'probe' }, 1);
    leases.of('a').holding = true;
    leases.of('b').holding = true;
    expect(leases.busy()).toEqual(['a', 'b']);
  });

  it('the two kinds make their own leases under their settings: idle when new', () => {
    const keyLeases = new KeyLeases(DEFAULT_LEASE_SETTINGS);
    const meterLeases = new MeterLeases(DEFAULT_LEASE_SETTINGS);
    expect([keyLeases.of('k').idle(), meterLeases.of('k').idle(), keyLeases.settings, meterLeases.settings]).toEqual([
      true,
      true,
      DEFAULT_LEASE_SETTINGS,
      DEFAULT_LEASE_SETTINGS,
    ]);
    expect([keyLeases.withPending(), meterLeases.holding()]).toEqual([[], []]);
  });
});
