// The relay (issue 35): what waits for you (signing requests to sign or approve) beside what this
// desk sent, joins whose code to compare, joining a room by code, inviting co-signers and approvers,
// the rooms (the treasurer removes a member or rotates a member's key there) and what arrived.
// The desk reads new messages every few seconds; each payload goes through the same checks as a file.
import { useEffect, useRef, useState } from 'react';
import type { RelayKeyProblemView, RelayNewKeyView, RelayStatusView } from '../../../main/bridge/contract.ts';
import { BridgeCallError, call } from '../bridge.ts';
import { when } from '../format.ts';
import { Alert, Card, Loading, useAction, useLoad } from '../ui.tsx';

const POLL_MS = 3_000;

/** Reads the relay and answers its status; an OS notification (Electron: the system's) when more waits than before. */
export function useRelay(): { status: RelayStatusView | null; error: string | null; reload: () => void } {
  const loaded = useLoad(
    async () => {
      try {
        await call('relay.sync', {});
      } catch (err) {
        // A relay key that cannot be read: the status says what, why and the choices.
        if (!(err instanceof BridgeCallError && err.code === 'relay_key_unreadable')) throw err;
      }
      return call('relay.status', {});
    },
    [],
    POLL_MS,
  );
  const seen = useRef(0);
  const waiting = loaded.data?.waiting.length ?? 0;
  useEffect(() => {
    if (waiting > seen.current && typeof Notification !== 'undefined' && Notification.permission === 'granted') {
      new Notification('Countersign', { body: `${waiting} signing request${waiting === 1 ? '' : 's'} waiting for you` });
    }
    seen.current = waiting;
  }, [waiting]);
  return { status: loaded.data, error: loaded.error, reload: loaded.reload };
}

function Waiting({ status, reload }: { status: RelayStatusView; reload: () => void }) {
  const act = useAction();
  const [secret, setSecret] = useState('');
  const [reason, setReason] = useState('');
  const role = (room: string) => status.rooms.find((r) => r.room === room)?.role;
  return (
    <Card title={`Waiting for you (${status.waiting.length})`}>
      {act.error && <Alert>{act.error}</Alert>}
      {status.waiting.length === 0 ? (
        <p className="muted" data-testid="relay-nothing-waiting">Nothing waits for you.</p>
      ) : (
        <ul className="plain" data-testid="relay-waiting">
          {status.waiting.map((w) => (
            <li key={`${w.room}-${w.seq}`} data-testid={`relay-waiting-${w.payment_id ?? w.seq}`}>
              <strong>{w.wallet}</strong>: payment {w.payment_id} from {w.sender} — {w.message}
              {w.pays && <div data-testid="relay-waiting-pays">It {w.pays}.</div>}
              {role(w.room) === 'cosigner' ? (
                <div className="row">
                  <input type="password" placeholder="extended private key or recovery words" value={secret} onChange={(e) => setSecret(e.target.value)} data-testid="relay-sign-secret" aria-label="Your key" />
                  <button type="button" disabled={act.busy || !secret} data-testid="relay-sign" onClick={() => void act.run(async () => (await call('relay.sign', { room: w.room, payment_id: w.payment_id!, secret }), setSecret(''), reload()))}>
                    Sign and send back
                  </button>
                </div>
              ) : (
                <div className="row">
                  <button type="button" disabled={act.busy} data-testid="relay-approve" onClick={() => void act.run(async () => (await call('relay.approve', { room: w.room, payment_id: w.payment_id!, decision: 'approve' }), reload()))}>
                    Approve
                  </button>
                </div>
              )}
              <div className="row">
                <input placeholder="why you decline" value={reason} onChange={(e) => setReason(e.target.value)} data-testid="relay-decline-reason" aria-label="Reason" />
                <button type="button" disabled={act.busy || !reason} data-testid="relay-decline" onClick={() => void act.run(async () => (await call('relay.decline', { room: w.room, payment_id: w.payment_id!, reason }), setReason(''), reload()))}>
                  Decline
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

const KIND_WORDS: Record<string, string> = {
  'signing-request': 'Signing request',
  signatures: 'Signatures',
  psbt: 'Signed PSBT',
  declined: 'Declined',
  approval: 'Approval',
  roster: 'Member list',
  join: 'Request to join',
};

/** What this desk sent: delivered once the service numbered it; seen by a member once that member sent a message after it. */
function Sent({ status }: { status: RelayStatusView }) {
  return (
    <Card title="Sent">
      {status.sent.length === 0 ? (
        <p className="muted">This desk has sent nothing yet.</p>
      ) : (
        <ul className="plain" data-testid="relay-sent-list">
          {status.sent.map((m) => {
            const waiting = m.to.filter((n) => !m.seen_by.includes(n));
            return (
              <li key={`${m.room}-${m.seq}`} data-testid={`relay-sent-${m.kind}`}>
                <strong>{KIND_WORDS[m.kind] ?? m.kind}</strong>
                {m.payment ? ` for the ${m.payment}` : ''} in {m.wallet}, {when(m.sent_at)}, to {m.to.length ? m.to.join(', ') : 'this desk only'}: delivered (message {m.seq})
                {m.seen_by.length > 0 && `; seen by ${m.seen_by.join(', ')}`}
                {waiting.length > 0 && m.seen_by.length > 0 && `; not yet known to be seen by ${waiting.join(', ')}`}
              </li>
            );
          })}
        </ul>
      )}
      <p className="muted small">A member has seen a message once they send one after it: each message names the one before it.</p>
    </Card>
  );
}

function Join({ reload }: { reload: () => void }) {
  const act = useAction();
  const [code, setCode] = useState('');
  const [name, setName] = useState('');
  const [secret, setSecret] = useState('');
  const [ledger, setLedger] = useState(false);
  const [joined, setJoined] = useState<{ wallet: string; comparison: string; binding: 'key' | 'code' } | null>(null);
  return (
    <Card title="Join a wallet's room">
      <p className="muted">
        Type the invitation code the treasurer gave you. A co-signer may bind this desk by key: give your software key, or sign on your Ledger (the Bitcoin app 2.1 or later, at your key's path); otherwise you compare a code with the treasurer.
      </p>
      <div className="row">
        <input placeholder="invitation code" value={code} onChange={(e) => setCode(e.target.value)} data-testid="relay-join-code" aria-label="Invitation code" />
        <input placeholder="your name" value={name} onChange={(e) => setName(e.target.value)} data-testid="relay-join-name" aria-label="Your name" />
        <input type="password" placeholder="your key (optional)" value={secret} disabled={ledger} onChange={(e) => setSecret(e.target.value)} data-testid="relay-join-secret" aria-label="Your key (optional)" />
        <label className="inline">
          <input type="checkbox" checked={ledger} onChange={(e) => (setLedger(e.target.checked), setSecret(''))} data-testid="relay-join-ledger" />
          sign on my Ledger
        </label>
        <button
          type="button"
          disabled={act.busy || !code || !name}
          data-testid="relay-join"
          onClick={() => void act.run(async () => (setJoined(await call('relay.join', { code, name, ...(ledger ? { ledger: true } : secret ? { secret } : {}) })), setSecret(''), reload()))}
        >
          Join
        </button>
      </div>
      {act.error && <Alert>{act.error}</Alert>}
      {joined && (
        <Alert kind="success">
          Joined the room of {joined.wallet}.{' '}
          {joined.binding === 'key' ? 'Your key vouched for this desk.' : <>Read this code to the treasurer: <strong data-testid="relay-comparison">{joined.comparison}</strong></>}
        </Alert>
      )}
    </Card>
  );
}

function Invite({ reload }: { reload: () => void }) {
  const wallets = useLoad(() => call('wallets.list', {}), []);
  const act = useAction();
  const [walletId, setWalletId] = useState('');
  const [who, setWho] = useState('0');
  const [approver, setApprover] = useState('');
  const [made, setMade] = useState<{ code: string; name: string } | null>(null);
  const wallet = wallets.data?.find((w) => w.id === walletId) ?? wallets.data?.[0];
  const invite = () =>
    act.run(async () => {
      if (!wallet) return;
      setMade(await call('relay.invite', who === 'approver' ? { role: 'approver', wallet_id: wallet.id, name: approver } : { role: 'cosigner', wallet_id: wallet.id, position: Number(who) }));
      reload();
    });
  if (!wallets.data?.length) return null;
  return (
    <Card title="Invite a co-signer or an approver">
      <div className="row">
        <select value={wallet?.id ?? ''} onChange={(e) => setWalletId(e.target.value)} data-testid="relay-invite-wallet" aria-label="Wallet">
          {wallets.data.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
        </select>
        <select value={who} onChange={(e) => setWho(e.target.value)} data-testid="relay-invite-who" aria-label="Who">
          {wallet?.cosigners.map((c, i) => (
            <option key={i} value={String(i)}>
              co-signer {c.name}
            </option>
          ))}
          <option value="approver">an approver</option>
        </select>
        {who === 'approver' && <input placeholder="approver's name" value={approver} onChange={(e) => setApprover(e.target.value)} data-testid="relay-invite-approver" aria-label="Approver's name" />}
        <button type="button" disabled={act.busy || (who === 'approver' && !approver)} onClick={() => void invite()} data-testid="relay-invite">
          Make an invitation
        </button>
      </div>
      {act.error && <Alert>{act.error}</Alert>}
      {made && (
        <Alert kind="success">
          Give {made.name} this code, out of band (in person, by phone): <strong data-testid="relay-invitation-code">{made.code}</strong>
        </Alert>
      )}
    </Card>
  );
}

function PendingJoins({ status, reload }: { status: RelayStatusView; reload: () => void }) {
  const act = useAction();
  if (status.pending_joins.length === 0) return null;
  return (
    <Card title="Joins to confirm">
      {act.error && <Alert>{act.error}</Alert>}
      <ul className="plain">
        {status.pending_joins.map((j) => (
          <li key={j.device} data-testid={`relay-pending-${j.name}`}>
            {j.name} asks to join. Their screen must show <strong data-testid={`relay-pending-code-${j.name}`}>{j.comparison}</strong>.{' '}
            <button type="button" disabled={act.busy} data-testid={`relay-codes-match-${j.name}`} onClick={() => void act.run(async () => (await call('relay.confirmJoin', { room: j.room, device: j.device, same: true }), reload()))}>
              The codes match
            </button>{' '}
            <button type="button" disabled={act.busy} onClick={() => void act.run(async () => (await call('relay.confirmJoin', { room: j.room, device: j.device, same: false }), reload()))}>
              They differ
            </button>
          </li>
        ))}
      </ul>
    </Card>
  );
}

/** Which change to a member the treasurer is about to confirm. */
type MemberChange = { room: string; device: string; name: string; wallet: string; what: 'remove' | 'rotate' };

function Rooms({ status, reload }: { status: RelayStatusView; reload: () => void }) {
  const act = useAction();
  const [asking, setAsking] = useState<MemberChange | null>(null);
  const [done, setDone] = useState<{ words: string; code?: string } | null>(null);
  const confirm = (c: MemberChange) =>
    void act.run(async () => {
      if (c.what === 'remove') {
        await call('relay.removeMember', { room: c.room, device: c.device });
        setDone({ words: `${c.name} was removed from the room of ${c.wallet}: nothing their device sends counts any more, and it reads nothing new.` });
      } else {
        const made = await call('relay.rotateMember', { room: c.room, device: c.device });
        setDone({ words: `Give ${made.name} this code, out of band, to join again with a new device key; their old device is removed once the new one is admitted:`, code: made.code });
      }
      setAsking(null);
      reload();
    });
  return (
    <Card title="Rooms">
      {status.rooms.length === 0 ? (
        <p className="muted">This desk is in no room yet.</p>
      ) : (
        <ul className="plain" data-testid="relay-rooms">
          {status.rooms.map((r) => (
            <li key={r.room}>
              <strong>{r.wallet}</strong> ({r.role}): {r.members.map((m) => `${m.name}${m.binding === 'code' ? ' (verified by code)' : m.binding === 'key' ? ' (bound by key)' : ''}`).join(', ')}
              {/* A room this desk made with a relay key it no longer has (no wallet any more) takes no changes. */}
              {r.role === 'owner' && r.wallet_id !== null && (
                <ul className="plain small" data-testid="relay-members">
                  {r.members
                    .filter((m) => m.role !== 'owner')
                    .map((m) => (
                      <li key={m.device} data-testid={`relay-member-${m.name}`}>
                        {m.name} ({m.role === 'cosigner' ? 'co-signer' : 'approver'}){' '}
                        <button type="button" className="link" disabled={act.busy} data-testid={`relay-rotate-${m.name}`} onClick={() => (setDone(null), setAsking({ room: r.room, device: m.device, name: m.name, wallet: r.wallet, what: 'rotate' }))}>
                          Rotate key…
                        </button>{' '}
                        <button type="button" className="link danger" disabled={act.busy} data-testid={`relay-remove-${m.name}`} onClick={() => (setDone(null), setAsking({ room: r.room, device: m.device, name: m.name, wallet: r.wallet, what: 'remove' }))}>
                          Remove…
                        </button>
                      </li>
                    ))}
                </ul>
              )}
              {r.stuck && <Alert>{r.stuck}</Alert>}
            </li>
          ))}
        </ul>
      )}
      {asking && (
        <div className="card" role="alertdialog" aria-label={asking.what === 'remove' ? `Remove ${asking.name}` : `Rotate ${asking.name}'s key`} data-testid="relay-member-confirm">
          <p>
            {asking.what === 'remove'
              ? `Remove ${asking.name}'s device from the room of ${asking.wallet}? Nothing is sealed to it any more, and nothing it sends counts. Files still work for them.`
              : `Rotate ${asking.name}'s key in the room of ${asking.wallet}? You get a new invitation for ${asking.name}; when they join with it (their key vouches, or you compare a code), their old device is removed.`}
          </p>
          <div className="form-actions">
            <button type="button" className={asking.what === 'remove' ? 'danger' : 'primary'} disabled={act.busy} data-testid="relay-member-confirm-yes" onClick={() => confirm(asking)}>
              {asking.what === 'remove' ? `Remove ${asking.name}` : 'Make the new invitation'}
            </button>
            <button type="button" onClick={() => setAsking(null)}>
              Keep as it is
            </button>
          </div>
        </div>
      )}
      {act.error && <Alert>{act.error}</Alert>}
      {done && (
        <Alert kind="success">
          <span data-testid="relay-member-done">{done.words}</span> {done.code && <strong data-testid="relay-rotation-code">{done.code}</strong>}
        </Alert>
      )}
    </Card>
  );
}

/** The relay key stored on this computer cannot be read: what happened, what it means, and the treasurer's choices. */
function KeyProblem({ problem, status, made }: { problem: RelayKeyProblemView; status: RelayStatusView; made: (m: RelayNewKeyView) => void }) {
  const act = useAction();
  const [asking, setAsking] = useState(false);
  return (
    <Card title="The relay key cannot be read">
      <div data-testid="relay-key-problem">
        <Alert>
          <span data-testid="relay-key-what">{problem.what}</span>
        </Alert>
        <p data-testid="relay-key-means">{problem.means}</p>
        {status.rooms.length > 0 && <p className="muted">Rooms this desk is in: {status.rooms.map((r) => `${r.wallet} (${r.role === 'owner' ? 'made here' : r.role === 'cosigner' ? 'co-signer' : 'approver'})`).join(', ')}.</p>}
        <ul data-testid="relay-key-choices">
          {problem.choices.map((c) => (
            <li key={c}>{c}</li>
          ))}
        </ul>
        {!asking ? (
          <button type="button" className="danger" disabled={act.busy} data-testid="relay-new-key" onClick={() => setAsking(true)}>
            Make a new relay key…
          </button>
        ) : (
          <div className="card" role="alertdialog" aria-label="Make a new relay key" data-testid="relay-new-key-confirm">
            <p>Make a new relay key for this desk? The unreadable value is kept aside, not deleted. Every room must take this desk again: its treasurer removes the old device and invites this desk again, and the rooms this desk made are closed to it.</p>
            <div className="form-actions">
              <button
                type="button"
                className="danger"
                disabled={act.busy}
                data-testid="relay-new-key-yes"
                onClick={() =>
                  void act.run(async () => {
                    setAsking(false);
                    made(await call('relay.newKey', {}));
                  })
                }
              >
                Make a new relay key
              </button>
              <button type="button" onClick={() => setAsking(false)}>
                Keep as it is
              </button>
            </div>
          </div>
        )}
        {act.error && <Alert>{act.error}</Alert>}
      </div>
    </Card>
  );
}

function NewKeyMade({ made, dismiss }: { made: RelayNewKeyView; dismiss: () => void }) {
  return (
    <Alert kind={made.replaced ? 'success' : 'info'}>
      <div data-testid="relay-new-key-done">
        {made.replaced ? (
          <>
            <p>This desk has a new relay key (device {made.device}).{made.set_aside ? ` The unreadable value is kept aside: ${made.set_aside}.` : ''}</p>
            {made.rooms.length > 0 && (
              <ul>
                {made.rooms.map((r) => (
                  <li key={r}>{r}</li>
                ))}
              </ul>
            )}
          </>
        ) : (
          <p>The stored relay key reads again: nothing was replaced.</p>
        )}
        <button type="button" className="link" onClick={dismiss}>
          Close
        </button>
      </div>
    </Alert>
  );
}

export function Relay() {
  const { status, error, reload } = useRelay();
  /** What "Make a new relay key" did, kept on screen until closed. */
  const [made, setMade] = useState<RelayNewKeyView | null>(null);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Relay</h1>
          <p className="muted">Signing requests and signatures through your organisation's service, end-to-end encrypted. Everything that arrives is checked as a file would be; files still work.</p>
        </div>
        {typeof Notification !== 'undefined' && Notification.permission === 'default' && (
          <button type="button" onClick={() => void Notification.requestPermission()}>
            Notify me
          </button>
        )}
      </div>
      {error && <Alert>{error}</Alert>}
      {made && <NewKeyMade made={made} dismiss={() => setMade(null)} />}
      {!status ? (
        <Loading what="the relay" />
      ) : status.key_problem ? (
        <KeyProblem problem={status.key_problem} status={status} made={(m) => (setMade(m), reload())} />
      ) : (
        <>
          <div className="grid-2">
            <Waiting status={status} reload={reload} />
            <Sent status={status} />
          </div>
          <PendingJoins status={status} reload={reload} />
          <Invite reload={reload} />
          <Join reload={reload} />
          <Rooms status={status} reload={reload} />
          <Card title="What arrived">
            <ul className="plain" data-testid="relay-recent">
              {status.recent.map((e) => (
                <li key={`${e.room}-${e.seq}`} className={e.status === 'refused' ? 'error' : undefined}>
                  {e.message}
                </li>
              ))}
            </ul>
          </Card>
        </>
      )}
    </>
  );
}
