// The relay.* channels over main/core/relay: thin, each validates (in the contract) and calls one
// use case. The device key comes from the desk's SecretStore; the relay client from the service
// connection the desk uses now (embedded or remote).
import { RelayClient } from '../../shared/api/relay-client.ts';
import type { ServiceConnection } from '../core/chains/connection.ts';
import { CoordinatorError } from '../core/errors.ts';
import type { LedgerConnector } from '../core/ledger/transport.ts';
import { confirmJoin, inviteToWallet, joinByCode, ledgerBinding, softwareBinding, paymentApprovals, relayApproval, relayDecline, relayKeys, relaySignatures, relaySigningRequest, removeMember, replaceRelayKey, rotateMember, setApprovalRule, syncRelay, type RelayDeps } from '../core/relay/relay.ts';
import type { ExaminedSecretStore } from '../core/secrets.ts';
import { signRequest, softwareKeyFrom } from '../core/software-signer.ts';
import type { CoreDeps } from '../core/wallets/wallets.ts';
import { openSigningRequest } from '../core/payments/signing-request.ts';
import { paymentNames } from '../core/payments/words.ts';
import type { RelayStatusView } from './contract.ts';
import { amountText } from './units.ts';
import { openedRequestView } from './views.ts';
import type { Handlers } from './dispatch.ts';

export interface RelayBridgeDeps {
  core: CoreDeps;
  connection: ServiceConnection;
  /** Where the device's relay secret is kept (safeStorage on Electron). */
  secrets: ExaminedSecretStore;
  /** A co-signer's Ledger, to sign the binding of this desk's device key. */
  ledger: LedgerConnector;
}

type RelayChannels = Extract<keyof Handlers, `relay.${string}`>;

/** What a waiting request pays, in words, from the request as checked offline (the inbox took only requests that pass). */
function requestWords(body: string | null): string | null {
  if (!body) return null;
  try {
    const v = openedRequestView(openSigningRequest(body));
    const paid = v.outputs.filter((o) => o.purpose !== 'change').map((o) => `${amountText(o.amount, v.unit)} to ${o.address}`);
    return `pays ${paid.join(', ')}; ${amountText(v.leaving.amount, v.unit)} leaves the wallet with the miners' fee`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export function createRelayHandlers(deps: RelayBridgeDeps): Pick<Handlers, RelayChannels> {
  let keys: RelayDeps['keys'] | null = null;
  const keyring = (): RelayDeps['keys'] => (keys ??= relayKeys(deps.secrets));
  /** What a relay operation needs; it refuses first, in words, while the relay key cannot be read. */
  const relayDeps = (): RelayDeps => {
    keyring().requireReadable();
    return { ...deps.core, relay: new RelayClient(deps.connection.api), keys: keyring() };
  };
  const store = deps.core.store;
  // One relay operation at a time: the badge and the screen both sync, and two syncs of one view
  // would act twice on the same messages (a join admitted, then refused as already used).
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  const status = (): RelayStatusView => {
    const k = keyring();
    // A key that cannot be read is a state the screen shows (what, why, the choices), not a failure.
    const problem = k.problem;
    const mine = (room: string): string | null => (problem ? null : k.forRoom(room).public.id);
    const rooms = store.relay.rooms();
    const walletOf = new Map(rooms.map((r) => [r.room, r.walletName]));
    return {
      device: problem ? null : k.desk.public.id,
      key_problem: problem ? { what: problem.what, means: problem.means, choices: [...problem.choices] } : null,
      rooms: rooms.map((r) => ({
        room: r.room,
        wallet: r.walletName,
        wallet_id: r.walletId,
        role: r.role,
        members: Object.entries(r.view.roster).map(([device, m]) => ({ device, name: m.name, role: m.role, binding: m.binding, me: device === mine(r.room) })),
        stuck: r.stuck,
      })),
      pending_joins: store.relay.pendingJoins().map((j) => ({ room: j.room, device: j.device, name: j.name, comparison: j.comparison })),
      waiting: store.relay.inbox('waiting').map((i) => ({ room: i.room, seq: i.seq, wallet: walletOf.get(i.room) ?? '', payment_id: i.paymentId, sender: i.sender, message: i.message, pays: requestWords(i.body) })),
      recent: store.relay
        .inbox()
        .filter((i) => i.status !== 'waiting')
        .slice(-20)
        .reverse()
        .map((i) => ({ room: i.room, seq: i.seq, kind: i.kind, status: i.status, message: i.message, received_at: i.receivedAt })),
      sent: store.relay.outbox(30).map((o) => ({ room: o.room, seq: o.seq, wallet: walletOf.get(o.room) ?? '', kind: o.kind, payment_id: o.paymentId, payment: o.paymentId ? paymentNames({ store }, [o.paymentId]) : null, to: o.recipients, seen_by: o.seenBy, sent_at: o.sentAt })),
    };
  };

  return {
    'relay.status': async () => status(),
    'relay.invite': async (input) => serial(() => inviteToWallet(relayDeps(), input.wallet_id, input.role === 'cosigner' ? { role: 'cosigner', position: input.position } : { role: 'approver', name: input.name })),
    'relay.join': async ({ code, name, secret, passphrase, ledger }) =>
      serial(() => joinByCode(relayDeps(), code, name, ledger ? ledgerBinding(deps.ledger) : secret ? softwareBinding(softwareKeyFrom(secret, passphrase)) : undefined)),
    'relay.confirmJoin': async ({ room, device: joining, same }) => {
      await serial(() => confirmJoin(relayDeps(), room, joining, same));
      return status();
    },
    'relay.sync': async ({ wait }) => serial(() => syncRelay(relayDeps(), wait ?? 0)),
    'relay.sendRequest': async ({ payment_id }) => {
      const sent = await serial(() => relaySigningRequest(relayDeps(), payment_id));
      return { to: sent.to, approvals: sent.approvals.words };
    },
    'relay.sign': async ({ room, payment_id, secret, passphrase }) => {
      const item = store.relay.inbox('waiting').find((i) => i.room === room && i.paymentId === payment_id && i.kind === 'signing-request');
      if (!item?.body) throw new CoordinatorError('not_found', `no signing request for payment ${payment_id} waits here`);
      const d = relayDeps(); // before the key is typed in to sign: a relay key that cannot be read refuses first
      // The same signer as a request file in co-signer mode: it checks the request offline first.
      const signed = signRequest(item.body, softwareKeyFrom(secret, passphrase));
      await serial(() => relaySignatures(d, room, payment_id, signed.file));
      return { signer: signed.signer };
    },
    'relay.decline': async ({ room, payment_id, reason }) => {
      await serial(() => relayDecline(relayDeps(), room, payment_id, reason));
      return status();
    },
    'relay.approve': async ({ room, payment_id, decision, reason }) => {
      await serial(() => relayApproval(relayDeps(), room, payment_id, decision, reason));
      return status();
    },
    'relay.approvals': async ({ payment_id }) => {
      // The store's approvals only: a payment's page reads them whether or not the relay key can be read.
      const a = paymentApprovals(deps.core, payment_id);
      return { ...a, entries: store.relay.approvals(payment_id).map((e) => ({ approver: e.approver, binding: e.binding, decision: e.decision, reason: e.reason, at: e.at })) };
    },
    'relay.rule': async ({ wallet_id }) => {
      const rule = store.relay.rule(wallet_id);
      return rule ? { approvals: rule.approvals, limit: rule.limit === null ? null : rule.limit.toString(), period: rule.period } : null;
    },
    'relay.setRule': async ({ wallet_id, approvals, limit, period }) => {
      setApprovalRule(deps.core, wallet_id, { approvals, limit: limit === null ? null : BigInt(limit), period });
      return { approvals, limit, period };
    },
    'relay.removeMember': async ({ room, device: member }) => {
      await serial(() => removeMember(relayDeps(), room, member));
      return status();
    },
    'relay.rotateMember': async ({ room, device: member }) => serial(() => rotateMember(relayDeps(), room, member)),
    'relay.newKey': async () =>
      serial(async () => {
        const made = replaceRelayKey({ ...deps.core, keys: keyring() });
        return { replaced: made.replaced, device: made.device, set_aside: made.setAside, rooms: made.rooms };
      }),
  };
}
